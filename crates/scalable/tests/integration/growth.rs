//! Growth from 1,000 items: the empirical false-positive rate stays at or
//! under the target (within the 99.9% Clopper–Pearson interval).
//!
//! The 1e5 growth runs in the default (debug) suite. The 1e6 growth is
//! `#[ignore]`d because debug builds are slow; `scripts/test.sh` runs it
//! in release: `cargo test -p bloomlab-scalable --release --test
//! integration growth -- --ignored`.

use bloomlab_core::stats::clopper_pearson;
use bloomlab_hash::Reduction;
use bloomlab_scalable::{Config, Layout, Pairing, Probe, ScalableBloomFilter};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Inserts `n` random even keys, queries `queries` random odd keys
/// (never inserted); returns (false positives, compounded error).
fn grow(
    mut f: ScalableBloomFilter,
    n: u64,
    queries: u64,
    seed: u64,
) -> (u64, f64, ScalableBloomFilter) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut members = Vec::with_capacity(1000);
    for i in 0..n {
        let k = rng.random::<u64>() & !1;
        f.add(&k.to_le_bytes()).unwrap();
        if i % (n / 1000).max(1) == 0 {
            members.push(k);
        }
    }
    for k in members {
        assert!(f.contains(&k.to_le_bytes()), "false negative");
    }
    let mut fp = 0;
    for _ in 0..queries {
        let k = rng.random::<u64>() | 1;
        fp += u64::from(f.contains(&k.to_le_bytes()));
    }
    let c = f.compounded_error();
    (fp, c, f)
}

fn assert_within_target(
    name: &str,
    fp: u64,
    queries: u64,
    target: f64,
) -> f64 {
    let ci = clopper_pearson(fp, queries, 0.999).unwrap();
    let rate = fp as f64 / queries as f64;
    println!(
        "{name}: {fp}/{queries} = {rate:.5} (99.9% CI [{:.5}, {:.5}]), \
         target {target}",
        ci.lo, ci.hi
    );
    assert!(
        rate <= target || ci.lo <= target,
        "{name}: empirical FPR {rate} above the target {target} \
         (interval [{}, {}])",
        ci.lo,
        ci.hi
    );
    rate
}

#[test]
fn default_grows_to_1e5_under_target() {
    let f = ScalableBloomFilter::new(1000, 0.01).unwrap();
    let (fp, c, f) = grow(f, 100_000, 200_000, 1);
    // 1000 + 4000 + 16000 + 64000 < 1e5 ≤ … + 256000.
    assert_eq!(f.layers().len(), 5);
    assert!(c < 0.01, "compounded {c}");
    assert!(f.compounded_target_error() < 0.01);
    assert_within_target("default 1e5", fp, 200_000, 0.01);
    // The measured rate agrees with the prediction from the layers' bits:
    // the queries are independent trials at that rate, so it lies in
    // their 99.9% Clopper–Pearson interval.
    let ci = clopper_pearson(fp, 200_000, 0.999).unwrap();
    assert!(ci.lo <= c && c <= ci.hi, "{c} outside [{}, {}]", ci.lo, ci.hi);
}

/// The previous default (standard layers, `r = 0.5`, `s = 2`) and the
/// slow-growth settings (`s = 2`, `r = 0.85`) with blocked layers keep
/// the promise too.
#[test]
fn other_layouts_grow_to_1e5_under_target() {
    let configs = [
        (
            "standard r=0.5 s=2",
            Config::new(1000, 0.01)
                .layout(Layout::Standard)
                .tightening(0.5)
                .growth(2),
        ),
        (
            "blocked r=0.85 s=2",
            Config::new(1000, 0.01).tightening(0.85).growth(2),
        ),
    ];
    for (name, c) in configs {
        let f = ScalableBloomFilter::with_config(c).unwrap();
        let (fp, c, _) = grow(f, 100_000, 100_000, 5);
        assert!(c < 0.01, "{name}: compounded {c}");
        assert_within_target(name, fp, 100_000, 0.01);
    }
}

#[test]
fn presets_grow_to_1e5_under_target() {
    let presets: [(&str, ScalableBloomFilter, f64); 3] = [
        ("redisbloom", rb(0.01, 1000), 0.01),
        ("almeida", ScalableBloomFilter::almeida(1000, 0.01).unwrap(), 0.01),
        (
            "almeida-fast",
            ScalableBloomFilter::almeida_fast(1000, 0.01).unwrap(),
            0.01,
        ),
    ];
    for (name, f, p) in presets {
        let (fp, _, _) = grow(f, 100_000, 100_000, 2);
        assert_within_target(name, fp, 100_000, p);
    }
}

fn rb(p: f64, n: u64) -> ScalableBloomFilter {
    ScalableBloomFilter::redisbloom_reserve(p, n, None, false).unwrap()
}

/// pybloom-live's parameters are *not* bounded by `P` (its bound is 9P):
/// the preset reproduces that, for comparison charts.
#[test]
fn pybloom_live_exceeds_its_target() {
    let f = ScalableBloomFilter::pybloom_live(1000, 0.01, 4).unwrap();
    assert!((f.error_bound() - 0.09).abs() < 1e-12);
    let (fp, c, _) = grow(f, 100_000, 100_000, 3);
    let rate = fp as f64 / 1e5;
    println!("pybloom-live 1e5: {rate} (compounded {c})");
    assert!(rate > 0.01);
}

#[test]
#[ignore = "slow in debug; run with --release -- --ignored"]
fn default_grows_to_1e6_under_target() {
    for (name, f) in [
        ("default", ScalableBloomFilter::new(1000, 0.01).unwrap()),
        ("redisbloom", rb(0.01, 1000)),
        ("almeida", ScalableBloomFilter::almeida(1000, 0.01).unwrap()),
        (
            "blocked r=0.85 s=2",
            ScalableBloomFilter::with_config(
                Config::new(1000, 0.01).tightening(0.85).growth(2),
            )
            .unwrap(),
        ),
    ] {
        let (fp, c, f) = grow(f, 1_000_000, 1_000_000, 4);
        println!(
            "{name}: {} layers, {} bits ({:.2} bits/item), compounded {c:.5}",
            f.layers().len(),
            f.total_bits(),
            f.total_bits() as f64 / 1e6
        );
        assert_within_target(name, fp, 1_000_000, 0.01);
    }
}

/// One-item partitioned layers (`k = 7` slices of 2 bits, each half
/// set): with independent positions a non-member hits all 7 with
/// probability exactly 2^-7. Double hashing's positions are correlated in
/// slices that small; mixing each position first (the default) removes
/// that. 200 layers × 10^4 queries, fixed seed: under independence the
/// count is Binomial(2·10^6, 2^-7), sd 125 around 15,625, and the 99.9%
/// Clopper–Pearson interval must hold 2^-7. Enhanced double hashing
/// measures about 2.0% here, far outside it.
#[test]
fn mixed_double_hashing_keeps_tiny_slices_independent() {
    let (layers, queries) = (200u64, 10_000u64);
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let count = |probe: Probe, rng: &mut ChaCha8Rng| {
        let mut fp = 0;
        for _ in 0..layers {
            let c = Config::new(1, 0.01)
                .layout(Layout::Partitioned)
                .non_scaling()
                .probes(Pairing::Single, probe, Reduction::MultiplyShift);
            let mut f = ScalableBloomFilter::with_config(c).unwrap();
            f.add(&(rng.random::<u64>() & !1).to_le_bytes()).unwrap();
            assert_eq!(f.layers()[0].k(), 7);
            fp += (0..queries)
                .filter(|_| {
                    f.contains(&(rng.random::<u64>() | 1).to_le_bytes())
                })
                .count() as u64;
        }
        fp
    };
    assert_eq!(Config::new(1, 0.01).probe, Probe::MixedDouble);
    let n = layers * queries;
    let fp = count(Probe::MixedDouble, &mut rng);
    let ci = clopper_pearson(fp, n, 0.999).unwrap();
    let want = 2f64.powi(-7);
    assert!(ci.lo <= want && want <= ci.hi, "{fp} of {n}: {ci:?}");
    // The correlation this removes: the old walk errs well above 2^-7.
    let old = count(Probe::EnhancedDouble, &mut rng);
    let ci = clopper_pearson(old, n, 0.999).unwrap();
    assert!(ci.lo > 1.5 * want, "{old} of {n}: {ci:?}");
}
