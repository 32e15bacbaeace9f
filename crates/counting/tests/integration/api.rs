// The API: sizing, insert/remove/count_estimate, shared probes, union,
// memory, the Filter trait, inspect's text.

use bloomlab_core::Filter;
use bloomlab_core::sizing::GuavaSizing;
use bloomlab_counting::{
    Config, CounterWidth, CountingBloomFilter, Error, MAX_K,
};

#[test]
fn sizing_follows_guava() {
    for (n, p) in [(1u64, 0.5), (1000, 0.01), (100_000, 0.001)] {
        let s = GuavaSizing::new(n as i64, p).unwrap();
        let f = CountingBloomFilter::new(n, p).unwrap();
        assert_eq!(f.counters(), s.bit_size);
        assert_eq!(f.hash_count(), s.hash_functions);
        assert_eq!(f.counter_width(), CounterWidth::Four);
        assert_eq!(f.config(), Config::default());
    }
    let f = CountingBloomFilter::with_counters(1000, 5).unwrap();
    assert_eq!((f.counters(), f.hash_count()), (1000, 5));
}

#[test]
fn bad_parameters_are_errors() {
    assert!(CountingBloomFilter::new(10, 0.0).is_err());
    assert!(CountingBloomFilter::new(10, 1.0).is_err());
    assert!(CountingBloomFilter::with_counters(0, 3).is_err());
    assert!(CountingBloomFilter::with_counters(10, 0).is_err());
    assert!(CountingBloomFilter::with_counters(10, MAX_K + 1).is_err());
    assert!(CountingBloomFilter::with_counters(10, MAX_K).is_ok());
    assert!(CountingBloomFilter::with_counters(u64::MAX, 3).is_err());
    assert!(CounterWidth::from_bits(16).is_err());
    // Guava's schemes are defined with the modulo.
    let bad = CountingBloomFilter::builder_counters(100, 3)
        .strategy(bloomlab_hash::Strategy::GuavaMitz64)
        .build();
    assert!(matches!(bad, Err(Error::Hash(_))));
}

/// Memory is `m·bits/8` rounded up to whole words, for every width.
#[test]
fn memory_is_packed_to_whole_words() {
    for width in CounterWidth::ALL {
        let bits = u64::from(width.bits());
        for m in [1u64, 7, 8, 15, 16, 17, 31, 32, 33, 1000, 958_528] {
            let f = CountingBloomFilter::builder_counters(m, 3)
                .width(width)
                .build()
                .unwrap();
            let expected = (m * bits).div_ceil(64) * 8;
            assert_eq!(f.bytes_of_memory() as u64, expected, "{width} {m}");
            assert_eq!(Filter::bytes_of_memory(&f) as u64, expected);
            assert_eq!(f.words().len() as u64 * 8, expected);
            assert_eq!(f.info().bytes_of_memory as u64, expected);
        }
    }
    // 1e6 keys at 1%: 9,585,088 counters in 4,792,544 bytes.
    let f = CountingBloomFilter::new(1_000_000, 0.01).unwrap();
    assert_eq!(f.bytes_of_memory(), 9_585_088 / 2);
}

#[test]
fn insert_remove_count() {
    let mut f = CountingBloomFilter::new(1000, 0.01).unwrap();
    assert!(!f.contains("a"));
    assert_eq!(f.count_estimate("a"), 0);
    for i in 1..=5 {
        assert!(f.insert("a"));
        assert_eq!(f.count_estimate("a"), i);
    }
    for i in (0..5).rev() {
        f.remove("a").unwrap();
        assert_eq!(f.count_estimate("a"), i);
    }
    assert!(f.words().iter().all(|&w| w == 0));
    let s = f.stats();
    assert_eq!((s.inserts, s.removes, s.rejected_removes), (5, 5, 0));
    assert_eq!(s.live(), 0);
}

#[test]
fn removing_an_absent_key_changes_no_counter() {
    let mut f = CountingBloomFilter::new(1000, 0.01).unwrap();
    for i in 0..100u64 {
        f.insert(&i);
    }
    let before = f.words().to_vec();
    let err = f.remove(&"never inserted").unwrap_err();
    let Error::NotPresent { counter, probe, value } = err else {
        panic!("{err}")
    };
    assert_eq!(value, 0);
    assert_eq!(f.counter(counter), Some(0));
    assert_eq!(f.positions("never inserted")[probe as usize], counter);
    assert_eq!(f.words(), &before[..]);
    assert_eq!(f.stats().rejected_removes, 1);
    assert_eq!(f.stats().removes, 0);
}

/// With one counter every probe lands on it: an insert adds `k`, a remove
/// takes `k` (probes are counted, not positions).
#[test]
fn shared_probes_count_twice() {
    let mut f = CountingBloomFilter::builder_counters(1, 3)
        .width(CounterWidth::Eight)
        .build()
        .unwrap();
    f.insert("x");
    assert_eq!(f.positions("x"), [0, 0, 0]);
    assert_eq!(f.counter(0), Some(3));
    assert_eq!(f.count_estimate("x"), 3);
    f.insert("y");
    assert_eq!(f.counter(0), Some(6));
    f.remove("x").unwrap();
    assert_eq!(f.counter(0), Some(3));
    f.remove("anything").unwrap(); // a false positive: undetectable
    assert_eq!(f.counter(0), Some(0));
    assert!(!f.contains("y")); // ... and "y" is now a false negative
}

/// A key whose probes share a counter that holds fewer than the probes
/// on it is refused, and the decrements already made are undone.
#[test]
fn a_short_shared_counter_is_refused_and_rolled_back() {
    let mut f = CountingBloomFilter::builder_counters(4, 3).build().unwrap();
    // A key with a repeated position p, and a key that holds p only once
    // and covers the rest of the first key's positions.
    let keys: Vec<u64> = (0..10_000).collect();
    let pos = |k: u64| f.positions(&k);
    let a = *keys
        .iter()
        .find(|&&a| {
            let p = pos(a);
            p[0] == p[2] && p[1] != p[0]
        })
        .unwrap();
    let pa = pos(a);
    let b = *keys
        .iter()
        .find(|&&b| {
            let p = pos(b);
            b != a
                && p.iter().filter(|&&x| x == pa[0]).count() == 1
                && p.contains(&pa[1])
        })
        .unwrap();
    f.insert(&b);
    assert_eq!(f.counter(pa[0]), Some(1));
    let before = f.words().to_vec();
    let err = f.remove(&a).unwrap_err();
    assert!(
        matches!(err, Error::NotPresent { probe: 2, .. }),
        "{err}: {pa:?}"
    );
    assert_eq!(f.words(), &before[..]);
    f.remove(&b).unwrap();
    assert!(f.words().iter().all(|&w| w == 0));
}

#[test]
fn union_adds_saturating() {
    let mut a = CountingBloomFilter::builder_counters(200, 3)
        .width(CounterWidth::Two)
        .build()
        .unwrap();
    let mut b = a.clone();
    a.insert("k");
    a.insert("k");
    b.insert("k");
    b.insert("k");
    b.insert("other");
    let mut u = a.clone();
    u.union(&b).unwrap();
    assert!(u.contains("k") && u.contains("other"));
    // 2 + 2 = 4 > 3 on each distinct counter of "k".
    for p in a.positions("k") {
        assert_eq!(u.counter(p), Some(3));
    }
    let s = u.stats();
    assert_eq!(s.inserts, 5);
    assert!(s.saturation_events >= 3);
    assert!(u.saturated_counters() >= 1);

    let other_width =
        CountingBloomFilter::builder_counters(200, 3).build().unwrap();
    assert!(matches!(
        u.union(&other_width),
        Err(Error::Incompatible { what: "counter bits", .. })
    ));
    let other_k = CountingBloomFilter::builder_counters(200, 4)
        .width(CounterWidth::Two)
        .build()
        .unwrap();
    assert!(matches!(
        u.union(&other_k),
        Err(Error::Incompatible { what: "k", .. })
    ));
    let other_seed = CountingBloomFilter::builder_counters(200, 3)
        .width(CounterWidth::Two)
        .seed(9)
        .build()
        .unwrap();
    assert!(matches!(
        u.union(&other_seed),
        Err(Error::Incompatible { what: "seed", .. })
    ));
}

#[test]
fn filter_trait_and_estimates() {
    let mut f = CountingBloomFilter::new(10_000, 0.01).unwrap();
    let d: &mut dyn Filter = &mut f;
    assert_eq!(d.variant(), "counting");
    assert_eq!(d.insert_u64_batch(&(0..5000u64).collect::<Vec<_>>()), 5000);
    let mut out = vec![false; 5000];
    d.contains_u64_batch(&(0..5000u64).collect::<Vec<_>>(), &mut out);
    assert!(out.iter().all(|&x| x));
    assert!(d.contains_bytes(&7u64.to_le_bytes()));
    assert_eq!(d.bits(), 95_872);
    assert_eq!(d.hash_count(), 7);
    let est = d.estimated_count();
    assert!((est - 5000.0).abs() < 150.0, "{est}");
    let fpp = d.expected_fpp();
    assert!(fpp > 1e-4 && fpp < 2e-3, "{fpp}");
    assert!((d.fill() - d.bits_set() as f64 / 95_872.0).abs() < 1e-12);
    assert_eq!(f.to_standard().unwrap().bit_count(), f.nonzero_counters());
    f.clear();
    assert_eq!(f.nonzero_counters(), 0);
    assert_eq!(f.stats().inserts, 0);
}

#[test]
fn info_shows_what_inspect_prints() {
    let mut f = CountingBloomFilter::new(100, 0.01).unwrap();
    f.insert("a");
    let text = f.info().to_string();
    for line in [
        "format: native",
        "variant: counting",
        "hash: xxh3-128",
        "strategy: enhanced-double",
        "reduction: multiply-shift",
        "m: 960",
        "k: 7",
        "counter bits: 4",
        "bits set: 7",
        "saturated counters: 0",
        "inserts: 1",
        "bytes of memory: 480",
        "expected fpp: ",
    ] {
        assert!(text.contains(line), "{line} not in\n{text}");
    }
}

#[test]
fn debug_output_is_short_whatever_the_size() {
    // 4.8 MB of counters (and 1.2 MB of summary bits): Debug summarizes.
    let mut f = CountingBloomFilter::new(1_000_000, 0.01).unwrap();
    f.keep_summary().unwrap();
    f.insert(&1u64);
    let d = format!("{f:?}");
    assert!(d.len() < 2000 && d.contains("nonzero: "), "{d}");
}

#[test]
fn extend_counts_as_inserting_one_key_at_a_time() {
    let keys: Vec<String> =
        (0..3000).map(|i| format!("k{}", i % 2000)).collect();
    let mut one = CountingBloomFilter::new(5000, 0.01).unwrap();
    keys.iter().for_each(|k| {
        one.insert(k);
    });
    let mut ext = CountingBloomFilter::new(5000, 0.01).unwrap();
    ext.extend(&keys);
    assert_eq!(ext.to_bytes().unwrap(), one.to_bytes().unwrap());
    assert_eq!(ext.count_estimate("k5"), 2);
}
