// Model-based property test: random sequences of insert / remove /
// contains on a small filter against a multiset, and a twin filter that
// keeps a summary doing the same.

use std::collections::HashMap;

use bloomlab_counting::{Config, CounterWidth, CountingBloomFilter};
use proptest::prelude::*;

#[derive(Debug, Clone, Copy)]
enum Op {
    Insert(u64),
    Remove(u64),
    Contains(u64),
}

fn op() -> impl Strategy<Value = Op> {
    // 48 distinct keys, so keys repeat and multiplicities grow.
    prop_oneof![
        3 => (0..48u64).prop_map(Op::Insert),
        2 => (0..48u64).prop_map(Op::Remove),
        1 => (0..48u64).prop_map(Op::Contains),
    ]
}

fn width() -> impl Strategy<Value = CounterWidth> {
    prop_oneof![
        Just(CounterWidth::Two),
        Just(CounterWidth::Four),
        Just(CounterWidth::Eight),
    ]
}

/// Whether `remove(key)` must be refused: some counter, not saturated,
/// holds fewer than the probes of the key on it.
fn must_refuse(f: &CountingBloomFilter, key: u64) -> bool {
    let pos = f.positions(&key);
    let max = f.counter_width().max();
    pos.iter().any(|&p| {
        let c = f.counter(p).unwrap();
        let r = pos.iter().filter(|&&q| q == p).count() as u64;
        c != max && c < r
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn agrees_with_a_multiset(
        m in 16u64..400,
        k in 1u32..8,
        width in width(),
        guava in any::<bool>(),
        ops in prop::collection::vec(op(), 1..300),
    ) {
        // The default configuration takes the unrolled loops, Guava's the
        // generic walk.
        let config = if guava {
            Config::guava(bloomlab_hash::Strategy::GuavaMitz64)
        } else {
            Config::default()
        };
        let builder = CountingBloomFilter::builder_counters(m, k)
            .width(width)
            .config(config);
        let mut f = builder.build().unwrap();
        // The twin answers from its summary, which must stay the bits of
        // the non-zero counters through every operation.
        let mut g = builder.summary(true).build().unwrap();
        let max = width.max();
        let mut model: HashMap<u64, u64> = HashMap::new();
        let (mut inserts, mut removes, mut rejected) = (0u64, 0u64, 0u64);
        for op in ops {
            match op {
                Op::Insert(key) => {
                    prop_assert_eq!(f.insert(&key), g.insert(&key));
                    *model.entry(key).or_default() += 1;
                    inserts += 1;
                }
                Op::Remove(key) if model.get(&key).copied().unwrap_or(0) > 0 => {
                    // An inserted key is always removable.
                    prop_assert!(!must_refuse(&f, key));
                    f.remove(&key).unwrap();
                    g.remove(&key).unwrap();
                    *model.get_mut(&key).unwrap() -= 1;
                    removes += 1;
                }
                Op::Remove(key) => {
                    if must_refuse(&f, key) {
                        // Certainly absent: refused, no counter changed.
                        let before = f.words().to_vec();
                        prop_assert!(f.remove(&key).is_err());
                        prop_assert!(g.remove(&key).is_err());
                        prop_assert_eq!(f.words(), &before[..]);
                        rejected += 1;
                    }
                    // Otherwise the key is a false positive: removing it
                    // would corrupt the filter undetectably (hazard.rs),
                    // so the model never does.
                }
                Op::Contains(key) => {
                    prop_assert_eq!(f.contains(&key), g.contains(&key));
                    if model.get(&key).copied().unwrap_or(0) > 0 {
                        prop_assert!(f.contains(&key));
                    }
                }
            }
            prop_assert_eq!(g.words(), f.words());
            prop_assert_eq!(g.stats(), f.stats());
            prop_assert_eq!(g.summary(), Some(&f.to_standard().unwrap()));
            let s = f.stats();
            prop_assert_eq!(
                (s.inserts, s.removes, s.rejected_removes),
                (inserts, removes, rejected)
            );
            let unsaturated = f.saturated_counters() == 0;
            if unsaturated {
                prop_assert_eq!(s.saturation_events, 0);
            }
            for (&key, &n) in &model {
                if n == 0 {
                    continue;
                }
                // No false negatives, saturated or not (saturation is
                // sticky), and the minimum never undercounts: exactly the
                // multiplicity bound while no counter has saturated,
                // capped at the maximum otherwise.
                prop_assert!(f.contains(&key), "false negative {}", key);
                let est = f.count_estimate(&key);
                if unsaturated {
                    prop_assert!(est >= n, "{} < {} for {}", est, n, key);
                } else {
                    prop_assert!(est >= n.min(max));
                }
            }
        }
    }
}
