// Confidence intervals against published values, closed forms and exact
// coverage.

use bloomlab_core::stats::{self, Interval};
use proptest::prelude::*;

fn rel_diff(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

#[test]
fn worked_example_c() {
    // THEORY.md worked example C: x = 25, N = 10,000, 95%.
    // Published (10 decimals): CP [0.0016185015, 0.0036882960],
    // Wilson [0.0016939976, 0.0036880808]. Reference values to 20 digits
    // from mpmath 1.3 (40-digit arithmetic: bisection on the regularised
    // incomplete beta function for CP, the closed form for Wilson).
    let cp = stats::clopper_pearson(25, 10_000, 0.95).unwrap();
    let wilson = stats::wilson(25, 10_000, 0.95).unwrap();
    // (The nearest f64 to each; mpmath: 0.0016185014555470554357,
    // 0.0036882959910687973736, 0.0016939976111583199057,
    // 0.0036880807676648929329.)
    let cp_ref = (0.001_618_501_455_547_055_4, 0.003_688_295_991_068_797);
    let wilson_ref = (0.001_693_997_611_158_32, 0.003_688_080_767_664_893);
    eprintln!(
        "CP rel err {:.1e} {:.1e}, Wilson {:.1e} {:.1e}",
        rel_diff(cp.lo, cp_ref.0),
        rel_diff(cp.hi, cp_ref.1),
        rel_diff(wilson.lo, wilson_ref.0),
        rel_diff(wilson.hi, wilson_ref.1)
    );
    // Against the high-precision references: Wilson is a closed form
    // (a few ulps; 1e-14 allowed). Clopper–Pearson is limited by statrs'
    // regularised incomplete beta, whose prefactor comes from differences
    // of log-gamma values near 8e4 (measured 1.3e-12 here); 1e-10 leaves a
    // 100× margin and is 10× tighter than the 1e-9 asked for.
    assert!(rel_diff(cp.lo, cp_ref.0) < 1e-10, "{cp:?}");
    assert!(rel_diff(cp.hi, cp_ref.1) < 1e-10, "{cp:?}");
    assert!(rel_diff(wilson.lo, wilson_ref.0) < 1e-14, "{wilson:?}");
    assert!(rel_diff(wilson.hi, wilson_ref.1) < 1e-14, "{wilson:?}");
    // And the published figures, to their last digit (±0.5e-10, which is
    // ~3e-8 relative at 0.0016: the published values cannot pin more).
    let half_unit = 0.5e-10 + 1e-15;
    assert!((cp.lo - 0.001_618_501_5).abs() < half_unit);
    assert!((cp.hi - 0.003_688_296_0).abs() < half_unit);
    assert!((wilson.lo - 0.001_693_997_6).abs() < half_unit);
    assert!((wilson.hi - 0.003_688_080_8).abs() < half_unit);
    // Wald [0.0015212, 0.0034788] is too low at the top: both exact
    // intervals reach higher.
    let z = stats::z_for_confidence(0.95).unwrap();
    let p = 25.0 / 10_000.0;
    let wald_hi = p + z * (p * (1.0 - p) / 10_000.0f64).sqrt();
    assert!((wald_hi - 0.003_478_8).abs() < 5e-8);
    assert!(cp.hi > wald_hi && wilson.hi > wald_hi);
}

#[test]
fn normal_quantile() {
    // Φ^{-1}(0.975) = 1.959963984540054 (to 16 digits).
    let z = stats::z_for_confidence(0.95).unwrap();
    assert!((z - 1.959_963_984_540_054).abs() < 1e-14);
    let z99 = stats::z_for_confidence(0.99).unwrap();
    assert!((z99 - 2.575_829_303_548_900_4).abs() < 1e-13);
    // Tiny δ: 1 − 1e-12 in f64 is really δ = 1.0000889e-12, which moves
    // z by ~1.2e-5 from mpmath's Φ⁻¹(1 − 5e-13) = 7.130506848171324;
    // allow 2e-5.
    let z_tiny = stats::z_for_confidence(1.0 - 1e-12).unwrap();
    assert!((z_tiny - 7.130_506_848_171_324).abs() < 2e-5, "{z_tiny}");
    for bad in [0.0, 1.0, -0.5, 1.5, f64::NAN] {
        assert!(stats::z_for_confidence(bad).is_err(), "{bad}");
    }
}

#[test]
fn queries_needed() {
    // THEORY §10: p = 1e-3, ±10% at 95% → Wald N ≈ 383,762
    // (383,761.736 by mpmath), i.e. ~384 false positives.
    let n = stats::queries_for_relative_half_width(1e-3, 0.1, 0.95).unwrap();
    assert_eq!(n, 383_762);
    let n2 = stats::queries_for_relative_half_width(1e-6, 0.1, 0.95).unwrap();
    assert!((n2 as f64 * 1e-6 - 384.146).abs() < 0.01);
    assert!(stats::queries_for_relative_half_width(0.0, 0.1, 0.95).is_err());
    assert!(stats::queries_for_relative_half_width(1.0, 0.1, 0.95).is_err());
    assert!(stats::queries_for_relative_half_width(0.01, 0.0, 0.95).is_err());
    assert!(stats::queries_for_relative_half_width(0.01, 0.1, 1.0).is_err());
    // Planning at the Wald figure leaves the exact intervals ~10% short:
    // at x = pN, Wilson's upper side is still outside ±10%.
    let x = (1e-3 * n as f64).round() as u64;
    let w = stats::wilson(x, n, 0.95).unwrap();
    assert!(w.hi > 1.1e-3 * 0.999);
}

#[test]
fn edge_cases_have_closed_forms() {
    // x = 0: CP = [0, 1 − (δ/2)^{1/N}], Wilson = [0, z²/(N + z²)].
    let z = stats::z_for_confidence(0.95).unwrap();
    for n in [1u64, 7, 100, 10_000, 1_000_000] {
        let nf = n as f64;
        let cp = stats::clopper_pearson(0, n, 0.95).unwrap();
        assert_eq!(cp.lo, 0.0);
        let upper = -(0.025f64.ln() / nf).exp_m1();
        assert!(rel_diff(cp.hi, upper) < 1e-10, "{n}: {cp:?} vs {upper}");
        let w = stats::wilson(0, n, 0.95).unwrap();
        assert_eq!(w.lo, 0.0);
        assert!(rel_diff(w.hi, z * z / (nf + z * z)) < 1e-12);
        // x = N mirrors it.
        let cp = stats::clopper_pearson(n, n, 0.95).unwrap();
        assert_eq!(cp.hi, 1.0);
        assert!(rel_diff(1.0 - cp.lo, upper) < 1e-9, "{n}: {cp:?}");
        let w = stats::wilson(n, n, 0.95).unwrap();
        assert_eq!(w.hi, 1.0);
        assert!(rel_diff(1.0 - w.lo, z * z / (nf + z * z)) < 1e-9);
    }
}

#[test]
fn bad_input_is_an_error() {
    for f in [stats::clopper_pearson, stats::wilson] {
        assert!(f(0, 0, 0.95).is_err());
        assert!(f(11, 10, 0.95).is_err());
        assert!(f(1, 10, 0.0).is_err());
        assert!(f(1, 10, 1.0).is_err());
        assert!(f(1, 10, f64::NAN).is_err());
        assert!(f(1, 10, 0.95).is_ok());
    }
    let err = stats::clopper_pearson(11, 10, 0.95).unwrap_err();
    assert!(err.to_string().contains("successes"), "{err}");
}

#[test]
fn exact_coverage() {
    // Coverage computed exactly (sum of binomial probabilities of the x
    // whose interval contains p), no simulation: Clopper–Pearson never
    // covers less than 95%; Wilson is close to 95% on average but can
    // dip below at particular p.
    let (n, p) = (1000u64, 0.01f64);
    let mut pmf = (1.0 - p).powi(n as i32);
    let (mut cp_cover, mut w_cover) = (0.0, 0.0);
    for x in 0..=n {
        if x > 0 {
            pmf *= (n - x + 1) as f64 / x as f64 * p / (1.0 - p);
        }
        if stats::clopper_pearson(x, n, 0.95).unwrap().contains(p) {
            cp_cover += pmf;
        }
        if stats::wilson(x, n, 0.95).unwrap().contains(p) {
            w_cover += pmf;
        }
        if pmf < 1e-30 && x as f64 > n as f64 * p {
            break;
        }
    }
    eprintln!(
        "coverage at N=1000, p=0.01: CP {cp_cover:.4}, Wilson {w_cover:.4}"
    );
    assert!(cp_cover >= 0.95);
    assert!((0.93..0.97).contains(&w_cover));
}

#[test]
fn mean_and_standard_error_and_z() {
    let (mean, se) = stats::mean_and_standard_error(&[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(mean, 2.5);
    // s = √(5/3), SE = s/2.
    assert!(rel_diff(se, (5.0f64 / 3.0).sqrt() / 2.0) < 1e-15);
    let (m1, se1) = stats::mean_and_standard_error(&[3.0]);
    assert_eq!(m1, 3.0);
    assert!(se1.is_nan());
    let (m0, se0) = stats::mean_and_standard_error(&[]);
    assert!(m0.is_nan() && se0.is_nan());
    // Two-pass: no cancellation at a large offset.
    let (m, se) = stats::mean_and_standard_error(&[1e9 + 1.0, 1e9 + 3.0]);
    assert_eq!(m, 1e9 + 2.0);
    assert!(rel_diff(se, 1.0) < 1e-12);
    assert!((stats::z_score(0.012, 0.010, 0.001) - 2.0).abs() < 1e-12);
    assert_eq!(stats::z_score(1.0, 2.0, 0.5), -2.0);
}

#[test]
fn interval_helpers() {
    let i = Interval { lo: 0.1, hi: 0.3 };
    assert!(i.contains(0.1) && i.contains(0.3) && i.contains(0.2));
    assert!(!i.contains(0.31) && !i.contains(f64::NAN));
    assert!((i.half_width() - 0.1).abs() < 1e-15);
    assert!((i.relative_half_width(0.2) - 0.5).abs() < 1e-15);
}

proptest! {
    #[test]
    fn clopper_pearson_is_ordered_and_contains_wilson_center(
        n in 1u64..20_000,
        frac in 0.0f64..=1.0,
        confidence in prop::sample::select(vec![0.8, 0.9, 0.95, 0.99, 0.999]),
    ) {
        let x = ((n as f64) * frac).round() as u64;
        let p_hat = x as f64 / n as f64;
        let cp = stats::clopper_pearson(x, n, confidence).unwrap();
        let w = stats::wilson(x, n, confidence).unwrap();
        prop_assert!(0.0 <= cp.lo && cp.lo <= p_hat && p_hat <= cp.hi && cp.hi <= 1.0,
            "{cp:?} p̂={p_hat}");
        prop_assert!(w.lo <= p_hat && p_hat <= w.hi, "{w:?} p̂={p_hat}");
        let z = stats::z_for_confidence(confidence).unwrap();
        let center = (x as f64 + z * z / 2.0) / (n as f64 + z * z);
        prop_assert!(cp.contains(center), "{cp:?} center={center}");
        // Exactly 0 / 1 at the extremes, strictly inside otherwise.
        prop_assert_eq!(cp.lo == 0.0, x == 0);
        prop_assert_eq!(cp.hi == 1.0, x == n);
    }
}

/// Large counts (thousands of false positives in millions of queries) once
/// made statrs' Beta inversion loop forever; the bounded bisection must
/// answer, bracket the estimate and agree with Wilson to a few percent of
/// the width (both are accurate at these counts).
#[test]
fn clopper_pearson_terminates_on_large_counts() {
    for (x, n) in [
        (1865u64, 4_000_000u64),
        (73_063, 500_000),
        (28_073, 500_000),
        (9_999, 10_000_000),
        (1, 50_000_000),
        (49_999_999, 50_000_000),
    ] {
        let cp = stats::clopper_pearson(x, n, 0.999).unwrap();
        let w = stats::wilson(x, n, 0.999).unwrap();
        let p = x as f64 / n as f64;
        assert!(cp.lo < p && p < cp.hi, "{x}/{n}: {cp:?}");
        if x > 1000 && n - x > 1000 {
            let width = cp.hi - cp.lo;
            assert!((cp.lo - w.lo).abs() < 0.05 * width, "{x}/{n}");
            assert!((cp.hi - w.hi).abs() < 0.05 * width, "{x}/{n}");
        }
    }
}

/// The exact binomial test's z against tails computed independently:
/// closed forms for tiny counts, and for 10^8 queries a sum of the
/// binomial pmf in log space (Python's `math.lgamma`, terms added
/// outward from x until below 1e-18 of the sum; its own relative error
/// is about 1e-6, from lgamma of 10^8), turned into z by Python's
/// `statistics.NormalDist().inv_cdf`.
#[test]
fn binomial_z_against_exact_tails() {
    // 2 false positives where 0.134 are expected: P(X ≥ 2) =
    // 1 − (1−p)^N − N·p·(1−p)^(N−1) = 0.0082114664917659, z = 2.3993784.
    let z = stats::binomial_z(2, 2_000, 0.134 / 2_000.0).unwrap();
    assert!((z - 2.399_378_4).abs() < 1e-6, "{z}");
    // The normal score of the same count is 5.1: the reason for the test.
    let p = 0.134 / 2_000.0;
    let normal =
        stats::z_score(2.0 / 2_000.0, p, (p * (1.0 - p) / 2_000.0).sqrt());
    assert!(normal > 5.0, "{normal}");
    // 10^8 queries at p = 1e-3: P(X ≥ 101,265) = 3.2642331e-5 and
    // P(X ≤ 98,735) = 3.0534548e-5.
    let z = stats::binomial_z(101_265, 100_000_000, 1e-3).unwrap();
    assert!((z - 3.992_847).abs() < 1e-4, "{z}");
    let z = stats::binomial_z(98_735, 100_000_000, 1e-3).unwrap();
    assert!((z + 4.008_641).abs() < 1e-4, "{z}");
    // At the mean both tails exceed 1/2: nothing unusual.
    assert_eq!(stats::binomial_z(100_000, 100_000_000, 1e-3).unwrap(), 0.0);
    assert_eq!(stats::binomial_z(0, 1_000, 1e-5).unwrap(), 0.0);
    // Counts impossible under p.
    assert_eq!(stats::binomial_z(1, 1_000, 0.0).unwrap(), f64::INFINITY);
    assert_eq!(stats::binomial_z(0, 1_000, 0.0).unwrap(), 0.0);
    assert_eq!(stats::binomial_z(999, 1_000, 1.0).unwrap(), f64::NEG_INFINITY);
    assert_eq!(stats::binomial_z(1_000, 1_000, 1.0).unwrap(), 0.0);
    // Bad input.
    assert!(stats::binomial_z(1, 0, 0.5).is_err());
    assert!(stats::binomial_z(2, 1, 0.5).is_err());
    assert!(stats::binomial_z(1, 10, 1.5).is_err());
    assert!(stats::binomial_z(1, 10, f64::NAN).is_err());
}
