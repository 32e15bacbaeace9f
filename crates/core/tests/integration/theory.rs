// Theory formulas against exhaustive enumeration, exact rationals and
// seeded Monte Carlo.
//
// Monte Carlo checks use a fixed ChaCha8 seed, so they are deterministic;
// their tolerances are still derived from the simulation's own standard
// error (SE), as if the seed were random, so that changing a seed or a
// sample size keeps the checks meaningful. Sizes are chosen so that the
// whole file runs in a few seconds unoptimised (`cargo test`).

use std::collections::HashMap;

use bloomlab_core::stats::{mean_and_standard_error, z_score};
use bloomlab_core::theory::{self, BlockInner, ExactMethod};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// |z| bound for "the simulation agrees with the formula": two-sided
/// P(|N(0,1)| > 4.5) ≈ 6.8e-6 per check, so a correct formula essentially
/// never fails even if seeds or sizes change; a formula that is off by
/// more than ~5 SE is caught.
const Z_AGREE: f64 = 4.5;

fn rel_diff(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn reduce((n, d): (u128, u128)) -> (u128, u128) {
    let g = gcd(n, d).max(1);
    (n / g, d / g)
}

fn to_f64((n, d): (u128, u128)) -> f64 {
    n as f64 / d as f64
}

/// Advances an odometer of base-`base` digits; false once it wraps.
fn next_sequence(digits: &mut [u32], base: u32) -> bool {
    for d in digits.iter_mut() {
        *d += 1;
        if *d < base {
            return true;
        }
        *d = 0;
    }
    false
}

/// Exhaustive enumeration for a standard filter: all `m^{kn}` insertion
/// probe sequences, and for each resulting set of bits all `m^k` query
/// probe sequences. Returns (hits, m^{kn+k}) unreduced.
fn enumerate_standard(m: u32, n: u32, k: u32) -> (u128, u128) {
    assert!(m <= 16);
    let mut by_mask: HashMap<u32, u128> = HashMap::new();
    let mut digits = vec![0u32; (k * n) as usize];
    loop {
        let mask = digits.iter().fold(0u32, |acc, &d| acc | (1 << d));
        *by_mask.entry(mask).or_default() += 1;
        if !next_sequence(&mut digits, m) {
            break;
        }
    }
    let mut hits: u128 = 0;
    for (&mask, &count) in &by_mask {
        let mut query = vec![0u32; k as usize];
        let mut found: u128 = 0;
        loop {
            if query.iter().all(|&d| mask & (1 << d) != 0) {
                found += 1;
            }
            if !next_sequence(&mut query, m) {
                break;
            }
        }
        hits += count * found;
    }
    let total = u128::from(m).pow(k * n + k);
    (hits, total)
}

/// Exhaustive enumeration for a partitioned filter: `k` slices of
/// `s = ⌊m/k⌋` bits, one probe per slice for every item and query.
fn enumerate_partitioned(m: u32, n: u32, k: u32) -> (u128, u128) {
    let s = m / k;
    assert!(s * k <= 16);
    let mut by_mask: HashMap<u32, u128> = HashMap::new();
    // Digit i·k + j = the slot of item i in slice j.
    let mut digits = vec![0u32; (k * n) as usize];
    loop {
        let mask = digits.iter().enumerate().fold(0u32, |acc, (idx, &d)| {
            acc | (1 << ((idx as u32 % k) * s + d))
        });
        *by_mask.entry(mask).or_default() += 1;
        if !next_sequence(&mut digits, s) {
            break;
        }
    }
    let mut hits: u128 = 0;
    for (&mask, &count) in &by_mask {
        let mut query = vec![0u32; k as usize];
        let mut found: u128 = 0;
        loop {
            let all = query
                .iter()
                .enumerate()
                .all(|(j, &d)| mask & (1 << (j as u32 * s + d)) != 0);
            if all {
                found += 1;
            }
            if !next_sequence(&mut query, s) {
                break;
            }
        }
        hits += count * found;
    }
    (hits, u128::from(s).pow(k * n + k))
}

#[test]
fn worked_example_a_exactly() {
    // THEORY.md worked example A: m = 12, n = 2, k = 3.
    let expected = (31_213_469u128, 429_981_696u128); // = /12^8
    let enumerated = enumerate_standard(12, 2, 3);
    assert_eq!(enumerated.1, 12u128.pow(9));
    assert_eq!(reduce(enumerated), expected);
    assert_eq!(theory::fpr_exact_rational_small(12, 2, 3), Some(expected));

    let exact_f = to_f64(expected);
    for e in [
        theory::fpr_exact(12, 2, 3).unwrap(),
        theory::fpr_exact_dp(12, 2, 3).unwrap(),
        theory::fpr_exact_stirling(12, 2, 3).unwrap(),
    ] {
        // 1e-12: both evaluations are sums of a few dozen terms in f64.
        assert!(rel_diff(e.value, exact_f) < 1e-12, "{e:?}");
    }
    assert!((exact_f - 0.0725926).abs() < 5e-8);

    // FPR_pow = (1214423/2985984)^3, to a few ulps.
    let fill = 1_214_423.0 / 2_985_984.0;
    let pow = theory::fpr_classical_discrete(12, 2, 3).unwrap();
    assert!(rel_diff(pow, fill * fill * fill) < 1e-14);
    assert!((pow - 0.0672740).abs() < 5e-8);
    assert!((pow / exact_f - 1.0 - -0.073).abs() < 5e-4); // "−7.3%"

    let exp = theory::fpr_classical(12.0, 2.0, 3.0);
    assert!(rel_diff(exp, (1.0 - (-0.5f64).exp()).powi(3)) < 1e-14);
    assert!((exp - 0.0609162).abs() < 5e-8);
    assert!((exp / exact_f - 1.0 - -0.161).abs() < 5e-4); // "−16.1%"

    // Partitioned, slices of 4: (1 − (3/4)^2)^3 = 343/4096, enumerated.
    assert_eq!(reduce(enumerate_partitioned(12, 2, 3)), (343, 4096));
    assert_eq!(theory::fpr_partitioned(12, 2, 3).unwrap(), 343.0 / 4096.0);
    assert!((343.0 / 4096.0 / exact_f - 1.154).abs() < 5e-4); // "×1.154"
}

#[test]
fn exact_formula_matches_exhaustive_enumeration() {
    let mut checked = 0;
    for m in 1..=10u32 {
        for n in 0..=3u32 {
            for k in 1..=3u32 {
                if u64::from(m).pow(k * n) > 300_000 {
                    continue;
                }
                let enumerated = reduce(enumerate_standard(m, n, k));
                let (m64, n64) = (u64::from(m), u64::from(n));
                let rational =
                    theory::fpr_exact_rational_small(m64, n64, k).unwrap();
                assert_eq!(rational, enumerated, "m={m} n={n} k={k}");
                let truth = to_f64(enumerated);
                let results = [
                    theory::fpr_exact(m64, n64, k).unwrap(),
                    theory::fpr_exact_dp(m64, n64, k).unwrap(),
                    theory::fpr_exact_stirling(m64, n64, k).unwrap(),
                ];
                for e in results {
                    let err = if truth == 0.0 {
                        e.value.abs()
                    } else {
                        rel_diff(e.value, truth)
                    };
                    // 1e-12 relative: a few dozen f64 operations.
                    assert!(
                        err < 1e-12,
                        "m={m} n={n} k={k}: {e:?} vs {truth}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 110);
}

#[test]
fn exact_rational_against_floating_point_for_larger_tiny_filters() {
    // Beyond enumeration, the exact rational (integer DP over counts)
    // pins down the f64 evaluations, e.g. at c = m/n = 8, k = 6.
    let cases = [(16, 2, 6), (16, 4, 6), (32, 3, 6), (24, 3, 4), (7, 9, 2)];
    for (m, n, k) in cases {
        let rational = theory::fpr_exact_rational_small(m, n, k).unwrap();
        let truth = to_f64(rational);
        for e in [
            theory::fpr_exact(m, n, k).unwrap(),
            theory::fpr_exact_dp(m, n, k).unwrap(),
            theory::fpr_exact_stirling(m, n, k).unwrap(),
        ] {
            assert!(rel_diff(e.value, truth) < 1e-12, "{m} {n} {k}: {e:?}");
        }
    }
    // Outside the u128 domain: None, never a wrong answer.
    assert_eq!(theory::fpr_exact_rational_small(1000, 100, 7), None);
    assert_eq!(theory::fpr_exact_rational_small(0, 1, 1), None);
    assert_eq!(theory::fpr_exact_rational_small(5, 0, 3), Some((0, 1)));
    assert_eq!(theory::fpr_exact_rational_small(1, 4, 3), Some((1, 1)));
}

#[test]
fn partitioned_matches_enumeration() {
    for (m, n, k) in
        [(12, 1, 3), (12, 2, 3), (12, 3, 3), (8, 3, 2), (10, 2, 3)]
    {
        let enumerated = enumerate_partitioned(m, n, k);
        let value = theory::fpr_partitioned(m.into(), n.into(), k).unwrap();
        // (10, 2, 3): slices of ⌊10/3⌋ = 3 bits, the documented layout.
        assert!(rel_diff(value, to_f64(enumerated)) < 1e-14, "{m} {n} {k}");
        // Partitioning never helps: FPR_part ≥ FPR_pow (THEORY §3).
        let pow =
            theory::fpr_classical_discrete(m.into(), n.into(), k).unwrap();
        assert!(value >= pow);
    }
    assert!(theory::fpr_partitioned(2, 1, 3).is_err()); // ⌊2/3⌋ = 0
    assert!(theory::fpr_partitioned(0, 1, 3).is_err());
    assert!(theory::fpr_partitioned(9, 1, 0).is_err());
    assert_eq!(theory::fpr_partitioned(9, 0, 3).unwrap(), 0.0);
}

/// One simulated standard filter: `throws` independent uniform positions
/// in `m` bits; returns the number of set bits.
fn simulate_set_bits(
    rng: &mut ChaCha8Rng,
    m: u64,
    throws: u64,
    words: &mut Vec<u64>,
) -> u64 {
    words.clear();
    words.resize(m.div_ceil(64) as usize, 0);
    for _ in 0..throws {
        let bit = rng.random_range(0..m);
        words[(bit / 64) as usize] |= 1 << (bit % 64);
    }
    words.iter().map(|w| u64::from(w.count_ones())).sum()
}

/// Rao-Blackwellised Monte Carlo: the mean over `filters` independent
/// filters of each one's exact conditional FPR `(X/m)^k`, with its SE.
fn rao_blackwell(
    seed: u64,
    m: u64,
    n: u64,
    k: u32,
    filters: usize,
) -> (f64, f64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut words = Vec::new();
    let values: Vec<f64> = (0..filters)
        .map(|_| {
            let x =
                simulate_set_bits(&mut rng, m, u64::from(k) * n, &mut words);
            (x as f64 / m as f64).powi(k as i32)
        })
        .collect();
    mean_and_standard_error(&values)
}

#[test]
fn exact_formula_matches_seeded_monte_carlo() {
    // c = m/n = 8, k = 6 at three sizes. Sample sizes give relative SEs
    // of ~0.3%, 0.2%, 0.2%: small enough to see the classical formulas'
    // 9.4%, 2.5%, 0.6% deficits (the last only at ~3.4 SE), not only to
    // accept the exact one.
    for (m, n, filters, seed) in
        [(64, 8, 20_000, 1), (256, 32, 8_000, 2), (1024, 128, 3_000, 3)]
    {
        let exact = theory::fpr_exact(m, n, 6).unwrap().value;
        let (mean, se) = rao_blackwell(seed, m, n, 6, filters);
        let z = z_score(mean, exact, se);
        eprintln!(
            "m={m}: MC {mean:.6e} ± {se:.2e}, exact {exact:.6e}, z={z:.2}"
        );
        assert!(z.abs() <= Z_AGREE, "m={m}: z = {z}");
    }
}

#[test]
fn classical_formula_is_rejected_at_small_m() {
    // THEORY §2: at c = 8, k = 6 the classical (1 − e^{−kn/m})^k is low by
    // ~30% at m = 16, 18% at 32, 9% at 64, FPR_pow by about two-thirds of
    // that. The Rao-Blackwellised simulation's relative SE is ~0.56%,
    // 0.41%, 0.29%, so the expected z is ≥ 30 for the classical formula
    // and ≥ 20 for FPR_pow. We demand z > 10 for both: more than 4.5 SE
    // below those expectations (so the check is robust to the seed), and
    // far beyond anything a correct formula produces (P(z > 10) ≈ 8e-24).
    // The exact formula must stay within ±4.5 SE.
    for (m, n, filters, seed) in
        [(16, 2, 20_000, 11), (32, 4, 20_000, 12), (64, 8, 20_000, 13)]
    {
        let (mean, se) = rao_blackwell(seed, m, n, 6, filters);
        let exact = theory::fpr_exact(m, n, 6).unwrap().value;
        let pow = theory::fpr_classical_discrete(m, n, 6).unwrap();
        let exp = theory::fpr_classical(m as f64, n as f64, 6.0);
        let (z_exact, z_pow, z_exp) = (
            z_score(mean, exact, se),
            z_score(mean, pow, se),
            z_score(mean, exp, se),
        );
        eprintln!(
            "m={m}: rel SE {:.3}%, z exact {z_exact:.2}, pow {z_pow:.2}, \
             exp {z_exp:.2}",
            100.0 * se / mean
        );
        assert!(z_exact.abs() <= Z_AGREE, "m={m}: exact z = {z_exact}");
        assert!(z_exp > 10.0, "m={m}: classical z = {z_exp}");
        assert!(z_pow > 10.0, "m={m}: discrete z = {z_pow}");
    }
}

#[test]
fn query_based_monte_carlo_with_cluster_robust_se() {
    // The runner's way: build many filters, query each a few times, and
    // use the spread of per-filter rates (cluster-robust SE), because
    // queries on one filter are correlated through its fill.
    let (m, n, k) = (64u64, 8u64, 6u32);
    let (filters, queries) = (4_000, 32);
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut words = Vec::new();
    let mut rates = Vec::with_capacity(filters);
    for _ in 0..filters {
        simulate_set_bits(&mut rng, m, u64::from(k) * n, &mut words);
        let mut hits = 0;
        for _ in 0..queries {
            let all = (0..k).all(|_| {
                let bit = rng.random_range(0..m);
                words[(bit / 64) as usize] & (1 << (bit % 64)) != 0
            });
            hits += u32::from(all);
        }
        rates.push(f64::from(hits) / f64::from(queries));
    }
    let (mean, se) = mean_and_standard_error(&rates);
    let exact = theory::fpr_exact(m, n, k).unwrap().value;
    let z = z_score(mean, exact, se);
    eprintln!("queries: {mean:.5} ± {se:.5} vs exact {exact:.5}, z={z:.2}");
    assert!(z.abs() <= Z_AGREE, "z = {z}");
}

#[test]
fn exact_and_classical_agree_at_large_m_as_predicted() {
    // m = 1e6, c = 8, k = 6 (α = 0.75). THEORY §2's second-order estimates:
    //   (exact − pow)/pow ≈ k(k−1)/2 · e^{−α}(1 − (1+α)e^{−α}) / (m(1−e^{−α})²)
    //                     ≤ 0.307·k(k−1)/(2m)   (the α = ln 2 value)
    //   (pow − exp)/exp   ≈ k·α/(2m) · e^{−α}/(1 − e^{−α})
    // Both are O(1/m) expansions whose next terms are O(k⁴/m²) ~ 1e-9
    // relative to the gap at this size, so 1% agreement is a strict test
    // that still leaves room for the Stirling sum's rounding (~1e-12
    // absolute in relative terms, i.e. ~2e-7 of the 4.4e-6 gap).
    let (m, n, k) = (1_000_000u64, 125_000u64, 6u32);
    let exact = theory::fpr_exact(m, n, k).unwrap();
    assert_eq!(exact.method, ExactMethod::StirlingSum);
    let pow = theory::fpr_classical_discrete(m, n, k).unwrap();
    let exp = theory::fpr_classical(m as f64, n as f64, f64::from(k));
    let (mf, kf) = (m as f64, f64::from(k));
    let alpha = kf * n as f64 / mf;
    let e = (-alpha).exp();
    let predicted_exact =
        kf * (kf - 1.0) / 2.0 * e * (1.0 - (1.0 + alpha) * e)
            / (mf * (1.0 - e).powi(2));
    let predicted_pow = kf * alpha / (2.0 * mf) * e / (1.0 - e);
    let gap_exact = exact.value / pow - 1.0;
    let gap_pow = pow / exp - 1.0;
    eprintln!(
        "gaps {gap_exact:.4e} (pred {predicted_exact:.4e}), {gap_pow:.4e} (pred {predicted_pow:.4e})"
    );
    assert!(rel_diff(gap_exact, predicted_exact) < 0.01);
    assert!(
        gap_exact > 0.0 && gap_exact <= 0.307 * kf * (kf - 1.0) / (2.0 * mf)
    );
    assert!(rel_diff(gap_pow, predicted_pow) < 0.01);
}

#[test]
fn ordering_exact_discrete_classical() {
    // Jensen: exact ≥ pow (strict for k ≥ 2 when X is random, equal at
    // k = 1); (1 − 1/m)^{kn} < e^{−kn/m} makes pow > exp strictly.
    for m in [8u64, 16, 64, 1000] {
        for n in [1, 2, m / 8, m / 2] {
            for k in 1..=8u32 {
                let exact = theory::fpr_exact(m, n, k).unwrap().value;
                let pow = theory::fpr_classical_discrete(m, n, k).unwrap();
                let exp = theory::fpr_classical(m as f64, n as f64, k.into());
                assert!(pow > exp, "{m} {n} {k}: {pow} vs {exp}");
                if k == 1 {
                    // Equal up to rounding.
                    assert!(
                        rel_diff(exact, pow) < 1e-13,
                        "{m} {n}: {exact} {pow}"
                    );
                } else {
                    assert!(exact > pow, "{m} {n} {k}: {exact} vs {pow}");
                }
            }
        }
    }
}

/// `fpr_exact` evaluated from the inclusion–exclusion form in 300- and
/// 600-digit arithmetic (mpmath 1.3; the two agree to 40+ digits), rounded
/// to the nearest f64. Full 20-digit values in the comments.
const HIGH_PRECISION: [(u64, u64, u32, f64); 16] = [
    (1000, 100, 7, 0.008266247514843566), // 0.0082662475148435663315
    (10_000, 1000, 7, 0.008200957404774735), // 0.0082009574047747352705
    (100_000, 10_000, 7, 0.008194445427823509), // 0.0081944454278235095791
    (10_000_000, 1_000_000, 7, 0.008193729299292919), // 0.0081937292992929196014
    (4096, 205, 14, 6.831444014694752e-05), // 0.000068314440146947511798
    (2000, 100, 20, 0.00010648123638818421), // 0.00010648123638818420882
    (500, 20, 30, 2.5999067348362306e-05),  // 0.000025999067348362307431
    (1_000_000, 50_000, 30, 0.0005134303407721229), // 0.00051343034077212294318
    (30_000, 1500, 20, 0.00010393255152085143), // 0.00010393255152085142533
    (1_000_000, 125_000, 6, 0.021577280128580834), // 0.021577280128580832581
    (1_000_000_000, 1, 1, 1e-09),               // exactly 1/m
    (1_000_000, 1000, 255, 7.138267224207718e-166), // 7.1382672242077173195e-166
    (3000, 10, 255, 3.223271062105927e-61), // 3.2232710621059274435e-61
    (1 << 40, 1 << 30, 10, 7.512974342074367e-21), // 7.5129743420743664123e-21
    (100, 1, 300, 0.005602778517604988),    // 0.0056027785176049875707
    (1_000_000_000, 10_000, 40, 1.1992938071046491e-136), // 1.199293807104649021e-136
];

#[test]
fn exact_against_high_precision_references() {
    for (m, n, k, truth) in HIGH_PRECISION {
        let best = theory::fpr_exact(m, n, k).unwrap();
        let positive = theory::fpr_exact_stirling_positive(m, n, k).unwrap();
        let ie = theory::fpr_exact_stirling(m, n, k).unwrap();
        let approx = theory::fpr_exact_second_order(m, n, k).unwrap();
        let err = rel_diff(best.value, truth);
        eprintln!(
            "{m} {n} {k}: {} err {err:.1e} (est {:.1e}); \
             inclusion–exclusion err {:.1e} (bound {:.1e})",
            best.method.name(),
            best.error_estimate,
            rel_diff(ie.value, truth),
            ie.error_estimate
        );
        // 1e-13: fpr_exact's error estimates are ≤ 1.3e-13 on this table
        // (measured errors ≤ 6e-15), down to rates of 1e-166.
        assert!(err < 1e-13, "{m} {n} {k}: {best:?} vs {truth:e}");
        assert_ne!(best.method, ExactMethod::Approximation);
        // The non-negative form stays within its own error estimate.
        assert!(rel_diff(positive.value, truth) <= positive.error_estimate);
        // The inclusion–exclusion bound is a bound (where it is finite;
        // at 1e-166 the sum is pure cancellation noise and says so).
        assert!(rel_diff(ie.value, truth) <= ie.error_estimate);
        // The approximation's estimate is an order of magnitude; it
        // covers the real error whenever k²/m is small.
        if f64::from(k * k) / (m as f64) < 1.0 {
            assert!(rel_diff(approx.value, truth) <= approx.error_estimate);
        }
    }
    // The DP, where it is cheap enough for an unoptimised build.
    for (m, n, k, truth) in HIGH_PRECISION {
        if m as f64 * f64::from(k) * n as f64 > 5e7 {
            continue;
        }
        let dp = theory::fpr_exact_dp(m, n, k).unwrap();
        assert!(dp.error_estimate < 1e-11, "{dp:?}");
        assert!(rel_diff(dp.value, truth) <= dp.error_estimate, "{dp:?}");
    }
    // THEORY §5's table: m = 4096, n = 205, k = 14 gives 6.831e-5.
    let v = theory::fpr_exact(4096, 205, 14).unwrap().value;
    assert!((v - 6.831e-5).abs() < 5e-9);
}

#[test]
fn exact_edge_cases_and_speed() {
    let zero = theory::fpr_exact(1000, 0, 7).unwrap();
    assert_eq!(zero.value, 0.0);
    assert_eq!(theory::fpr_exact(1, 5, 3).unwrap().value, 1.0);
    assert!(theory::fpr_exact(0, 5, 3).is_err());
    assert!(theory::fpr_exact(10, 5, 0).is_err());
    assert!(theory::fpr_exact(10, 5, theory::MAX_EXACT_K + 1).is_err());
    assert!(theory::fpr_classical_discrete(0, 1, 1).is_err());
    assert!(theory::fpr_classical_discrete(1, 1, 0).is_err());
    assert!(theory::fpr_classical(0.0, 1.0, 1.0).is_nan());
    assert!(theory::fpr_classical(1.0, f64::NAN, 1.0).is_nan());
    assert_eq!(theory::fpr_classical(100.0, 0.0, 3.0), 0.0);
    assert_eq!(ExactMethod::Dp.name(), "dp");
    assert_eq!(ExactMethod::StirlingSum.name(), "stirling-sum");
    assert_eq!(ExactMethod::Approximation.name(), "approximation");

    // A typical big filter takes the closed form (its speed is measured
    // in benches, not here).
    let big = theory::fpr_exact(10_000_000, 1_000_000, 7).unwrap();
    assert_eq!(big.method, ExactMethod::StirlingSum);
    let pow =
        theory::fpr_classical_discrete(10_000_000, 1_000_000, 7).unwrap();
    // THEORY: ≈ 6.4/m relative above FPR_pow at k = 7 near α = ln 2.
    assert!(big.value > pow && rel_diff(big.value, pow) < 1e-6);

    // Large k: finite, sane, above FPR_pow, whichever method is used.
    for (m, n, k) in
        [(1_000_000u64, 1000u64, 255u32), (3000, 10, 255), (100, 1, 300)]
    {
        let e = theory::fpr_exact(m, n, k).unwrap();
        let pow = theory::fpr_classical_discrete(m, n, k).unwrap();
        eprintln!("k={k}: {e:?} pow {pow:e}");
        assert!(
            e.value.is_finite() && e.value <= 1.0 && e.value >= pow,
            "{e:?}"
        );
    }
}

#[test]
fn exact_rates_near_one_stay_at_most_one() {
    // m = 5 bits and up to 3e6 throws: the rate is 1 − ε with ε =
    // 2.2e-290730, 4.5e-291, 2.1e-19 and 2.9e-6202 (mpmath 1.3 at 50
    // digits: ε = Σ_j d_j Σ_{l=1..j} (−1)^{l+1} C(j,l) (1 − l/m)^{kn},
    // d_j = S(k,j)(m)_j/m^k, which does not cancel), so the truth rounds
    // to 1.0. Rounding put the evaluations up to 2.4e-13 above 1, and
    // p(1 − p) < 0 made a standard error NaN downstream.
    for (m, n, k) in
        [(5, 1_000_000, 3), (5, 1000, 3), (5, 10, 20), (5, 1000, 64)]
    {
        let mut all = vec![
            theory::fpr_exact(m, n, k).unwrap(),
            theory::fpr_exact_stirling(m, n, k).unwrap(),
            theory::fpr_exact_stirling_positive(m, n, k).unwrap(),
            theory::fpr_exact_second_order(m, n, k).unwrap(),
        ];
        if u64::from(k) * n <= 64_000 {
            all.push(theory::fpr_exact_dp(m, n, k).unwrap());
        }
        for e in all {
            assert!((0.0..=1.0).contains(&e.value), "{m} {n} {k}: {e:?}");
            // The truth is 1 to double precision.
            assert!(1.0 - e.value <= e.error_estimate, "{m} {n} {k}: {e:?}");
            assert!((e.value * (1.0 - e.value)).sqrt() >= 0.0);
        }
    }
}

#[test]
fn set_bits_moments_are_exact() {
    // Against the exact distribution from the rational DP: m = 12, n = 2,
    // k = 3, via E[X] and E[X²] computed by enumeration.
    let (m, t) = (12u32, 6u32);
    let mut sum = 0u128;
    let mut sum_sq = 0u128;
    let mut digits = vec![0u32; t as usize];
    loop {
        let mask = digits.iter().fold(0u32, |acc, &d| acc | (1 << d));
        let x = u128::from(mask.count_ones());
        sum += x;
        sum_sq += x * x;
        if !next_sequence(&mut digits, m) {
            break;
        }
    }
    let total = 12f64.powi(6);
    let mean = sum as f64 / total;
    let var = sum_sq as f64 / total - mean * mean;
    let mom = theory::set_bits_moments(12, 2, 3).unwrap();
    assert!(rel_diff(mom.mean, mean) < 1e-14);
    assert!(rel_diff(mom.variance, var) < 1e-12);
    // The stable variance form equals the textbook one where the latter
    // does not cancel.
    let (mf, tf) = (1000.0f64, 700.0f64);
    let q = 1.0 - 1.0 / mf;
    let textbook = mf * (mf - 1.0) * (1.0 - 2.0 / mf).powf(tf)
        + mf * q.powf(tf)
        - mf * mf * q.powf(2.0 * tf);
    let mom = theory::set_bits_moments(1000, 100, 7).unwrap();
    assert!(rel_diff(mom.variance, textbook) < 1e-9);
    // Sparse filters of huge m, where the textbook form cancels all of
    // m's digits: mpmath 1.3 at 80 digits, m·a + m(m−1)·b − m²a².
    for (m, n, k, var) in [
        (1u64 << 40, 10_000u64, 3u32, 4.092_589_547_672_166_6e-4),
        (1_000_000_000_000, 1_000_000, 7, 24.499_710_668_465_37),
        ((1 << 53) + 1, 1_000_000, 7, 2.720_046_018_230_408e-3),
        (1_000_000, 100_000, 7, 77_370.472_534_584_91),
    ] {
        let mom = theory::set_bits_moments(m, n, k).unwrap();
        // t's digits cancel: t·2^-52 absolute, relative to the variance.
        let bound = (k as f64 * n as f64) * 4.0 * f64::EPSILON / var + 1e-12;
        assert!(
            rel_diff(mom.variance, var) < bound,
            "m = {m}, n = {n}, k = {k}: {} against {var}",
            mom.variance
        );
    }
}

#[test]
fn blocked_with_one_block_is_the_mixed_exact_formula() {
    // B = m: one block, whose load is Poisson(n) in fpr_blocked. The test
    // mixes fpr_exact itself, with its own Poisson weights.
    let (m, n, k) = (256u64, 32u64, 6u32);
    let lambda = n as f64;
    let mut weight = (-lambda).exp();
    let (mut exact_mix, mut putze_mix) = (0.0, 0.0);
    for i in 0..200u64 {
        if i > 0 {
            weight *= lambda / i as f64;
        }
        exact_mix += weight * theory::fpr_exact(m, i, k).unwrap().value;
        putze_mix += weight * theory::fpr_classical_discrete(m, i, k).unwrap();
    }
    let blocked = theory::fpr_blocked(m, n, k, m, BlockInner::Exact).unwrap();
    let putze = theory::fpr_blocked(m, n, k, m, BlockInner::Putze).unwrap();
    // 1e-11: two independent sums of ~100 positive terms in f64.
    assert!(rel_diff(blocked, exact_mix) < 1e-11, "{blocked} {exact_mix}");
    assert!(rel_diff(putze, putze_mix) < 1e-11, "{putze} {putze_mix}");
    // With the binomial load and B = m, the load is exactly n.
    let binomial =
        theory::fpr_blocked_binomial(m, n, k, m, BlockInner::Exact).unwrap();
    let exact = theory::fpr_exact(m, n, k).unwrap().value;
    assert!(rel_diff(binomial, exact) < 1e-12);
    assert_eq!(BlockInner::default(), BlockInner::Exact);
}

#[test]
fn blocked_penalty_matches_rocksdb() {
    // RocksDB PR #5762: "a Bloom filter with 512-bit cache locality has
    // about a 1.15x FP rate penalty (e.g. 0.84% to 0.97%)" at 10 bits/key,
    // k = 6. The published rates have two significant digits, so the true
    // ratio they describe lies in [0.965/0.845, 0.975/0.835] =
    // [1.142, 1.168]; THEORY §4 says the exact-inner mixture reproduces
    // it (and Putze's inner formula less closely).
    let m = 512 * 2000;
    let n = m / 10;
    let classical = theory::fpr_classical(m as f64, n as f64, 6.0);
    let exact = theory::fpr_blocked(m, n, 6, 512, BlockInner::Exact).unwrap();
    let putze = theory::fpr_blocked(m, n, 6, 512, BlockInner::Putze).unwrap();
    eprintln!(
        "classical {classical:.5e}, blocked exact {exact:.5e} (×{:.4}), \
         Putze {putze:.5e} (×{:.4})",
        exact / classical,
        putze / classical
    );
    assert!((0.00835..0.00845).contains(&classical));
    assert!((0.00965..0.00975).contains(&exact));
    assert!((1.142..=1.168).contains(&(exact / classical)));
    assert!(putze < exact);
    // Blocking always costs: worse than an unblocked filter of equal size.
    let standard = theory::fpr_exact(m, n, 6).unwrap().value;
    assert!(putze > standard);

    assert!(theory::fpr_blocked(100, 10, 3, 0, BlockInner::Exact).is_err());
    assert!(theory::fpr_blocked(100, 10, 3, 101, BlockInner::Exact).is_err());
    assert!(theory::fpr_blocked(100, 10, 0, 50, BlockInner::Exact).is_err());
    // A mean block load above 1e10 would need ~2e6 mixture terms.
    let huge = 100_000_000_000u64;
    assert!(
        theory::fpr_blocked(huge, huge, 3, huge, BlockInner::Putze).is_err()
    );
    assert_eq!(
        theory::fpr_blocked(100, 0, 3, 50, BlockInner::Exact).unwrap(),
        0.0
    );
}

#[test]
fn blocked_formula_matches_seeded_monte_carlo() {
    // 32 blocks of 64 bits (one u64 each), n = 256 (c = 8), k = 4. A
    // query picks a block uniformly, so a filter's exact FPR is the mean
    // over its blocks of (X_b/64)^k (Rao-Blackwellised). With only 32
    // blocks the load is Binomial(256, 1/32), not Poisson(8), so compare
    // with fpr_blocked_binomial. (The Poisson version is 0.7% higher,
    // which this simulation already sees at about −3.5 SE.)
    let (blocks, n, k) = (32u64, 256u64, 4u32);
    let m = 64 * blocks;
    let filters = 3_000;
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut words = vec![0u64; blocks as usize];
    let mut values = Vec::with_capacity(filters);
    for _ in 0..filters {
        words.fill(0);
        for _ in 0..n {
            let b = rng.random_range(0..blocks) as usize;
            for _ in 0..k {
                words[b] |= 1 << rng.random_range(0..64u32);
            }
        }
        let fpr: f64 = words
            .iter()
            .map(|w| (f64::from(w.count_ones()) / 64.0).powi(k as i32))
            .sum::<f64>()
            / blocks as f64;
        values.push(fpr);
    }
    let (mean, se) = mean_and_standard_error(&values);
    let binomial =
        theory::fpr_blocked_binomial(m, n, k, 64, BlockInner::Exact).unwrap();
    let poisson = theory::fpr_blocked(m, n, k, 64, BlockInner::Exact).unwrap();
    let z = z_score(mean, binomial, se);
    eprintln!(
        "blocked MC {mean:.5e} ± {se:.1e}: binomial {binomial:.5e} (z={z:.2}), \
         Poisson {poisson:.5e} (z={:.2})",
        z_score(mean, poisson, se)
    );
    assert!(z.abs() <= Z_AGREE, "z = {z}");
}

/// Blocked-filter rates whose sum lies in the tail of the load's weights,
/// as `(m, n, k, B, value)` for `fpr_blocked` / `fpr_blocked_binomial`
/// with `BlockInner::Exact`. Computed with mpmath 1.3: the inner
/// `FPR_exact(B, i, k)` by the inclusion–exclusion form at `mp.dps = 300`,
/// times Poisson `exp(−λ + i·log λ − loggamma(i + 1))` or Binomial
/// `binomial(n, i)·p^i·(1 − p)^(n−i)` weights with the exact rationals
/// `λ = n·B/m`, `p = B/m`, summed (`fsum`) over `i ≤ λ + 40√λ + 60`;
/// `dps = 600` and summing twice as far agree to 140+ digits. Full
/// 25-digit values in the comments.
const BLOCKED_POISSON: [(u64, u64, u32, u64, f64); 4] = [
    // 3.104470708614054696882999e-87
    (1 << 20, 1, 30, 65536, 3.1044707086140547e-87),
    // 1.10856140689702264033306e-23
    (1_000_000, 100, 20, 512, 1.1085614068970226e-23),
    // 2.11222821674330775653887e-14
    (1 << 40, 1_000_000_000, 10, 512, 2.1122282167433078e-14),
    // 7.217894880667442176903498e-5 (c = 24, a realistic load)
    (24_000_000, 1_000_000, 17, 512, 7.217894880667442e-05),
];
const BLOCKED_BINOMIAL: [(u64, u64, u32, u64, f64); 3] = [
    // 4.104681887777276572260891e-102
    (1 << 20, 1, 30, 65536, 4.1046818877772765e-102),
    // 1.032340555920483817283729e-23
    (1_000_000, 100, 20, 512, 1.0323405559204838e-23),
    // 2.112228203510546082471396e-14
    (1 << 40, 1_000_000_000, 10, 512, 2.112228203510546e-14),
];

#[test]
fn blocked_small_rates_against_high_precision_references() {
    // The rates grow with the load up to its k-th power, so the sum lies
    // in the load's tail: stopping where the weights were negligible
    // missed 3.7% of the first Poisson rate, 1.9e-5 of the second, 2.9e-10
    // of the third and 5.6e-14 of the fourth, 1.4e-5 and 2.9e-10 of the
    // last two binomial ones (the first, n = 1, has only loads 0 and 1).
    // The truncation alone is checked to the 1e-15 fpr_blocked's docs
    // promise in theory.rs's unit tests; against the truth rounding adds
    // to it (the weights are products of up to ~20 ratios from the mode,
    // the inner rates have their own few-ulp errors): measured ≤ 1.0e-15
    // here, so 3e-15.
    let tol = 3e-15;
    for (m, n, k, b, truth) in BLOCKED_POISSON {
        let v = theory::fpr_blocked(m, n, k, b, BlockInner::Exact).unwrap();
        eprintln!("{m} {n} {k} {b}: {v:e} err {:.1e}", rel_diff(v, truth));
        assert!(rel_diff(v, truth) < tol, "{m} {n} {k} {b}: {v:e} {truth:e}");
    }
    for (m, n, k, b, truth) in BLOCKED_BINOMIAL {
        let v = theory::fpr_blocked_binomial(m, n, k, b, BlockInner::Exact)
            .unwrap();
        eprintln!("{m} {n} {k} {b}: {v:e} err {:.1e}", rel_diff(v, truth));
        assert!(rel_diff(v, truth) < tol, "{m} {n} {k} {b}: {v:e} {truth:e}");
    }
    // Putze's inner rate (1 − (1 − 1/B)^{ki})^k and the split block's
    // (1 − (1 − 1/2048)^i)^32 (32 words of 2048 bits), same mpmath sums
    // (25 digits: 3.094739137818056933025507e-87 and
    // 2.244953818000514911072502e-91). Their k-th powers multiply the
    // fill's few-ulp rounding by k = 30, 32 (measured 3.5e-15, 4.0e-15),
    // hence 1e-14; the old cut missed 3.7% and 7.1% of them.
    let putze =
        theory::fpr_blocked(1 << 20, 1, 30, 65536, BlockInner::Putze).unwrap();
    assert!(rel_diff(putze, 3.094739137818057e-87) < 1e-14, "{putze:e}");
    let split = theory::fpr_split_block(1 << 20, 1, 32, 65536).unwrap();
    assert!(rel_diff(split, 2.244953818000515e-91) < 1e-14, "{split:e}");
}

#[test]
fn scalable_worked_example_b() {
    // P0 = 0.001, r = 0.8, s = 3, n0 = 500, grow to ≥ 100,000.
    let layers =
        theory::scalable_layers(500, 0.001, 0.8, 3.0, 100_000).unwrap();
    let capacities: Vec<u64> = layers.iter().map(|l| l.capacity).collect();
    assert_eq!(capacities, [500, 1500, 4500, 13_500, 40_500, 121_500]);
    assert_eq!(capacities.iter().sum::<u64>(), 182_000);
    let ks: Vec<u32> = layers.iter().map(|l| l.k).collect();
    assert_eq!(ks, [10, 11, 11, 11, 12, 12]);
    let slices: Vec<u64> = layers.iter().map(|l| l.slice_bits).collect();
    assert_eq!(slices, [722, 2165, 6493, 19_477, 58_430, 175_288]);
    assert_eq!(layers.iter().map(|l| l.bits).sum::<u64>(), 3_121_321);
    let ideal: f64 = layers.iter().map(|l| l.ideal_bits).sum();
    assert!((ideal - 2_997_797.3).abs() < 0.05, "{ideal}");

    let errors: Vec<f64> = layers.iter().map(|l| l.error).collect();
    let compounded = theory::scalable_compounded_error(&errors);
    assert!((compounded - 0.003_683_77).abs() < 5e-9, "{compounded}");
    let bound = theory::scalable_error_bound(0.001, 0.8).unwrap();
    assert!((bound - 0.005).abs() < 1e-15);
    assert!(compounded < errors.iter().sum::<f64>() && compounded < bound);
    let real: Vec<f64> = layers.iter().map(|l| l.error_at_capacity).collect();
    let compounded_real = theory::scalable_compounded_error(&real);
    assert!(
        (compounded_real - 0.002_926_29).abs() < 5e-9,
        "{compounded_real}"
    );
    for l in &layers {
        assert!(l.error_at_capacity <= l.error);
        // The exact rate of a full layer is close to 2^{-k} (slices are
        // just over half full): within 0.2%.
        assert!(
            rel_diff(l.exact_error_at_capacity, l.error_at_capacity) < 2e-3
        );
    }

    assert_eq!(
        theory::scalable_layers(500, 0.001, 0.8, 3.0, 0).unwrap().len(),
        1
    );
    assert!(theory::scalable_layers(0, 0.001, 0.8, 3.0, 10).is_err());
    assert!(theory::scalable_layers(500, 0.0, 0.8, 3.0, 10).is_err());
    assert!(theory::scalable_layers(500, 0.001, 1.0, 3.0, 10).is_err());
    assert!(theory::scalable_layers(500, 0.001, 0.8, 0.5, 10).is_err());
    assert!(theory::scalable_layers(1, 0.001, 0.9, 1.0, u64::MAX).is_err());
    // Layers whose slices would pass 64 bits are refused, not saturated.
    let e = theory::scalable_layers(1000, 0.0025, 0.75, 4.0, u64::MAX);
    assert!(e.is_err_and(|e| e.to_string().contains("overflow")));
    let e =
        theory::scalable_layers(12_800_000_000_000_000_000, 0.01, 0.5, 2.0, 1);
    assert!(e.is_err_and(|e| e.to_string().contains("overflow")));
    assert!(theory::scalable_error_bound(0.001, 1.0).is_err());
    assert!(theory::scalable_error_bound(f64::NAN, 0.5).is_err());
    assert_eq!(theory::scalable_compounded_error(&[]), 0.0);
    assert!(theory::scalable_compounded_error(&[0.1, 1.5]).is_nan());
}

#[test]
fn count_estimate() {
    // THEORY §8: m = 1000, n = 100, k = 4 → n* = 100.050 at X = E[X],
    // sd ≈ 2.40 (three significant digits given).
    let mom = theory::set_bits_moments(1000, 100, 4).unwrap();
    let at_mean = theory::estimate_count_f64(1000.0, 4.0, mom.mean);
    assert!((at_mean - 100.050).abs() < 5e-4, "{at_mean}");
    // ≈ n(1 + 1/(2m)), a first-order statement: within 1e-5.
    assert!(rel_diff(at_mean, 100.0 * (1.0 + 1.0 / 2000.0)) < 1e-5);
    let sd = theory::estimate_count_sd(1000, 4, 100).unwrap();
    assert!((sd - 2.40).abs() < 0.005, "{sd}");
    // Integer fills.
    assert_eq!(theory::estimate_count(1000, 4, 0), 0.0);
    let x330 = theory::estimate_count(1000, 4, 330);
    assert!(rel_diff(x330, -250.0 * (0.67f64).ln()) < 1e-14);
    assert_eq!(theory::estimate_count(1000, 4, 1000), f64::INFINITY);
    assert!(theory::estimate_count(1000, 4, 1001).is_nan());
    assert!(theory::estimate_count(0, 4, 0).is_nan());
    assert!(theory::estimate_count(10, 0, 0).is_nan());
}

fn guava_cases(json: &str) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["cases"].as_array().unwrap().clone()
}

#[test]
fn guava_statistics_to_the_bit() {
    // Hand-checkable: 10 of 64 bits, k = 1: (10/64)^1 = 0.15625 and
    // round(−64·ln(54/64)) = round(10.87) = 11.
    assert_eq!(theory::guava_expected_fpp(10, 64, 1), 0.15625);
    assert_eq!(theory::guava_approximate_element_count(10, 64, 1), 11);
    // 220 of 256, k = 3: (55/64)^3 is exact in binary.
    assert_eq!(theory::guava_expected_fpp(220, 256, 3), 166_375.0 / 262_144.0);
    assert_eq!(theory::guava_approximate_element_count(0, 64, 3), 0);
    // Full filter: Guava throws, we saturate.
    assert_eq!(theory::guava_approximate_element_count(64, 64, 3), i64::MAX);

    // Guava 31.1's own outputs (testdata/guava, generated by
    // anchors/java/GuavaVectors.java), compared bit for bit.
    let mut checked = 0;
    for json in [
        include_str!("../../../../testdata/guava/filters.json"),
        include_str!("../../../../testdata/guava/filters_large.json"),
    ] {
        for case in guava_cases(json) {
            let name = case["name"].as_str().unwrap();
            let bit_count = case["bitCount"].as_u64().unwrap();
            let bit_size = case["bitSize"].as_u64().unwrap();
            let k = u32::try_from(case["numHashFunctions"].as_u64().unwrap())
                .unwrap();
            let bits = u64::from_str_radix(
                case["expectedFppBits"].as_str().unwrap(),
                16,
            )
            .unwrap();
            let fpp = theory::guava_expected_fpp(bit_count, bit_size, k);
            assert_eq!(fpp.to_bits(), bits, "{name}: {fpp:e}");
            assert_eq!(fpp, case["expectedFpp"].as_f64().unwrap(), "{name}");
            let count = theory::guava_approximate_element_count(
                bit_count, bit_size, k,
            );
            assert_eq!(
                count,
                case["approximateElementCount"].as_i64().unwrap(),
                "{name}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 17);
}

#[test]
fn counting_filter_overflow_bounds() {
    // Hand-checkable: m = 10, k·n = 10 throws, 2-bit counters (j = 4):
    // union bound 10·C(10,4)·10^-4 = 0.21; exact tail
    // 10·P(Bin(10, 0.1) ≥ 4) = 10·0.0127951984.
    let bound = theory::fpr_counting_overflow_bound(10, 5, 2, 2).unwrap();
    assert!(rel_diff(bound, 0.21) < 1e-13);
    let tail = theory::fpr_counting_overflow_binomial(10, 5, 2, 2).unwrap();
    let p_below: f64 = (0..4)
        .map(|i| {
            let c = [1.0, 10.0, 45.0, 120.0][i];
            c * 0.1f64.powi(i as i32) * 0.9f64.powi(10 - i as i32)
        })
        .sum();
    assert!(rel_diff(tail, 10.0 * (1.0 - p_below)) < 1e-12);

    // 4-bit counters at the optimal k: tail ≈ e^{−α}α^16/16!, the union
    // bound ≈ α^16/16! (e^α ≈ 2 looser), Fan's simplified
    // m(e ln 2/16)^16 ≈ 1.4e-15·m another ~10× looser (THEORY §6).
    let (m, n, k) = (1_000_000u64, 100_000u64, 7u32);
    let alpha = 0.7f64;
    let bound = theory::fpr_counting_overflow_bound(m, n, k, 4).unwrap();
    let tail = theory::fpr_counting_overflow_binomial(m, n, k, 4).unwrap();
    let fact16: f64 = (1..=16).map(f64::from).product();
    let poisson_tail = 1e6 * (-alpha).exp() * alpha.powi(16) / fact16;
    eprintln!(
        "4-bit: bound {bound:e}, binomial {tail:e}, Poisson≈{poisson_tail:e}"
    );
    assert!(
        tail < bound
            && bound < 1e6 * (std::f64::consts::E * 0.7 / 16.0).powi(16)
    );
    assert!(rel_diff(tail, poisson_tail) < 0.1); // leading term only
    assert!(rel_diff(bound / tail, alpha.exp()) < 0.1);

    // The beta-function path (threshold below the mean) against a sum.
    let tail = theory::fpr_counting_overflow_binomial(2, 100, 1, 2).unwrap();
    let mut below = 0.0;
    let mut c = 1.0f64;
    for i in 0..4 {
        if i > 0 {
            c *= f64::from(100 - i + 1) / f64::from(i);
        }
        below += c * 0.5f64.powi(100);
    }
    assert!(rel_diff(tail, 2.0 * (1.0 - below)) < 1e-12);

    assert_eq!(
        theory::fpr_counting_overflow_bound(100, 1, 3, 4).unwrap(),
        0.0
    );
    assert!(theory::fpr_counting_overflow_bound(100, 1, 3, 0).is_err());
    assert!(theory::fpr_counting_overflow_binomial(0, 1, 3, 4).is_err());
}

#[test]
fn sizing_helpers() {
    // THEORY §9: p = 1e-3 / 1e-4 / 1e-6 → 9.966 / 13.288 / 19.932 bits
    // (lower bound) and 14.378 / 19.170 / 28.755 (Bloom), 3 decimals.
    for (p, lower, bloom) in
        [(1e-3, 9.966, 14.378), (1e-4, 13.288, 19.170), (1e-6, 19.932, 28.755)]
    {
        let lb = theory::bits_per_element_lower_bound(p).unwrap();
        let bl = theory::bits_per_element_bloom(p).unwrap();
        assert!((lb - lower).abs() < 5e-4 && (bl - bloom).abs() < 5e-4, "{p}");
    }
    assert!(theory::bits_per_element_lower_bound(0.0).is_err());
    assert!(theory::bits_per_element_lower_bound(1.5).is_err());
    assert_eq!(theory::bits_per_element_lower_bound(1.0).unwrap(), 0.0);
    let k = theory::optimal_k(10.0, 1.0);
    assert!((k - 10.0 * std::f64::consts::LN_2).abs() < 1e-15);
    // At the optimal k the classical rate is 2^{-k}.
    let fpr = theory::fpr_classical(10.0, 1.0, k);
    assert!(rel_diff(fpr, 0.5f64.powf(k)) < 1e-14);
    assert!(theory::optimal_k(-1.0, 1.0).is_nan());
}

/// `blocked_rate_relative_sd` against simulated blocked filters: `F`
/// filters of 100 blocks of 512 bits at 20 bits per key and `k = 14`,
/// each key a uniform block and `k` uniform bits in it; each filter's own
/// rate `mean_j (X_j/B)^k` exactly. The sample sd of those rates must be
/// within `Z_AGREE` standard errors of the formula's, the SE of a sample
/// sd taken from the sample's own fourth moment,
/// `sd·√((m4/sd⁴ − (F−3)/(F−1))/(4F))`. The standard filter's spread
/// `k·sd(X)/E[X]` for the same bits, which the runner used for blocked
/// filters before, is about a fifth of it and far outside.
#[test]
fn blocked_rate_spread_matches_simulated_filters() {
    const B: u64 = 512;
    const BLOCKS: u64 = 100;
    const F: usize = 200;
    let (m, n, k) = (B * BLOCKS, B * BLOCKS / 20, 14u32);
    let mut rng = ChaCha8Rng::seed_from_u64(20261128);
    let mut rates = Vec::with_capacity(F);
    let mut fill = vec![0u64; (m / 64) as usize];
    for _ in 0..F {
        fill.iter_mut().for_each(|w| *w = 0);
        for _ in 0..n {
            let block = rng.random_range(0..BLOCKS);
            for _ in 0..k {
                let bit = block * B + rng.random_range(0..B);
                fill[(bit / 64) as usize] |= 1 << (bit % 64);
            }
        }
        let rate: f64 = fill
            .chunks((B / 64) as usize)
            .map(|b| {
                let x: u32 = b.iter().map(|w| w.count_ones()).sum();
                (f64::from(x) / B as f64).powi(k as i32)
            })
            .sum::<f64>()
            / BLOCKS as f64;
        rates.push(rate);
    }
    let f = F as f64;
    let (mean, se_mean) = mean_and_standard_error(&rates);
    let sd = se_mean * f.sqrt();
    let m4 = rates.iter().map(|r| (r - mean).powi(4)).sum::<f64>() / f;
    let se_sd =
        sd * ((m4 / sd.powi(4) - (f - 3.0) / (f - 1.0)) / (4.0 * f)).sqrt();
    let predicted =
        mean * theory::blocked_rate_relative_sd(m, n, k, B).unwrap();
    let z = z_score(sd, predicted, se_sd);
    eprintln!(
        "sd {sd:.4e} ± {se_sd:.1e}, predicted {predicted:.4e}, z {z:.2}"
    );
    assert!(z.abs() < Z_AGREE, "sd {sd:e}, predicted {predicted:e}, z {z}");
    let moments = theory::set_bits_moments(m, n, k).unwrap();
    let standard =
        mean * f64::from(k) * moments.variance.sqrt() / moments.mean;
    assert!(z_score(sd, standard, se_sd) > Z_AGREE, "{standard:e}");
}
