// Counters of each width driven into saturation: the counts are exact,
// saturated counters never decrement, and no key still inserted is lost.

use std::collections::HashMap;

use bloomlab_counting::{
    CounterWidth, CountingBloomFilter, INSERT_PREFETCH_MIN_BYTES,
};

const M: u64 = 1000;
const K: u32 = 3;

/// 2-bit counters, the width whose saturation experiments chart.
#[test]
fn saturation_is_counted_sticky_and_safe() {
    saturate(CounterWidth::Two);
}

/// 4- and 8-bit counters count saturations on another path (a branch
/// rarely taken, see `fast.rs`): the same exact counts.
#[test]
fn wider_counters_count_saturation_exactly() {
    saturate(CounterWidth::Four);
    saturate(CounterWidth::Eight);
}

/// A filter of `INSERT_PREFETCH_MIN_BYTES` takes the prefetching insert,
/// whose counters are incremented from positions kept by its prefetch
/// pass: keys inserted past the maximum saturate their counters there
/// too, exactly, and no other counter (no neighbour in the same word)
/// changes.
#[test]
fn saturation_in_a_prefetching_filter() {
    for width in [CounterWidth::Four, CounterWidth::Eight] {
        let max = width.max();
        let m = INSERT_PREFETCH_MIN_BYTES as u64 * 8 / u64::from(width.bits());
        let mut f = CountingBloomFilter::builder_counters(m, 7)
            .width(width)
            .build()
            .unwrap();
        let mut truth: HashMap<u64, u64> = HashMap::new();
        for key in 0..20u64 {
            for _ in 0..max + 3 {
                f.insert(&key);
                for p in f.positions(&key) {
                    *truth.entry(p).or_default() += 1;
                }
            }
        }
        let per_word = u64::from(width.per_word());
        let mut words = vec![0u64; f.words().len()];
        let mut lost = 0;
        for (&p, &t) in &truth {
            let sh = (p % per_word) * u64::from(width.bits());
            words[(p / per_word) as usize] |= t.min(max) << sh;
            lost += t.saturating_sub(max);
        }
        assert_eq!(f.words(), &words[..], "{width:?}");
        assert_eq!(f.saturated_counters(), truth.len() as u64);
        assert_eq!(f.stats().saturation_events, lost);
    }
}

fn saturate(width: CounterWidth) {
    let max = width.max();
    // kn/m = max + 3: most counters see `max` or more probes.
    let n = M * (max + 3) / u64::from(K);
    let mut f = CountingBloomFilter::builder_counters(M, K)
        .width(width)
        .build()
        .unwrap();
    // The true (unbounded) number of probes on each counter.
    let mut truth = vec![0u64; M as usize];
    for key in 0..n {
        f.insert(&key);
        for p in f.positions(&key) {
            truth[p as usize] += 1;
        }
    }
    // Counters are min(truth, max); every increment past max is an event.
    let mut saturated = 0;
    let mut lost = 0;
    for i in 0..M {
        let t = truth[i as usize];
        assert_eq!(f.counter(i), Some(t.min(max)));
        saturated += u64::from(t >= max);
        lost += t.saturating_sub(max);
    }
    assert!(saturated > M / 3, "{width:?}: {saturated}");
    assert_eq!(f.saturated_counters(), saturated);
    assert_eq!(f.stats().saturation_events, lost);
    assert_eq!(f.info().saturated_counters, saturated);

    // Remove the even keys: every remove of an inserted key succeeds.
    let sat_before: Vec<u64> =
        (0..M).filter(|&i| f.counter(i) == Some(max)).collect();
    let mut skipped = 0;
    for key in (0..n).step_by(2) {
        for p in f.positions(&key) {
            skipped += u64::from(f.counter(p) == Some(max));
            truth[p as usize] -= 1;
        }
        f.remove(&key).unwrap();
    }
    // Saturated counters never decrement; the others are exact.
    for &i in &sat_before {
        assert_eq!(f.counter(i), Some(max), "counter {i} decremented");
    }
    for i in 0..M {
        if !sat_before.contains(&i) {
            assert_eq!(f.counter(i), Some(truth[i as usize]));
        }
    }
    assert_eq!(f.saturated_counters(), saturated);
    assert_eq!(f.stats().skipped_decrements, skipped);
    assert!(skipped > 0);

    // No false negatives among the keys still inserted.
    assert!((1..n).step_by(2).all(|key| f.contains(&key)));

    // The standard snapshot is a superset of the live keys' filter: the
    // saturated counters of removed keys stay set.
    let mut live = CountingBloomFilter::builder_counters(M, K)
        .width(CounterWidth::Eight)
        .build()
        .unwrap();
    for key in (1..n).step_by(2) {
        live.insert(&key);
    }
    let ours = f.to_standard().unwrap();
    let exact = live.to_standard().unwrap();
    for (a, b) in
        ours.bit_array().words().iter().zip(exact.bit_array().words())
    {
        assert_eq!(b & !a, 0, "a live key's bit is missing");
    }
    assert!(ours.bit_count() >= exact.bit_count());
}

/// With 4-bit counters at the design load, saturation is not expected:
/// the union bound on a counter reaching 16 is far below 1e-6 here (and
/// reaching 15 is only ~16× likelier).
#[test]
fn four_bit_counters_do_not_saturate_at_the_design_load() {
    let mut f = CountingBloomFilter::new(20_000, 0.01).unwrap();
    for key in 0..20_000u64 {
        f.insert(&key);
    }
    let bound = bloomlab_core::theory::fpr_counting_overflow_binomial(
        f.counters(),
        20_000,
        f.hash_count(),
        4,
    )
    .unwrap();
    assert!(bound < 1e-6, "{bound}");
    assert_eq!(f.saturated_counters(), 0);
    assert_eq!(f.stats().saturation_events, 0);
}
