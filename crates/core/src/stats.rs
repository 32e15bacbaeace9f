//! Judging an empirical false-positive rate: binomial confidence
//! intervals, the number of queries they need, and z-scores.
//!
//! `x` false positives in `N` independent non-member queries estimate the
//! rate as `p̂ = x/N`. Two intervals at confidence `1 − δ`, with
//! `z = Φ^{−1}(1 − δ/2)`:
//!
//! * [`clopper_pearson`] (Clopper & Pearson 1934, Biometrika 26(4)): the
//!   exact-tail interval, coverage never below `1 − δ` (conservative).
//!   Experiments report it.
//! * [`wilson`] (Wilson 1927, JASA 22): the score interval, coverage close
//!   to `1 − δ` on average, recommended by Brown, Cai & DasGupta (2001).
//!
//! Queries against *one* filter are correlated through that filter's
//! fill: they converge to its own `(X/m)^k`, not to the average over
//! filters that the theory gives. When many filters are built, use
//! [`mean_and_standard_error`] of the per-filter rates (the
//! cluster-robust standard error) and [`z_score`] against the formula.
//!
//! # Example
//!
//! Worked example C of `THEORY.md`: 25 false positives in 10,000 queries.
//!
//! ```
//! use bloomlab_core::stats;
//!
//! let cp = stats::clopper_pearson(25, 10_000, 0.95)?;
//! assert!((cp.lo - 0.0016185015).abs() < 1e-10);
//! assert!((cp.hi - 0.0036882960).abs() < 1e-10);
//! let w = stats::wilson(25, 10_000, 0.95)?;
//! assert!((w.lo - 0.0016939976).abs() < 1e-10);
//! // Both contain the estimate 0.0025.
//! assert!(cp.contains(0.0025) && w.contains(0.0025));
//! // About 384 false positives are needed for ±10% at 95%, whatever p.
//! let n = stats::queries_for_relative_half_width(1e-3, 0.1, 0.95)?;
//! assert_eq!(n, 383_762);
//! # Ok::<(), bloomlab_core::Error>(())
//! ```

use crate::{Error, Result};

/// A closed interval `[lo, hi]` of probabilities.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

impl Interval {
    /// Whether `lo ≤ x ≤ hi`.
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// `(hi − lo)/2`.
    pub fn half_width(&self) -> f64 {
        (self.hi - self.lo) / 2.0
    }

    /// [`half_width`](Interval::half_width) relative to `center` (usually
    /// the point estimate): `(hi − lo)/(2·center)`.
    pub fn relative_half_width(&self, center: f64) -> f64 {
        self.half_width() / center
    }
}

fn check_counts(successes: u64, trials: u64) -> Result<()> {
    if trials == 0 {
        return Err(Error::invalid("trials", trials, "must be at least 1"));
    }
    if successes > trials {
        return Err(Error::invalid(
            "successes",
            successes,
            "must be at most the number of trials",
        ));
    }
    Ok(())
}

fn check_confidence(confidence: f64) -> Result<()> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(Error::invalid(
            "confidence",
            confidence,
            "must be in (0, 1)",
        ));
    }
    Ok(())
}

/// The two-sided standard-normal quantile for a confidence level:
/// `z = Φ^{−1}(1 − δ/2)` with `δ = 1 − confidence`, e.g. 1.959964 for
/// 0.95. Evaluated as `√2·erfc^{−1}(δ)`, so no precision is lost to
/// `1 − δ/2` (though `confidence` itself cannot carry more than ~16
/// digits: `1 − 1e-12` is really `δ = 1.0000889e-12`).
///
/// Domain: `0 < confidence < 1`.
pub fn z_for_confidence(confidence: f64) -> Result<f64> {
    check_confidence(confidence)?;
    let delta = 1.0 - confidence;
    Ok(std::f64::consts::SQRT_2 * statrs::function::erf::erfc_inv(delta))
}

/// The Clopper–Pearson ("exact") interval for `successes` out of `trials`
/// (Clopper & Pearson 1934, Biometrika 26(4):404–413):
///
/// ```text
/// [B(δ/2; x, N−x+1),  B(1−δ/2; x+1, N−x)]
/// ```
///
/// with `B(q; a, b)` the quantile of the Beta(a, b) distribution (solved
/// on statrs' regularised incomplete beta), the lower end 0 when `x = 0` and
/// the upper end 1 when `x = N`. Its coverage is at least `confidence` for
/// every true rate.
///
/// Accuracy: statrs' incomplete beta loses digits when `N − x` is huge,
/// so the ends drift as `trials` grows past 10^9: 9e-6 relative at
/// `N = 10^10`, 4e-4 at `10^12`, 20% at `10^15` (against exact binomial
/// tails, 50 digits). Experiments' query counts stay far below that.
///
/// Errors: `trials = 0`, `successes > trials`, `confidence ∉ (0, 1)`.
pub fn clopper_pearson(
    successes: u64,
    trials: u64,
    confidence: f64,
) -> Result<Interval> {
    check_counts(successes, trials)?;
    check_confidence(confidence)?;
    let delta = 1.0 - confidence;
    let x = successes as f64;
    let n = trials as f64;
    let lo = if successes == 0 {
        0.0
    } else {
        beta_quantile(x, n - x + 1.0, delta / 2.0)?
    };
    let hi = if successes == trials {
        1.0
    } else {
        beta_quantile(x + 1.0, n - x, 1.0 - delta / 2.0)?
    };
    Ok(Interval { lo, hi })
}

/// The `q`-quantile of Beta(a, b) solved by bisection on the regularised
/// incomplete beta function: geometric steps while the bracket spans
/// decades (quantiles of rare events sit near 0), arithmetic after; at most
/// 400 evaluations, so it always terminates. `None` if statrs cannot
/// evaluate `I_p(a, b)`.
fn bisect_beta_quantile(a: f64, b: f64, q: f64) -> Option<f64> {
    use statrs::function::beta::checked_beta_reg;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..400 {
        let mid = if lo > 0.0 && hi / lo > 4.0 {
            (lo * hi).sqrt()
        } else if lo == 0.0 && hi > 1e-300 {
            hi * 1e-3
        } else {
            0.5 * (lo + hi)
        };
        if mid <= lo || mid >= hi {
            break;
        }
        if checked_beta_reg(a, b, mid).ok()? < q {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-15 * hi {
            break;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The `q`-quantile of Beta(a, b).
///
/// Closed forms for `a = 1` or `b = 1` (the CP ends next to `x = 0` and
/// `x = N`); otherwise a bounded bisection ([`bisect_beta_quantile`]),
/// polished by Newton steps on `I_p(a, b) = q` to full precision.
fn beta_quantile(a: f64, b: f64, q: f64) -> Result<f64> {
    use statrs::function::beta::{checked_beta_reg, checked_ln_beta};
    let fail = || {
        Error::invalid("trials", b, "Beta quantile failed for these counts")
    };
    if a == 1.0 {
        // I_p(1, b) = 1 − (1 − p)^b.
        return Ok(-((-q).ln_1p() / b).exp_m1());
    }
    if b == 1.0 {
        // I_p(a, 1) = p^a.
        return Ok((q.ln() / a).exp());
    }
    // statrs' own inversion (`Beta::inverse_cdf`) can loop forever for
    // large counts (thousands of false positives in millions of queries),
    // so start from a bisection with a fixed iteration budget instead.
    let mut p = bisect_beta_quantile(a, b, q).ok_or_else(fail)?;
    let ln_beta = checked_ln_beta(a, b).map_err(|_| fail())?;
    for _ in 0..8 {
        let Ok(cdf) = checked_beta_reg(a, b, p) else { break };
        let ln_density =
            (a - 1.0) * p.ln() + (b - 1.0) * (-p).ln_1p() - ln_beta;
        let step = (cdf - q) / ln_density.exp();
        let next = p - step;
        if !step.is_finite() || next <= 0.0 || next >= 1.0 {
            break;
        }
        p = next;
        if step.abs() <= 4.0 * f64::EPSILON * p {
            break;
        }
    }
    Ok(p)
}

/// The Wilson score interval (Wilson 1927, "Probable inference, the law of
/// succession, and statistical inference", JASA 22:209–212):
///
/// ```text
/// (p̂ + z²/2N ± z·√(p̂(1−p̂)/N + z²/4N²)) / (1 + z²/N),   p̂ = x/N
/// ```
///
/// clamped to `[0, 1]`, with the lower end exactly 0 at `x = 0` and the
/// upper end exactly 1 at `x = N`. Recommended by Brown, Cai & DasGupta
/// (2001, Statistical Science 16(2)); its centre `(x + z²/2)/(N + z²)` is
/// pulled toward 1/2.
///
/// Errors: `trials = 0`, `successes > trials`, `confidence ∉ (0, 1)`.
pub fn wilson(
    successes: u64,
    trials: u64,
    confidence: f64,
) -> Result<Interval> {
    check_counts(successes, trials)?;
    let z = z_for_confidence(confidence)?;
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // At x = 0 and x = N the ends are exactly 0 and 1 in exact arithmetic;
    // pin them so that rounding does not leave 1e-20 or 1 − 1e-16.
    let lo = if successes == 0 { 0.0 } else { (center - half).max(0.0) };
    let hi = if successes == trials { 1.0 } else { (center + half).min(1.0) };
    Ok(Interval { lo, hi })
}

/// Queries needed for a relative half-width `rel` at `confidence` when the
/// rate is `p`, by the Wald (normal) approximation:
///
/// ```text
/// N = ⌈z²(1 − p) / (p · rel²)⌉
/// ```
///
/// This is the planning figure: about `z²/rel²` false positives (384 for
/// ±10% at 95%) whatever `p`. Exact intervals are asymmetric and wider
/// above, so having *both* sides of a Wilson or Clopper–Pearson interval
/// within ±`rel` takes about 10% more queries (`THEORY.md` §10: 422,096 and
/// 422,495 instead of 383,762 at `p = 1e-3`, ±10%, 95%). Saturates at
/// `u64::MAX`.
///
/// Errors: `p ∉ (0, 1)`, `rel` not positive and finite,
/// `confidence ∉ (0, 1)`.
pub fn queries_for_relative_half_width(
    p: f64,
    rel: f64,
    confidence: f64,
) -> Result<u64> {
    if !(p > 0.0 && p < 1.0) {
        return Err(Error::invalid("p", p, "must be in (0, 1)"));
    }
    if !(rel > 0.0 && rel.is_finite()) {
        return Err(Error::invalid("rel", rel, "must be positive and finite"));
    }
    let z = z_for_confidence(confidence)?;
    let n = (z * z * (1.0 - p) / (p * rel * rel)).ceil();
    // `as` saturates.
    Ok(n as u64)
}

/// Sample mean and standard error `s/√n` (`s` with the `n − 1` divisor).
///
/// Applied to per-filter false-positive rates it gives the cluster-robust
/// standard error of the overall rate, which accounts for queries on one
/// filter being correlated. Two-pass, so it is accurate for values of any
/// scale. Empty input gives `(NaN, NaN)`; one value gives `(x, NaN)`.
pub fn mean_and_standard_error(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, f64::NAN);
    }
    let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    let sd = (ss / (n - 1.0)).sqrt();
    (mean, sd / n.sqrt())
}

/// `(measured − expected)/se`: how many standard errors a measurement is
/// from a formula. `|z| ≤ 3` is unremarkable for one comparison; over many
/// comparisons allow for multiplicity. `se = 0` gives ±∞ or NaN.
pub fn z_score(measured: f64, expected: f64, se: f64) -> f64 {
    (measured - expected) / se
}

/// The exact two-sided binomial test of `successes` in `trials` against
/// the rate `p`, given as the standard-normal score with the same
/// two-sided tail: `|z| = Φ^{−1}(1 − pval/2)` with
/// `pval = min(1, 2·min(P(X ≤ x), P(X ≥ x)))`, `X ~ Binomial(trials, p)`,
/// signed like `x − trials·p` (0 when `pval = 1`, ±∞ when the count is
/// impossible under `p`). As for [`clopper_pearson`], the binomial tails
/// lose digits once `trials` passes about 10^12 (`x = 3`, `N = 10^13`,
/// `p = 10^-15`: 1.394 against 1.403).
///
/// [`z_score`] treats its score as normal, which a count of rare events
/// is not: with 0.13 false positives expected, two of them score
/// `z = 5.1`, yet 0.83% of filters show two or more (two-sided
/// `pval = 0.017`, so here `z = 2.40`).
///
/// ```
/// use bloomlab_core::stats;
///
/// let z = stats::binomial_z(2, 2_000, 0.134 / 2_000.0)?;
/// assert!((z - 2.40).abs() < 0.01);
/// // Near the mean the two agree.
/// let z = stats::binomial_z(10_300, 1_000_000, 0.01)?;
/// assert!((z - 3.0).abs() < 0.05);
/// # Ok::<(), bloomlab_core::Error>(())
/// ```
///
/// Errors: `trials = 0`, `successes > trials`, `p ∉ [0, 1]`.
pub fn binomial_z(successes: u64, trials: u64, p: f64) -> Result<f64> {
    use statrs::distribution::{Binomial, DiscreteCDF};
    check_counts(successes, trials)?;
    let b = Binomial::new(p, trials)
        .map_err(|_| Error::invalid("p", p, "must be in [0, 1]"))?;
    let below = b.cdf(successes);
    // P(X ≥ x) from the survival function, not 1 − cdf, which would lose
    // the small tail to cancellation.
    let above = match successes {
        0 => 1.0,
        x => b.sf(x - 1),
    };
    let pval = (2.0 * below.min(above)).min(1.0);
    let z = std::f64::consts::SQRT_2 * statrs::function::erf::erfc_inv(pval);
    Ok(if below < above { -z } else { z })
}
