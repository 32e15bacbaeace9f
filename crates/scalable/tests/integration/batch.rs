//! `add_many` and `contains_many` against `add` and `contains` one key at
//! a time: the same answers, bits, counts and errors.

use bloomlab_core::Filter;
use bloomlab_scalable::{Config, Error, Layout, ScalableBloomFilter};

const LAYOUTS: [Layout; 3] =
    [Layout::Standard, Layout::Partitioned, Layout::Blocked];

/// Adds `keys` one at a time to `a` and as one batch to `b`, then checks
/// both filters and their answers to `probes` are the same.
fn same(mut a: ScalableBloomFilter, mut b: ScalableBloomFilter, keys: &[u64]) {
    let mut one: Result<usize, Error> = Ok(0);
    for k in keys {
        match a.add(k) {
            Ok(new) => one = one.map(|n| n + usize::from(new)),
            Err(e) => {
                one = Err(e);
                break;
            }
        }
    }
    let many = b.add_many(keys);
    assert_eq!(format!("{one:?}"), format!("{many:?}"));
    assert_eq!(a.to_bytes().unwrap(), b.to_bytes().unwrap());
    let probes: Vec<u64> = (0..2 * keys.len() as u64).collect();
    let mut out = vec![false; probes.len()];
    b.contains_many(&probes, &mut out);
    let mut via_trait = vec![false; probes.len()];
    b.contains_u64_batch(&probes, &mut via_trait);
    for ((p, &o), &t) in probes.iter().zip(&out).zip(&via_trait) {
        assert_eq!((o, t), (a.contains(p), a.contains(p)), "key {p}");
    }
}

/// Small filters growing through several layers, every layout.
#[test]
fn batches_are_one_key_at_a_time() {
    let keys: Vec<u64> = (0..5_000).map(|i| i * 7 % 3_001).collect();
    for layout in LAYOUTS {
        let c = Config::new(100, 0.01).layout(layout);
        let f = || ScalableBloomFilter::with_config(c).unwrap();
        same(f(), f(), &keys);
    }
}

/// A first layer past `PREFETCH_MIN_BYTES` (4 MiB), where the blocked
/// layers' batches prefetch.
#[test]
fn large_batches_are_one_key_at_a_time() {
    let keys: Vec<u64> = (0..20_000).collect();
    for layout in LAYOUTS {
        let c = Config::new(4_000_000, 0.01).layout(layout);
        let f = || ScalableBloomFilter::with_config(c).unwrap();
        assert!(f().bytes_of_memory() >= 4 << 20);
        same(f(), f(), &keys);
    }
}

/// A full non-scaling filter stops the batch where `add` would have.
#[test]
fn a_refused_key_stops_the_batch() {
    let keys: Vec<u64> = (0..1_000).collect();
    let c = Config::new(50, 0.01).non_scaling();
    let f = || ScalableBloomFilter::with_config(c).unwrap();
    same(f(), f(), &keys);
    let mut g = f();
    assert!(matches!(g.add_many(&keys), Err(Error::Full)));
    assert_eq!(g.len(), 50);
}

/// An output shorter than the keys answers as many as it holds.
#[test]
fn short_outputs_are_filled_as_far_as_they_go() {
    let mut f = ScalableBloomFilter::new(1000, 0.01).unwrap();
    f.add_many(&["a", "b"]).unwrap();
    let mut out = [false; 1];
    f.contains_many(&["a", "b"], &mut out);
    assert_eq!(out, [true]);
}
