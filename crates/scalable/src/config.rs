//! What a scalable filter is made of: the chain parameters (`n0`, `P`,
//! `r`, `s`), how each layer is laid out and sized, and how keys are
//! hashed into probes.

use bloomlab_hash::{Family, Reduction};

use crate::{Error, Result};

/// How a layer's bits are arranged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Layout {
    /// One array; the `k` probes land anywhere in it (RedisBloom,
    /// `bloomlab-standard`'s classic filter).
    Standard,
    /// `k` slices of equal size, probe `i` in slice `i` (Almeida et al.'s
    /// construction, `bloomlab-partitioned`, pybloom-live).
    Partitioned,
    /// Split blocks of [`BLOCK_BITS`] bits (one 64-byte cache line, 8
    /// words of 64 bits): a key picks one block per layer and sets its
    /// `k ≥ 8` probes in it, probe `i` in word `i mod 8` (the split-block
    /// layout of Parquet's filter, Putze, Sanders & Singler's blocking),
    /// so testing a layer costs one cache miss and 8 word compares
    /// instead of up to `k` misses. The block is `reduction(a, blocks)`;
    /// probe `i`'s bit in its word is the low 6 bits of byte `i mod 8` of
    /// word `⌊i/8⌋` of the chain `b, mix64(b), mix64(mix64(b)), …`, so
    /// the bits are independent and uniform and the layer's rate is the
    /// split-block formula (see [`Sizing::HalfFill`]). `probe` is not
    /// used. Sized by [`Sizing::HalfFill`] only.
    Blocked,
}

/// Bits of a block of a [`Layout::Blocked`] layer: one cache line.
pub const BLOCK_BITS: u64 = 512;

/// Largest `k` of a [`Layout::Blocked`] layer (layers needing more are
/// refused with [`Error::CannotGrow`]; at `k = 64` a layer already needs
/// 1,281 bits per item).
pub const MAX_BLOCKED_K: u32 = 64;

/// The largest growth factor `s`, RedisBloom's (its `EXPANSION` is at
/// most 32768). Each layer is sized from the last, so `s` also bounds
/// what one insert that grows the chain allocates, against the memory
/// the filter already holds.
pub const MAX_GROWTH: u64 = 32768;

/// `BLOCKED_LOAD[k − 1]`: the largest mean number of items per block at
/// which a [`Layout::Blocked`] layer with `max(k, 8)` probes errs at most
/// `2^−k`, rounded down to 4 decimals. The rate of a layer whose blocks
/// hold `λ` items on average is
///
/// ```text
/// Σ_i Pois(i; λ) · Π_{j<8} FPR_exact(64, i, c_j)
/// ```
///
/// (a block's load is Poisson; given `i` items, its 8 words are
/// independent 64-bit filters into which each item throws `c_j` bits,
/// `c_j` the number of probes `i < k` with `i mod 8 = j`;
/// [`bloomlab_core::theory::fpr_exact`]). A unit test recomputes every
/// entry. Poisson loads are conservative: a layer of few blocks has
/// binomial loads, which vary less and so err less.
const BLOCKED_LOAD: [f64; MAX_BLOCKED_K as usize] = [
    158.4940, 116.4221, 92.8406, 76.8265, 64.9500, 55.6813, //
    48.2030, 42.0269, 36.1614, 31.6312, 28.0699, 25.2161, //
    22.8860, 20.9503, 19.3167, 17.9187, 16.3305, 14.9414, //
    13.7200, 12.6406, 11.6815, 10.8252, 10.0570, 9.3648, //
    8.6516, 8.0035, 7.4135, 6.8754, 6.3838, 5.9337, //
    5.5210, 5.1419, 4.7657, 4.4188, 4.0988, 3.8034, //
    3.5305, 3.2783, 3.0452, 2.8294, 2.6197, 2.4254, //
    2.2453, 2.0785, 1.9239, 1.7806, 1.6478, 1.5248, //
    1.4070, 1.2978, 1.1967, 1.1030, 1.0162, 0.9360, //
    0.8617, 0.7931, 0.7281, 0.6681, 0.6126, 0.5614, //
    0.5142, 0.4707, 0.4306, 0.3938,
];

/// How a layer of capacity `n` and error `p` gets its bits and `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Sizing {
    /// RedisBloom's `bloom.c`, bit for bit (serde name `redisbloom`): `bpe = −(ln p /
    /// 0.480453013918201)`, `m = ⌊n·bpe⌋` (at least 1) rounded up to a
    /// multiple of 64, `k = ⌈0.693147180559945·bpe⌉`. The decimal
    /// constants matter: at exact powers of two `k = log2(1/p) + 1`.
    #[cfg_attr(feature = "serde", serde(rename = "redisbloom"))]
    RedisBloom,
    /// `THEORY.md` §7 (Almeida et al.): `k = ⌈log2(1/p)⌉` slices of
    /// `⌈n / ln 2⌉` bits, so that a full layer is about half set and errs
    /// with about `2^−k ≤ p` (layers of 2 to 8 items, more: see
    /// [`crate::ScalableBloomFilter::almeida`]). Same as [`bloomlab_core::theory::scalable_layers`]. A
    /// standard layout gets the same total, rounded up to 64. A
    /// [`Layout::Blocked`] layer gets `max(k, 8)` probes and as many
    /// 512-bit blocks as keep its rate at or under `2^−k` when it holds
    /// its capacity: `⌈n / ((1 − 2^−k) λ_k)⌉` blocks, `λ_k` the largest
    /// such mean load per block (42.0 items at `k = 8`, 31.6 at `k = 10`,
    /// 25.2 at `k = 12`: 6 %, 12 % and 17 % more bits than the
    /// half-filled standard layer, the price of one cache line per test).
    /// The `1 − 2^−k` counts the keys a filling layer skips as false
    /// positives: they set no new bit and are not counted, so a layer
    /// holding `n` items carries the bits of `n` plus those keys.
    HalfFill,
    /// pybloom-live's `BloomFilter`: `k = ⌈log2(1/p)⌉` slices of
    /// `⌈n·|ln p| / (k·ln² 2)⌉` bits.
    Pybloom,
}

/// How a key becomes the pair `(a, b)` the probes are derived from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Pairing {
    /// RedisBloom's: `a = H(key, 0xc6a4a7935bd1e995 ^ seed)`,
    /// `b = H(key, a)`. Needs a family with 64-bit seeds.
    Chained,
    /// One hash: `(lo, hi)` of a 128-bit digest; `(h << 32, mix64(h))`
    /// of a 32-bit one under multiply-shift (which reads the high
    /// bits); else `(h, mix64(h))`, for `fold-64` too (not its
    /// [`Family::step`](bloomlab_hash::Family::step), a rotation whose
    /// bytes would repeat the ones a blocked layer's block came from).
    Single,
}

/// How the `k` positions follow from `(a, b)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Probe {
    /// Plain double hashing, `x_i = a + i·b` (mod 2^64), RedisBloom's.
    Double,
    /// Enhanced double hashing (Dillinger & Manolios):
    /// `x_i = a + i·b + (i³ − i)/6`.
    EnhancedDouble,
    /// Double hashing with each position mixed before it is reduced:
    /// `x_i = mix64(a + i·b)` (SplitMix64's finaliser). A key's positions
    /// then no longer follow an arithmetic progression, which in layers
    /// of a few bits per slice makes them correlated: a partitioned layer
    /// of one item (`k = 7`, slices of 2 bits) errs 2.0% under
    /// [`Probe::EnhancedDouble`] and 0.77% under this, against the 0.78%
    /// its fill implies; at 8 items 1.32% against 0.81% (the fill's
    /// 0.81%); at 256 items they agree (10^4 queries on each of 400
    /// layers, 2026-12-08). One multiply-xorshift more a probe. The
    /// default ([`Config::new`]); RedisBloom's preset keeps
    /// [`Probe::Double`].
    MixedDouble,
}

/// The parameters of a [`crate::ScalableBloomFilter`].
///
/// Layer `i` (from 0) has capacity `n0·s^i` and error `P0·r^i`; the
/// bound on the compounded error is `P0/(1 − r)`, so `P0 = P·(1 − r)`
/// keeps it under the target `P` ([`Config::new`] does that).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "crate::serde_impls::ConfigFields")
)]
pub struct Config {
    /// `n0`: the first layer's capacity (items).
    pub initial_capacity: u64,
    /// `P`: the target error of the whole chain.
    pub error: f64,
    /// `P0`: the first layer's error.
    pub first_error: f64,
    /// `r`: each layer's error is the previous one's times `r`.
    pub tightening: f64,
    /// `s`: each layer's capacity is the previous one's times `s` (an
    /// integer, as in RedisBloom, pybloom-live and the paper's code).
    pub growth: u64,
    /// Whether the filter grows; a non-scaling filter refuses new items
    /// once full ([`crate::Error::Full`]).
    pub scaling: bool,
    /// Also call a layer full when half its bits are set (the paper's
    /// rule), not only when its count reaches its capacity.
    pub full_at_half_fill: bool,
    /// Layer layout.
    pub layout: Layout,
    /// Layer sizing.
    pub sizing: Sizing,
    /// Hash family.
    pub family: Family,
    /// Seed (for [`Pairing::Chained`], XORed into RedisBloom's seed).
    pub seed: u64,
    /// How keys become `(a, b)`.
    pub pairing: Pairing,
    /// How `(a, b)` becomes `k` positions.
    pub probe: Probe,
    /// How a position is mapped into a layer (or slice).
    pub reduction: Reduction,
}

impl Config {
    /// bloomlab's defaults for `n0` and `P`: [`Layout::Blocked`] layers
    /// sized by [`Sizing::HalfFill`], growth `s = 4`, tightening
    /// `r = 0.75`, `P0 = P/4`, keys hashed by xxh3-64 (single pairing,
    /// multiply-shift picks the block).
    ///
    /// Why these: a scalable filter is for when `n` is unknown and may
    /// exceed the estimate by orders of magnitude. Every query tests every
    /// layer, so the number of layers sets the speed: `s = 4` (Almeida et
    /// al.'s choice for fast growth, with `r = 0.75`) needs 6 layers from
    /// 1,000 to 10⁶ items where `s = 2` needs 10, and blocked layers cost
    /// one cache line each. Measured (`benches/benches/scalable.rs`, 10⁶
    /// items, the block in the crate's README) that is 3.0–8.5× the speed
    /// of growable-bloom-filter and 8.6–21× that of
    /// probabilistic-collections, at a lower false-positive rate than
    /// either (0.52 % against 3.8 % and 1.6 %). The
    /// price is memory: right after a new layer opens, `s = 4` has
    /// allocated up to 4× what the items need (24.7 bits per item at 10⁶
    /// items, 38 on average over 10³–10⁶; `s = 2`, `r = 0.85`: 20.5 and
    /// 27). For slow growth or tight memory, set `.growth(2)` and
    /// `.tightening(0.85)`. The bound `P0/(1 − r) = P` holds either way.
    pub fn new(initial_capacity: u64, error: f64) -> Config {
        Config {
            initial_capacity,
            error,
            first_error: error * 0.25,
            tightening: 0.75,
            growth: 4,
            scaling: true,
            full_at_half_fill: false,
            layout: Layout::Blocked,
            sizing: Sizing::HalfFill,
            family: Family::Xxh3_64,
            seed: 0,
            pairing: Pairing::Single,
            probe: Probe::MixedDouble,
            reduction: Reduction::MultiplyShift,
        }
    }

    /// Sets `r` and `P0 = P·(1 − r)` (a non-scaling filter keeps its
    /// one layer at `P`, whichever of the two is called first).
    pub fn tightening(mut self, r: f64) -> Config {
        self.tightening = r;
        self.first_error =
            if self.scaling { self.error * (1.0 - r) } else { self.error };
        self
    }

    /// Sets `s` (at most [`MAX_GROWTH`], checked by
    /// [`validate`](Self::validate)).
    pub fn growth(mut self, s: u64) -> Config {
        self.growth = s;
        self
    }

    /// Sets the layout.
    pub fn layout(mut self, layout: Layout) -> Config {
        self.layout = layout;
        self
    }

    /// Sets the sizing.
    pub fn sizing(mut self, sizing: Sizing) -> Config {
        self.sizing = sizing;
        self
    }

    /// Sets the fill-½ fullness rule.
    pub fn full_at_half_fill(mut self, yes: bool) -> Config {
        self.full_at_half_fill = yes;
        self
    }

    /// Makes the filter non-scaling (one layer at error `P`).
    pub fn non_scaling(mut self) -> Config {
        self.scaling = false;
        self.first_error = self.error;
        self
    }

    /// Sets the hash family and seed.
    pub fn hash(mut self, family: Family, seed: u64) -> Config {
        self.family = family;
        self.seed = seed;
        self
    }

    /// Sets pairing, probe scheme and reduction.
    pub fn probes(
        mut self,
        pairing: Pairing,
        probe: Probe,
        reduction: Reduction,
    ) -> Config {
        self.pairing = pairing;
        self.probe = probe;
        self.reduction = reduction;
        self
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if self.initial_capacity == 0 {
            return Err(Error::invalid("n0", 0, "must be at least 1"));
        }
        let open = |x: f64| x > 0.0 && x < 1.0;
        if !open(self.error) {
            return Err(Error::invalid("p", self.error, "must be in (0, 1)"));
        }
        // `r` before `P0`: `tightening(r)` sets `P0 = P(1 − r)`, so an
        // `r` outside (0, 1) would otherwise be reported as a `P0` the
        // caller never set.
        if !open(self.tightening) {
            return Err(Error::invalid(
                "r",
                self.tightening,
                "must be in (0, 1)",
            ));
        }
        if !open(self.first_error) {
            return Err(Error::invalid(
                "p0",
                self.first_error,
                "must be in (0, 1)",
            ));
        }
        if self.layout == Layout::Blocked && self.sizing != Sizing::HalfFill {
            return Err(Error::invalid(
                "sizing",
                format!("{:?}", self.sizing),
                "blocked layers are sized by half fill",
            ));
        }
        if self.scaling && self.growth == 0 {
            return Err(Error::invalid("s", 0, "must be at least 1"));
        }
        if self.growth > MAX_GROWTH {
            return Err(Error::invalid(
                "s",
                self.growth,
                "must be at most 32768 (RedisBloom's limit, MAX_GROWTH)",
            ));
        }
        if self.pairing == Pairing::Chained
            && self.family.seed_kind() != bloomlab_hash::SeedKind::U64
        {
            return Err(Error::invalid(
                "family",
                self.family.name(),
                "chained pairing needs a family with 64-bit seeds",
            ));
        }
        bloomlab_hash::Hasher::new(self.family, i128::from(self.seed))?;
        Ok(())
    }

    /// The bound on the compounded error, `P0/(1 − r)` (for a non-scaling
    /// filter, its one layer's error).
    pub fn error_bound(&self) -> f64 {
        if self.scaling {
            self.first_error / (1.0 - self.tightening)
        } else {
            self.first_error
        }
    }
}

/// One layer's shape: total bits, modulus (the whole array or one slice),
/// `k` and bits per entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Shape {
    pub(crate) bits: u64,
    pub(crate) modulus: u64,
    pub(crate) k: u32,
    pub(crate) bpe: f64,
}

/// RedisBloom's decimal `ln² 2`.
pub(crate) const REDIS_LN2_SQUARED: f64 = 0.480453013918201;
/// RedisBloom's decimal `ln 2`: deliberately the 15-digit literal, not
/// `LN_2` (at exact powers of two it makes `k = log2(1/p) + 1`).
#[allow(clippy::approx_constant)]
pub(crate) const REDIS_LN2: f64 = 0.693147180559945;

/// RedisBloom's `k` for a bits-per-entry figure.
pub(crate) fn redis_k(bpe: f64) -> f64 {
    (REDIS_LN2 * bpe).ceil()
}

pub(crate) fn shape(
    sizing: Sizing,
    layout: Layout,
    capacity: u64,
    error: f64,
) -> Result<Shape> {
    use std::f64::consts::LN_2;
    let bad = |why: &'static str| Error::CannotGrow(why.to_string());
    if !(error > 0.0 && error < 1.0) {
        return Err(bad("layer error outside (0, 1)"));
    }
    let n = capacity as f64;
    if layout == Layout::Blocked {
        return blocked_shape(sizing, capacity, error);
    }
    let (k, slice_or_total) = match sizing {
        Sizing::RedisBloom => {
            let bpe = -(error.ln() / REDIS_LN2_SQUARED);
            let mut m = (n * bpe).floor();
            if m < 1.0 {
                m = 1.0;
            }
            let k = redis_k(bpe);
            let fits = m < 2f64.powi(62) && k < 4096.0;
            if !fits {
                return Err(bad("layer too large"));
            }
            let m = (m as u64).div_ceil(64) * 64;
            let k = k as u32;
            return Ok(match layout {
                // (Blocked layers returned above.)
                Layout::Standard | Layout::Blocked => {
                    Shape { bits: m, modulus: m, k, bpe }
                }
                Layout::Partitioned => {
                    let slice = m.div_ceil(u64::from(k));
                    Shape {
                        bits: slice * u64::from(k),
                        modulus: slice,
                        k,
                        bpe,
                    }
                }
            });
        }
        Sizing::HalfFill => {
            let k = (-error.log2()).ceil().max(1.0);
            (k, (n / LN_2).ceil())
        }
        Sizing::Pybloom => {
            // pybloom-live's expressions, operation for operation:
            // `ceil(math.log(1.0 / error_rate, 2))` (a quotient of natural
            // logarithms, not `log2`) and `ceil((capacity *
            // abs(math.log(error_rate))) / (num_slices * (math.log(2) **
            // 2)))`.
            let k = ((1.0 / error).ln() / LN_2).ceil().max(1.0);
            (k, (n * error.ln().abs() / (k * (LN_2 * LN_2))).ceil().max(1.0))
        }
    };
    let fits = k < 4096.0 && slice_or_total * k < 2f64.powi(62);
    if !fits {
        return Err(bad("layer too large"));
    }
    let k_u = k as u32;
    let slice = slice_or_total as u64;
    let total = slice * u64::from(k_u);
    Ok(match layout {
        Layout::Partitioned => Shape {
            bits: total,
            modulus: slice,
            k: k_u,
            bpe: total as f64 / n,
        },
        Layout::Standard | Layout::Blocked => {
            let m = total.div_ceil(64) * 64;
            Shape { bits: m, modulus: m, k: k_u, bpe: m as f64 / n }
        }
    })
}

/// A [`Layout::Blocked`] layer: `max(⌈log2(1/p)⌉, 8)` probes and
/// `⌈n / ((1 − 2^−k) λ_k)⌉` blocks ([`BLOCKED_LOAD`]); the modulus is the
/// number of blocks.
fn blocked_shape(sizing: Sizing, capacity: u64, error: f64) -> Result<Shape> {
    let bad = |why: &'static str| Error::CannotGrow(why.to_string());
    if sizing != Sizing::HalfFill {
        return Err(bad("blocked layers are sized by half fill"));
    }
    let k = (-error.log2()).ceil().max(1.0);
    let Some(&load) = BLOCKED_LOAD.get(k as usize - 1) else {
        return Err(bad("a blocked layer would need more than 64 probes"));
    };
    // An add the layer already reports present inserts nothing and is
    // not counted, so a layer holding `n` items has seen `n` plus its
    // false positives: its bits are those of that many random keys, on
    // average at most `n / (1 − 2^−k)` while its rate stays under `2^−k`.
    let tried = capacity as f64 / (1.0 - (-k).exp2());
    let blocks = (tried / load).ceil().max(1.0);
    if blocks * BLOCK_BITS as f64 >= 2f64.powi(62) {
        return Err(bad("layer too large"));
    }
    let blocks = blocks as u64;
    let bits = blocks * BLOCK_BITS;
    Ok(Shape {
        bits,
        modulus: blocks,
        // Every block word gets a probe: fewer would leave words unused.
        k: (k as u32).max(8),
        bpe: bits as f64 / capacity as f64,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use bloomlab_core::theory::fpr_exact;

    /// The rate of a blocked layer whose blocks hold `lambda` items on
    /// average, with `probes` probes (the formula of [`BLOCKED_LOAD`]):
    /// Poisson block loads, summed far enough that the neglected tail
    /// (< 1e-30) is far below any rate checked here (≥ 2^−64).
    fn split_block_rate(lambda: f64, probes: u32) -> f64 {
        let (q, r) = (probes / 8, probes % 8);
        let last = (lambda + 14.0 * lambda.sqrt() + 40.0) as u64;
        let mut weight = (-lambda).exp();
        let mut sum = 0.0;
        for i in 0..=last {
            // 8 − r words get q probes, r words q + 1.
            let word = |c: u32| {
                if c == 0 { 1.0 } else { fpr_exact(64, i, c).unwrap().value }
            };
            sum += weight
                * word(q).powi(8 - r as i32)
                * word(q + 1).powi(r as i32);
            weight *= lambda / (i + 1) as f64;
        }
        sum
    }

    fn k_of(p: f64) -> f64 {
        (-p.log2()).ceil()
    }

    /// Every entry of the table is the largest load (to 4 decimals) at
    /// which the formula stays at or under `2^−k`.
    #[test]
    fn blocked_load_table_is_the_split_block_formula() {
        for k in 1..=MAX_BLOCKED_K {
            let target = (-f64::from(k)).exp2();
            let load = BLOCKED_LOAD[k as usize - 1];
            let probes = k.max(8);
            let at = split_block_rate(load, probes);
            assert!(at <= target, "k {k}: {at} > {target}");
            // Rounded down: one more unit in the 4th decimal is over.
            let above = split_block_rate(load + 1e-4, probes);
            assert!(above > target, "k {k}: {above} <= {target}");
        }
    }

    /// A blocked layer filled to its capacity errs as the formula says.
    /// Seeded keys, so every outcome below is fixed.
    ///
    /// * The measured rate's 99.9% Clopper–Pearson interval contains the
    ///   exact rate of the layer's bits (the mean over blocks of
    ///   `Π_j fill_j^c_j`, [`crate::ScalableBloomFilter::compounded_error`]):
    ///   queries are independent trials at that rate.
    /// * That rate is the mean of one rate per block, whose expectation
    ///   is the formula at the layer's load; they differ by less than
    ///   3.29 standard errors (99.9%, normal), the standard error being
    ///   the blocks' sample deviation over √blocks.
    /// * The formula at that load is at most `2^−k`, the sizing promise.
    #[test]
    fn a_full_blocked_layer_errs_as_the_formula_says() {
        use crate::ScalableBloomFilter;
        use bloomlab_core::stats::clopper_pearson;
        for (n, p) in [(20_000u64, 0.01), (10_000, 0.001), (100_000, 0.2)] {
            let c = Config::new(n, p).non_scaling();
            let mut f = ScalableBloomFilter::with_config(c).unwrap();
            // Until the layer holds its capacity (an add reported present
            // inserts nothing).
            let mut i = 0u64;
            while f.len() < n {
                f.add(&(2 * i).to_le_bytes()).unwrap();
                i += 1;
            }
            let l = &f.layers()[0];
            // Its bits are those of every key tried: the skipped ones
            // (reported present) set nothing new.
            let tried = n + f.skipped();
            let q = (-k_of(p)).exp2();
            assert!(tried as f64 <= n as f64 / (1.0 - q));
            let load = tried as f64 / l.modulus as f64;
            let formula = split_block_rate(load, l.k());
            assert!(formula <= q, "{formula} > {q}");

            let queries = 400_000u64;
            let fp = (0..queries)
                .filter(|i| f.contains(&(2 * i + 1).to_le_bytes()))
                .count() as u64;
            let ci = clopper_pearson(fp, queries, 0.999).unwrap();
            let exact = f.compounded_error();
            assert!(
                ci.lo <= exact && exact <= ci.hi,
                "n {n} p {p}: {fp}/{queries} [{}, {}] vs {exact}",
                ci.lo,
                ci.hi
            );

            let c = |j: u32| (l.k() + 7 - j) / 8;
            let rates: Vec<f64> = l
                .bit_array()
                .words()
                .chunks(8)
                .map(|b| {
                    (0u32..)
                        .zip(b)
                        .map(|(j, w)| {
                            (f64::from(w.count_ones()) / 64.0)
                                .powi(c(j) as i32)
                        })
                        .product()
                })
                .collect();
            let m = rates.len() as f64;
            let mean = rates.iter().sum::<f64>() / m;
            let var = rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>()
                / (m - 1.0);
            let se = (var / m).sqrt();
            assert!((mean - exact).abs() < 1e-12 * exact.max(1e-300) + 1e-15);
            assert!(
                (mean - formula).abs() <= 3.29 * se,
                "n {n} p {p}: bits {mean} vs formula {formula} (se {se})"
            );
        }
    }

    #[test]
    fn blocked_shapes_follow_the_table() {
        // 0.005: k = 8, 42.0269 items per block.
        let s = shape(Sizing::HalfFill, Layout::Blocked, 100_000, 0.005);
        let s = s.unwrap();
        // ⌈100000 / ((1 − 2^−8) · 42.0269)⌉
        assert_eq!((s.k, s.modulus), (8, 2389));
        assert_eq!(s.bits, 2389 * BLOCK_BITS);
        // Few probes are raised to 8; one item still gets a block.
        let s = shape(Sizing::HalfFill, Layout::Blocked, 1, 0.3).unwrap();
        assert_eq!((s.k, s.modulus, s.bits), (8, 1, 512));
        // Beyond 64 probes a blocked layer is refused.
        let e = shape(Sizing::HalfFill, Layout::Blocked, 10, 1e-20);
        assert!(e.is_err());
        assert!(shape(Sizing::RedisBloom, Layout::Blocked, 10, 0.01).is_err());
        let c = Config::new(10, 0.01).layout(Layout::Blocked);
        assert!(c.sizing(Sizing::Pybloom).validate().is_err());
        assert!(c.validate().is_ok());
    }

    /// A tightening ratio outside (0, 1) is reported as `r`, the
    /// parameter the caller set, not as the `P0` derived from it.
    #[test]
    fn bad_tightening_is_reported_as_r() {
        for r in [0.0, 1.0, 1.5, -0.5, f64::NAN] {
            let e = Config::new(1000, 0.01).tightening(r).validate();
            assert!(
                matches!(e, Err(Error::InvalidParameter { name: "r", .. })),
                "r = {r}: {e:?}"
            );
        }
    }

    /// `non_scaling` promises one layer at `P`, also when `tightening`
    /// is called after it.
    #[test]
    fn non_scaling_keeps_p_whatever_the_order() {
        let after = Config::new(1000, 0.01).non_scaling().tightening(0.5);
        let before = Config::new(1000, 0.01).tightening(0.5).non_scaling();
        for c in [after, before] {
            assert_eq!((c.first_error, c.error_bound()), (0.01, 0.01));
        }
    }
}
