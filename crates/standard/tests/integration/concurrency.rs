use bloomlab_standard::{AtomicBloomFilter, BloomFilter, Builder};

/// Four threads insert disjoint quarters of 200,000 keys into one atomic
/// filter: no false negatives, and exactly the bits of a sequential build.
#[test]
fn threads_build_the_sequential_filter() {
    let n = 200_000u64;
    let f = AtomicBloomFilter::new(n, 0.01).unwrap();
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let f = &f;
            s.spawn(move || {
                let keys: Vec<u64> = (t * n / 4..(t + 1) * n / 4).collect();
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
    let mut seq = BloomFilter::new(n, 0.01).unwrap();
    for k in 0..n {
        seq.insert(&k);
    }
    assert!((0..n).all(|k| f.contains(&k)));
    assert_eq!(f.bit_count(), seq.bit_count());
    let plain: BloomFilter = f.into();
    assert_eq!(plain, seq);
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
