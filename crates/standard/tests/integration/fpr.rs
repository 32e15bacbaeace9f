//! Empirical false-positive rates at n = 1e6 against the formulas.
//!
//! Tolerance: the test computes the Clopper–Pearson 99.9% interval of the
//! observed false-positive count among Q = 1e6 non-member queries and
//! requires the formula's value inside it. The interval only covers the
//! query noise of one filter; the filter-to-filter variation of the
//! conditional rate (X/m)^k is negligible here: sd(X)/E[X] ≈ 3e-4 at
//! m ≈ 1e7, so k·3e-4 ≈ 0.3% relative, against interval half-widths of
//! 3.3% (p = 1%, ~1e4 hits) and 10% (p = 0.1%, ~1e3 hits).

use bloomlab_core::Filter;
use bloomlab_core::stats::clopper_pearson;
use bloomlab_core::theory::{
    BlockInner, fpr_blocked, fpr_exact, fpr_split_block,
};
use bloomlab_hash::Family;
use bloomlab_standard::{
    BlockScheme, BlockedBloomFilter, BloomFilter, Builder, Config,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const N: u64 = 1_000_000;
const QUERIES: usize = 1_000_000;

/// Members have the top bit clear, queries set: disjoint by construction.
fn keys(seed: u64) -> (Vec<u64>, Vec<u64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let members = (0..N).map(|_| rng.random::<u64>() >> 1).collect();
    let queries =
        (0..QUERIES).map(|_| rng.random::<u64>() | 1 << 63).collect();
    (members, queries)
}

fn measure(f: &mut dyn Filter, seed: u64) -> u64 {
    let (members, queries) = keys(seed);
    f.insert_u64_batch(&members);
    let mut out = vec![false; QUERIES];
    f.contains_u64_batch(&members[..10_000], &mut out[..10_000]);
    assert!(out[..10_000].iter().all(|&x| x), "false negative");
    f.contains_u64_batch(&queries, &mut out);
    out.iter().filter(|&&x| x).count() as u64
}

fn check(name: &str, hits: u64, formula: f64) {
    let ci = clopper_pearson(hits, QUERIES as u64, 0.999).unwrap();
    let rate = hits as f64 / QUERIES as f64;
    eprintln!("{name}: measured {rate:.6}, formula {formula:.6}");
    assert!(
        ci.contains(formula),
        "{name}: measured {rate:.6} (99.9% CI [{:.6}, {:.6}]), formula \
         {formula:.6}",
        ci.lo,
        ci.hi
    );
}

#[test]
fn classic_matches_the_exact_formula() {
    for (p, seed) in [(0.01, 1), (0.001, 2)] {
        let mut f = BloomFilter::new(N, p).unwrap();
        let hits = measure(&mut f, seed);
        let exact = fpr_exact(f.bits(), N, f.hash_count()).unwrap().value;
        check(&format!("classic p={p}"), hits, exact);
    }
}

/// The default (`xxh3-64`, block and probes from one 64-bit hash) and
/// `xxh3-128` (probes from the second word).
#[test]
fn blocked_matches_the_blocked_formula() {
    for (p, seed, family) in
        [(0.01, 3, None), (0.001, 4, None), (0.01, 15, Some(Family::Xxh3_128))]
    {
        let mut f = match family {
            None => BlockedBloomFilter::new(N, p).unwrap(),
            Some(family) => {
                Builder::rate(N, p).family(family).build_blocked().unwrap()
            }
        };
        let hits = measure(&mut f, seed);
        let formula = fpr_blocked(
            f.bits(),
            N,
            f.hash_count(),
            f.block_bits(),
            BlockInner::Exact,
        )
        .unwrap();
        check(&format!("blocked {} p={p}", f.family().name()), hits, formula);
    }
}

/// Parquet's split blocks, sized by their own formula, hashed by XXH3-64
/// as `sbbf-rs-safe` is in the bench.
#[test]
fn split_block_matches_the_split_block_formula() {
    for (p, seed) in [(0.01, 13), (0.001, 14)] {
        let mut f = Builder::rate(N, p)
            .family(Family::Xxh3_64)
            .block_scheme(BlockScheme::ParquetSplit)
            .build_blocked()
            .unwrap();
        let hits = measure(&mut f, seed);
        let formula = fpr_split_block(f.bits(), N, 8, 256).unwrap();
        check(&format!("split block p={p}"), hits, formula);
    }
}

/// `fold-128`, one multiply deep, on the keys a multiply mixes worst as
/// well as on random ones: members `i`, `i · 2^32` or random for
/// `i < N`, non-members `N + i`, `i · 2^32 + 1` or random with the top
/// bit set; both layouts within the same 99.9% intervals as above.
#[test]
fn fold128_matches_the_formulas_on_structured_keys() {
    structured_keys(Family::Fold128);
}

/// `fold-64`, `fold-128`'s first half, whose probes step by the hash
/// rotated: the same keys, the same intervals.
#[test]
fn fold64_matches_the_formulas_on_structured_keys() {
    structured_keys(Family::Fold64);
}

/// The blocked filter's default family, `xxh3-64`, whose one 64-bit
/// hash gives both the block (high bits) and the probes (low 32), on
/// the same structured keys (and the classic filter with it).
#[test]
fn xxh3_64_matches_the_formulas_on_structured_keys() {
    structured_keys(Family::Xxh3_64);
}

/// Both layouts hashed by `family`, on sequential, strided and random
/// keys, against their formulas.
fn structured_keys(family: Family) {
    type Keys = fn(u64) -> (Vec<u64>, Vec<u64>);
    let sets: [(&str, Keys); 3] = [
        ("sequential", |_| {
            ((0..N).collect(), (N..N + QUERIES as u64).collect())
        }),
        ("strided", |_| {
            let q = QUERIES as u64;
            (
                (0..N).map(|i| i << 32).collect(),
                (0..q).map(|i| i << 32 | 1).collect(),
            )
        }),
        ("random", keys),
    ];
    let config = Config::default().with_family(family);
    for (i, (name, keys)) in sets.into_iter().enumerate() {
        let (members, queries) = keys(5 + i as u64);
        let f = Builder::rate(N, 0.01).config(config);
        let mut classic = f.build().unwrap();
        let mut blocked = f.build_blocked().unwrap();
        for f in [&mut classic as &mut dyn Filter, &mut blocked] {
            f.insert_u64_batch(&members);
        }
        let hits = |f: &dyn Filter| {
            let mut out = vec![false; QUERIES.max(N as usize)];
            let member_out = &mut out[..N as usize];
            f.contains_u64_batch(&members, member_out);
            assert!(member_out.iter().all(|&x| x), "{name}: false negative");
            let out = &mut out[..QUERIES];
            f.contains_u64_batch(&queries, out);
            out.iter().filter(|&&x| x).count() as u64
        };
        let family = family.name();
        let exact =
            fpr_exact(classic.bits(), N, classic.hash_count()).unwrap().value;
        check(&format!("{family} classic {name}"), hits(&classic), exact);
        let formula = fpr_blocked(
            blocked.bits(),
            N,
            blocked.hash_count(),
            blocked.block_bits(),
            BlockInner::Exact,
        )
        .unwrap();
        check(&format!("{family} blocked {name}"), hits(&blocked), formula);
    }
}
