// A filter that keeps a summary (`keep_summary`): the summary stays the
// bits of the non-zero counters through every kind of change, queries
// answer as the counters do, and memory counts it.

use bloomlab_counting::{CounterWidth, CountingBloomFilter};

use crate::standard::configs;

/// The counters' own snapshot: the same filter without a summary.
fn from_counters(f: &CountingBloomFilter) -> bloomlab_standard::BloomFilter {
    let mut g = f.clone();
    g.drop_summary();
    g.to_standard().unwrap()
}

/// Inserts (one at a time and in batches, with repeats), removes that
/// empty counters, a refused remove, union, clear, and a summary made
/// late from counters already there: after each, the summary is the
/// counters' snapshot and every query answers as the counters do.
#[test]
fn summary_follows_the_counters() {
    for config in configs() {
        for width in [CounterWidth::Two, CounterWidth::Four] {
            let builder = CountingBloomFilter::builder(2000, 0.01)
                .config(config)
                .width(width);
            let mut plain = builder.build().unwrap();
            let mut f = builder.summary(true).build().unwrap();
            let check = |f: &CountingBloomFilter,
                         plain: &CountingBloomFilter| {
                assert_eq!(f.words(), plain.words(), "{config:?} {width}");
                assert_eq!(
                    f.summary(),
                    Some(&from_counters(plain)),
                    "{config:?} {width}"
                );
                let probe: Vec<u64> = (0..6000).collect();
                let mut out = vec![false; probe.len()];
                let mut want = vec![false; probe.len()];
                f.contains_many(&probe, &mut out);
                plain.contains_many(&probe, &mut want);
                assert_eq!(out, want, "{config:?} {width}");
                assert!(
                    probe.iter().all(|k| f.contains(k) == plain.contains(k))
                );
                assert!(probe.iter().all(|k| {
                    let b = k.to_le_bytes();
                    f.contains_bytes(&b) == plain.contains_bytes(&b)
                }));
            };
            for k in 0..1500u64 {
                assert_eq!(f.insert(&k), plain.insert(&k));
            }
            let batch: Vec<u64> = (1000..2500).collect();
            assert_eq!(f.insert_many(&batch), plain.insert_many(&batch));
            check(&f, &plain);
            // Removes of keys inserted once (as bytes, and typed): many of
            // their counters fall to zero.
            for k in 0..1000u64 {
                f.remove_bytes(&k.to_le_bytes()).unwrap();
                plain.remove_bytes(&k.to_le_bytes()).unwrap();
            }
            for k in 1500..2000u64 {
                f.remove(&k).unwrap();
                plain.remove(&k).unwrap();
            }
            assert!(
                f.summary().unwrap().bit_count()
                    < from_counters(&{
                        let mut full = plain.clone();
                        full.insert_many(
                            &(0..1000u64)
                                .chain(1500..2000)
                                .collect::<Vec<_>>(),
                        );
                        full
                    })
                    .bit_count()
            );
            check(&f, &plain);
            // A key whose counters are zero: refused, nothing changes.
            let absent = (10_000u64..).find(|k| !plain.contains(k)).unwrap();
            assert!(f.remove(&absent).is_err());
            assert!(plain.remove(&absent).is_err());
            check(&f, &plain);
            // Union with a filter without a summary, and with one.
            let mut other = builder.build().unwrap();
            for k in 5000..5400u64 {
                other.insert(&k);
            }
            f.union(&other).unwrap();
            plain.union(&other).unwrap();
            check(&f, &plain);
            other.keep_summary().unwrap();
            f.union(&other).unwrap();
            plain.union(&other).unwrap();
            check(&f, &plain);
            // A summary made from counters already there.
            let mut late = plain.clone();
            late.keep_summary().unwrap();
            check(&late, &plain);
            f.clear();
            plain.clear();
            check(&f, &plain);
            assert_eq!(f.summary().unwrap().bit_count(), 0);
        }
    }
}

/// Memory: the counters' words plus the summary's, `m` bits in whole
/// words; dropping the summary gives them back.
#[test]
fn memory_counts_the_summary() {
    let mut f = CountingBloomFilter::with_counters(1000, 5).unwrap();
    let counters = 1000usize.div_ceil(16) * 8;
    assert_eq!(f.bytes_of_memory(), counters);
    f.keep_summary().unwrap();
    assert_eq!(f.bytes_of_memory(), counters + 1000usize.div_ceil(64) * 8);
    f.drop_summary();
    assert_eq!(f.bytes_of_memory(), counters);
    assert!(f.summary().is_none());
}

/// The summary is not saved: a filter read back answers the same from
/// its counters, and `keep_summary` rebuilds the same summary.
#[test]
fn the_summary_is_rebuilt_after_reading() {
    let mut f =
        CountingBloomFilter::builder(500, 0.01).summary(true).build().unwrap();
    for k in 0..500u64 {
        f.insert(&k);
    }
    for k in 0..100u64 {
        f.remove(&k).unwrap();
    }
    let bytes = f.to_bytes().unwrap();
    let mut g = CountingBloomFilter::read(&bytes).unwrap();
    assert!(g.summary().is_none());
    assert_eq!(g.words(), f.words());
    g.keep_summary().unwrap();
    assert_eq!(g.summary(), f.summary());
    assert_eq!(g.to_standard().unwrap(), f.to_standard().unwrap());
}

/// Removes on small filters and on filters of `PREFETCH_MIN_BYTES` (whose
/// removes, and a summary's inserts, prefetch every line first and work
/// from the positions kept by that pass): the counters are those of the
/// keys still inserted, a refused remove changes nothing, and a summary
/// stays the counters' snapshot; with and without a summary, for each
/// counter width.
#[test]
fn removes_leave_the_counters_of_the_keys_left() {
    use std::collections::HashMap;
    let large = bloomlab_core::PREFETCH_MIN_BYTES as u64 * 8;
    for width in [CounterWidth::Two, CounterWidth::Four, CounterWidth::Eight] {
        let bits = u64::from(width.bits());
        // Small: under 4 MiB at every width (4 MB at 8 bits).
        for m in [4_000_000, large / bits] {
            for keep in [false, true] {
                let mut f = CountingBloomFilter::builder_counters(m, 7)
                    .width(width)
                    .summary(keep)
                    .build()
                    .unwrap();
                let what = format!("{width} m = {m} summary {keep}");
                let mut truth: HashMap<u64, u64> = HashMap::new();
                for key in 0..3000u64 {
                    f.insert(&key);
                    for p in f.positions(&key) {
                        *truth.entry(p).or_default() += 1;
                    }
                }
                // A precondition of the model below (a counter at its
                // maximum sticks): with 21,000 probes on at least 4e6
                // counters, about m·λ³/6 ≤ 0.1 counters reach 3 at 2 bits.
                assert_eq!(f.saturated_counters(), 0, "{what}");
                for key in 0..1500u64 {
                    f.remove(&key).unwrap();
                    for p in f.positions(&key) {
                        *truth.entry(p).or_default() -= 1;
                    }
                }
                // Keys never inserted: nearly all are refused.
                let mut refused = 0;
                for key in 1 << 40..(1 << 40) + 200u64 {
                    let (words, summary) =
                        (f.words().to_vec(), f.summary().cloned());
                    if f.remove(&key).is_err() {
                        refused += 1;
                        assert_eq!(f.words(), &words[..], "{what} {key}");
                        assert_eq!(f.summary(), summary.as_ref(), "{what}");
                    } else {
                        for p in f.positions(&key) {
                            *truth.entry(p).or_default() -= 1;
                        }
                    }
                }
                assert!(refused > 190, "{what}: {refused}");
                let per_word = u64::from(width.per_word());
                let mut words = vec![0u64; f.words().len()];
                for (&p, &t) in &truth {
                    words[(p / per_word) as usize] |=
                        t << ((p % per_word) * bits);
                }
                assert_eq!(f.words(), &words[..], "{what}");
                for key in 1500..3000u64 {
                    assert!(f.contains(&key), "{what} {key}");
                }
                if keep {
                    assert_eq!(
                        f.summary(),
                        Some(&from_counters(&f)),
                        "{what}"
                    );
                }
            }
        }
    }
}
