// The general filter's API: sizing, insert/contains, batches, union,
// counts, the Filter trait.

use bloomlab_core::{Filter, theory};
use bloomlab_hash::{Family, Reduction, Strategy};
use bloomlab_partitioned::{
    Config, Layout, PartitionedBloomFilter, SliceReduction, SliceSpec,
};

#[test]
fn sizing_follows_the_partitioned_formula() {
    let s = PartitionedBloomFilter::sizing(1_000_000, 0.01).unwrap();
    assert_eq!(s.k, 7);
    let p = theory::fpr_partitioned(s.bits(), 1_000_000, 7).unwrap();
    assert!(p <= 0.01);
    let below = theory::fpr_partitioned(s.bits() - 7, 1_000_000, 7).unwrap();
    assert!(below > 0.01, "the slice is the smallest that reaches p");
    // About the classical optimum: 1.44·log2(1/p) bits per key, a bit
    // more because k is rounded up to an integer.
    let per_key = s.bits() as f64 / 1e6;
    assert!((9.5..10.0).contains(&per_key), "{per_key}");
    assert_eq!(PartitionedBloomFilter::sizing(10, 0.5).unwrap().k, 1);
    assert_eq!(PartitionedBloomFilter::sizing(10, 0.25).unwrap().k, 2);
    assert!(PartitionedBloomFilter::sizing(0, 0.1).is_err());
    assert!(PartitionedBloomFilter::sizing(10, 0.0).is_err());
    assert!(PartitionedBloomFilter::sizing(10, 1.0).is_err());
    assert!(PartitionedBloomFilter::sizing(10, f64::NAN).is_err());
    assert!(PartitionedBloomFilter::sizing(10, 1e-300).is_err());
}

#[test]
fn one_bit_per_slice() {
    let f = PartitionedBloomFilter::new(1000, 0.001).unwrap();
    let k = f.hash_count() as usize;
    for key in 0u64..200 {
        let pos = f.positions(&key);
        assert_eq!(pos.len(), k);
        for (i, &p) in pos.iter().enumerate() {
            assert!(p >= f.slice_offset(i));
            assert!(p < f.slice_offset(i) + f.slice_bits(i));
        }
    }
}

/// On a filter of `PREFETCH_MIN_BYTES` or more the batches prefetch
/// each key's words first: the same bits and answers as one key at a
/// time, members and non-members (the filter at its design load, so
/// some non-members pass: 1% expected of 20,000, 200; none has
/// probability below e^-100).
#[test]
fn batches_that_prefetch_match_one_key_at_a_time() {
    // 4 MiB at 1%: about 9.6 bits a key.
    let n = (bloomlab_core::PREFETCH_MIN_BYTES as u64 * 8) / 9;
    let mut f = PartitionedBloomFilter::new(n, 0.01).unwrap();
    assert!(bloomlab_core::worth_prefetching(f.bit_array().words()));
    let mut g = f.clone();
    let keys: Vec<u64> = (0..n).collect();
    let changed = keys.iter().filter(|k| g.insert(*k)).count();
    assert_eq!(f.insert_many(&keys), changed);
    assert_eq!(f, g);
    let probe: Vec<u64> = (n - 10_000..n + 20_000).collect();
    let mut out = vec![false; probe.len()];
    f.contains_many(&probe, &mut out);
    let single: Vec<bool> = probe.iter().map(|k| f.contains(k)).collect();
    assert_eq!(out, single);
    assert!(out[..10_000].iter().all(|&b| b));
    let fp = out[10_000..].iter().filter(|&&b| b).count();
    assert!(fp > 0 && fp < 2_000, "{fp}");
}

#[test]
fn insert_contains_batches_and_counts() {
    let mut f = PartitionedBloomFilter::new(10_000, 0.01).unwrap();
    let keys: Vec<u64> = (0..5000).collect();
    let expected = 5000 - count_dups(&f, &keys);
    assert_eq!(f.insert_many(&keys), expected);
    let mut out = vec![false; keys.len()];
    f.contains_many(&keys, &mut out);
    assert!(out.iter().all(|&b| b));
    assert!(keys.iter().all(|k| f.contains(k)));
    // The one-at-a-time and batch paths set the same bits.
    let mut g = PartitionedBloomFilter::new(10_000, 0.01).unwrap();
    for k in &keys {
        g.insert(k);
    }
    assert_eq!(f, g);
    let est = f.estimated_count();
    assert!((est / 5000.0 - 1.0).abs() < 0.05, "{est}");
    let fpp = f.expected_fpp();
    let slices: f64 = (0..f.hash_count() as usize)
        .map(|i| f.slice_bit_count(i) as f64 / f.slice_bits(i) as f64)
        .product();
    assert_eq!(fpp, slices);
    let total: u64 =
        (0..f.hash_count() as usize).map(|i| f.slice_bit_count(i)).sum();
    assert_eq!(total, f.bit_count());
    f.clear();
    assert_eq!(f.bit_count(), 0);
}

fn count_dups(f: &PartitionedBloomFilter, keys: &[u64]) -> usize {
    let mut g = f.clone();
    keys.iter().filter(|k| !g.insert(*k)).count()
}

#[test]
fn union_and_compatibility() {
    let mut a = PartitionedBloomFilter::new(1000, 0.01).unwrap();
    let mut b = a.clone();
    a.insert("a");
    b.insert("b");
    a.union(&b).unwrap();
    assert!(a.contains("a") && a.contains("b"));
    let c = PartitionedBloomFilter::new(2000, 0.01).unwrap();
    assert!(a.union(&c).is_err());
    let cfg = Config { seed: 7, ..Config::default() };
    let d = PartitionedBloomFilter::with_rate(1000, 0.01, cfg).unwrap();
    assert!(a.union(&d).is_err());
}

#[test]
fn intersection_and_compatibility() {
    let mut a = PartitionedBloomFilter::new(1000, 0.01).unwrap();
    let mut b = a.clone();
    a.insert_many(&["both", "a"]);
    b.insert_many(&["both", "b"]);
    let mut both = a.clone();
    both.intersect(&b).unwrap();
    assert!(both.contains("both"));
    // Exactly the bits set in both.
    let and: Vec<u64> = a
        .bit_array()
        .words()
        .iter()
        .zip(b.bit_array().words())
        .map(|(x, y)| x & y)
        .collect();
    assert_eq!(both.bit_array().words(), &and[..]);
    assert_eq!(
        both.bit_count(),
        and.iter().map(|w| u64::from(w.count_ones())).sum::<u64>()
    );
    let c = PartitionedBloomFilter::new(2000, 0.01).unwrap();
    assert!(both.intersect(&c).is_err());
    let cfg = Config { seed: 7, ..Config::default() };
    let d = PartitionedBloomFilter::with_rate(1000, 0.01, cfg).unwrap();
    assert!(both.intersect(&d).is_err());
    assert_eq!(both.bit_array().words(), &and[..]); // refused: unchanged
}

#[test]
fn explicit_slices_each_with_its_own_hash() {
    let specs = vec![
        SliceSpec::new(Family::Xxh64, 1000).seed(1),
        SliceSpec::new(Family::Murmur3X64_128, 999)
            .reduction(SliceReduction::Modulo),
        SliceSpec::new(Family::SipHash13, 64)
            .reduction(SliceReduction::JavaAbsRemainder),
        SliceSpec::new(Family::Hutool(bloomlab_hash::HutoolHash::Fnv), 77),
    ];
    let mut f = PartitionedBloomFilter::with_slices(specs.clone()).unwrap();
    assert_eq!(f.bits(), 1000 + 999 + 64 + 77);
    assert_eq!(f.hash_count(), 4);
    assert_eq!(f.layout(), Layout::Slices(specs));
    for i in 0..300u32 {
        f.insert(&i);
    }
    assert!((0..300u32).all(|i| f.contains(&i)));
    let p = f.theoretical_fpp(300).unwrap();
    let want: f64 = [1000u64, 999, 64, 77]
        .iter()
        .map(|&s| 1.0 - (1.0 - 1.0 / s as f64).powi(300))
        .product();
    assert!((p / want - 1.0).abs() < 1e-12);
    // Bad slices.
    assert!(PartitionedBloomFilter::with_slices(vec![]).is_err());
    assert!(
        PartitionedBloomFilter::with_slices(vec![SliceSpec::new(
            Family::Xxh64,
            0
        )])
        .is_err()
    );
    assert!(
        PartitionedBloomFilter::with_slices(vec![
            SliceSpec::new(Family::Fnv1a64, 10).seed(3)
        ])
        .is_err(),
        "a seedless family with a seed"
    );
}

#[test]
fn strategies_and_reductions_by_name() {
    for strategy in Strategy::all() {
        for reduction in Reduction::all() {
            let family = if strategy == Strategy::GuavaMitz32
                || strategy == Strategy::GuavaMitz64
            {
                Family::Murmur3X64_128
            } else {
                Family::Xxh3_64
            };
            let cfg = Config { family, seed: 0, strategy, reduction };
            let Ok(mut f) = PartitionedBloomFilter::with_config(cfg, 5, 1000)
            else {
                continue; // a combination the hash crate refuses
            };
            for i in 0..100u64 {
                f.insert(&i);
            }
            assert!((0..100u64).all(|i| f.contains(&i)), "{strategy}");
            let mut out = [false; 100];
            f.contains_many(&(0..100u64).collect::<Vec<_>>(), &mut out);
            assert!(out.iter().all(|&b| b));
        }
    }
    assert_eq!(
        SliceReduction::from_name("Java-Abs-Remainder").unwrap(),
        SliceReduction::JavaAbsRemainder
    );
    assert!(SliceReduction::from_name("floor-mod").is_err());
}

#[test]
fn drives_through_the_filter_trait() {
    let mut f: Box<dyn Filter> =
        Box::new(PartitionedBloomFilter::new(1000, 0.01).unwrap());
    assert_eq!(f.variant(), "partitioned");
    assert_eq!(f.insert_u64_batch(&[1, 2, 3]), 3);
    let mut out = [false; 4];
    f.contains_u64_batch(&[1, 2, 3, 4], &mut out);
    assert_eq!(&out[..3], &[true, true, true]);
    assert!(f.insert_bytes(b"x"));
    assert!(f.contains_bytes(b"x"));
    assert_eq!(f.hash_count(), 7);
    assert!(f.bits_set() <= 4 * 7); // 4 keys, one bit per slice each
    assert!(f.bytes_of_memory() >= (f.bits() / 8) as usize);
}

#[test]
fn extend_sets_the_bits_of_inserting_one_key_at_a_time() {
    let mut one =
        bloomlab_partitioned::PartitionedBloomFilter::new(5000, 0.01).unwrap();
    (0..2500u64).for_each(|k| one.add(&k));
    let mut ext =
        bloomlab_partitioned::PartitionedBloomFilter::new(5000, 0.01).unwrap();
    ext.extend(0..2500u64);
    assert_eq!(ext, one);
}
