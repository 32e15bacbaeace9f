//! The inlined walks (xxh3-64, xxh3-128 and fold-128 with double or
//! enhanced double hashing and multiply-shift, unrolled up to 16 slices)
//! set and test exactly the bits the indexer gives through `positions`.

use std::collections::BTreeSet;

use bloomlab_hash::{Family, Reduction, Strategy};
use bloomlab_partitioned::{Config, PartitionedBloomFilter};

/// Byte keys of every length up to 40 (XXH3's and fold-128's length
/// paths), and one-word keys.
fn byte_keys() -> Vec<Vec<u8>> {
    (0..=40u8)
        .map(|n| (0..n).map(|i| i.wrapping_mul(29) ^ n).collect())
        .collect()
}

fn word_keys() -> Vec<u64> {
    (0..300u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i).collect()
}

/// The bits `positions` gives for `keys`, and for each key whether it set
/// a bit no key before it had.
fn expected<T: bloomlab_hash::Funnel>(
    f: &PartitionedBloomFilter,
    keys: &[T],
) -> (BTreeSet<u64>, Vec<bool>) {
    let mut set = BTreeSet::new();
    let changed = keys
        .iter()
        .map(|k| {
            let mut any = false;
            for p in f.positions(k) {
                any |= set.insert(p);
            }
            any
        })
        .collect();
    (set, changed)
}

fn ones(f: &PartitionedBloomFilter) -> BTreeSet<u64> {
    f.bit_array().ones().collect()
}

#[test]
fn walk_matches_the_indexer() {
    let families =
        [Family::Xxh3_64, Family::Xxh3_128, Family::Fold128, Family::Fold64];
    let strategies = [Strategy::EnhancedDouble, Strategy::Double];
    // 16 is the last unrolled kernel, 17 takes the generic loop.
    for family in families {
        for strategy in strategies {
            for seed in [0, 0x5eed] {
                for k in [1, 2, 7, 16, 17] {
                    let cfg = Config {
                        family,
                        seed,
                        strategy,
                        reduction: Reduction::MultiplyShift,
                    };
                    let what =
                        format!("{family} {strategy} seed {seed} k {k}");
                    let empty =
                        PartitionedBloomFilter::with_config(cfg, k, 997)
                            .unwrap();
                    check(&empty, &word_keys(), &what);
                    let bytes = byte_keys();
                    let refs: Vec<&[u8]> =
                        bytes.iter().map(|b| &b[..]).collect();
                    check(&empty, &refs, &what);
                }
            }
        }
    }
}

/// Inserting `keys` one at a time (`insert`, `add`) and in a batch sets
/// exactly the expected bits, with `insert`'s answers and the batch's
/// count as expected; queries of members and of other keys answer as the
/// bits say.
fn check<T: bloomlab_hash::Funnel>(
    empty: &PartitionedBloomFilter,
    keys: &[T],
    what: &str,
) {
    let (want, changed) = expected(empty, keys);
    let mut one = empty.clone();
    let answers: Vec<bool> = keys.iter().map(|k| one.insert(k)).collect();
    assert_eq!(ones(&one), want, "insert, {what}");
    assert_eq!(answers, changed, "insert's answers, {what}");
    let mut added = empty.clone();
    keys.iter().for_each(|k| added.add(k));
    assert_eq!(added, one, "add, {what}");
    let mut many = empty.clone();
    let count = many.insert_many(keys);
    assert_eq!(many, one, "insert_many, {what}");
    assert_eq!(count, changed.iter().filter(|&&c| c).count(), "{what}");

    // Queries against half the keys: the others are then absent unless
    // their bits happen to be set, which the expectation computes.
    let half = &keys[..keys.len() / 2];
    let mut f = empty.clone();
    f.insert_many(half);
    let bits = ones(&f);
    let truth: Vec<bool> = keys
        .iter()
        .map(|k| f.positions(k).iter().all(|p| bits.contains(p)))
        .collect();
    assert!(truth[..half.len()].iter().all(|&t| t), "{what}");
    assert!(truth.iter().any(|&t| !t), "some keys absent, {what}");
    let one_by_one: Vec<bool> = keys.iter().map(|k| f.contains(k)).collect();
    assert_eq!(one_by_one, truth, "contains, {what}");
    let mut out = vec![false; keys.len()];
    f.contains_many(keys, &mut out);
    assert_eq!(out, truth, "contains_many, {what}");
}
