//! Parquet's split-block scheme (`BlockScheme::ParquetSplit`): the same
//! bits as `sbbf-rs-safe` (an implementation of Parquet's split block
//! Bloom filter) for the same 64-bit hashes, on every path that sets
//! bits; sizing, errors, files and compatibility.

use bloomlab_core::theory::fpr_split_block;
use bloomlab_hash::Family;
use bloomlab_standard::{
    BlockScheme, BlockedBloomFilter, Builder, Error, SPLIT_BLOCK_BITS,
    StandardFilter, read_native, write_native,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use xxhash_rust::xxh3::xxh3_64;
use xxhash_rust::xxh64::xxh64;

fn keys(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.random()).collect()
}

/// A split-block filter of `family` with sbbf's block count for `n` keys
/// at 10 bits a key, and that sbbf filter.
fn pair(
    family: Family,
    n: usize,
) -> (BlockedBloomFilter, sbbf_rs_safe::Filter) {
    let s = sbbf_rs_safe::Filter::new(10, n);
    let m = s.as_bytes().len() as u64 * 8;
    let f = Builder::bits(m, 8)
        .family(family)
        .block_scheme(BlockScheme::ParquetSplit)
        .build_blocked()
        .unwrap();
    assert_eq!(f.bits(), m);
    (f, s)
}

fn bytes(f: &BlockedBloomFilter) -> Vec<u8> {
    f.words().flat_map(u64::to_le_bytes).collect()
}

/// XXH3-64 has kernels: one key at a time (typed, as bytes, without the
/// answer) and in batches. sbbf gives 1,000 keys 40 blocks, and 3,333
/// and 100,000 keys 131 and 3,907: odd counts, which leave half of the
/// last line unused.
#[test]
fn xxh3_64_paths_set_sbbfs_bits() {
    for n in [1_000usize, 3_333, 100_000] {
        let ks = keys(n, n as u64);
        let (empty, mut s) = pair(Family::Xxh3_64, n);
        let mut fresh = 0;
        for k in &ks {
            fresh += usize::from(!s.insert_hash(xxh3_64(&k.to_le_bytes())));
        }
        let mut typed = empty.clone();
        let mut typed_fresh = 0;
        for k in &ks {
            typed_fresh += usize::from(typed.insert(k));
        }
        let mut as_bytes = empty.clone();
        let mut added = empty.clone();
        for k in &ks {
            as_bytes.insert_bytes(&k.to_le_bytes());
            added.add(k);
        }
        let mut batch = empty.clone();
        let batch_fresh = batch.insert_many(&ks);
        for f in [&typed, &as_bytes, &added, &batch] {
            assert_eq!(bytes(f), s.as_bytes(), "n = {n}");
        }
        // sbbf's insert answers "was it there", bloomlab's "did it change".
        assert_eq!((typed_fresh, batch_fresh), (fresh, fresh), "n = {n}");
        let probes = keys(20_000, 7 + n as u64);
        let mut out = vec![false; probes.len()];
        batch.contains_many(&probes, &mut out);
        for (k, &o) in probes.iter().zip(&out) {
            let want = s.contains_hash(xxh3_64(&k.to_le_bytes()));
            assert_eq!(batch.contains(k), want);
            assert_eq!(o, want);
        }
    }
}

/// A filter of 4 MiB or more keeps its lines in huge pages
/// (`bloomlab_core::Words`): the same bits, one key at a time and in
/// batches, and the same answers.
#[test]
fn filters_in_huge_pages_set_sbbfs_bits() {
    let (empty, mut s) = pair(Family::Xxh3_64, 4_000_000);
    let bytes_of_lines = empty.bits() as usize / 8;
    assert!(bytes_of_lines >= bloomlab_core::words::HUGE_PAGE_MIN_BYTES);
    let ks = keys(50_000, 21);
    ks.iter().for_each(|k| {
        s.insert_hash(xxh3_64(&k.to_le_bytes()));
    });
    let mut typed = empty.clone();
    ks.iter().for_each(|k| typed.add(k));
    let mut batch = empty;
    batch.insert_many(&ks);
    assert_eq!(bytes(&typed), s.as_bytes());
    assert_eq!(bytes(&batch), s.as_bytes());
    let probes = keys(20_000, 22);
    let mut out = vec![false; probes.len()];
    batch.contains_many(&probes, &mut out);
    for (k, &o) in probes.iter().zip(&out) {
        let want = s.contains_hash(xxh3_64(&k.to_le_bytes()));
        assert_eq!((typed.contains(k), o), (want, want));
    }
}

/// XXH64 (Parquet's own hash) has no kernel: the generic path.
#[test]
fn xxh64_generic_path_sets_sbbfs_bits() {
    let ks = keys(5_000, 11);
    let (mut f, mut s) = pair(Family::Xxh64, ks.len());
    for k in &ks {
        s.insert_hash(xxh64(&k.to_le_bytes(), 0));
        f.insert(k);
    }
    assert_eq!(bytes(&f), s.as_bytes());
    for k in keys(20_000, 12) {
        assert_eq!(
            f.contains(&k),
            s.contains_hash(xxh64(&k.to_le_bytes(), 0))
        );
    }
    // Positions name the bits: one in each 32-bit word of one block.
    let p = f.positions(&ks[0]);
    assert_eq!(p.len(), 8);
    let block = p[0] / SPLIT_BLOCK_BITS;
    for (i, &b) in p.iter().enumerate() {
        assert_eq!(b / SPLIT_BLOCK_BITS, block);
        assert_eq!((b % SPLIT_BLOCK_BITS) / 32, i as u64);
    }
}

#[test]
fn sized_by_the_split_block_formula() {
    for (n, p) in [(1_000_000u64, 0.01), (1_000_000, 0.001), (1, 0.5)] {
        let f = BlockedBloomFilter::split_block(n, p).unwrap();
        let rate = |m| fpr_split_block(m, n, 8, 256).unwrap();
        assert!(rate(f.bits()) <= p, "n = {n}, p = {p}");
        if f.bits() > 256 {
            assert!(
                rate(f.bits() - 256) > p,
                "n = {n}, p = {p}: not the fewest"
            );
        }
        assert_eq!((f.hash_count(), f.block_bits()), (8, 256));
    }
}

#[test]
fn bad_shapes_are_typed_errors() {
    let split = |m, k, b| {
        BlockedBloomFilter::with_scheme(
            Family::Xxh3_64,
            0,
            m,
            k,
            b,
            BlockScheme::ParquetSplit,
        )
    };
    for (m, k, b, field) in [
        (1024, 7, 256, "k"),
        (1024, 8, 512, "block bits"),
        ((1u64 << 40) + 1, 8, 256, "m"),
    ] {
        match split(m, k, b) {
            Err(Error::InvalidParameter { name, .. }) => {
                assert_eq!(name, field)
            }
            other => panic!("m={m} k={k} B={b}: {other:?}"),
        }
    }
    assert!(
        Builder::bits(1024, 7)
            .block_scheme(BlockScheme::ParquetSplit)
            .build_blocked()
            .unwrap_err()
            .to_string()
            .contains("k = 8")
    );
    assert!(BlockedBloomFilter::split_block(1000, 1.5).is_err());
}

#[test]
fn native_files_keep_the_scheme() {
    let mut f = BlockedBloomFilter::split_block(2_000, 0.01).unwrap();
    f.insert_many(&keys(2_000, 5));
    let mut file = Vec::new();
    write_native(&StandardFilter::Blocked(f.clone()), &mut file).unwrap();
    let back = read_native(&file[..]).unwrap();
    let StandardFilter::Blocked(b) = &back else { panic!("not blocked") };
    assert_eq!(b, &f);
    assert_eq!(b.scheme(), BlockScheme::ParquetSplit);
    assert_eq!(back.as_filter().variant(), "blocked");
    // A salted filter of the same shape is not the same filter.
    let salted = BlockedBloomFilter::with_config(
        f.family(),
        i128::from(f.seed()),
        f.bits(),
        8,
        256,
    )
    .unwrap();
    let e = f.clone().union(&salted).unwrap_err().to_string();
    assert!(e.contains("block scheme"), "{e}");
}
