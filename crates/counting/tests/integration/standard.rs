// to_standard() against bloomlab-standard's BloomFilter, bit for bit, for
// every kind of configuration and every counter width.

use bloomlab_counting::{Config, CounterWidth, CountingBloomFilter};
use bloomlab_hash::{Family, Reduction, Strategy};
use bloomlab_standard::BloomFilter;

/// One configuration of each kind (also used by `words`).
pub(crate) fn configs() -> Vec<Config> {
    vec![
        Config::default(),
        Config::default().with_seed(12345),
        Config::default().with_strategy(Strategy::Double),
        // The other XXH3 family with kernels (the default is xxh3-128).
        Config::default().with_family(Family::Xxh3_64),
        Config::default()
            .with_family(Family::Xxh3_64)
            .with_strategy(Strategy::Double)
            .with_seed(9),
        // fold-128 and fold-64, the fastest families with kernels.
        Config::default().with_family(Family::Fold128),
        Config::default()
            .with_family(Family::Fold128)
            .with_strategy(Strategy::Double)
            .with_seed(11),
        Config::default().with_family(Family::Fold64),
        Config::default()
            .with_family(Family::Fold64)
            .with_strategy(Strategy::Double)
            .with_seed(13),
        Config::guava(Strategy::GuavaMitz64),
        Config::guava(Strategy::GuavaMitz32),
        Config::default()
            .with_family(Family::Xxh64)
            .with_strategy(Strategy::Independent)
            .with_seed(7),
        Config::default()
            .with_family(Family::Murmur64A)
            .with_strategy(Strategy::RedisBloom)
            .with_reduction(Reduction::Modulo),
        Config::default()
            .with_family(Family::Murmur3X86_32)
            .with_strategy(Strategy::Redisson)
            .with_reduction(Reduction::Modulo),
        Config::default()
            .with_family(Family::Fnv1a64)
            .with_strategy(Strategy::EnhancedDouble)
            .with_reduction(Reduction::Modulo),
    ]
}

/// Insert 3000 keys, remove the first 1000, insert 500 more: the counting
/// filter's snapshot equals the standard filter of the 2500 live keys.
#[test]
fn equals_the_standard_filter_of_the_live_keys() {
    for config in configs() {
        for width in [CounterWidth::Four, CounterWidth::Eight] {
            let mut f = CountingBloomFilter::builder(3000, 0.02)
                .config(config)
                .width(width)
                .build()
                .unwrap();
            for i in 0..3000u64 {
                f.insert(&i);
            }
            for i in 0..1000u64 {
                f.remove(&i).unwrap();
            }
            for i in 10_000..10_500u64 {
                f.insert(&format!("key-{i}"));
            }
            assert_eq!(f.saturated_counters(), 0);
            let mut g =
                BloomFilter::with_config(config, f.counters(), f.hash_count())
                    .unwrap();
            for i in 1000..3000u64 {
                g.insert(&i);
            }
            for i in 10_000..10_500u64 {
                g.insert(&format!("key-{i}"));
            }
            let s = f.to_standard().unwrap();
            assert_eq!(s, g, "{config:?} {width}");
            assert_eq!(s.config(), g.config());
            // Same positions, in the same order.
            assert_eq!(f.positions("probe"), g.positions("probe"));
        }
    }
}

/// Without removes, saturation does not matter: a counter is non-zero
/// exactly when some key probed it.
#[test]
fn two_bit_counters_without_removes_match_too() {
    for config in configs() {
        let mut f = CountingBloomFilter::builder_counters(2000, 4)
            .config(config)
            .width(CounterWidth::Two)
            .build()
            .unwrap();
        let mut g = BloomFilter::with_config(config, 2000, 4).unwrap();
        for i in 0..1500u64 {
            f.insert(&i);
            g.insert(&i);
        }
        assert!(f.saturated_counters() > 0);
        assert_eq!(f.to_standard().unwrap(), g, "{config:?}");
    }
}

/// `contains_many` over more keys than one batch holds, on a filter at
/// its design load (so every pass sees keys leave): the same answers as
/// `contains`, members and non-members, for every configuration and
/// width.
#[test]
fn contains_many_matches_contains() {
    for config in configs() {
        for width in
            [CounterWidth::Two, CounterWidth::Four, CounterWidth::Eight]
        {
            let f = CountingBloomFilter::builder(1000, 0.01)
                .config(config)
                .width(width)
                .build()
                .unwrap();
            contains_many_matches(f, 1000, true);
        }
    }
}

/// The same on filters of `INSERT_PREFETCH_MIN_BYTES`, which answer in
/// prefetched batches (smaller ones key by key, as `contains`): 20,000
/// keys, so few non-members pass the first counters.
#[test]
fn contains_many_matches_contains_when_prefetching() {
    for config in configs() {
        for width in
            [CounterWidth::Two, CounterWidth::Four, CounterWidth::Eight]
        {
            let f = batching_filter(config, width);
            contains_many_matches(f, 20_000, false);
        }
    }
}

/// The batches at the design load (half the counters non-zero), where
/// about a quarter of the non-members pass the first two counters and
/// the second pass refuses most of them: the same answers as
/// `contains`, and some false positives (1% expected of 20,000, so 200;
/// none at all has probability below e^-100).
#[test]
fn contains_many_matches_contains_in_batches_at_design_load() {
    let f = batching_filter(Config::default(), CounterWidth::Eight);
    // n = m ln 2 / k leaves half of the counters at zero.
    let n = (f.counters() as f64 * std::f64::consts::LN_2 / 7.0) as u64;
    contains_many_matches(f, n, true);
}

/// A filter of `INSERT_PREFETCH_MIN_BYTES`, k = 7.
fn batching_filter(
    config: Config,
    width: CounterWidth,
) -> CountingBloomFilter {
    let bits = u64::from(width.bits());
    let m = bloomlab_counting::INSERT_PREFETCH_MIN_BYTES as u64 * 8 / bits;
    let f = CountingBloomFilter::builder_counters(m, 7)
        .config(config)
        .width(width)
        .build()
        .unwrap();
    assert!(
        f.bytes_of_memory() >= bloomlab_counting::INSERT_PREFETCH_MIN_BYTES
    );
    f
}

/// On filters of `QUERY_BRANCH_MIN_BYTES`, whose queries take the
/// branching kernel: members are found, other keys answered as the
/// standard filter of the same keys answers them, and a member whose
/// counter at probe `i` is zeroed is refused, for every `i` (so each
/// probe's exit is taken), word keys and byte keys alike.
#[test]
fn large_filters_answer_as_the_standard_filter() {
    let k = 7;
    for config in configs() {
        for width in
            [CounterWidth::Two, CounterWidth::Four, CounterWidth::Eight]
        {
            let bits = u64::from(width.bits());
            let m =
                bloomlab_counting::QUERY_BRANCH_MIN_BYTES as u64 * 8 / bits;
            let mut f = CountingBloomFilter::builder_counters(m, k)
                .config(config)
                .width(width)
                .build()
                .unwrap();
            let big = bloomlab_counting::QUERY_BRANCH_MIN_BYTES;
            assert!(f.bytes_of_memory() >= big);
            let n = 2000u64;
            for key in 0..n {
                f.insert(&key);
            }
            let s = f.to_standard().unwrap();
            for key in 0..n + 5000 {
                let want = key < n || s.contains(&key);
                assert_eq!(f.contains(&key), want, "{config:?} {width} {key}");
                assert_eq!(f.contains_bytes(&key.to_le_bytes()), want);
            }
            // Key `i` (for `i < k`) loses its counter at probe `i`.
            let mut words = f.words().to_vec();
            let zeroed: Vec<u64> = (0..k)
                .map(|i| f.positions(&u64::from(i))[i as usize])
                .collect();
            for &p in &zeroed {
                let (w, sh) = ((p * bits / 64) as usize, p * bits % 64);
                words[w] &= !(((1u64 << bits) - 1) << sh);
            }
            let g =
                CountingBloomFilter::from_words(config, width, m, k, words)
                    .unwrap();
            for key in 0..n {
                let hit = f.positions(&key).iter().any(|p| zeroed.contains(p));
                assert_eq!(g.contains(&key), !hit, "{config:?} {width} {key}");
                assert_eq!(g.contains_bytes(&key.to_le_bytes()), !hit);
                assert!(key >= u64::from(k) || hit);
            }
        }
    }
}

/// Inserts keys `0..n` into `f`, then checks `contains_many` against
/// `contains` on half of them and `0.7 n` non-members.
fn contains_many_matches(mut f: CountingBloomFilter, n: u64, design: bool) {
    for k in 0..n {
        f.insert(&k);
    }
    let probe: Vec<u64> = (n / 2..n + n * 7 / 10).collect();
    let mut out = vec![false; probe.len()];
    f.contains_many(&probe, &mut out);
    let single: Vec<bool> = probe.iter().map(|k| f.contains(k)).collect();
    assert_eq!(out, single);
    let (hits, others) = out.split_at((n - n / 2) as usize);
    assert!(hits.iter().all(|&o| o));
    // At the design load some non-members pass (1% expected), few in a
    // sparse filter; never as many as a tenth.
    let fp = others.iter().filter(|&&o| o).count();
    assert!(fp * 10 < others.len(), "{fp}");
    assert!(!design || fp > 0, "{fp}");
}

/// Calls `check(f, width, large, label)` with a new filter (k = 7) for
/// every config and 2/4-bit width, of `small` counters and of
/// `INSERT_PREFETCH_MIN_BYTES` (`large`: the batches prefetch), keeping a
/// summary for every other config (from the first if `summary_first`).
fn each_batch_filter(
    small: u64,
    summary_first: bool,
    mut check: impl FnMut(CountingBloomFilter, CounterWidth, bool, &str),
) {
    let summaries = [summary_first, !summary_first].into_iter().cycle();
    for (config, summary) in configs().into_iter().zip(summaries) {
        for width in [CounterWidth::Two, CounterWidth::Four] {
            let bits = u64::from(width.bits());
            let large =
                bloomlab_counting::INSERT_PREFETCH_MIN_BYTES as u64 * 8 / bits;
            for m in [small, large] {
                let f = CountingBloomFilter::builder_counters(m, 7)
                    .config(config)
                    .width(width)
                    .summary(summary)
                    .build()
                    .unwrap();
                assert_eq!(f.summary().is_some(), summary);
                let at = format!("{config:?} {width} {m} {summary}");
                check(f, width, m == large, &at);
            }
        }
    }
}

/// `remove_many` leaves the counters, summary and statistics of `remove`
/// one key at a time, and counts the same removes: on a small filter and
/// on one of `INSERT_PREFETCH_MIN_BYTES` (prefetched batches), with and
/// without a summary, with keys removed twice, keys never inserted
/// (refused) and 2-bit counters that saturated (never decremented).
#[test]
fn remove_many_matches_remove() {
    let inserted: Vec<u64> = (0..3000u64).chain(0..1000).collect();
    // 0..1000 twice (inserted twice), 1000..1500 twice (the second
    // refused unless a false positive), then keys never inserted.
    let removed: Vec<u64> =
        (0..1500u64).chain(0..1500).chain(1_000_000..1_000_500).collect();
    each_batch_filter(4000, true, |mut f, width, large, at| {
        f.insert_many(&inserted);
        let mut g = f.clone();
        let one_by_one =
            removed.iter().filter(|k| g.remove(*k).is_ok()).count();
        assert_eq!(f.remove_many(&removed), one_by_one, "{at}");
        assert_eq!(f.words(), g.words(), "{at}");
        assert_eq!(f.stats(), g.stats(), "{at}");
        assert_eq!(f.summary(), g.summary(), "{at}");
        if !large {
            // 7 probes of 3000 keys on 4000 2-bit counters: some
            // saturate, and their decrements are skipped.
            if width == CounterWidth::Two {
                assert!(f.stats().skipped_decrements > 0, "{at}");
            }
            return;
        }
        // 4-bit counters do not saturate at this load (2-bit ones may,
        // where two keys inserted twice meet); the keys inserted once and
        // never removed are all still found.
        if width == CounterWidth::Four {
            assert_eq!(f.stats().skipped_decrements, 0, "{at}");
        }
        // The second removes of 1000..1500 and the 500 keys never
        // inserted are refused, but for false positives (a few percent at
        // this load).
        assert!(f.stats().rejected_removes >= 900, "{at}");
        assert!((1500..3000u64).all(|k| f.contains(&k)), "{at}");
    });
}

/// `insert_many` leaves the counters and statistics of `insert` one key
/// at a time, and counts the same changed inserts: on a small filter (one
/// key at a time) and on one of `INSERT_PREFETCH_MIN_BYTES` (prefetched
/// batches), with repeats and 2-bit counters that saturate, with and
/// without a summary (whose bits a batch prefetches too).
#[test]
fn insert_many_matches_insert() {
    let keys: Vec<u64> = (0..3000u64).chain(0..2000).chain(0..1000).collect();
    each_batch_filter(2000, false, |mut f, _, large, at| {
        let mut g = f.clone();
        let one_by_one = keys.iter().filter(|k| g.insert(*k)).count();
        assert_eq!(f.insert_many(&keys), one_by_one, "{at}");
        assert_eq!(f.words(), g.words(), "{at}");
        assert_eq!(f.stats(), g.stats(), "{at}");
        assert_eq!(f.summary(), g.summary(), "{at}");
        if !large {
            // Saturation is exercised (7 probes of 3000 keys on 2000
            // counters).
            assert!(f.saturated_counters() > 0, "{at}");
        } else {
            // A filter this large takes the prefetching insert kernel:
            // the standard filter's bits all the same.
            let mut s =
                BloomFilter::with_config(f.config(), f.counters(), 7).unwrap();
            keys.iter().for_each(|k| s.add(k));
            assert_eq!(g.to_standard().unwrap(), s, "{at}");
        }
    });
}
