//! False-positive-rate theory for Bloom filters and their variants.
//!
//! Notation throughout: a filter of `m` bits holds `n` distinct items, each
//! set with `k` probes ("throws"); `t = k·n` throws in all, `X` is the
//! number of bits set, `c = m/n` bits per item and `α = kn/m`. Probes are
//! modelled as independent and uniform *with replacement*: an item may hit
//! the same bit twice, as real filters with independent hashes do.
//!
//! | function | formula | source |
//! |---|---|---|
//! | [`fpr_classical`] | `(1 − e^{−kn/m})^k` | Bloom 1970; Broder & Mitzenmacher 2004 |
//! | [`fpr_classical_discrete`] | `(1 − (1 − 1/m)^{kn})^k` | same, without the `e^x` step |
//! | [`fpr_exact`] | `E[(X/m)^k]` | Bose et al. 2008; Christensen et al. 2010 |
//! | [`fpr_partitioned`] | `(1 − (1 − 1/⌊m/k⌋)^n)^k` | standard; Almeida et al. 2007's layout |
//! | [`fpr_blocked`] | Poisson mixture over block loads | Putze, Sanders & Singler 2007 |
//! | [`scalable_layers`] | capacities `n0·s^i`, errors `P0·r^i` | Almeida et al. 2007 |
//! | [`estimate_count`] | `−(m/k)·ln(1 − X/m)` | Swamidass & Baldi 2007 |
//! | [`guava_expected_fpp`] | `(X/m)^k`, bit-exact with Guava | Guava `BloomFilter` |
//! | [`fpr_counting_overflow_bound`] | `m·C(kn, j)·m^{−j}` | Fan et al. 2000 |
//!
//! The classical formulas treat the `k` query bits as independent; they
//! are not (a filter with many set bits makes every query bit likelier to
//! be set), so by Jensen's inequality `exact ≥ discrete ≥ classical`, with
//! equality of the first two only at `k = 1`. The gap is `O(k²/m)`
//! relative: about 30% at `m = 16`, `c = 8`, `k = 6`, about `1e-6` at
//! `m = 1e7`. Use [`fpr_exact`] whenever a measured rate is compared with
//! theory; the classical formulas are for curves and for comparison with
//! other tools.
//!
//! Functions taking integers validate them and return
//! [`Error::InvalidParameter`] for nonsense (`m = 0`, `k = 0`, ...). The
//! few real-valued helpers ([`fpr_classical`], [`estimate_count`],
//! [`optimal_k`], [`scalable_compounded_error`]) return NaN instead, so
//! that sweeps can plot them without unwrapping.
//!
//! # Example
//!
//! Worked example A of `THEORY.md`: 12 bits, 2 items, 3 probes.
//!
//! ```
//! use bloomlab_core::theory::{self, ExactMethod};
//!
//! let exact = theory::fpr_exact(12, 2, 3)?;
//! assert!((exact.value - 31_213_469.0 / 429_981_696.0).abs() < 1e-15);
//! assert_eq!(
//!     theory::fpr_exact_rational_small(12, 2, 3),
//!     Some((31_213_469, 429_981_696)),
//! );
//! // The textbook formulas are 7% and 16% too low here.
//! let discrete = theory::fpr_classical_discrete(12, 2, 3)?;
//! let classical = theory::fpr_classical(12.0, 2.0, 3.0);
//! assert!(exact.value > discrete && discrete > classical);
//! // A partitioned filter (3 slices of 4 bits) does worse still.
//! assert_eq!(theory::fpr_partitioned(12, 2, 3)?, 343.0 / 4096.0);
//! # Ok::<(), bloomlab_core::Error>(())
//! ```

use std::f64::consts::{LN_2, LOG2_E};

use crate::{Error, Result};

/// Unit roundoff of `f64` (half an ulp of 1).
const U: f64 = f64::EPSILON / 2.0;

/// Most DP steps (state updates) [`fpr_exact`] spends before it switches
/// to the closed forms: about 0.1 s in an optimised build.
const DP_BUDGET: f64 = 1.0e8;

/// Probabilities below this are dropped from the DP's window. It is the
/// "E\[X\] ± 36 sd" window made adaptive, and keeps clear of subnormals
/// (which are slow); the dropped mass is tracked and reported.
const DP_TRIM: f64 = 1.0e-290;

/// Certified relative error under which the `O(k²)` inclusion–exclusion
/// sum is used first (it takes microseconds; the other exact evaluations
/// are slower, though more accurate).
const STIRLING_TIGHT: f64 = 1.0e-12;

/// Relative error bound under which the Stirling sum is preferred to the
/// second-order approximation whatever the latter's own estimate.
const STIRLING_LOOSE: f64 = 1.0e-9;

/// Mixture weights are summed until the neglected tail is below this
/// fraction of the mass summed so far (on each side); the block-load
/// mixtures go on until the neglected tail of their *terms* is below this
/// fraction of their sum (see [`load_mixture`]).
const MIXTURE_TAIL: f64 = 1.0e-16;

/// Largest `k` accepted by the exact formulas: they cost `O(k²)` at
/// least, and no Bloom filter uses more (Guava stops at 255).
pub const MAX_EXACT_K: u32 = 10_000;

fn check_m(m: u64) -> Result<()> {
    if m == 0 {
        return Err(Error::invalid("m", m, "must be at least 1"));
    }
    Ok(())
}

fn check_k(k: u32) -> Result<()> {
    if k == 0 {
        return Err(Error::invalid("k", k, "must be at least 1"));
    }
    Ok(())
}

fn check_exact_k(k: u32) -> Result<()> {
    check_k(k)?;
    if k > MAX_EXACT_K {
        return Err(Error::invalid("k", k, "must be at most 10000"));
    }
    Ok(())
}

/// ln P(a given bit is still 0 after `throws` throws), `throws·ln(1−1/m)`.
fn ln_empty(m: u64, throws: f64) -> f64 {
    if throws == 0.0 {
        // Avoids 0·(−∞) when m = 1.
        return 0.0;
    }
    throws * (-1.0 / m as f64).ln_1p()
}

/// The classical approximation `(1 − e^{−kn/m})^k` (Bloom 1970; Broder &
/// Mitzenmacher 2004).
///
/// It assumes that the fraction of set bits is exactly its expectation,
/// that probes are independent, and replaces `(1 − 1/m)^{kn}` by
/// `e^{−kn/m}`; each step makes it lower than the truth (see the module
/// docs). Real-valued so that sweeps can draw smooth curves in `k` or `c`.
///
/// Domain: `m > 0`, `n ≥ 0`, `k ≥ 0`, all finite; anything else gives NaN.
/// `n = 0` gives 0 and `k = 0` gives 1 (the empty query always matches).
pub fn fpr_classical(m: f64, n: f64, k: f64) -> f64 {
    let valid = m > 0.0
        && n >= 0.0
        && k >= 0.0
        && m.is_finite()
        && n.is_finite()
        && k.is_finite();
    if !valid {
        return f64::NAN;
    }
    // −expm1 keeps full precision when the filter is nearly empty.
    (-(-k * n / m).exp_m1()).powf(k)
}

/// The independence form `(1 − (1 − 1/m)^{kn})^k` ("`FPR_pow`" in
/// `THEORY.md` §1).
///
/// `1 − (1 − 1/m)^{kn}` is the exact probability that a given bit is set
/// (`E[X]/m`); raising it to the `k`-th power still treats the query bits
/// as independent, so this is below [`fpr_exact`] for `k ≥ 2` and equal to
/// it for `k = 1`. Computed as `(−expm1(kn·ln1p(−1/m)))^k`, accurate to a
/// few ulps for every `m` (no `1 − 1/m` rounding at large `m`).
///
/// Domain: `m ≥ 1`, `k ≥ 1`, any `n` (`n = 0` gives 0).
pub fn fpr_classical_discrete(m: u64, n: u64, k: u32) -> Result<f64> {
    check_m(m)?;
    check_k(k)?;
    if n == 0 {
        return Ok(0.0);
    }
    let throws = f64::from(k) * n as f64;
    let fill = -ln_empty(m, throws).exp_m1();
    Ok(fill.powf(f64::from(k)))
}

/// Mean and variance of the number of set bits `X`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetBitsMoments {
    /// `E[X] = m(1 − q^t)`, `q = 1 − 1/m`, `t = kn`.
    pub mean: f64,
    /// `Var[X] = m(m−1)(1−2/m)^t + m q^t − m² q^{2t}`.
    pub variance: f64,
}

/// Exact mean and variance of the number of set bits after `n` items of
/// `k` independent uniform probes each (`THEORY.md` §2; classical occupancy
/// results).
///
/// The variance is evaluated as
/// `−m q^t·expm1(t·ln(1 − 1/(m−1))) + m² q^{2t}·expm1(t·ln(1 − 1/(m−1)²))`,
/// which equals the textbook form above but keeps its digits at large
/// `m`: in a sparse filter the two terms are about `t` each, not `m`.
///
/// Domain: `m ≥ 1`, `k ≥ 1`, any `n`.
pub fn set_bits_moments(m: u64, n: u64, k: u32) -> Result<SetBitsMoments> {
    check_m(m)?;
    check_k(k)?;
    Ok(moments_after(m, f64::from(k) * n as f64))
}

/// [`set_bits_moments`] after `throws` throws.
fn moments_after(m: u64, throws: f64) -> SetBitsMoments {
    let mf = m as f64;
    if throws == 0.0 {
        return SetBitsMoments { mean: 0.0, variance: 0.0 };
    }
    if m == 1 {
        return SetBitsMoments { mean: 1.0, variance: 0.0 };
    }
    let ln_q_t = ln_empty(m, throws);
    let mean = -mf * ln_q_t.exp_m1();
    // Var = m·a + m(m−1)·b − m²a² for a = q^t, b = (1 − 2/m)^t, the
    // empty count's variance, written as two expm1 terms:
    // m·a·(1 − b/a) + m²a²·(b/a² − 1), with b/a = (1 − 1/(m−1))^t and
    // b/a² = (1 − 1/(m−1)²)^t exactly. In a sparse filter each term is
    // about t and the variance about t²/(2m), so they cancel only t's
    // digits; the form with m·a alone cancelled m's (10% off at m = 2^40,
    // n = 10^4, k = 3).
    let m1 = mf - 1.0;
    let a = ln_q_t.exp();
    let spread = -mf * a * (throws * (-1.0 / m1).ln_1p()).exp_m1();
    let pairs =
        mf * mf * a * a * (throws * (-1.0 / (m1 * m1)).ln_1p()).exp_m1();
    let variance = (spread + pairs).max(0.0);
    SetBitsMoments { mean, variance }
}

/// The relative spread across filters of a blocked filter's own
/// false-positive rate: `sd(R)/E[R]` for `R = (1/b)·Σ_j (X_j/B)^k`, the
/// rate of a random non-member given the bits, over the `b = m/B` blocks'
/// fills `X_j` — what a filter's measured rate converges to, and what
/// varies from one filter to the next.
///
/// Two things vary: how many keys land in each block (a block's load `L`
/// is `Poisson(λ = nB/m)`, the loads summing to `n`), and how a block's
/// `kL` probes fill it. With `h(l)` and `v(l)` the mean and variance of
/// `(X/B)^k` at load `l`,
///
/// ```text
/// Var(R) ≈ (E[v(L)] + Var(h(L)) − Cov(h(L), L)²/λ) / b
/// ```
///
/// where the last term is what fixing the total load takes from the
/// blocks' independent spread (the regression of `h(L)` on `L`). `h` and
/// `v` take the fill's mean and variance after `kl` throws into `B` bits
/// ([`set_bits_moments`]) to first order, as the standard filter's spread
/// `k·sd(X)/E[X]` does. The Poisson loads and the linear regression are
/// a many-blocks approximation: with few blocks it overstates the spread
/// (one block, `B = m = 512`, `n = 40`, `k = 8`: 0.458, where the exact
/// occupancy law gives 0.201), so for a filter of one block take the
/// standard filter's `k·sd(X)/E[X]` from [`set_bits_moments`] instead.
/// The loads' spread dominates: at `B = 512`, 20 bits per key and
/// `k = 14` the spread is 0.028 of the rate, five times a standard filter's
/// of the same bits (0.0055); a seeded test checks the formula against
/// simulated filters, and 40 real ones of that design spread by 0.027.
///
/// Domain: `m ≥ 1`, `1 ≤ k ≤` [`MAX_EXACT_K`], `1 ≤ B ≤ m`, any `n`
/// (`n = 0` gives 0).
pub fn blocked_rate_relative_sd(
    m: u64,
    n: u64,
    k: u32,
    block_bits: u64,
) -> Result<f64> {
    check_blocked(m, k, block_bits)?;
    if n == 0 {
        return Ok(0.0);
    }
    let lambda = mean_block_load(m, n, block_bits)?;
    let kf = f64::from(k);
    let (mut mass, mut eh, mut ev, mut eh2, mut ehl) =
        (0.0, 0.0, 0.0, 0.0, 0.0);
    for (l, w) in (LoadLaw::Poisson { lambda }).bulk() {
        let fill = moments_after(block_bits, kf * l as f64);
        let bf = block_bits as f64;
        let h = (fill.mean / bf).powf(kf);
        let v = if fill.mean > 0.0 {
            h * h * kf * kf * fill.variance / (fill.mean * fill.mean)
        } else {
            0.0
        };
        mass += w;
        eh += w * h;
        ev += w * v;
        eh2 += w * h * h;
        ehl += w * h * l as f64;
    }
    let (eh, ev, eh2, ehl) = (eh / mass, ev / mass, eh2 / mass, ehl / mass);
    if eh <= 0.0 {
        return Ok(0.0);
    }
    let cov = ehl - eh * lambda;
    let blocks = m as f64 / block_bits as f64;
    let var = (ev + (eh2 - eh * eh) - cov * cov / lambda) / blocks;
    Ok(var.max(0.0).sqrt() / eh)
}

/// How [`fpr_exact`] evaluated the exact formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExactMethod {
    /// Dynamic programme over the distribution of `X`, throw by throw:
    /// non-negative terms only, accurate to about `3·kn` ulps at worst.
    Dp,
    /// The Stirling-number form `Σ_j S(k,j)(m)_j/m^k · A_j`, with `A_j`
    /// by inclusion–exclusion ([`fpr_exact_stirling`], certified bound) or
    /// in non-negative terms ([`fpr_exact_stirling_positive`]).
    StirlingSum,
    /// The second-order approximation
    /// `FPR_pow·(1 + k(k−1)/2 · Var[X]/E[X]²)`.
    Approximation,
}

impl ExactMethod {
    /// Stable lower-case name for reports: `"dp"`, `"stirling-sum"` or
    /// `"approximation"`.
    pub fn name(self) -> &'static str {
        match self {
            ExactMethod::Dp => "dp",
            ExactMethod::StirlingSum => "stirling-sum",
            ExactMethod::Approximation => "approximation",
        }
    }
}

/// The exact false-positive rate with the method that produced it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exact {
    /// The false-positive rate, in `[0, 1]`.
    pub value: f64,
    /// Which evaluation was used.
    pub method: ExactMethod,
    /// Estimated relative error of `value`: a rounding-error bound for
    /// [`ExactMethod::Dp`] and [`ExactMethod::StirlingSum`] (pessimistic;
    /// the real error is usually far smaller), the size of the neglected
    /// terms for [`ExactMethod::Approximation`] (an order of magnitude).
    pub error_estimate: f64,
}

impl Exact {
    /// The value clamped to `[0, 1]`. Rounding can take a rate near 1 a
    /// few ulps above it (sums of non-negative terms too) and a cancelling
    /// sum below 0; the truth lies in `[0, 1]`, so clamping only brings
    /// the value closer to it and the error estimate still holds.
    fn clamped(self) -> Exact {
        Exact { value: self.value.clamp(0.0, 1.0), ..self }
    }
}

/// The exact false-positive rate of a standard Bloom filter,
/// `E[(X/m)^k]` (Bose et al. 2008, "On the false-positive rate of Bloom
/// filters", IPL 108(4); Christensen, Roginsky & Jimeno 2010, IPL 110(21)).
///
/// Given the filter, a non-member's `k` probes all land on set bits with
/// probability `(X/m)^k`; averaging over filters gives
///
/// ```text
/// FPR = m^{-k(n+1)} Σ_{i=1..m} i^k i! C(m,i) S(kn,i)
///     = m^{-k} Σ_{j=1..k} S(k,j) (m)_j Σ_{l=0..j} (−1)^l C(j,l) (1 − l/m)^{kn}
/// ```
///
/// (`S` = Stirling numbers of the second kind, `(m)_j` falling factorial).
/// The evaluations, tried in this order:
///
/// 1. [`fpr_exact_stirling`], the second form by inclusion–exclusion
///    (`O(k²)`, microseconds), when its certified relative error bound is
///    ≤ 1e-12 (the sum cancels as the rate falls: roughly FPR ≳ 1e-3).
/// 2. [`fpr_exact_stirling_positive`], the same form with every term
///    non-negative (accurate to ~1e-14 at any rate and any `m`), when it
///    costs at most 1e8 state updates: every real filter (its cost grows
///    as `α k³`, `α = kn/m`, so only heavily overfull filters with large
///    `k` exceed it).
/// 3. [`fpr_exact_dp`], the distribution of `X` throw by throw, when that
///    costs at most 1e8 state updates (`kn` throws times a window of
///    `min(m, E[X] ± 36 sd)` states): small `m` with huge `kn`.
/// 4. Otherwise the inclusion–exclusion sum if its bound is ≤ 1e-9 and
///    the result is sane (finite, at most 1 plus its error bound, ≥
///    [`fpr_classical_discrete`]) — which is the case for such overfull
///    filters, whose rate is near 1 — else whichever of it and
///    [`fpr_exact_second_order`] has the smaller error estimate. Then the
///    method is reported as [`ExactMethod::Approximation`].
///
/// Whichever evaluation is used, its value is clamped to `[0, 1]`: near
/// 1, rounding can put any of them an ulp or so above 1 (e.g. `m = 5`,
/// `n = 10^6`, `k = 3` gave `1 + 2.4e-13`), which would make `p(1 − p)`
/// negative downstream.
///
/// Checked in the tests against exhaustive enumeration (`m ≤ 12`), exact
/// rationals, 300/600-digit evaluations (up to `m = 2^40`, `k = 300`,
/// rates down to 1e-166; errors ≤ 2e-14) and seeded Monte Carlo.
///
/// The chosen method and its error estimate are reported in [`Exact`];
/// the estimate assumes a normal `f64` result: a rate below 2.2e-308 is
/// subnormal and carries fewer digits (1.2e-317 is good to about 1e-7).
/// `n = 0` gives 0 and `m = 1` gives 1, both exactly.
///
/// Domain: `m ≥ 1`, `1 ≤ k ≤` [`MAX_EXACT_K`], any `n`. Runs in
/// microseconds for typical sizes (`m = 1e7`, `n = 1e6`, `k = 7`: 6.1 µs),
/// well under a millisecond for `k` in the hundreds (`m = 10^6`,
/// `n = 2·10^4`, `k = 300`: 0.14 ms), and under a second (optimised
/// build) in the slowest cases found: 0.45 s at `m = 2^64 − 1`,
/// `n = 10^4`, `k = 1000` (`cargo bench -p bloomlab-benches --bench
/// theory`, 2026-12-08), about 0.14 s at `k = 10^4`.
pub fn fpr_exact(m: u64, n: u64, k: u32) -> Result<Exact> {
    exact_with_budget(m, n, k, DP_BUDGET)
}

fn exact_with_budget(m: u64, n: u64, k: u32, budget: f64) -> Result<Exact> {
    Ok(choose_exact(m, n, k, budget)?.clamped())
}

/// The evaluation [`fpr_exact`] picks, before clamping.
fn choose_exact(m: u64, n: u64, k: u32, budget: f64) -> Result<Exact> {
    check_m(m)?;
    check_exact_k(k)?;
    if n == 0 {
        return Ok(Exact {
            value: 0.0,
            method: ExactMethod::Dp,
            error_estimate: 0.0,
        });
    }
    if m == 1 {
        return Ok(Exact {
            value: 1.0,
            method: ExactMethod::Dp,
            error_estimate: 0.0,
        });
    }
    let pow = fpr_classical_discrete(m, n, k)?;
    let stirling = inclusion_exclusion(m, n, k)?;
    // A rate near 1 may come out above 1 within the sum's error bound
    // (the truth is ≤ 1, so value ≤ 1 + bound); it is clamped later.
    let sane = stirling.value.is_finite()
        && stirling.value <= 1.0 + stirling.error_estimate
        && stirling.value >= pow * (1.0 - 64.0 * U);
    if sane && stirling.error_estimate <= STIRLING_TIGHT {
        return Ok(stirling);
    }
    let throws = f64::from(k) * n as f64;
    let fits = throws < u64::MAX as f64;
    if fits && positive_cost(m, throws, k) <= budget {
        return fpr_exact_stirling_positive(m, n, k);
    }
    if fits && dp_cost(m, throws) <= budget {
        return fpr_exact_dp(m, n, k);
    }
    if sane && stirling.error_estimate <= STIRLING_LOOSE {
        return Ok(stirling);
    }
    let approx = fpr_exact_second_order(m, n, k)?;
    if sane && stirling.error_estimate <= approx.error_estimate {
        Ok(stirling)
    } else {
        Ok(approx)
    }
}

/// Estimated number of state updates for a DP of `throws` throws into `m`
/// bits: throws × window width, the window being the whole range or
/// ±38 sd of the widest distribution met on the way.
fn dp_cost(m: u64, throws: f64) -> f64 {
    // Var[X] grows until about 1.2564·m throws (where e^a = 1 + 2a), then
    // shrinks; take its largest value on the way.
    let peak = throws.min((1.2564 * m as f64).ceil());
    let sd = moments_after(m, peak).variance.sqrt();
    let width = (m as f64 + 1.0).min(throws + 1.0).min(76.0 * sd + 3.0);
    throws * width
}

/// Distribution of the number of set bits, throw by throw.
///
/// `p_{t+1}(x) = p_t(x)·x/m + p_t(x−1)·(m−x+1)/m`, over a window of states
/// whose probability is at least [`DP_TRIM`].
struct Occupancy {
    m: u64,
    mf: f64,
    inv_m: f64,
    /// The state (number of set bits) of `cur[off]`.
    lo: u64,
    cur: Vec<f64>,
    off: usize,
    next: Vec<f64>,
    /// Probability mass dropped from the window so far.
    dropped: f64,
    throws: u64,
}

impl Occupancy {
    fn new(m: u64) -> Occupancy {
        let mf = m as f64;
        Occupancy {
            m,
            mf,
            inv_m: 1.0 / mf,
            lo: 0,
            cur: vec![1.0],
            off: 0,
            next: Vec::new(),
            dropped: 0.0,
            throws: 0,
        }
    }

    fn window(&self) -> &[f64] {
        self.cur.get(self.off..).unwrap_or(&[])
    }

    fn step(&mut self) {
        let src = self.cur.get(self.off..).unwrap_or(&[]);
        let len = src.len();
        if len == 0 {
            return;
        }
        let hi = self.lo + len as u64 - 1;
        let grow = hi < self.m;
        let new_len = if grow { len + 1 } else { len };
        self.next.clear();
        self.next.resize(new_len, 0.0);
        let inv_m = self.inv_m;
        let lo_f = self.lo as f64;
        let m_plus_1 = self.mf + 1.0;
        // State lo: nothing below the window can move up into it.
        if let (Some(out), Some(&p)) = (self.next.first_mut(), src.first()) {
            *out = p * (lo_f * inv_m);
        }
        for (i, (out, w)) in
            self.next.iter_mut().skip(1).zip(src.windows(2)).enumerate()
        {
            let x = lo_f + (i + 1) as f64;
            *out = w[1] * (x * inv_m) + w[0] * ((m_plus_1 - x) * inv_m);
        }
        if grow {
            let x = lo_f + len as f64;
            if let (Some(out), Some(&p)) = (self.next.last_mut(), src.last()) {
                *out = p * ((m_plus_1 - x) * inv_m);
            }
        }
        // Trim negligible tails, keeping at least one state.
        let mut end = new_len;
        while end > 1 && self.next[end - 1] < DP_TRIM {
            end -= 1;
            self.dropped += self.next[end];
        }
        let mut start = 0;
        while start + 1 < end && self.next[start] < DP_TRIM {
            self.dropped += self.next[start];
            start += 1;
        }
        self.next.truncate(end);
        std::mem::swap(&mut self.cur, &mut self.next);
        self.off = start;
        self.lo += start as u64;
        self.throws += 1;
    }

    /// `P(X = m)`: every bit set.
    fn prob_full(&self) -> f64 {
        let window = self.window();
        match window.last() {
            Some(&p) if self.lo + window.len() as u64 - 1 == self.m => p,
            _ => 0.0,
        }
    }

    /// `E[(X/m)^k]` over the current window.
    fn moment(&self, k: u32) -> f64 {
        let kf = f64::from(k);
        let lo_f = self.lo as f64;
        self.window()
            .iter()
            .enumerate()
            .map(|(i, &p)| p * ((lo_f + i as f64) * self.inv_m).powf(kf))
            .sum()
    }
}

/// Relative error estimate of a DP read-off: at most ~3 roundings per
/// update along each of `throws` steps (all terms are non-negative, so
/// relative errors add), plus the final sum and the dropped mass.
fn dp_error(occ: &Occupancy, k: u32, value: f64) -> f64 {
    if value <= 0.0 {
        return 1.0;
    }
    let steps = occ.throws as f64;
    let width = occ.window().len() as f64;
    (3.0 * steps + f64::from(k) + width + 4.0) * U + occ.dropped / value
}

/// [`fpr_exact`] by dynamic programming over the number of set bits.
///
/// Starts from `X = 0` and applies `kn` throws,
/// `p(x) ← p(x)·x/m + p(x−1)·(m−x+1)/m`, then sums `p(x)·(x/m)^k`. All
/// terms are non-negative, so the result is accurate to about `3·kn` ulps
/// in the worst case (far better in practice; `THEORY.md` measured 1e-12
/// against exact rationals up to `m = 1e4`). States with probability below
/// 1e-290 are dropped (an adaptive `E[X] ± 36 sd` window); the dropped
/// mass is included in the error estimate. The value is clamped to at
/// most 1 (rounding can take a rate near 1 just above it).
///
/// Cost: `kn` throws times the window width, `min(m, kn, ~76·sd(X))`. No
/// budget is applied here; [`fpr_exact`] calls this only when it is
/// affordable.
///
/// Domain: `m ≥ 1`, `1 ≤ k ≤` [`MAX_EXACT_K`], `k·n < 2^64`.
pub fn fpr_exact_dp(m: u64, n: u64, k: u32) -> Result<Exact> {
    check_m(m)?;
    check_exact_k(k)?;
    let throws = u64::from(k)
        .checked_mul(n)
        .ok_or_else(|| Error::invalid("n", n, "k·n must fit in 64 bits"))?;
    let mut occ = Occupancy::new(m);
    for _ in 0..throws {
        occ.step();
    }
    let value = if n == 0 { 0.0 } else { occ.moment(k) };
    let error_estimate = if n == 0 { 0.0 } else { dp_error(&occ, k, value) };
    Ok(Exact { value, method: ExactMethod::Dp, error_estimate }.clamped())
}

/// `d[j]` = P(a query's `k` probes hit exactly `j` distinct bits)
/// `= S(k,j)(m)_j/m^k`, for `j = 0..=jmax` (`jmax = min(k, m)`), by a DP
/// over the probes: non-negative terms, no Stirling-number overflow.
fn distinct_probe_distribution(m: u64, k: u32, jmax: usize) -> Vec<f64> {
    let mf = m as f64;
    let inv_m = 1.0 / mf;
    let mut d = vec![0.0; jmax + 1];
    d[0] = 1.0;
    for probe in 0..k as usize {
        let top = (probe + 1).min(jmax);
        for j in (1..=top).rev() {
            let jf = j as f64;
            let next =
                d[j] * (jf * inv_m) + d[j - 1] * ((mf - jf + 1.0) * inv_m);
            // Flush what could only become subnormal (slow, and < 1e-300
            // of a probability that sums to 1).
            d[j] = if next < 1e-300 { 0.0 } else { next };
        }
        d[0] = 0.0;
    }
    d
}

fn jmax_for(m: u64, k: u32) -> Result<usize> {
    usize::try_from(u64::from(k).min(m))
        .map_err(|_| Error::invalid("k", k, "too large for this platform"))
}

/// [`fpr_exact`] by the Stirling-number sum in non-negative terms.
///
/// Same decomposition as [`fpr_exact_stirling`], `FPR = Σ_j d_j A_j`, but
/// the probability `A_j` that `j` given bits are all set is computed
/// without inclusion–exclusion: condition on the number `s` of the `kn`
/// throws that land on those bits,
///
/// ```text
/// A_j = Σ_s Binomial(kn, j/m)(s) · j! S(s, j) / j^s
/// ```
///
/// where `j! S(s,j)/j^s` (all `j` bits covered by `s` throws) comes from
/// the occupancy DP on `j` bits. Every term is non-negative, so the result
/// is accurate to a few hundred ulps whatever the rate, at any `m`; the
/// binomial is summed outward from its mode until the neglected tails are
/// below 1e-16 of its mass. Cost `≈ Σ_{j≤k} j·(αj + 10√(αj) + 30)`,
/// `α = kn/m`: microseconds to milliseconds for real filters, growing as
/// `α k³` for overfull ones (where [`fpr_exact_stirling`] is accurate).
/// No budget is applied here; [`fpr_exact`] calls it when affordable.
/// The value is clamped to at most 1 (rounding can take a rate near 1
/// just above it: `m = 5`, `n = 10^6`, `k = 3` gave `1 + 2.4e-13`).
///
/// Domain: `m ≥ 1`, `1 ≤ k ≤` [`MAX_EXACT_K`], `k·n < 2^64`.
pub fn fpr_exact_stirling_positive(m: u64, n: u64, k: u32) -> Result<Exact> {
    check_m(m)?;
    check_exact_k(k)?;
    let method = ExactMethod::StirlingSum;
    if n == 0 {
        return Ok(Exact { value: 0.0, method, error_estimate: 0.0 });
    }
    let throws = u64::from(k)
        .checked_mul(n)
        .ok_or_else(|| Error::invalid("n", n, "k·n must fit in 64 bits"))?;
    let jmax = jmax_for(m, k)?;
    let d = distinct_probe_distribution(m, k, jmax);
    let mut value = 0.0;
    let mut dropped = 0.0;
    let mut worst = 0.0f64;
    for (j, &dj) in d.iter().enumerate().skip(1) {
        if dj == 0.0 {
            continue;
        }
        let cover = cover_all(m, throws, j as u64);
        value += dj * cover.value;
        dropped += dj * cover.dropped;
        worst = worst.max(cover.roundings);
    }
    let error_estimate = if value > 0.0 {
        (worst + 3.0 * f64::from(k) + 16.0) * U + dropped / value
    } else {
        1.0
    };
    Ok(Exact { value, method, error_estimate }.clamped())
}

/// `A_j` of [`fpr_exact_stirling_positive`] with its rounding budget.
struct Cover {
    value: f64,
    /// Probability mass the occupancy DP dropped (absolute).
    dropped: f64,
    /// Roundings along the longest chain, in units of `U`.
    roundings: f64,
}

/// P(all of `j` given bits are set after `throws` throws into `m` bits).
///
/// `Σ_s Bin(throws, j/m)(s) · cover_j(s)`. `cover_j(s)` is zero below
/// `s = j` and grows with `s`, so the important terms may lie far in the
/// binomial's upper tail (few set bits, large `j`): the sum starts at
/// `max(j, bulk start)`, walks the binomial up from its mode if needed, and
/// stops only once the remaining binomial tail, times `cover ≤ 1`, is below
/// 1e-17 of the sum.
fn cover_all(m: u64, throws: u64, j: u64) -> Cover {
    // Rescaling factor that keeps the walked pmf clear of underflow.
    const RESCALE: f64 = 1e250;
    let mut occ = Occupancy::new(j);
    if throws < j {
        return Cover { value: 0.0, dropped: 0.0, roundings: 0.0 };
    }
    let p = j as f64 / m as f64;
    if p >= 1.0 {
        // All throws land on the j = m bits.
        while occ.throws < throws {
            occ.step();
        }
        let roundings = 3.0 * throws as f64;
        return Cover {
            value: occ.prob_full(),
            dropped: occ.dropped,
            roundings,
        };
    }
    let bulk = binomial_weights(throws, p);
    let t = throws as f64;
    let odds = p / (1.0 - p);
    let ratio_up = |s: u64| (t - s as f64) / (s as f64 + 1.0) * odds;
    let mode = (t + 1.0) * p;
    let bulk_top = bulk.last().map_or(0, |&(s, _)| s);
    // Start at the first bulk point at or above j, else walk the pmf up
    // from the bulk's top to j, rescaling it whenever it gets small.
    let mut scale = 0i32;
    let (mut s, mut w) = match bulk.iter().find(|&&(s, _)| s >= j) {
        Some(&(s, w)) => (s, w),
        None => {
            let (mut s, mut w) = bulk.last().copied().unwrap_or((j, 0.0));
            while s < j && w > 0.0 {
                w *= ratio_up(s);
                s += 1;
                if w < 1.0 / RESCALE && w > 0.0 {
                    w *= RESCALE;
                    scale += 1;
                }
            }
            (s.max(j), w)
        }
    };
    let walked = s.saturating_sub(bulk_top);
    let mut value = 0.0;
    let mut terms = 0u64;
    loop {
        while occ.throws < s {
            occ.step();
        }
        let unscale = RESCALE.powi(-scale);
        value += w * occ.prob_full() * unscale;
        terms += 1;
        if s >= throws {
            break;
        }
        let r = ratio_up(s);
        if s as f64 >= mode && r < 1.0 {
            let tail = w * r / (1.0 - r) * unscale;
            // The rest adds under 1e-17 of the sum, or nothing at all.
            if tail <= 1e-17 * value || tail < 1e-300 {
                break;
            }
        }
        w *= r;
        s += 1;
        if w < 1.0 / RESCALE && w > 0.0 {
            w *= RESCALE;
            scale += 1;
        }
    }
    let chain = bulk.len() as f64 + walked as f64 + terms as f64;
    let roundings = 3.0 * occ.throws as f64 + 3.0 * chain;
    Cover { value, dropped: occ.dropped, roundings }
}

/// Estimated cost (state updates) of [`fpr_exact_stirling_positive`].
fn positive_cost(m: u64, throws: f64, k: u32) -> f64 {
    let jmax = u64::from(k).min(m);
    let mut cost = 0.0;
    for j in 1..=jmax {
        let jf = j as f64;
        let mu = throws * jf / m as f64;
        let s_end =
            (mu + 10.0 * mu.sqrt() + 30.0).max(2.0 * jf + 60.0).min(throws);
        let width = (jf + 1.0).min(25.0 * jf.sqrt() + 3.0);
        cost += s_end * width + s_end;
    }
    cost
}

/// Normalised `Binomial(n, p)` weights `(s, w)`, summed outward from the
/// mode until each neglected tail is below [`MIXTURE_TAIL`] of the mass.
fn binomial_weights(n: u64, p: f64) -> Vec<(u64, f64)> {
    if p >= 1.0 {
        return vec![(n, 1.0)];
    }
    if p <= 0.0 {
        return vec![(0, 1.0)];
    }
    let nf = n as f64;
    let mode = (((nf + 1.0) * p).floor() as u64).min(n);
    let odds = p / (1.0 - p);
    unimodal_weights(
        mode,
        n,
        |i| (nf - i as f64) / (i as f64 + 1.0) * odds,
        |i| i as f64 / (nf - i as f64 + 1.0) / odds,
    )
}

/// [`fpr_exact`] by the `O(k²)` Stirling / inclusion–exclusion sum.
///
/// ```text
/// FPR = Σ_j d_j A_j,   d_j = S(k,j)(m)_j/m^k,
///                      A_j = Σ_{l=0..j} (−1)^l C(j,l) (1 − l/m)^{kn}
/// ```
///
/// `d_j` is the probability that a query's `k` probes hit exactly `j`
/// distinct bits (computed by a small non-negative DP, so `k` may exceed
/// 255 without overflowing Stirling numbers) and `A_j` the probability
/// that `j` given bits are all set (inclusion–exclusion). `A_j` cancels
/// catastrophically when it is small, so the function also returns a
/// rounding-error bound, `Σ_j d_j Σ_l C(j,l)(1 − l/m)^{kn}·(few ulps)`,
/// relative to the result. `THEORY.md` §2 measured ≤ 1e-13 relative for
/// FPR ≥ 1e-3, 4.5e-8 at FPR 3.7e-8; trust the returned bound. The value
/// is clamped to `[0, 1]`, which rounding can leave (just above 1 near
/// 1, below 0 where the sum is all cancellation); the bound is that of
/// the unclamped sum.
///
/// Domain: `m ≥ 1`, `1 ≤ k ≤` [`MAX_EXACT_K`], any `n`.
pub fn fpr_exact_stirling(m: u64, n: u64, k: u32) -> Result<Exact> {
    Ok(inclusion_exclusion(m, n, k)?.clamped())
}

/// [`fpr_exact_stirling`] before clamping.
fn inclusion_exclusion(m: u64, n: u64, k: u32) -> Result<Exact> {
    check_m(m)?;
    check_exact_k(k)?;
    if n == 0 {
        return Ok(Exact {
            value: 0.0,
            method: ExactMethod::StirlingSum,
            error_estimate: 0.0,
        });
    }
    let throws = f64::from(k) * n as f64;
    let mf = m as f64;
    let jmax = jmax_for(m, k)?;
    let d = distinct_probe_distribution(m, k, jmax);

    // w[l] = (1 − l/m)^{kn} and its relative error.
    let mut w = vec![0.0; jmax + 1];
    let mut w_err = vec![0.0; jmax + 1];
    for l in 0..=jmax {
        if l as u64 == m {
            // Every bit is set: exactly 0, no ln(0).
            continue;
        }
        let e = throws * (-(l as f64) / mf).ln_1p();
        w[l] = e.exp();
        w_err[l] = (2.0 * e.abs() + 2.0) * U;
    }

    // Pascal's row C(j, ·), updated in place.
    let mut row = vec![0.0; jmax + 1];
    row[0] = 1.0;
    let mut value = 0.0;
    let mut abs_err = 0.0;
    let kf = f64::from(k);
    for (j, &dj) in d.iter().enumerate().skip(1) {
        for l in (1..=j).rev() {
            row[l] += row[l - 1];
        }
        let mut a = 0.0;
        let mut magnitude = 0.0;
        let jf = j as f64;
        for l in 0..=j {
            let term = row[l] * w[l];
            if l % 2 == 0 {
                a += term;
            } else {
                a -= term;
            }
            magnitude += term * (w_err[l] + (2.0 * jf + 2.0) * U);
        }
        value += dj * a;
        abs_err += dj * (magnitude + a.abs() * (4.0 * kf + 4.0) * U);
    }
    // Relative to the true value, which is at least value − bound; the
    // factor 2 covers the second-order terms the bound leaves out.
    let bound = 2.0 * abs_err;
    let error_estimate =
        if value > bound { bound / (value - bound) } else { f64::INFINITY };
    Ok(Exact { value, method: ExactMethod::StirlingSum, error_estimate })
}

/// Second-order approximation of [`fpr_exact`] (`THEORY.md` §2, "size of
/// the error", own derivation there):
///
/// ```text
/// FPR ≈ FPR_pow · (1 + k(k−1)/2 · Var[X]/E[X]²)
/// ```
///
/// from expanding `(X/m)^k` to second order about `E[X]/m`, with the exact
/// moments of [`set_bits_moments`]. The correction is `≈ 0.307·k(k−1)/(2m)`
/// at the optimal fill. The neglected third-order term is
/// `C(k,3)·κ3[X]/E[X]³`; as `|κ3| ≈ Var` (collisions are nearly Poisson)
/// it is of relative size `≈ corr·k/(3E[X])`, which dominates for nearly
/// empty filters; the fourth-order term is `≈ corr²/2`. The error estimate
/// is `corr² + corr·k/E[X]` plus the rounding of the `k`-th power: an
/// order of magnitude, not a bound. Exact for `k = 1`; excellent for
/// large `m`; poor when `k²/m` is not small. Capped at 1.
///
/// Domain: `m ≥ 1`, `1 ≤ k ≤` [`MAX_EXACT_K`], any `n`.
pub fn fpr_exact_second_order(m: u64, n: u64, k: u32) -> Result<Exact> {
    check_m(m)?;
    check_exact_k(k)?;
    let method = ExactMethod::Approximation;
    if n == 0 {
        return Ok(Exact { value: 0.0, method, error_estimate: 0.0 });
    }
    let pow = fpr_classical_discrete(m, n, k)?;
    let mom = set_bits_moments(m, n, k)?;
    let kf = f64::from(k);
    let corr = kf * (kf - 1.0) / 2.0 * mom.variance / (mom.mean * mom.mean);
    let value = (pow * (1.0 + corr)).min(1.0);
    // Neglected orders, plus the rounding of FPR_pow (k-th power).
    let error_estimate =
        corr * corr + corr * kf / mom.mean + (4.0 * kf + 8.0) * U;
    Ok(Exact { value, method, error_estimate })
}

/// The exact false-positive rate as a reduced fraction
/// `(numerator, denominator)`, for tiny filters.
///
/// Counts, in exact integer arithmetic, the `m^{kn}` insertion probe
/// sequences by the number of set bits they leave
/// (`c(x) ← c(x)·x + c(x−1)·(m−x+1)`, throw by throw), then
/// `FPR = Σ_x c(x)·x^k / m^{kn+k}`: the number of (insertion, query)
/// probe sequences whose query finds only set bits, over all of them.
///
/// Domain: `m ≥ 1`, `k ≥ 1`, and `m^{k(n+1)} < 2^128` (every intermediate
/// is bounded by it), e.g. `m = 12` with `k(n+1) ≤ 35`, `m = 2` with
/// `k(n+1) ≤ 127`. Returns `None` outside it. `n = 0` gives `(0, 1)`.
pub fn fpr_exact_rational_small(
    m: u64,
    n: u64,
    k: u32,
) -> Option<(u128, u128)> {
    if m == 0 || k == 0 {
        return None;
    }
    if n == 0 {
        return Some((0, 1));
    }
    let throws = u64::from(k).checked_mul(n)?;
    let exponent = u32::try_from(throws.checked_add(u64::from(k))?).ok()?;
    let m128 = u128::from(m);
    let denominator = m128.checked_pow(exponent)?;
    // Only states 0..=min(m, kn) are reachable.
    let top = usize::try_from(m.min(throws)).ok()?;
    let mut counts = vec![0u128; top + 1];
    counts[0] = 1;
    for _ in 0..throws {
        for x in (1..=top).rev() {
            let xw = x as u128;
            let stay = counts[x].checked_mul(xw)?;
            let enter = counts[x - 1].checked_mul(m128 + 1 - xw)?;
            counts[x] = stay.checked_add(enter)?;
        }
        counts[0] = 0;
    }
    let mut numerator: u128 = 0;
    for (x, &c) in counts.iter().enumerate() {
        let hits = (x as u128).checked_pow(k)?;
        numerator = numerator.checked_add(c.checked_mul(hits)?)?;
    }
    let g = gcd(numerator, denominator);
    Some((numerator / g, denominator / g))
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    if a == 0 { 1 } else { a }
}

/// The false-positive rate of a partitioned (sliced) Bloom filter:
/// `k` slices of `s = ⌊m/k⌋` bits, each item and each query one probe
/// per slice, so the slices are independent and
///
/// ```text
/// FPR_part = (1 − (1 − 1/s)^n)^k
/// ```
///
/// is exact for that layout (`THEORY.md` §3; Almeida et al. 2007 use the
/// same layout). When `k` divides `m` it is exact for the whole filter
/// (`(1 − (1 − k/m)^n)^k`); otherwise the `m mod k` bits a real
/// implementation cannot use are ignored, which is what a filter with
/// equal slices does. It is never below [`fpr_classical_discrete`] and,
/// in every case tried, not below [`fpr_exact`] either.
///
/// Domain: `m ≥ k ≥ 1` (an error if `⌊m/k⌋ = 0`), any `n`.
pub fn fpr_partitioned(m: u64, n: u64, k: u32) -> Result<f64> {
    check_m(m)?;
    check_k(k)?;
    let slice = m / u64::from(k);
    if slice == 0 {
        return Err(Error::invalid(
            "m",
            m,
            "must be at least k (one bit per slice)",
        ));
    }
    if n == 0 {
        return Ok(0.0);
    }
    let fill = -ln_empty(slice, n as f64).exp_m1();
    Ok(fill.powf(f64::from(k)))
}

/// Inner false-positive formula of one block in [`fpr_blocked`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BlockInner {
    /// Putze et al.'s `(1 − (1 − 1/B)^{ki})^k`: ignores the correlation of
    /// the query bits, noticeable for small blocks.
    Putze,
    /// The exact rate of a `B`-bit filter holding `i` items
    /// ([`fpr_exact`] with `m = B`). Recommended.
    #[default]
    Exact,
}

/// The false-positive rate of a blocked (cache-line) Bloom filter: every
/// item and query picks one block of `B = block_bits` bits and puts all
/// `k` probes in it (Putze, Sanders & Singler 2007, "Cache-, Hash- and
/// Space-Efficient Bloom Filters", WEA 2007 / ACM JEA 14).
///
/// The load of the queried block is `Binomial(n, B/m) ≈ Poisson(λ)`,
/// `λ = n·B/m`, so
///
/// ```text
/// FPR = Σ_{i≥0} e^{−λ} λ^i / i! · FPR_inner(B, i, k)
/// ```
///
/// with `FPR_inner` chosen by `inner` ([`BlockInner::Exact`] is the
/// default and reproduces RocksDB's published 1.15× penalty at `B = 512`,
/// `c = 10`, `k = 6` more closely). The sum runs outward from the mode:
/// downward until the neglected Poisson tail is below 1e-16 of the mass
/// summed, upward until the neglected tail of the *terms* is provably
/// below 1e-16 of the sum. The second matters when the rate is small: it
/// grows with the load up to the `k`-th power, so the sum can lie far out
/// in the Poisson tail (at `m = 2^20`, `n = 1`, `k = 30`, `B = 65536` the
/// loads 3 to 12 make almost all of the 3.1e-87). The bound: the inner
/// rates never fall with the load and grow at most as its `k`-th power,
/// `FPR_inner(j) ≤ (j/i)^k·FPR_inner(i)`, so the terms past a load `i`
/// add at most `w_i·FPR_inner(i)·ρ/(1 − ρ)`, `ρ = (w_{i+1}/w_i)(1 +
/// 1/i)^k`, and at most `w_i·r/(1 − r)`, `r = w_{i+1}/w_i`, as rates are
/// at most 1. The truncation is thus under 1e-15 relative in all.
/// Rounding adds to it, the more so the further the sum lies from the
/// mode (the weights are products of ratios from it): the tests measured
/// up to 1e-15 relative against 300-digit references with the exact
/// inner rate, 4e-15 with Putze's at `k = 30` (whose `k`-th power
/// multiplies its rounding by `k`). The exact inner rates come from one
/// DP over throws into a `B`-bit block, read after every `k` throws; for
/// very large blocks each load falls back to [`fpr_exact`]'s closed
/// forms. [`fpr_blocked_binomial`] uses the binomial load instead (exact
/// for `m/B` whole blocks).
///
/// `m/B` is used as a real number: pass a multiple of `B` for a real
/// layout. Domain: `m ≥ 1`, `1 ≤ k ≤` [`MAX_EXACT_K`],
/// `1 ≤ B ≤ m` (at least one block), `n·B/m ≤ 1e10`.
///
/// Cost grows with the block load `n·B/m` and with `k`: milliseconds for
/// filters as experiments build them, but loads near the domain's edge
/// are slow (optimised build): about 10 s at `m = 1000`, `n = 2^32`,
/// `B = 512`, `k = 64`, and minutes at `k = 300`.
pub fn fpr_blocked(
    m: u64,
    n: u64,
    k: u32,
    block_bits: u64,
    inner: BlockInner,
) -> Result<f64> {
    check_blocked(m, k, block_bits)?;
    if n == 0 {
        return Ok(0.0);
    }
    blocked_mixture(
        poisson_block_load(m, n, block_bits)?,
        block_bits,
        k,
        inner,
    )
}

/// The `Poisson(λ = n·B/m)` law of a block's load.
fn poisson_block_load(m: u64, n: u64, block_bits: u64) -> Result<LoadLaw> {
    Ok(LoadLaw::Poisson { lambda: mean_block_load(m, n, block_bits)? })
}

/// `λ = n·B/m`, a block's mean load, checked.
fn mean_block_load(m: u64, n: u64, block_bits: u64) -> Result<f64> {
    let lambda = n as f64 * (block_bits as f64 / m as f64);
    check_block_load(n, lambda)?;
    Ok(lambda)
}

/// The law of a queried block's load in the blocked mixtures.
#[derive(Debug, Clone, Copy)]
enum LoadLaw {
    /// `Poisson(lambda)`.
    Poisson { lambda: f64 },
    /// `Binomial(n, p)`, `0 < p ≤ 1`.
    Binomial { n: u64, p: f64 },
}

impl LoadLaw {
    /// Largest possible load.
    fn max(self) -> u64 {
        match self {
            LoadLaw::Poisson { .. } => u64::MAX,
            LoadLaw::Binomial { n, .. } => n,
        }
    }

    /// `w_{i+1}/w_i`: decreasing in `i`, which the tail bounds rely on.
    fn up(self, i: u64) -> f64 {
        match self {
            LoadLaw::Poisson { lambda } => lambda / (i as f64 + 1.0),
            LoadLaw::Binomial { n, p } => {
                (n as f64 - i as f64) / (i as f64 + 1.0) * (p / (1.0 - p))
            }
        }
    }

    /// The normalised weights around the mode, cut where each weight tail
    /// is below [`MIXTURE_TAIL`] of the mass (see [`unimodal_weights`]).
    fn bulk(self) -> Vec<(u64, f64)> {
        match self {
            LoadLaw::Poisson { lambda } => unimodal_weights(
                lambda.floor() as u64,
                u64::MAX,
                |i| lambda / (i as f64 + 1.0),
                |i| i as f64 / lambda,
            ),
            LoadLaw::Binomial { n, p } => binomial_weights(n, p),
        }
    }
}

/// [`fpr_blocked`] with the exact `Binomial(n, B/m)` block load instead of
/// its Poisson limit: exact for a filter of `m/B` whole blocks with
/// uniformly chosen blocks. The two differ by `O(B/m)` relative (about
/// 1e-5 at `n = 1e6`), which matters only for filters of few blocks.
///
/// Domain as [`fpr_blocked`].
pub fn fpr_blocked_binomial(
    m: u64,
    n: u64,
    k: u32,
    block_bits: u64,
    inner: BlockInner,
) -> Result<f64> {
    check_blocked(m, k, block_bits)?;
    if n == 0 {
        return Ok(0.0);
    }
    let p = block_bits as f64 / m as f64;
    check_block_load(n, n as f64 * p)?;
    blocked_mixture(LoadLaw::Binomial { n, p }, block_bits, k, inner)
}

/// The false-positive rate of a split-block Bloom filter: each block of
/// `B = block_bits` bits is `k` words of `B/k` bits, and every item sets,
/// and every query tests, exactly one bit in each word of its block (the
/// layout of Parquet's, Impala's and Kudu's filters: `B = 256`, `k = 8`,
/// 32-bit words).
///
/// With a block load of `i` items, each word holds `i` independent
/// uniform throws into `w = B/k` bits, so a query's bit in it is set with
/// probability `1 − (1 − 1/w)^i`, and
///
/// ```text
/// FPR = Σ_{i≥0} e^{−λ} λ^i / i! · (1 − (1 − 1/w)^i)^k,   λ = n·B/m.
/// ```
///
/// Within a word this is exact; the words' rates multiply because their
/// bits are chosen independently. The Poisson sum is cut as in
/// [`fpr_blocked`] (its rates too grow at most as the `k`-th power of the
/// load). At `B = 256`, `k = 8` and 10 bits per item it is about 1.26%,
/// against 0.82% for a classic filter with the same bits and its best
/// `k`.
///
/// ```
/// use bloomlab_core::theory::fpr_split_block;
///
/// let f = fpr_split_block(10_000_000, 1_000_000, 8, 256)?;
/// assert!((0.0126..0.0127).contains(&f));
/// # Ok::<(), bloomlab_core::Error>(())
/// ```
///
/// Domain: `m ≥ 1`, `1 ≤ k ≤` [`MAX_EXACT_K`], `k` dividing `B`,
/// `1 ≤ B ≤ m`, `n·B/m ≤ 1e10`.
pub fn fpr_split_block(
    m: u64,
    n: u64,
    k: u32,
    block_bits: u64,
) -> Result<f64> {
    check_blocked(m, k, block_bits)?;
    if !block_bits.is_multiple_of(u64::from(k)) {
        return Err(Error::invalid(
            "k",
            k,
            "must divide the block size (one word of B/k bits per probe)",
        ));
    }
    if n == 0 {
        return Ok(0.0);
    }
    let word = block_bits / u64::from(k);
    let law = poisson_block_load(m, n, block_bits)?;
    load_mixture(law, &law.bulk(), k, |i| {
        Ok((-ln_empty(word, i as f64).exp_m1()).powf(f64::from(k)))
    })
}

/// The mixture has ~17·√λ terms; beyond λ = 1e10 that is too many to
/// hold, and such a "block" is a whole filter anyway.
fn check_block_load(n: u64, lambda: f64) -> Result<()> {
    if lambda > 1e10 {
        return Err(Error::invalid(
            "n",
            n,
            "mean block load n·B/m must be at most 1e10",
        ));
    }
    Ok(())
}

fn check_blocked(m: u64, k: u32, block_bits: u64) -> Result<()> {
    check_m(m)?;
    check_exact_k(k)?;
    if block_bits == 0 {
        return Err(Error::invalid(
            "block_bits",
            block_bits,
            "must be at least 1",
        ));
    }
    if block_bits > m {
        return Err(Error::invalid(
            "block_bits",
            block_bits,
            "must be at most m (at least one block)",
        ));
    }
    Ok(())
}

/// Normalised weights `(i, w_i)` of a unimodal distribution on
/// `0..=max_i`, built outward from `mode` with the ratios
/// `up(i) = w_{i+1}/w_i` and `down(i) = w_{i−1}/w_i` (both decreasing away
/// from the mode), until the geometric bound on each remaining tail is
/// below [`MIXTURE_TAIL`] of the mass so far.
fn unimodal_weights(
    mode: u64,
    max_i: u64,
    up: impl Fn(u64) -> f64,
    down: impl Fn(u64) -> f64,
) -> Vec<(u64, f64)> {
    let mut upper = vec![(mode, 1.0)];
    let mut sum = 1.0;
    let (mut i, mut w) = (mode, 1.0);
    while i < max_i {
        let r = up(i);
        if r.is_nan()
            || r <= 0.0
            || (r < 1.0 && w * r / (1.0 - r) <= MIXTURE_TAIL * sum)
        {
            break;
        }
        w *= r;
        i += 1;
        sum += w;
        upper.push((i, w));
    }
    let mut lower = Vec::new();
    let (mut i, mut w) = (mode, 1.0);
    while i > 0 {
        let r = down(i);
        if r.is_nan()
            || r <= 0.0
            || (r < 1.0 && w * r / (1.0 - r) <= MIXTURE_TAIL * sum)
        {
            break;
        }
        w *= r;
        i -= 1;
        sum += w;
        lower.push((i, w));
    }
    lower.reverse();
    lower.extend(upper);
    for entry in &mut lower {
        entry.1 /= sum;
    }
    lower
}

/// `Σ_i w_i·rate(i)` over a block's load `i` ~ `law`: the mixtures of
/// [`fpr_blocked`], [`fpr_blocked_binomial`] and [`fpr_split_block`].
///
/// `bulk` is `law.bulk()`, the weights around the mode; `rate` is called
/// with increasing loads. The rates must lie in `[0, 1]`, not decrease
/// with the load, and grow at most as its `k`-th power:
/// `rate(j) ≤ (j/i)^k·rate(i)` for `j ≥ i ≥ 1`. All three inner rates
/// do. Putze's and the split block's are `(1 − q^i)^k` with `1 − q^x`
/// concave and 0 at 0, so `(1 − q^j)/(1 − q^i) ≤ j/i`. The exact rate is
/// `E[(X_s/B)^k]` after `s = ki` throws, and `E[X_s^k]/s^k` does not
/// increase with `s`: leaving out one of `s + 1` throws at random loses a
/// set bit only if that throw is alone on its bit, so on average it
/// leaves at least `X_{s+1}·s/(s + 1)` bits set, and by Jensen
/// `E[X_{s+1}^k] ≤ ((s + 1)/s)^k·E[X_s^k]`.
///
/// The weights' ratio `r(i) = w_{i+1}/w_i` decreases, so past a load `i`
/// (with `ρ = r(i)·(1 + 1/i)^k`, as `(1 + d/i)^k ≤ (1 + 1/i)^{kd}`)
///
/// ```text
/// Σ_{j>i} w_j rate(j) ≤ min(w_i rate(i) · ρ/(1 − ρ),  w_i · r/(1 − r))
/// ```
///
/// (the second as rates are at most 1), where `ρ < 1`, resp. `r < 1`. The
/// sum goes up from the bulk until that bound is below [`MIXTURE_TAIL`]
/// of the sum. Summing until the *weights* are negligible is not enough
/// when the rates are small, as they grow steeply with the load: at
/// `m = 2^20`, `n = 1`, `k = 30`, `B = 65536` that missed 3.7% of the
/// rate. Below the bulk, the rates are at most the rate at its lowest
/// load `i_0` and every term summed has at least that rate, so the
/// neglected terms are at most `rate(i_0)·MIXTURE_TAIL·mass ≤
/// MIXTURE_TAIL·sum`. With the weights' own normalisation (each of their
/// tails is below [`MIXTURE_TAIL`] of the mass too) the truncation is
/// thus below 4e-16 relative. At realistic loads (`B/c` from 2 to 16000)
/// the bound stops at most 8% more terms past the bulk.
fn load_mixture(
    law: LoadLaw,
    bulk: &[(u64, f64)],
    k: u32,
    mut rate: impl FnMut(u64) -> Result<f64>,
) -> Result<f64> {
    let kf = f64::from(k);
    let mut sum = 0.0;
    let mut mass = 0.0;
    let mut last = (0, 0.0, 0.0);
    for &(i, w) in bulk {
        let term = w * rate(i)?;
        sum += term;
        mass += w;
        last = (i, w, term);
    }
    let (mut i, mut w, mut term) = last;
    while i < law.max() {
        let r = law.up(i);
        if r.is_nan() || r <= 0.0 {
            break;
        }
        // Rates are at most 1.
        let mut tail = if r < 1.0 { w * r / (1.0 - r) } else { f64::INFINITY };
        if i > 0 {
            // Rates grow at most as the k-th power of the load.
            let rho = r * (kf * (1.0 / i as f64).ln_1p()).exp();
            if rho < 1.0 {
                tail = tail.min(term * rho / (1.0 - rho));
            }
        }
        if tail <= MIXTURE_TAIL * sum {
            break;
        }
        w *= r;
        i += 1;
        term = w * rate(i)?;
        sum += term;
        mass += w;
    }
    Ok(if mass > 0.0 { sum / mass } else { 0.0 })
}

fn blocked_mixture(
    law: LoadLaw,
    block_bits: u64,
    k: u32,
    inner: BlockInner,
) -> Result<f64> {
    let bulk = law.bulk();
    let kf = f64::from(k);
    match inner {
        BlockInner::Putze => load_mixture(law, &bulk, k, |i| {
            let throws = kf * i as f64;
            Ok((-ln_empty(block_bits, throws).exp_m1()).powf(kf))
        }),
        BlockInner::Exact => {
            let mut rates = BlockRates::new(block_bits, k, &bulk);
            load_mixture(law, &bulk, k, |i| rates.rate(i))
        }
    }
}

/// `FPR_exact(B, i, k)` for the loads `i` of a mixture, asked in
/// increasing order: read off one DP over throws into the block, after
/// every `k` throws, while that stays within [`DP_BUDGET`]; else
/// [`fpr_exact`]'s evaluations load by load.
struct BlockRates {
    block_bits: u64,
    k: u32,
    /// The DP and the load it has reached, while it is used.
    dp: Option<(Occupancy, u64)>,
    /// State updates the DP has cost so far.
    spent: f64,
    /// Budget of each load's own evaluation.
    per_load: f64,
}

impl BlockRates {
    /// Uses the DP if it is affordable up to the top of `bulk`.
    fn new(block_bits: u64, k: u32, bulk: &[(u64, f64)]) -> BlockRates {
        let i_max = bulk.last().map_or(0, |&(i, _)| i);
        let affordable = u64::from(k).checked_mul(i_max).is_some_and(|t| {
            let t = t as f64;
            let reads =
                bulk.len() as f64 * (block_bits as f64 + 1.0).min(t + 1.0);
            dp_cost(block_bits, t) + reads <= DP_BUDGET
        });
        BlockRates {
            block_bits,
            k,
            dp: affordable.then(|| (Occupancy::new(block_bits), 0)),
            spent: 0.0,
            // Share the DP budget among the loads.
            per_load: DP_BUDGET / bulk.len().max(1) as f64,
        }
    }

    fn rate(&mut self, i: u64) -> Result<f64> {
        if let Some((occ, items)) = self.dp.as_mut() {
            // The bulk is affordable; a long tail above it may not be.
            while *items < i && self.spent <= DP_BUDGET {
                for _ in 0..self.k {
                    self.spent += occ.window().len() as f64;
                    occ.step();
                }
                *items += 1;
            }
            if *items == i {
                self.spent += occ.window().len() as f64;
                return Ok(occ.moment(self.k));
            }
            self.dp = None;
        }
        Ok(exact_with_budget(self.block_bits, i, self.k, self.per_load)?.value)
    }
}

/// One filter of a scalable Bloom filter, as sized by [`scalable_layers`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalableLayer {
    /// Position in the chain, from 0.
    pub index: u32,
    /// Items it holds before the next filter is added: `⌊n0·s^i⌋`.
    pub capacity: u64,
    /// Its target error `P_i = P0·r^i`.
    pub error: f64,
    /// Slices (hash functions) `k_i = ⌈log2(1/P_i)⌉`.
    pub k: u32,
    /// Bits per slice, `⌈capacity / ln 2⌉`, so a full slice is half set.
    pub slice_bits: u64,
    /// Its bits with integer `k`: `k_i · slice_bits`.
    pub bits: u64,
    /// Its bits with the ideal real `k`: `capacity·|ln P_i| / ln² 2`.
    pub ideal_bits: f64,
    /// Its false-positive rate when full by the fill-1/2 rule,
    /// `2^{−k_i} ≤ P_i`.
    pub error_at_capacity: f64,
    /// Its exact false-positive rate when full,
    /// [`fpr_partitioned`]`(bits, capacity, k)`.
    pub exact_error_at_capacity: f64,
}

/// The compounded error of a chain of filters queried together,
/// `1 − Π_i (1 − P_i)` (Almeida, Baquero, Preguiça & Hutchison 2007,
/// "Scalable Bloom Filters", IPL 101(6)): a non-member is a false positive
/// if any filter errs, the filters being independent.
///
/// Computed as `−expm1(Σ ln1p(−P_i))` to keep small errors exact. Empty
/// input gives 0; an error outside `[0, 1]` gives NaN.
pub fn scalable_compounded_error(errors: &[f64]) -> f64 {
    if errors.iter().any(|p| !(0.0..=1.0).contains(p)) {
        return f64::NAN;
    }
    let ln_ok: f64 = errors.iter().map(|p| (-p).ln_1p()).sum();
    -ln_ok.exp_m1()
}

/// The bound `P0/(1 − r)` on a scalable filter's compounded error,
/// whatever its size (Almeida et al. 2007): `1 − Π(1 − P0 r^i) ≤
/// Σ P0 r^i ≤ P0/(1 − r)`. For a target `P`, start at `P0 = P(1 − r)`.
///
/// Domain: `0 < p0 < 1`, `0 < r < 1`.
pub fn scalable_error_bound(p0: f64, r: f64) -> Result<f64> {
    check_open_unit("p0", p0)?;
    check_open_unit("r", r)?;
    Ok(p0 / (1.0 - r))
}

/// Most filters [`scalable_layers`] will size.
const MAX_SCALABLE_LAYERS: u32 = 1024;

/// Sizes the chain of a scalable Bloom filter (Almeida et al. 2007;
/// `THEORY.md` §7) until its total capacity reaches `target_n`.
///
/// Filter `i` (from 0) holds `⌊n0·s^i⌋` items at error `P_i = P0·r^i`. It
/// is a partitioned filter with `k_i = ⌈log2(1/P_i)⌉` slices, each of
/// `⌈n_i / ln 2⌉` bits so that a full slice is half set (error `2^{−k_i}`).
/// Both sizings of `THEORY.md` are reported per layer: integer-`k` bits
/// `k_i⌈n_i/ln 2⌉` and ideal bits `n_i |ln P_i| / ln² 2`. There is always
/// at least one filter (`target_n = 0` gives one).
///
/// Domain: `n0 ≥ 1`, `0 < p0 < 1`, `0 < r < 1`, `s ≥ 1` (finite); an error
/// if more than 1024 filters would be needed or a capacity overflows.
pub fn scalable_layers(
    n0: u64,
    p0: f64,
    r: f64,
    s: f64,
    target_n: u64,
) -> Result<Vec<ScalableLayer>> {
    if n0 == 0 {
        return Err(Error::invalid("n0", n0, "must be at least 1"));
    }
    check_open_unit("p0", p0)?;
    check_open_unit("r", r)?;
    if !(s >= 1.0 && s.is_finite()) {
        return Err(Error::invalid(
            "s",
            s,
            "must be a finite growth factor >= 1",
        ));
    }
    let mut layers = Vec::new();
    let mut total: u64 = 0;
    for index in 0..MAX_SCALABLE_LAYERS {
        let exp = i32::try_from(index).unwrap_or(i32::MAX);
        let capacity_f = (n0 as f64 * s.powi(exp)).floor();
        if capacity_f >= u64::MAX as f64 {
            return Err(Error::invalid(
                "target_n",
                target_n,
                "capacities overflow 64 bits",
            ));
        }
        let capacity = capacity_f as u64;
        let error = p0 * r.powi(exp);
        if error <= 0.0 {
            return Err(Error::invalid(
                "target_n",
                target_n,
                "layer errors underflow",
            ));
        }
        let k_real = (-error.log2()).ceil().max(1.0);
        let k = k_real as u32;
        // Sizes past 64 bits are an error, not saturated: a saturated
        // layer would report the rate of a filter that cannot exist.
        let slice_f = (capacity as f64 / LN_2).ceil();
        let sizes = (slice_f < u64::MAX as f64)
            .then_some(slice_f as u64)
            .and_then(|s| Some((s, s.checked_mul(u64::from(k))?)));
        let Some((slice_bits, bits)) = sizes else {
            return Err(Error::invalid(
                "target_n",
                target_n,
                "layer sizes overflow 64 bits",
            ));
        };
        let ideal_bits = capacity as f64 * (-error.ln()) / (LN_2 * LN_2);
        let exact_error_at_capacity = fpr_partitioned(bits, capacity, k)?;
        layers.push(ScalableLayer {
            index,
            capacity,
            error,
            k,
            slice_bits,
            bits,
            ideal_bits,
            error_at_capacity: (-k_real).exp2(),
            exact_error_at_capacity,
        });
        total = total.saturating_add(capacity);
        if total >= target_n {
            return Ok(layers);
        }
    }
    Err(Error::invalid("target_n", target_n, "needs more than 1024 filters"))
}

fn check_open_unit(name: &'static str, x: f64) -> Result<()> {
    if !(x > 0.0 && x < 1.0) {
        return Err(Error::invalid(name, x, "must be in (0, 1)"));
    }
    Ok(())
}

/// Estimated number of distinct items in a filter from its fill
/// (Swamidass & Baldi 2007, J. Chem. Inf. Model. 47(3)):
///
/// ```text
/// n* = −(m/k)·ln(1 − X/m)
/// ```
///
/// the inverse of `E[X] ≈ m(1 − e^{−kn/m})`. It is slightly biased
/// upward: at `X = E[X]`, `n* ≈ n(1 + 1/(2m))` (the exact inverse of
/// `E[X] = m(1 − (1 − 1/m)^{kn})` is `ln(1 − X/m)/(k ln(1 − 1/m))`).
/// Guava's [`guava_approximate_element_count`] is this, rounded.
///
/// A full filter (`X = m`) gives `+∞`: it is consistent with any large
/// `n`. Nonsense (`m = 0`, `k = 0`, `X > m`) gives NaN.
pub fn estimate_count(m: u64, k: u32, set_bits: u64) -> f64 {
    if m == 0 || k == 0 || set_bits > m {
        return f64::NAN;
    }
    estimate_count_f64(m as f64, f64::from(k), set_bits as f64)
}

/// [`estimate_count`] for a real-valued number of set bits, such as an
/// expected fill `E[X]`: `−(m/k)·ln1p(−X/m)`. NaN unless `m > 0`, `k > 0`
/// and `0 ≤ X ≤ m`; `+∞` at `X = m`.
pub fn estimate_count_f64(m: f64, k: f64, set_bits: f64) -> f64 {
    let valid = m > 0.0 && k > 0.0 && (0.0..=m).contains(&set_bits);
    if !valid {
        return f64::NAN;
    }
    -(m / k) * (-set_bits / m).ln_1p()
}

/// Standard deviation of [`estimate_count`] for a filter holding `n`
/// items, by the delta method: `sd(n*) ≈ (m/k)·sd(X)/(m − E[X])`, with the
/// exact moments of [`set_bits_moments`] (Swamidass & Baldi 2007;
/// `THEORY.md` §8). At `m = 1000`, `n = 100`, `k = 4` it is ≈ 2.40.
///
/// Domain: `m ≥ 1`, `k ≥ 1`, any `n` (`n = 0` gives 0; `+∞` or NaN once
/// the filter is certainly full, `E[X] = m` in floating point).
pub fn estimate_count_sd(m: u64, k: u32, n: u64) -> Result<f64> {
    let mom = set_bits_moments(m, n, k)?;
    let mf = m as f64;
    Ok((mf / f64::from(k)) * mom.variance.sqrt() / (mf - mom.mean))
}

/// Guava's `BloomFilter.expectedFpp()`:
/// `Math.pow((double) bitCount / bitSize, numHashFunctions)`, with the
/// platform's `powf` (glibc's on Linux) for Java's `Math.pow`. HotSpot's
/// intrinsic `Math.pow` differed from glibc's `pow` in the last bit for
/// 966 of 10^6 random inputs (`tools/jvm-math`, 2026-11-28), so a rare
/// value is one unit in the last place apart; every recorded Guava case
/// matches to the bit.
///
/// This is the conditional false-positive rate of *this* filter,
/// `(X/m)^k`, whose average over filters is [`fpr_exact`]. `bit_size = 0`
/// gives NaN, as in Java.
pub fn guava_expected_fpp(bit_count: u64, bit_size: u64, k: u32) -> f64 {
    // Java's long-to-double conversions round to nearest, as `as` does.
    (bit_count as f64 / bit_size as f64).powf(f64::from(k))
}

/// Guava's `BloomFilter.approximateElementCount()`, bit for bit:
///
/// ```java
/// double fractionOfBitsSet = (double) bitCount / bitSize;
/// return DoubleMath.roundToLong(
///     -Math.log1p(-fractionOfBitsSet) * bitSize / numHashFunctions,
///     RoundingMode.HALF_UP);
/// ```
///
/// i.e. [`estimate_count`] rounded half away from zero, evaluated in
/// Java's order: `((−log1p(−f)) · bitSize) / k`. Where Guava throws (all
/// bits set: the estimate is infinite) this saturates to `i64::MAX`;
/// `bit_size = 0` gives 0.
pub fn guava_approximate_element_count(
    bit_count: u64,
    bit_size: u64,
    k: u32,
) -> i64 {
    let fraction = bit_count as f64 / bit_size as f64;
    let estimate = -(-fraction).ln_1p() * bit_size as f64 / f64::from(k);
    // HALF_UP is round half away from zero, which is what `round` does;
    // `as` saturates and maps NaN to 0.
    estimate.round() as i64
}

/// Fan et al.'s union bound on a counter overflowing in a counting Bloom
/// filter (Fan, Cao, Almeida & Broder 2000, "Summary Cache", IEEE/ACM ToN
/// 8(3)):
///
/// ```text
/// P(some counter ≥ j) ≤ m · C(kn, j) · m^{−j},    j = 2^counter_bits
/// ```
///
/// (a counter is `Binomial(kn, 1/m)`; `C(kn, j) m^{−j}` bounds its tail).
/// With `α = kn/m` the tail is about `e^{−α} α^j / j!` and this bound about
/// `α^j / j!`, so it is loose by a factor of about `e^α` (2 at the optimal
/// `k = (m/n) ln 2`). Fan et al.'s further simplification
/// `m (e ln 2 / j)^j`, the often-quoted `1.4e-15·m` for 4-bit counters, is
/// another 10× looser. See [`fpr_counting_overflow_binomial`] for the
/// tail itself. Not capped at 1; `j > kn` gives 0.
///
/// Domain: `m ≥ 1`, `k ≥ 1`, `1 ≤ counter_bits ≤ 62`, any `n`.
pub fn fpr_counting_overflow_bound(
    m: u64,
    n: u64,
    k: u32,
    counter_bits: u32,
) -> Result<f64> {
    let j = check_counting(m, k, counter_bits)?;
    let throws = f64::from(k) * n as f64;
    let jf = j as f64;
    if jf > throws {
        return Ok(0.0);
    }
    let mf = m as f64;
    let ln_bound = mf.ln() + ln_choose(throws, j) - jf * mf.ln();
    Ok(ln_bound.exp())
}

/// The tighter union bound `m · P(Binomial(kn, 1/m) ≥ 2^counter_bits)` on
/// a counter overflowing (the exact per-counter tail instead of Fan et
/// al.'s `C(kn, j) m^{−j}`). Summed term by term when `j` is above the
/// mean (always, in practice), else via the regularised incomplete beta
/// function. Not capped at 1. The incomplete beta loses digits when
/// `kn` is huge and `j` at or below the mean: `m = 10^6`, `n ≈ 2.1·10^12`,
/// `k = 1`, `j = 21` gives 547,018 against 500,092.
///
/// Domain as [`fpr_counting_overflow_bound`].
pub fn fpr_counting_overflow_binomial(
    m: u64,
    n: u64,
    k: u32,
    counter_bits: u32,
) -> Result<f64> {
    let j = check_counting(m, k, counter_bits)?;
    let throws = f64::from(k) * n as f64;
    let jf = j as f64;
    if jf > throws {
        return Ok(0.0);
    }
    let mf = m as f64;
    if m == 1 {
        // One counter takes every throw.
        return Ok(1.0);
    }
    let p = 1.0 / mf;
    let tail = if jf > throws * p && j <= 1 << 20 {
        // pmf(j) in logs, then the rapidly falling terms above it.
        let ln_pmf =
            ln_choose(throws, j) + jf * p.ln() + (throws - jf) * (-p).ln_1p();
        let mut term = ln_pmf.exp();
        let mut sum = term;
        let odds = p / (1.0 - p);
        let mut i = jf;
        while i < throws && term > 1e-17 * sum {
            term *= (throws - i) / (i + 1.0) * odds;
            sum += term;
            i += 1.0;
        }
        sum
    } else {
        statrs::function::beta::checked_beta_reg(jf, throws - jf + 1.0, p)
            .map_err(|_| Error::invalid("n", n, "binomial tail failed"))?
    };
    Ok(mf * tail)
}

fn check_counting(m: u64, k: u32, counter_bits: u32) -> Result<u64> {
    check_m(m)?;
    check_k(k)?;
    if !(1..=62).contains(&counter_bits) {
        return Err(Error::invalid(
            "counter_bits",
            counter_bits,
            "must be in 1..=62",
        ));
    }
    Ok(1u64 << counter_bits)
}

/// `ln C(t, j)`: a sum of logarithms for moderate `j` (exact to rounding),
/// log-gamma beyond.
fn ln_choose(t: f64, j: u64) -> f64 {
    if j <= 1 << 20 {
        (0..j).map(|i| ((t - i as f64) / (i as f64 + 1.0)).ln()).sum()
    } else {
        use statrs::function::gamma::ln_gamma;
        let jf = j as f64;
        ln_gamma(t + 1.0) - ln_gamma(jf + 1.0) - ln_gamma(t - jf + 1.0)
    }
}

/// The information-theoretic minimum number of bits per element for a
/// false-positive rate `p`, `log2(1/p)` (Carter, Floyd, Gill, Markowsky &
/// Wegman 1978; Pagh, Pagh & Rao 2005). A Bloom filter needs
/// `log2(e) ≈ 1.4427` times this (see [`bits_per_element_bloom`]).
///
/// Domain: `0 < p ≤ 1`.
pub fn bits_per_element_lower_bound(p: f64) -> Result<f64> {
    if !(p > 0.0 && p <= 1.0) {
        return Err(Error::invalid("p", p, "must be in (0, 1]"));
    }
    Ok(-p.log2())
}

/// Bits per element of an optimally configured Bloom filter (real `k`)
/// for a false-positive rate `p`: `−ln p / ln² 2 = log2(e)·log2(1/p)`
/// (Broder & Mitzenmacher 2004). Guava sizes with this formula, RedisBloom
/// too.
///
/// Domain: `0 < p ≤ 1`.
pub fn bits_per_element_bloom(p: f64) -> Result<f64> {
    Ok(LOG2_E * bits_per_element_lower_bound(p)?)
}

/// The `k` minimising [`fpr_classical`]: `(m/n)·ln 2`, at which half the
/// bits are set and the rate is `2^{−k}` (Broder & Mitzenmacher 2004).
/// The exact formula's optimum is slightly lower for small filters
/// (Burns 2019). `n = 0` gives `+∞`; NaN for negative or NaN input.
pub fn optimal_k(m: f64, n: f64) -> f64 {
    if !(m >= 0.0 && n >= 0.0) {
        return f64::NAN;
    }
    m / n * LN_2
}

/// A blocked layout as its fill sees it: `m/B` blocks, each `B/w` groups
/// of `w` bits; an item picks one block uniformly and puts `c`
/// independent uniform probes in each group of it (salted blocks: one
/// group of `B` bits, `c = k`; split blocks: `k` groups, `c = 1`).
struct BlockedFill {
    m: f64,
    block_bits: f64,
    group_bits: f64,
    /// ln P(one item leaves a given bit clear), `ln(1 − q)`.
    ln_keep: f64,
    /// ln P(one item leaves two given bits clear), the bits in one group,
    /// in two groups of one block, in two blocks.
    ln_keep_pair: [f64; 3],
}

impl BlockedFill {
    /// `None` outside `m ≥ 1`, `c ≥ 1`, `1 ≤ B ≤ m`, `w ≥ 1` dividing `B`.
    fn new(m: u64, block_bits: u64, group_bits: u64, c: u32) -> Option<Self> {
        let valid = m >= 1
            && c >= 1
            && (1..=m).contains(&block_bits)
            && group_bits >= 1
            && block_bits.is_multiple_of(group_bits);
        if !valid {
            return None;
        }
        let pick = block_bits as f64 / m as f64;
        let (w, c) = (group_bits as f64, f64::from(c));
        // ln P(one item, given its block, misses the given bits), from
        // which ln(1 − pick·P(hits some)).
        let keep = |ln_miss: f64| (pick * ln_miss.exp_m1()).ln_1p();
        let miss_one = c * (-1.0 / w).ln_1p();
        let q = -pick * miss_one.exp_m1();
        Some(BlockedFill {
            m: m as f64,
            block_bits: block_bits as f64,
            group_bits: w,
            ln_keep: keep(miss_one),
            ln_keep_pair: [
                // No such pair when w = 1, and ln1p(−2) is NaN.
                if group_bits > 1 {
                    keep(c * (-2.0 / w).ln_1p())
                } else {
                    0.0
                },
                keep(2.0 * miss_one),
                // An item sets bits of one block only: the events are
                // disjoint.
                (-2.0 * q).ln_1p(),
            ],
        })
    }

    fn estimate(&self, set_bits: u64) -> f64 {
        let x = set_bits as f64;
        if x > self.m {
            return f64::NAN;
        }
        (-x / self.m).ln_1p() / self.ln_keep
    }

    /// Delta-method sd of [`Self::estimate`] after `n` items:
    /// `sd(X)/|dE[X]/dn|`, `dE[X]/dn = −m(1 − q)^n·ln(1 − q)`.
    fn estimate_sd(&self, n: u64) -> f64 {
        let n = n as f64;
        let ln_z = n * self.ln_keep;
        let z = ln_z.exp();
        let m = self.m;
        let (b, w) = (self.block_bits, self.group_bits);
        // Ordered pairs of bits in one group, in one block's two groups,
        // in two blocks.
        let pairs = [m * (w - 1.0), m * (b - w), m * (m - b)];
        let mut var = m * z * -ln_z.exp_m1();
        for (count, ln_pair) in pairs.into_iter().zip(self.ln_keep_pair) {
            if count > 0.0 {
                // P(both 0) − z², without cancelling.
                var += count
                    * z
                    * z
                    * (n * (ln_pair - 2.0 * self.ln_keep)).exp_m1();
            }
        }
        var.max(0.0).sqrt() / (m * z * -self.ln_keep)
    }
}

/// Estimated number of distinct items in a blocked filter (every item
/// picks one of `m/B` blocks of `B = block_bits` bits and puts `k`
/// independent uniform probes in it, as [`fpr_blocked`] assumes) from its
/// fill `X`, the inverse of its expected fill:
///
/// ```text
/// E[X] = m·(1 − (1 − q)^n),   q = (B/m)·(1 − (1 − 1/B)^k)
/// n*   = ln(1 − X/m) / ln(1 − q)
/// ```
///
/// `q` is the chance that one item sets a given bit: it picks the bit's
/// block (`B/m`), then one of its `k` probes lands on the bit. The
/// classic [`estimate_count`] takes `q = 1 − (1 − 1/m)^k`, as if the `k`
/// probes could land in different blocks; that undercounts, since an
/// item's probes in one block collide more often (at `B = 512`, `k = 14`,
/// 10^5 items in 2·10^6 bits, by about 1.2%, some 20 of the estimate's
/// standard deviations, [`estimate_count_blocked_sd`]).
///
/// Edge cases as [`estimate_count`]'s: `X = m` gives `+∞`; `m = 0`,
/// `k = 0`, `B = 0`, `B > m` or `X > m` give NaN.
pub fn estimate_count_blocked(
    m: u64,
    k: u32,
    block_bits: u64,
    set_bits: u64,
) -> f64 {
    BlockedFill::new(m, block_bits, block_bits, k)
        .map_or(f64::NAN, |f| f.estimate(set_bits))
}

/// Estimated number of distinct items in a split-block filter (every item
/// sets exactly one bit in each of the `k` words of `B/k` bits of one of
/// `m/B` blocks, as [`fpr_split_block`] assumes) from its fill `X`:
///
/// ```text
/// n* = ln(1 − X/m) / ln(1 − q),   q = (B/m)·(1/(B/k)) = k/m
/// ```
///
/// the inverse of `E[X] = m·(1 − (1 − q)^n)`; `q` is the chance that one
/// item sets a given bit (it sets `k` distinct bits, each bit alike).
///
/// Edge cases as [`estimate_count`]'s: `X = m` gives `+∞`; `m = 0`,
/// `k = 0`, `k` not dividing `B`, `B > m` or `X > m` give NaN.
pub fn estimate_count_split_block(
    m: u64,
    k: u32,
    block_bits: u64,
    set_bits: u64,
) -> f64 {
    split_fill(m, block_bits, k).map_or(f64::NAN, |f| f.estimate(set_bits))
}

/// Standard deviation of [`estimate_count_blocked`] for a filter holding
/// `n` items, by the delta method, `sd(n*) ≈ sd(X) / |dE[X]/dn|`, with
/// `dE[X]/dn = −m(1 − q)^n·ln(1 − q)` and the exact variance of the
/// fill,
///
/// ```text
/// Var X = m z(1 − z) + Σ_pairs N_pair·(P(both bits 0) − z²),   z = (1 − q)^n
/// ```
///
/// over ordered pairs of distinct bits: `m(B − 1)` in one block, where
/// `P(both 0) = (1 − (B/m)(1 − (1 − 2/B)^k))^n`, and `m(m − B)` in two
/// blocks, where `P(both 0) = (1 − 2q)^n` (an item sets bits of one
/// block only, so the fills of blocks are negatively correlated). With
/// `B = m` it is [`estimate_count_sd`]'s, to `O(1/m)`.
///
/// Domain: `m ≥ 1`, `k ≥ 1`, `1 ≤ B ≤ m`, any `n`. Accuracy: the
/// within-block and across-block terms nearly cancel in a sparse filter,
/// and in `f64` that costs digits as `m` grows: 0.5% off at `m = 2^40`
/// (`k = 7`, `B = 512`, `n = 10^6`, against a 50-digit evaluation), 25%
/// at `2^44` and meaningless by `2^50`.
pub fn estimate_count_blocked_sd(
    m: u64,
    k: u32,
    block_bits: u64,
    n: u64,
) -> Result<f64> {
    check_m(m)?;
    check_k(k)?;
    BlockedFill::new(m, block_bits, block_bits, k)
        .map(|f| f.estimate_sd(n))
        .ok_or_else(|| {
            Error::invalid("block_bits", block_bits, "must be from 1 to m")
        })
}

/// Standard deviation of [`estimate_count_split_block`] for a filter
/// holding `n` items, by the delta method as [`estimate_count_blocked_sd`]
/// computes it, the ordered pairs of distinct bits being `m(w − 1)` in one
/// word of `w = B/k` bits (`P(both 0) = (1 − (B/m)·2/w)^n`),
/// `m(B − w)` in two words of one block
/// (`P(both 0) = (1 − (B/m)(1 − (1 − 1/w)^2))^n`) and `m(m − B)` in two
/// blocks (`P(both 0) = (1 − 2k/m)^n`).
///
/// Domain: `m ≥ 1`, `k ≥ 1` dividing `B`, `1 ≤ B ≤ m`, any `n`.
pub fn estimate_count_split_block_sd(
    m: u64,
    k: u32,
    block_bits: u64,
    n: u64,
) -> Result<f64> {
    check_m(m)?;
    check_k(k)?;
    split_fill(m, block_bits, k).map(|f| f.estimate_sd(n)).ok_or_else(|| {
        Error::invalid(
            "block_bits",
            block_bits,
            "must be from 1 to m, a multiple of k",
        )
    })
}

/// Estimated number of distinct items in a filter of `blocks` blocks of
/// eight 64-bit words, whose items each pick one block and put
/// `⌈(k − j)/8⌉` uniform probes in its word `j` (a scalable filter's
/// blocked layers, `bloomlab_scalable::Layout::Blocked`), from its
/// `set_bits`: the `n` whose expected fill is `set_bits`.
///
/// With `c_j = ⌈(k − j)/8⌉`, `k mod 8` words get one
/// probe more than the others. A bit of a word with `c` probes stays
/// clear after one item with probability `1 − (1 − (63/64)^c)/blocks`,
/// so the expected clear bits after `n` items are
/// `64·blocks·Σ_j (1 − (1 − (63/64)^{c_j})/blocks)^n`. The words with
/// more probes fill faster, so this is below the classic
/// `m·(1 − k/m)^n` with the mean probe count, and inverting the classic
/// formula undercounts (by 3.4% for `k = 10` at half fill). Solved by
/// Newton's method from the left (the clear count is convex and
/// decreasing in `n`), starting from the mean-rate solution, which
/// Jensen's inequality puts below the root.
///
/// `+∞` when every bit items can reach is set (with `k < 8`, words
/// `k..8` of each block get no probe), NaN for nonsense (`blocks = 0`,
/// `k = 0`, more bits set than items can reach).
pub fn estimate_count_word_blocks(blocks: u64, k: u32, set_bits: u64) -> f64 {
    let m = blocks as f64 * 512.0;
    let reachable = m * f64::from(k.min(8)) / 8.0;
    let x = set_bits as f64;
    if blocks == 0 || k == 0 || x > reachable {
        return f64::NAN;
    }
    if x == reachable {
        return f64::INFINITY;
    }
    // ln P(one item leaves a given bit of a word with `c` probes clear).
    let pick = 1.0 / blocks as f64;
    let ln_keep = |c: u32| {
        (pick * (f64::from(c) * (-1.0 / 64.0f64).ln_1p()).exp_m1()).ln_1p()
    };
    let more = f64::from(k % 8) / 8.0;
    let (l_more, l_less) = (ln_keep(k / 8 + 1), ln_keep(k / 8));
    let target = (-x / m).ln_1p();
    // Σ_j w_j·e^{n·L_j} − e^{target}, convex and decreasing in `n`.
    let h = |n: f64| {
        let (a, b) = ((n * l_more).exp(), (n * l_less).exp());
        (
            more * a + (1.0 - more) * b - target.exp(),
            more * l_more * a + (1.0 - more) * l_less * b,
        )
    };
    let mean = more * l_more + (1.0 - more) * l_less;
    let mut n = target / mean;
    for _ in 0..100 {
        let (v, slope) = h(n);
        if !(v > 0.0 && slope < 0.0) {
            break;
        }
        let step = -v / slope;
        n += step;
        if step <= n * 1e-15 {
            break;
        }
    }
    n
}

/// An upper estimate of the false-positive rate that a filter of `m`
/// bits at fill `f`, whose `k` probes come from one hash pair (`a + i·b`,
/// with or without enhanced double hashing's `(i³ − i)/6`) reduced by
/// the multiply-shift, owes to keys whose probes fall on a few bits
/// (THEORY.md §5: "O(1/m), so it vanishes asymptotically but dominates
/// small filters with many bits per element"):
///
/// ```text
/// 2/(m·k) · f/(1 − f)²
/// ```
///
/// A probe is `⌊m·frac(α + iβ)⌋` (the cubic term is negligible next to
/// 2^64), so the `k` probes fall on `q` bits when `β` is within `1/(mk)`
/// of a fraction `j/q`: probability `2/(mk)` for each of the `φ(q)`
/// fractions, each such key a false positive with probability about
/// `f^q`, and `Σ_q φ(q)·f^q ≤ Σ_q q·f^q = f/(1 − f)²`. Measured
/// (2026-11-28, 1,500 filters a point, xxh3-64): at 8 to 32 bits a key
/// and m from 128 to 8,192, double and enhanced double hashing with the
/// multiply-shift exceeded the exact rate by 2.1–3.4 times `2f/(mk)`
/// (this estimate is 4 times it at half fill). `1` for `f ≥ 1` or NaN.
///
/// ```
/// use bloomlab_core::theory::pair_floor_multiply_shift;
///
/// let f = pair_floor_multiply_shift(1024, 11, 0.5);
/// assert!((f - 4.0 / (1024.0 * 11.0)).abs() < 1e-15);
/// ```
pub fn pair_floor_multiply_shift(m: u64, k: u32, f: f64) -> f64 {
    pair_floor(2.0 / (m as f64 * f64::from(k.max(1))), f)
}

/// [`pair_floor_multiply_shift`] for probes reduced by `x mod m`: the
/// probes of a key whose `b ≡ 0 (mod m)` (probability `1/m`) all fall
/// on one bit, and those of a `b` of small order on a few,
///
/// ```text
/// 1/m · f/(1 − f)²
/// ```
///
/// an upper estimate for plain double hashing (measured 4–9 times the
/// multiply-shift's excess at the same points) and well above enhanced
/// double hashing, whose cubic term the modulo keeps.
pub fn pair_floor_modulo(m: u64, f: f64) -> f64 {
    pair_floor(1.0 / m as f64, f)
}

/// `collapse · f/(1 − f)²`, `1` where that is not finite.
fn pair_floor(collapse: f64, f: f64) -> f64 {
    if f.is_nan() || f >= 1.0 {
        return 1.0;
    }
    collapse * f / ((1.0 - f) * (1.0 - f))
}

/// The split-block layout: `k` words of `B/k` bits, one probe in each.
fn split_fill(m: u64, block_bits: u64, k: u32) -> Option<BlockedFill> {
    let k = u64::from(k);
    if k == 0 || !block_bits.is_multiple_of(k) {
        return None;
    }
    BlockedFill::new(m, block_bits, block_bits / k, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocked-words estimate inverts its own expected fill: the
    /// expected set bits after `n` items, rounded, give back `n` (to the
    /// rounding's effect), for `k` with and without a remainder mod 8.
    #[test]
    fn word_blocks_estimate_inverts_its_fill() {
        let blocks = 2_000u64;
        for k in [8u32, 10, 14, 17] {
            for n in [1_000u64, 20_000, 60_000] {
                let keep = |c: u32| {
                    1.0 - (1.0 - (63.0f64 / 64.0).powi(c as i32))
                        / blocks as f64
                };
                // Expected clear bits: 64 a word, each clear with
                // probability keep(c_j)^n, c_j = ⌈(k − j)/8⌉.
                let clear: f64 = (0..8)
                    .map(|j| 64.0 * keep((k + 7 - j) / 8).powf(n as f64))
                    .sum::<f64>()
                    * blocks as f64;
                let set = (512.0 * blocks as f64 - clear).round() as u64;
                let est = estimate_count_word_blocks(blocks, k, set);
                // One set bit more or less moves the estimate by about
                // 1/(dX/dn) items, well under 0.1% of n here.
                assert!((est / n as f64 - 1.0).abs() < 1e-3, "{k} {n} {est}");
                // The classic inversion reads low once k mod 8 ≠ 0.
                let classic = estimate_count(512 * blocks, k, set);
                assert!(k % 8 == 0 || classic < est, "{k} {n}");
            }
        }
        assert_eq!(estimate_count_word_blocks(10, 10, 0), 0.0);
        assert_eq!(estimate_count_word_blocks(10, 10, 5120), f64::INFINITY);
        assert!(estimate_count_word_blocks(0, 10, 0).is_nan());
        // With k < 8 only words 0..k of a block are reachable: 192 bits
        // of one block at k = 3, 64 at k = 1.
        assert!(estimate_count_word_blocks(1, 3, 200).is_nan());
        assert_eq!(estimate_count_word_blocks(1, 3, 192), f64::INFINITY);
        assert_eq!(estimate_count_word_blocks(1, 1, 64), f64::INFINITY);
        assert!(estimate_count_word_blocks(1, 1, 65).is_nan());
        assert!(estimate_count_word_blocks(1, 3, 191).is_finite());
        assert!(estimate_count_word_blocks(10, 10, 5121).is_nan());
    }

    #[test]
    fn pair_floors() {
        // f/(1 − f)² at half fill.
        let spread = 0.5 / 0.25;
        assert_eq!(pair_floor_modulo(1024, 0.5), spread / 1024.0);
        assert_eq!(
            pair_floor_multiply_shift(1024, 11, 0.5),
            2.0 * spread / (1024.0 * 11.0)
        );
        assert_eq!(pair_floor_modulo(1024, 0.0), 0.0);
        assert_eq!(pair_floor_modulo(1024, 1.0), 1.0);
        assert_eq!(pair_floor_multiply_shift(64, 3, f64::NAN), 1.0);
    }

    /// `Σ_i w_i·rates[i] / Σ_i w_i` over all `i < rates.len()`, the
    /// weights built from `mode` with the ratios `up` and `down`, as the
    /// mixtures build them: differs from them only where they stop (and
    /// by the rounding of their normalisation).
    fn far_mixture(
        rates: &[f64],
        mode: u64,
        up: impl Fn(u64) -> f64,
        down: impl Fn(u64) -> f64,
    ) -> f64 {
        let mode = mode as usize;
        let mut w = vec![0.0; rates.len()];
        w[mode] = 1.0;
        for i in mode + 1..rates.len() {
            w[i] = w[i - 1] * up(i as u64 - 1);
        }
        for i in (0..mode).rev() {
            w[i] = w[i + 1] * down(i as u64 + 1);
        }
        let sum: f64 = w.iter().zip(rates).map(|(w, r)| w * r).sum();
        sum / w.iter().sum::<f64>()
    }

    /// `FPR_exact(B, i, k)` for `i ≤ top`, from the DP the mixtures use.
    fn exact_rates(block_bits: u64, k: u32, top: u64) -> Vec<f64> {
        let mut occ = Occupancy::new(block_bits);
        (0..=top)
            .map(|i| {
                if i > 0 {
                    (0..k).for_each(|_| occ.step());
                }
                occ.moment(k)
            })
            .collect()
    }

    #[test]
    fn blocked_mixtures_reach_the_tail_of_their_terms() {
        // Small rates grow with the load up to its k-th power, so the
        // sum lies in the tail of the load's weights; stopping where the
        // weights were negligible missed 3.7% of the first rate, 1.9e-5
        // of the second and 2.9e-10 of the third. Reference: the same
        // terms summed to λ + 40√λ + 60, far past any term that counts.
        // 1e-15 is the truncation error fpr_blocked's docs promise.
        let tol = 1e-15;
        let cases = [
            (1u64 << 20, 1u64, 30u32, 65536u64),
            (1_000_000, 100, 20, 512),
            (1 << 40, 1_000_000_000, 10, 512),
            (24_000_000, 1_000_000, 17, 512),
        ];
        for (m, n, k, b) in cases {
            let lambda = n as f64 * (b as f64 / m as f64);
            let top = (lambda + 40.0 * lambda.sqrt() + 60.0) as u64;
            let rates = exact_rates(b, k, top);
            let far = far_mixture(
                &rates,
                lambda.floor() as u64,
                |i| lambda / (i as f64 + 1.0),
                |i| i as f64 / lambda,
            );
            let v = fpr_blocked(m, n, k, b, BlockInner::Exact).unwrap();
            assert!((v - far).abs() <= tol * far, "{m} {n} {k} {b}: {v:e}");

            let p = b as f64 / m as f64;
            let nf = n as f64;
            let odds = p / (1.0 - p);
            let far = far_mixture(
                &rates[..=top.min(n) as usize],
                (((nf + 1.0) * p).floor() as u64).min(n),
                |i| (nf - i as f64) / (i as f64 + 1.0) * odds,
                |i| i as f64 / (nf - i as f64 + 1.0) / odds,
            );
            let v =
                fpr_blocked_binomial(m, n, k, b, BlockInner::Exact).unwrap();
            assert!((v - far).abs() <= tol * far, "{m} {n} {k} {b}: {v:e}");
        }

        // Putze's inner rate and the split block's (32 words of 2048
        // bits), at the first case: λ = 1/16.
        let (m, n, k, b) = (1u64 << 20, 1u64, 30u32, 65536u64);
        let lambda = n as f64 * (b as f64 / m as f64);
        let up = |i: u64| lambda / (i as f64 + 1.0);
        let down = |i: u64| i as f64 / lambda;
        let kf = f64::from(k);
        let putze: Vec<f64> = (0..=70u64)
            .map(|i| (-ln_empty(b, kf * i as f64).exp_m1()).powf(kf))
            .collect();
        let far = far_mixture(&putze, 0, up, down);
        let v = fpr_blocked(m, n, k, b, BlockInner::Putze).unwrap();
        assert!((v - far).abs() <= tol * far, "Putze: {v:e} vs {far:e}");
        let split: Vec<f64> = (0..=70u64)
            .map(|i| (-ln_empty(b / 32, i as f64).exp_m1()).powf(32.0))
            .collect();
        let far = far_mixture(&split, 0, up, down);
        let v = fpr_split_block(m, n, 32, b).unwrap();
        assert!((v - far).abs() <= tol * far, "split: {v:e} vs {far:e}");
    }
}
