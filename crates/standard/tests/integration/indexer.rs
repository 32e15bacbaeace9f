use bloomlab_hash::{Family, Indexer, Reduction, Strategy};
use bloomlab_standard::{
    BlockScheme, BlockedBloomFilter, BloomFilter, Config,
};

/// Every family × strategy × reduction the indexer accepts: the filter's
/// positions (fast paths included) equal `Indexer::indices`, and its
/// batch methods agree with the single-key ones.
#[test]
fn fast_paths_match_the_indexer() {
    let keys: Vec<Vec<u8>> = (0..40u64)
        .map(|i| {
            if i % 3 == 0 {
                format!("key-{i}").into_bytes()
            } else {
                i.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes().to_vec()
            }
        })
        .collect();
    let mut combos = 0;
    for family in Family::all() {
        for strategy in Strategy::all() {
            for reduction in Reduction::all() {
                for (m, k) in [(1000u64, 7u32), (1 << 20, 3), (64, 1)] {
                    let seed = 0;
                    let Ok(ix) =
                        Indexer::new(family, seed, strategy, reduction, k, m)
                    else {
                        continue;
                    };
                    let config = Config { family, seed, strategy, reduction };
                    let mut f =
                        BloomFilter::with_config(config, m, k).unwrap();
                    for key in &keys {
                        assert_eq!(
                            f.positions(&key[..]),
                            ix.indices(key),
                            "{family} {strategy} {reduction} m={m}"
                        );
                    }
                    let (mut g, mut h) = (f.clone(), f.clone());
                    for key in keys.iter().step_by(2) {
                        f.insert_bytes(key);
                        h.add_bytes(key);
                    }
                    let half: Vec<&[u8]> =
                        keys.iter().step_by(2).map(|k| &k[..]).collect();
                    g.insert_many(&half);
                    assert_eq!(f, g);
                    assert_eq!(f, h, "add: {family} {strategy} {reduction}");
                    let mut out = vec![false; keys.len()];
                    f.contains_many(&keys, &mut out);
                    for (key, o) in keys.iter().zip(out) {
                        assert_eq!(f.contains_bytes(key), o);
                    }
                    combos += 1;
                }
            }
        }
    }
    assert!(combos > 100, "{combos}");
}

/// A seeded xxh3 filter differs from the unseeded one.
#[test]
fn seed_changes_positions() {
    let a = BloomFilter::with_config(Config::default(), 1 << 20, 7).unwrap();
    let b =
        BloomFilter::with_config(Config::default().with_seed(42), 1 << 20, 7)
            .unwrap();
    assert_ne!(a.positions("x"), b.positions("x"));
}

/// Every multiply-shift configuration of `families` (double and enhanced
/// double, seeds 0 and not) with each `k` from 1 to one past the
/// kernels' (17 has none).
fn ms_configs(families: &[Family]) -> Vec<(Config, u32)> {
    let mut out = Vec::new();
    for &family in families {
        for strategy in [Strategy::Double, Strategy::EnhancedDouble] {
            for seed in [0i128, 12_345] {
                let reduction = Reduction::MultiplyShift;
                let config = Config { family, seed, strategy, reduction };
                out.extend((1..=17u32).map(|k| (config, k)));
            }
        }
    }
    out
}

/// Empty blocked filters of `bits` bits for `families`, one-line
/// (512-bit) blocks and smaller ones, seeds 0 and not, each `k` from 1
/// to one past the kernels', and Parquet split-block filters.
fn blocked_shapes(families: &[Family], bits: u64) -> Vec<BlockedBloomFilter> {
    let mut out = Vec::new();
    for &family in families {
        for block_bits in [512, 256] {
            for seed in [0i128, 12_345] {
                for k in 1..=17u32 {
                    out.push(
                        BlockedBloomFilter::with_config(
                            family, seed, bits, k, block_bits,
                        )
                        .unwrap(),
                    );
                }
            }
        }
        // Parquet's split blocks, an even and an odd number of them (the
        // last line half used).
        for seed in [0i128, 12_345] {
            for m in [bits, bits + 256] {
                out.push(
                    BlockedBloomFilter::with_scheme(
                        family,
                        seed,
                        m,
                        8,
                        256,
                        BlockScheme::ParquetSplit,
                    )
                    .unwrap(),
                );
            }
        }
    }
    out
}

/// Keys of each XXH3 length class: 8 bytes, short, long.
fn byte_keys() -> Vec<Vec<u8>> {
    (0..30u64)
        .map(|i| match i % 3 {
            0 => i.to_le_bytes().to_vec(),
            1 => format!("a somewhat longer key, number {i}").into_bytes(),
            _ => vec![i as u8; 300 + i as usize], // XXH3's long path
        })
        .collect()
}

/// Spread `u64` keys for the one-word tests.
fn word_keys() -> Vec<u64> {
    (0..40u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i).collect()
}

/// The whole-key kernels (xxh3-64, xxh3-128 and fold-128, double and enhanced
/// double, multiply-shift, `k` = 1..=16, seeded or not; `k` = 17 has no
/// kernel) set exactly the key's positions and answer queries as the
/// positions say.
#[test]
fn kernel_matches_probes() {
    let keys = byte_keys();
    for (config, k) in ms_configs(&[
        Family::Xxh3_64,
        Family::Xxh3_128,
        Family::Fold128,
        Family::Fold64,
    ]) {
        let what = format!("{} {} k={k}", config.family, config.strategy);
        let empty = BloomFilter::with_config(config, 4099, k).unwrap();
        for key in &keys {
            let mut f = empty.clone();
            let mut want = f.positions(&key[..]);
            want.sort_unstable();
            want.dedup();
            assert!(f.insert_bytes(key));
            let mut g = empty.clone();
            g.add_bytes(key);
            assert_eq!(g, f, "add: {what}");
            let set: Vec<u64> =
                (0..f.bits()).filter(|&i| f.bit_array().get(i)).collect();
            assert_eq!(set, want, "{what}");
            assert!(f.contains_bytes(key));
            assert!(!f.insert_bytes(key));
        }
        // Queries on a half-full filter: the kernel's answer is "every
        // position set".
        let mut f = empty.clone();
        for key in keys.iter().step_by(2) {
            f.insert_bytes(key);
        }
        for key in &keys {
            let all =
                f.positions(&key[..]).iter().all(|&i| f.bit_array().get(i));
            assert_eq!(f.contains_bytes(key), all);
        }
        // The batch path (two passes, closed-form probes) answers as the
        // single-key one.
        let mut out = vec![false; keys.len()];
        f.contains_many(&keys, &mut out);
        for (key, o) in keys.iter().zip(out) {
            assert_eq!(f.contains_bytes(key), o, "{what}");
        }
    }
}

/// Keys that are one little-endian word (`u64`, `i64`, `[u8; 8]`) take
/// the kernels' one-word loops: the same bits and answers as the same
/// eight bytes given as a slice, for every kernel configuration (and
/// `k` = 17 and a non-XXH3 family, which have none), seeded or not; and
/// Guava's MITZ_64 filter of `long`s, which hashes a word inline (MITZ_32
/// beside it takes the bytes), with Guava's seed 0 and others.
#[test]
fn word_keys_match_byte_keys() {
    let keys = word_keys();
    let families = [
        Family::Xxh3_64,
        Family::Xxh3_128,
        Family::Fold128,
        Family::Fold64,
        Family::Murmur64A,
    ];
    let mut configs = ms_configs(&families);
    for strategy in [Strategy::GuavaMitz64, Strategy::GuavaMitz32] {
        for seed in [0i128, -12_345, 77] {
            let config = Config::guava(strategy).with_seed(seed);
            configs.extend((1..=17u32).map(|k| (config, k)));
        }
    }
    for (config, k) in configs {
        let what = format!("{} {} k={k}", config.family, config.strategy);
        let empty = BloomFilter::with_config(config, 4099, k).unwrap();
        let (mut by_word, mut by_bytes) = (empty.clone(), empty.clone());
        let (mut add_word, mut add_bytes) = (empty.clone(), empty.clone());
        for (i, key) in keys.iter().step_by(2).enumerate() {
            let b = key.to_le_bytes();
            let new = by_bytes.insert_bytes(&b);
            let got = match i % 3 {
                0 => by_word.insert(key),
                1 => by_word.insert(&(*key as i64)),
                _ => by_word.insert(&b),
            };
            assert_eq!(got, new, "{what}");
            add_word.add(key);
            add_bytes.add_bytes(&b);
        }
        assert_eq!(by_word, by_bytes, "{what}");
        assert_eq!(add_word, by_bytes, "{what}");
        assert_eq!(add_bytes, by_bytes, "{what}");
        let mut answers = [0; 2];
        for key in &keys {
            let want = by_bytes.contains_bytes(&key.to_le_bytes());
            assert_eq!(by_word.contains(key), want, "{what}");
            assert_eq!(by_word.contains(&(*key as i64)), want, "{what}");
            assert_eq!(by_word.contains(&key.to_le_bytes()), want, "{what}");
            answers[usize::from(want)] += 1;
        }
        // Both answers occur, so both were compared.
        assert!(answers[0] > 0 && answers[1] > 0, "{what} {answers:?}");
    }
}

/// The blocked filter's one-word path, as `word_keys_match_byte_keys`:
/// both XXH3 families and one without a kernel, one-line blocks and
/// smaller ones, seeded or not, `k` up to one past the kernels'.
#[test]
fn blocked_word_keys_match_byte_keys() {
    let keys = word_keys();
    let families = [
        Family::Xxh3_64,
        Family::Xxh3_128,
        Family::Fold128,
        Family::Fold64,
        Family::Murmur64A,
    ];
    for empty in blocked_shapes(&families, 4096) {
        let what = format!(
            "{} {} k={}",
            empty.family(),
            empty.block_bits(),
            empty.hash_count()
        );
        let (mut by_word, mut by_bytes) = (empty.clone(), empty.clone());
        let mut add_word = empty.clone();
        for (i, key) in keys.iter().step_by(2).enumerate() {
            let b = key.to_le_bytes();
            let new = by_bytes.insert_bytes(&b);
            let got = match i % 3 {
                0 => by_word.insert(key),
                1 => by_word.insert(&(*key as i64)),
                _ => by_word.insert(&b),
            };
            assert_eq!(got, new, "{what}");
            add_word.add(key);
        }
        assert_eq!(by_word, by_bytes, "{what}");
        assert_eq!(add_word, by_bytes, "{what}");
        let mut answers = [0; 2];
        for key in &keys {
            let want = by_bytes.contains_bytes(&key.to_le_bytes());
            assert_eq!(by_word.contains(key), want, "{what}");
            assert_eq!(by_word.contains(&(*key as i64)), want, "{what}");
            answers[usize::from(want)] += 1;
        }
        // Both answers occur, so both were compared.
        assert!(answers[0] > 0 && answers[1] > 0, "{what} {answers:?}");
    }
}

/// The blocked filter's one-line kernels set and test exactly the bits of
/// `positions` (the generic path), for every `k` with a kernel and one
/// past it, both XXH3 families, seeds 0 and not, keys of each XXH3
/// length class; other block sizes and families take the generic path.
#[test]
fn blocked_kernel_matches_generic() {
    let keys = byte_keys();
    let families = [
        Family::Xxh3_64,
        Family::Xxh3_128,
        Family::Fold128,
        Family::Fold64,
        Family::Murmur64A,
    ];
    let set_bits = |f: &BlockedBloomFilter| -> Vec<u64> {
        f.words()
            .enumerate()
            .flat_map(|(w, word)| {
                (0..64u64)
                    .filter(move |b| word >> b & 1 == 1)
                    .map(move |b| w as u64 * 64 + b)
            })
            .collect()
    };
    for empty in blocked_shapes(&families, 8192) {
        let (family, k) = (empty.family(), empty.hash_count());
        for key in &keys {
            let mut f = empty.clone();
            let mut want = f.positions(&key[..]);
            want.sort_unstable();
            want.dedup();
            assert!(f.insert_bytes(key));
            assert_eq!(set_bits(&f), want, "{family} k={k}");
            let mut g = empty.clone();
            g.add_bytes(key);
            assert_eq!(g, f, "add: {family} k={k}");
            assert!(f.contains_bytes(key));
            assert!(!f.insert_bytes(key));
        }
        let mut f = empty.clone();
        for key in keys.iter().step_by(2) {
            f.insert_bytes(key);
        }
        let set = set_bits(&f);
        for key in &keys {
            let all = f
                .positions(&key[..])
                .iter()
                .all(|i| set.binary_search(i).is_ok());
            assert_eq!(f.contains_bytes(key), all, "k={k}");
        }
        // The batch paths (the kernels' with one-line blocks, which
        // prefetch) give the same bits, counts and answers, for byte keys
        // and one-word keys, with repeats in a batch.
        let bytes: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
        let batch: Vec<&[u8]> = bytes
            .iter()
            .step_by(2)
            .chain(bytes.iter().step_by(3))
            .copied()
            .collect();
        let (mut g, mut h) = (empty.clone(), empty.clone());
        let one_by_one = batch.iter().filter(|k| h.insert_bytes(k)).count();
        assert_eq!(g.insert_many(&batch), one_by_one, "{family} k={k}");
        let words: Vec<u64> = (0..300).chain(100..200).collect();
        let one_by_one = words.iter().filter(|w| h.insert(*w)).count();
        assert_eq!(g.insert_many(&words), one_by_one, "{family} k={k}");
        assert_eq!(g, h, "insert_many: {family} k={k}");
        let mut out = vec![false; bytes.len()];
        g.contains_many(&bytes, &mut out);
        let single: Vec<bool> =
            bytes.iter().map(|k| g.contains_bytes(k)).collect();
        assert_eq!(out, single, "{family} k={k}");
        let probe: Vec<u64> = (0..600).collect();
        let mut out = vec![false; probe.len()];
        g.contains_many(&probe, &mut out);
        let single: Vec<bool> = probe.iter().map(|w| g.contains(w)).collect();
        assert_eq!(out, single, "{family} k={k}");
    }
}

/// `contains_many` over more keys than one batch holds, on a filter at
/// its design load (about half its bits set, so every pass sees keys
/// leave): the same answers as `contains`, members and non-members, and
/// `insert_many` the same bits and count as `insert`. The multiply-shift
/// walks take the kernels' batch path; modulo, Guava's MITZ_64 and
/// Murmur3 the generic one. Both prefetch on large filters.
#[test]
fn batches_match_one_key_at_a_time() {
    batches_match(9600, 1000);
}

/// The same on a filter of [`bloomlab_core::PREFETCH_MIN_BYTES`], whose
/// batches prefetch (design load for 3e6 keys; 20,000 inserted, so the
/// non-members' first pass leaves few survivors and the members all).
#[test]
fn batches_match_one_key_at_a_time_when_prefetching() {
    batches_match(bloomlab_core::PREFETCH_MIN_BYTES as u64 * 8, 20_000);
}

/// `insert_many` and `contains_many` against one key at a time, on a
/// filter of `m` bits with `n` members.
fn batches_match(m: u64, n: u64) {
    let mut configs = Vec::new();
    for strategy in [Strategy::Double, Strategy::EnhancedDouble] {
        for family in [
            Family::Xxh3_64,
            Family::Xxh3_128,
            Family::Fold128,
            Family::Fold64,
        ] {
            configs.push((family, strategy, Reduction::MultiplyShift));
        }
    }
    configs.push((
        Family::Xxh3_128,
        Strategy::EnhancedDouble,
        Reduction::Modulo,
    ));
    configs.push((
        Family::Murmur3X64_128,
        Strategy::GuavaMitz64,
        Reduction::Modulo,
    ));
    for (family, strategy, reduction) in configs {
        let config = Config { family, seed: 0, strategy, reduction };
        let mut f = BloomFilter::with_config(config, m, 7).unwrap();
        let large = m >= bloomlab_core::PREFETCH_MIN_BYTES as u64 * 8;
        assert_eq!(
            bloomlab_core::worth_prefetching(f.bit_array().words()),
            large
        );
        let mut g = f.clone();
        let members: Vec<u64> = (0..n).collect();
        // Repeats within a batch and across batches change nothing the
        // second time, as with `insert`.
        let repeats = &members[..(n as usize) * 3 / 10];
        let batch: Vec<u64> = members.iter().chain(repeats).copied().collect();
        let one_by_one = batch.iter().filter(|k| g.insert(*k)).count();
        assert_eq!(f.insert_many(&batch), one_by_one);
        assert!(one_by_one as u64 <= n);
        assert_eq!(f, g, "{family} {strategy} {reduction:?}");
        // Half the members, then 0.7 n non-members.
        let probe: Vec<u64> = (n / 2..n + n * 7 / 10).collect();
        let mut out = vec![false; probe.len()];
        f.contains_many(&probe, &mut out);
        let single: Vec<bool> = probe.iter().map(|k| f.contains(k)).collect();
        assert_eq!(out, single, "{family} {strategy} {reduction:?}");
        let (hits, others) = out.split_at((n - n / 2) as usize);
        assert!(hits.iter().all(|&o| o));
        // Some non-members pass at the design load (1% expected), few
        // in the large, sparse filter.
        let fp = others.iter().filter(|&&o| o).count();
        assert!(fp * 10 < others.len(), "{fp}");
        assert!(large || fp > 0, "{fp}");
    }
}

/// On a filter of [`bloomlab_core::QUERY_BRANCH_MIN_BYTES`], whose
/// one-key queries take the branching kernel: members are found, word
/// and byte keys answer alike, and a member whose bit at probe `i` is
/// cleared is refused, for every `i` (so each probe's exit is taken),
/// for each multiply-shift configuration and, as a check, Guava's.
#[test]
fn large_filters_refuse_a_key_at_any_cleared_probe() {
    let m = bloomlab_core::QUERY_BRANCH_MIN_BYTES as u64 * 8;
    let k = 7;
    let mut configs = Vec::new();
    for strategy in [Strategy::Double, Strategy::EnhancedDouble] {
        for family in [
            Family::Xxh3_64,
            Family::Xxh3_128,
            Family::Fold128,
            Family::Fold64,
        ] {
            configs.push(Config {
                family,
                seed: 0,
                strategy,
                reduction: Reduction::MultiplyShift,
            });
        }
    }
    configs.push(Config::default().with_seed(5));
    configs.push(Config::guava(Strategy::GuavaMitz64));
    for config in configs {
        let mut f = BloomFilter::with_config(config, m, k).unwrap();
        let n = 2000u64;
        for key in 0..n {
            f.add(&key);
        }
        for key in 0..n {
            assert!(f.contains(&key), "{config:?} {key}");
            assert!(f.contains_bytes(&key.to_le_bytes()), "{config:?} {key}");
        }
        // Key `i` (for `i < k`) loses its bit at probe `i`.
        let cleared: Vec<u64> =
            (0..k).map(|i| f.positions(&u64::from(i))[i as usize]).collect();
        for &p in &cleared {
            f.bit_array_mut().unset(p);
        }
        for key in 0..n {
            let hit = f.positions(&key).iter().any(|p| cleared.contains(p));
            assert_eq!(f.contains(&key), !hit, "{config:?} {key}");
            assert_eq!(f.contains_bytes(&key.to_le_bytes()), !hit);
            assert!(key >= u64::from(k) || hit);
        }
    }
}

/// On a filter that prefetches for its batches, `contains_many` chooses
/// how to prefetch each round from the answers of the round before (all
/// of a member's probes, or two of every key and the rest of those that
/// pass): in runs of members, of non-members and mixed, for word and
/// byte keys, and for members with one bit cleared (each probe in turn,
/// so each dense test reads every probe), the answers are `contains`'s.
#[test]
fn adaptive_batches_answer_as_one_key_at_a_time() {
    let m = bloomlab_core::PREFETCH_MIN_BYTES as u64 * 8;
    for strategy in [Strategy::Double, Strategy::EnhancedDouble] {
        for family in [
            Family::Xxh3_64,
            Family::Xxh3_128,
            Family::Fold128,
            Family::Fold64,
        ] {
            let config = Config {
                family,
                seed: 3,
                strategy,
                reduction: Reduction::MultiplyShift,
            };
            let mut f = BloomFilter::with_config(config, m, 7).unwrap();
            // The design load: about half the bits set.
            let n = m / 10;
            f.insert_many(&(0..n).collect::<Vec<u64>>());
            // Runs of 700 members, 900 non-members, 500 alternating, 300
            // members: each longer than a round of either kind.
            let mut probe: Vec<u64> = (0..700).collect();
            probe.extend(n..n + 900);
            probe.extend((0..500).map(|i| if i % 2 == 0 { i } else { n + i }));
            probe.extend(1000..1300);
            // Members 100, 110, .. 690 lose the bit of probe (i / 10) % 7.
            let mut g = f.clone();
            for key in (100..700u64).step_by(10) {
                let p = g.positions(&key)[((key / 10) % 7) as usize];
                g.bit_array_mut().unset(p);
            }
            for filter in [&f, &g] {
                let mut out = vec![false; probe.len()];
                filter.contains_many(&probe, &mut out);
                let one: Vec<bool> =
                    probe.iter().map(|k| filter.contains(k)).collect();
                assert_eq!(out, one, "{family} {strategy}");
                let bytes: Vec<[u8; 8]> =
                    probe.iter().map(|k| k.to_le_bytes()).collect();
                filter.contains_many(&bytes, &mut out);
                assert_eq!(out, one, "{family} {strategy} bytes");
            }
            let mut out = vec![false; 700];
            g.contains_many(&probe[..700], &mut out);
            for (key, found) in (0..700u64).zip(out) {
                let cleared = key >= 100 && key % 10 == 0;
                assert_eq!(found, !cleared, "{family} {strategy} {key}");
            }
        }
    }
}
