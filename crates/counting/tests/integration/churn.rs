// Seeded churn at n = 1e5: insert n, delete half, insert n/2 new; no
// false negatives, and the empirical FPR agrees with the formula for the
// live load.

use bloomlab_core::{stats, theory};
use bloomlab_counting::CountingBloomFilter;
use bloomlab_standard::BloomFilter;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const N: usize = 100_000;
const P: f64 = 0.01;
const PROBES: usize = 200_000;

#[test]
fn churn_keeps_members_and_the_false_positive_rate() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xC0FFEE);
    // Members have the top bit clear, probes set: never the same key.
    let mut member = || rng.random::<u64>() >> 1;
    let first: Vec<u64> = (0..N).map(|_| member()).collect();
    let second: Vec<u64> = (0..N / 2).map(|_| member()).collect();
    let probes: Vec<u64> =
        (0..PROBES).map(|_| rng.random::<u64>() | 1 << 63).collect();

    let mut f = CountingBloomFilter::new(N as u64, P).unwrap();
    for k in &first {
        f.insert(k);
    }
    for k in &first[..N / 2] {
        f.remove(k).unwrap();
    }
    for k in &second {
        f.insert(k);
    }
    let live: Vec<u64> =
        first[N / 2..].iter().chain(&second).copied().collect();

    let false_negatives = live.iter().filter(|k| !f.contains(*k)).count();
    assert_eq!(false_negatives, 0);
    assert_eq!(f.saturated_counters(), 0);
    let s = f.stats();
    assert_eq!((s.inserts, s.removes, s.live()), (150_000, 50_000, 100_000));

    // The counters are exactly those of the live keys: the standard
    // filter of the live keys, bit for bit.
    let mut g =
        BloomFilter::with_config(f.config(), f.counters(), f.hash_count())
            .unwrap();
    for k in &live {
        g.insert(k);
    }
    assert_eq!(f.to_standard().unwrap(), g);

    // Tolerance: the false positives among PROBES independent non-members
    // are Binomial(PROBES, fpr) given the filter. The 99.9% Clopper–Pearson
    // interval of the observed count covers the true rate in at least
    // 99.9% of seeds, and the filter-to-filter spread of the rate at
    // m ≈ 9.6e5 (relative sd ≈ k·sqrt(e^{-kn/m}/m)... ≈ 0.5%) is small
    // against the interval's ±7%, so the exact formula for n live keys
    // must lie inside it. The seed is fixed: the test is deterministic.
    let fp = probes.iter().filter(|k| f.contains(*k)).count() as u64;
    let ci = stats::clopper_pearson(fp, PROBES as u64, 0.999).unwrap();
    let expected =
        theory::fpr_exact(f.counters(), N as u64, f.hash_count()).unwrap();
    eprintln!(
        "churn: {fp}/{PROBES} false positives, 99.9% CI [{:.5}, {:.5}], \
         exact formula {:.5}",
        ci.lo, ci.hi, expected.value
    );
    assert!(
        ci.contains(expected.value),
        "observed {fp}/{PROBES} = {:.5}, 99.9% CI [{:.5}, {:.5}], \
         formula {:.5}",
        fp as f64 / PROBES as f64,
        ci.lo,
        ci.hi,
        expected.value
    );
}
