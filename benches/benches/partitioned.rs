//! `bloomlab-partitioned` against `probabilistic-collections` 0.7's
//! `PartitionedBloomFilter`, measured in the same run: insert, member and
//! non-member queries on random `u64` keys at n = 1e6, p = 1%, single
//! thread (ns per key).
//!
//! * `bloomlab`: `PartitionedBloomFilter::new(n, p)` (k = 7 slices of
//!   1,370,423 bits; xxh3-64, enhanced double hashing across slices,
//!   multiply-shift), one key at a time: inserts through `add`, which,
//!   like the peer's `insert`, does not tell whether a bit changed;
//! * `bloomlab-many`: the same filter through `insert_many` /
//!   `contains_many` (keys hashed a batch at a time);
//! * `probabilistic-collections`: `PartitionedBloomFilter::<u64>::
//!   from_item_count(n, p)` (SipHash-1-3 double hashing, `std::hash`).
//!
//! Before measuring, each filter's false-positive rate on 1e6 non-members
//! is printed to stderr, so speed is compared at known accuracy.
//!
//! `cargo bench -p bloomlab-benches --bench partitioned`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use bloomlab_partitioned::PartitionedBloomFilter;
use criterion::{
    BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use probabilistic_collections::bloom::PartitionedBloomFilter as PcFilter;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const N: usize = 1_000_000;
const P: f64 = 0.01;
/// Keys per `contains_many` call.
const BATCH: usize = 1024;

fn keys(seed: u64, n: usize) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.random()).collect()
}

fn bloomlab() -> PartitionedBloomFilter {
    PartitionedBloomFilter::new(N as u64, P).unwrap()
}

fn pc() -> PcFilter<u64> {
    PcFilter::from_item_count(N, P)
}

fn report_accuracy(members: &[u64], others: &[u64]) {
    let mut a = bloomlab();
    a.insert_many(members);
    let fp = others.iter().filter(|k| a.contains(*k)).count();
    eprintln!(
        "n = {N}: bloomlab false-positive rate {:.5}, m = {} bits, k = {}",
        fp as f64 / others.len() as f64,
        a.bits(),
        a.hash_count(),
    );
    let mut b = pc();
    for k in members {
        b.insert(k);
    }
    let fp = others.iter().filter(|k| b.contains(*k)).count();
    eprintln!(
        "n = {N}: probabilistic-collections false-positive rate {:.5}, \
         m = {} bits, k = {}",
        fp as f64 / others.len() as f64,
        b.len(),
        b.hasher_count(),
    );
}

fn bench(c: &mut Criterion) {
    let members = keys(1, N);
    let others = keys(2, N);
    report_accuracy(&members, &others);

    let mut g = c.benchmark_group("partitioned");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
        .throughput(Throughput::Elements(N as u64));

    // Insert all n keys into a fresh filter (allocation outside the
    // timing: iter_batched with a new filter per batch).
    g.bench_function(BenchmarkId::new("insert/bloomlab", N), |b| {
        b.iter_batched_ref(
            bloomlab,
            |f| {
                for k in &members {
                    f.add(k);
                }
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.bench_function(BenchmarkId::new("insert/bloomlab-many", N), |b| {
        b.iter_batched_ref(
            bloomlab,
            |f| f.insert_many(&members),
            criterion::BatchSize::LargeInput,
        )
    });
    g.bench_function(
        BenchmarkId::new("insert/probabilistic-collections", N),
        |b| {
            b.iter_batched_ref(
                pc,
                |f| {
                    for k in &members {
                        f.insert(k);
                    }
                },
                criterion::BatchSize::LargeInput,
            )
        },
    );

    let mut a = bloomlab();
    a.insert_many(&members);
    let mut p = pc();
    for k in &members {
        p.insert(k);
    }
    for (label, probes) in [("member", &members), ("non-member", &others)] {
        g.bench_function(
            BenchmarkId::new(format!("contains-{label}/bloomlab"), N),
            |b| {
                b.iter(|| {
                    probes.iter().filter(|k| a.contains(black_box(*k))).count()
                })
            },
        );
        g.bench_function(
            BenchmarkId::new(format!("contains-{label}/bloomlab-many"), N),
            |b| {
                let mut out = vec![false; BATCH];
                b.iter(|| {
                    let mut hits = 0;
                    for chunk in probes.chunks(BATCH) {
                        a.contains_many(chunk, &mut out);
                        hits +=
                            out[..chunk.len()].iter().filter(|&&x| x).count();
                    }
                    hits
                })
            },
        );
        g.bench_function(
            BenchmarkId::new(
                format!("contains-{label}/probabilistic-collections"),
                N,
            ),
            |b| {
                b.iter(|| {
                    probes.iter().filter(|k| p.contains(black_box(*k))).count()
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
