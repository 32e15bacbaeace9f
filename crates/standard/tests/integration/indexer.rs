use bloomlab_hash::{Family, Indexer, Reduction, Strategy};
use bloomlab_standard::{BloomFilter, Config};

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
                    let mut g = f.clone();
                    for key in keys.iter().step_by(2) {
                        f.insert_bytes(key);
                    }
                    let half: Vec<&[u8]> =
                        keys.iter().step_by(2).map(|k| &k[..]).collect();
                    g.insert_many(&half);
                    assert_eq!(f, g);
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
