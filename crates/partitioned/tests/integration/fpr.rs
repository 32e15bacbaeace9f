// Empirical FPR of the general filter against the partitioned formula.
//
// One filter per case, built from n seeded random u64 keys (ChaCha8Rng),
// queried with Q = 200,000 keys that cannot be members (members have the
// top bit clear, queries set). The assertion: the formula
// fpr_partitioned(m, n, k) — exact here, since the sizing makes k | m —
// lies inside the 99.9% Clopper–Pearson interval of x false positives in
// Q queries.
//
// Why that tolerance is right for one filter: the queries measure this
// filter's own rate Π X_i/s_i, which scatters around the formula by a
// relative sd of about k·sd(X_i)/E[X_i] ≈ k/√(s·fill) — 2e-3 at
// n = 1e5 (s ≈ 137k bits) and 7e-4 at n = 1e6 — while the CP interval's
// relative half-width at x ≈ 2000 is about 3.3/√2000 ≈ 7%. The
// filter-to-filter variation is negligible at these sizes, so the
// binomial interval alone decides (THEORY.md §10); a wrong formula or a
// biased strategy at 1.1× would fail.

use bloomlab_core::{stats, theory};
use bloomlab_hash::{Family, Reduction, Strategy};
use bloomlab_partitioned::{Config, PartitionedBloomFilter, SliceSpec};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const QUERIES: u64 = 200_000;
const CONFIDENCE: f64 = 0.999;

fn check(mut f: PartitionedBloomFilter, n: u64, seed: u64, label: &str) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let members: Vec<u64> = (0..n).map(|_| rng.random::<u64>() >> 1).collect();
    f.insert_many(&members);
    let queries: Vec<u64> =
        (0..QUERIES).map(|_| rng.random::<u64>() | 1 << 63).collect();
    let mut out = vec![false; queries.len()];
    f.contains_many(&queries, &mut out);
    let x = out.iter().filter(|&&b| b).count() as u64;
    // Members are distinct with overwhelming probability (n²/2^64).
    let formula = f.theoretical_fpp(n).unwrap();
    assert_eq!(
        formula,
        theory::fpr_partitioned(f.bits(), n, f.hash_count()).unwrap()
    );
    let ci = stats::clopper_pearson(x, QUERIES, CONFIDENCE).unwrap();
    eprintln!(
        "{label}: n = {n}, m = {}, k = {}, FP {x}/{QUERIES} = {:.5}, \
         formula {formula:.5}, 99.9% CI [{:.5}, {:.5}]",
        f.bits(),
        f.hash_count(),
        x as f64 / QUERIES as f64,
        ci.lo,
        ci.hi
    );
    assert!(ci.contains(formula), "{label}: {formula} outside {ci:?}");
    // No false negatives, ever.
    let mut back = vec![false; members.len()];
    f.contains_many(&members, &mut back);
    assert!(back.iter().all(|&b| b), "{label}: false negative");
}

#[test]
fn default_filter_matches_the_formula_at_1e5() {
    let f = PartitionedBloomFilter::new(100_000, 0.01).unwrap();
    assert_eq!(f.bits() % u64::from(f.hash_count()), 0);
    check(f, 100_000, 1, "default 1e5");
}

#[test]
fn default_filter_matches_the_formula_at_1e6() {
    let f = PartitionedBloomFilter::new(1_000_000, 0.01).unwrap();
    assert_eq!(f.bits() % u64::from(f.hash_count()), 0);
    check(f, 1_000_000, 2, "default 1e6");
}

#[test]
fn double_hashing_modulo_matches_the_formula_at_1e5() {
    // Plain Kirsch–Mitzenmacher double hashing, modulo, 128-bit murmur3.
    let cfg = Config {
        family: Family::Murmur3X64_128,
        seed: 0,
        strategy: Strategy::Double,
        reduction: Reduction::Modulo,
    };
    let f = PartitionedBloomFilter::with_rate(100_000, 0.02, cfg).unwrap();
    check(f, 100_000, 3, "double/modulo 1e5");
}

#[test]
fn fold64_matches_the_formula_at_1e5() {
    // fold-64's walk (its hash, stepped by `Family::step`) under both
    // double-hashing schemes and both reductions.
    for (i, strategy) in
        [Strategy::EnhancedDouble, Strategy::Double].into_iter().enumerate()
    {
        for (j, reduction) in [Reduction::MultiplyShift, Reduction::Modulo]
            .into_iter()
            .enumerate()
        {
            let cfg = Config {
                family: Family::Fold64,
                seed: 0,
                strategy,
                reduction,
            };
            let f =
                PartitionedBloomFilter::with_rate(100_000, 0.01, cfg).unwrap();
            let label = format!("fold-64 {strategy} {reduction} 1e5");
            check(f, 100_000, 10 + 2 * i as u64 + j as u64, &label);
        }
    }
}

#[test]
fn one_family_per_slice_matches_the_formula_at_1e5() {
    // Six slices of 137,000 bits, six different families and reductions.
    let s = 137_000;
    let specs = vec![
        SliceSpec::new(Family::Xxh3_64, s),
        SliceSpec::new(Family::Xxh64, s).seed(9),
        SliceSpec::new(Family::Murmur3X64_128, s),
        SliceSpec::new(Family::SipHash13, s),
        SliceSpec::new(Family::Murmur64A, s),
        SliceSpec::new(Family::Xxh3_128, s)
            .reduction(bloomlab_partitioned::SliceReduction::Modulo),
    ];
    let f = PartitionedBloomFilter::with_slices(specs).unwrap();
    check(f, 100_000, 4, "per-slice families 1e5");
}
