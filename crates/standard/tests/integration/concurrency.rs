use bloomlab_standard::{AtomicBloomFilter, BloomFilter, Builder};

/// Four threads insert disjoint quarters of 200,000 keys into one atomic
/// filter: no false negatives, and exactly the bits of a sequential build.
/// Twice: a filter sized for the keys (240 KB), and one sized for twenty
/// times as many (4.8 MB), whose one-key inserts prefetch their probes
/// before setting them.
#[test]
fn threads_build_the_sequential_filter() {
    let n = 200_000u64;
    for sized_for in [n, 20 * n] {
        let f = AtomicBloomFilter::new(sized_for, 0.01).unwrap();
        let large = f.bits() / 8 >= bloomlab_core::PREFETCH_MIN_BYTES as u64;
        assert_eq!(large, sized_for > n, "which insert each size takes");
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let f = &f;
                s.spawn(move || {
                    let keys: Vec<u64> =
                        (t * n / 4..(t + 1) * n / 4).collect();
                    if t % 2 == 0 {
                        f.insert_many(&keys);
                    } else {
                        for k in &keys {
                            f.insert(k);
                        }
                    }
                });
            }
        });
        let mut seq = BloomFilter::new(sized_for, 0.01).unwrap();
        for k in 0..n {
            seq.insert(&k);
        }
        assert!((0..n).all(|k| f.contains(&k)));
        assert_eq!(f.bit_count(), seq.bit_count());
        let plain: BloomFilter = f.into();
        assert_eq!(plain, seq, "sized for {sized_for}");
    }
}

/// One thread: each `insert`'s answer (whether a bit changed) is the
/// sequential filter's, in a filter large enough to prefetch, with keys
/// repeated so both answers occur.
#[test]
fn one_thread_answers_as_the_sequential_filter() {
    let f = AtomicBloomFilter::new(4_000_000, 0.01).unwrap();
    assert!(f.bits() / 8 >= bloomlab_core::PREFETCH_MIN_BYTES as u64);
    let mut seq = BloomFilter::new(4_000_000, 0.01).unwrap();
    let mut answers = [0; 2];
    for k in (0..50_000u64).chain(0..1_000) {
        let changed = seq.insert(&k);
        assert_eq!(f.insert(&k), changed, "key {k}");
        answers[usize::from(changed)] += 1;
    }
    assert_eq!(answers, [1_000, 50_000]);
    assert_eq!(f.into_bloom_filter(), seq);
}

/// `contains_many` answers as `contains` one key at a time: on a small
/// filter (key by key) and on one of `PREFETCH_MIN_BYTES` or more
/// (prefetched batches), filled to its design load, on members and
/// non-members (some of them false positives), and for as many keys as
/// both slices hold; while other threads insert, every key inserted
/// before the call is found.
#[test]
fn contains_many_answers_as_contains() {
    let probe: Vec<u64> = (0..40_000u64).collect();
    for (n, large) in [(10_000u64, false), (4_000_000, true)] {
        let f = AtomicBloomFilter::new(n, 0.01).unwrap();
        assert_eq!(
            f.bits() / 8 >= bloomlab_core::PREFETCH_MIN_BYTES as u64,
            large
        );
        // The members are the even keys below 2n (a quarter of the
        // probes on the small filter, half on the large one): each filter
        // is at its design load.
        f.insert_many(&(0..2 * n).step_by(2).collect::<Vec<_>>());
        let mut out = vec![false; probe.len()];
        f.contains_many(&probe, &mut out);
        let one: Vec<bool> = probe.iter().map(|k| f.contains(k)).collect();
        assert_eq!(out, one, "n = {n}");
        let fp = probe.iter().zip(&out).filter(|(k, o)| *k % 2 == 1 && **o);
        assert!(fp.count() > 0, "n = {n}: no false positive to compare");
        // Fewer answers than keys, and fewer keys than answers.
        let mut short = vec![true; 300];
        f.contains_many(&probe[1..], &mut short);
        assert_eq!(short, one[1..301]);
        let mut long = vec![true; 10];
        f.contains_many(&probe[..3], &mut long);
        assert_eq!(&long[..3], &one[..3]);
        assert!(long[3..].iter().all(|&o| o), "answers past the keys");
    }
    // Queries while another thread inserts other keys.
    let f = AtomicBloomFilter::new(4_000_000, 0.01).unwrap();
    let before: Vec<u64> = (0..100_000u64).collect();
    f.insert_many(&before);
    std::thread::scope(|s| {
        s.spawn(|| {
            f.insert_many(
                &(1u64 << 40..(1 << 40) + 200_000).collect::<Vec<_>>(),
            )
        });
        let mut out = vec![false; before.len()];
        f.contains_many(&before, &mut out);
        assert!(out.iter().all(|&o| o), "a key inserted before was missed");
    });
}

#[test]
fn conversions_keep_bits_and_config() {
    let mut f = Builder::rate(1000, 0.01).seed(9).build().unwrap();
    f.insert("x");
    let a = AtomicBloomFilter::from(f.clone());
    assert!(a.contains("x"));
    assert!(!a.insert("x"));
    assert!(a.insert("y"));
    f.insert("y");
    assert_eq!(a.to_bloom_filter(), f);
    let g = Builder::rate(1000, 0.01).build().unwrap();
    assert!(a.union(&g).is_err());
}
