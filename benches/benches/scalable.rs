//! `bloomlab-scalable` against growable-bloom-filter 2.x's `GrowableBloom`
//! and probabilistic-collections 0.7's `ScalableBloomFilter`, measured in
//! the same run: each filter starts sized for 1,000 items at P = 1% and
//! grows to N random `u64` keys (N = 1e6; set `BLOOMLAB_SCALABLE_N=1e7`
//! for the 1e7 run); single thread, ns per key.
//!
//! * `bloomlab`: `ScalableBloomFilter::new(1000, 0.01)`, the defaults:
//!   blocked (one cache line per layer) layers, s = 4, r = 0.75, xxh3-64;
//! * `bloomlab-s2`: the same with the slow-growth settings s = 2,
//!   r = 0.85 (more layers, less memory);
//! * `bloomlab-standard`: the previous defaults (standard layers half full
//!   at capacity, r = 0.5, s = 2, enhanced double hashing);
//! * `bloomlab-redisbloom`: `redisbloom_reserve(0.01, 1000, Some(2),
//!   false)`, RedisBloom's SBChain bit for bit (two MurmurHash64A calls,
//!   `%` by a multiple of 64);
//! * `growable-bloom-filter`: `GrowableBloom::new(0.01, 1000)`;
//! * `probabilistic-collections`: `ScalableBloomFilter::<u64>::new(9586,
//!   0.01, 2.0, 0.5)` (9,586 bits = 1,000 items at 1%; its doc example's
//!   ratios).
//!
//! Before measuring, each filter's false-positive rate on 1e6
//! non-members, layers and bits per key are printed to stderr (the lines
//! `scripts/bench.sh` reads), so speed is compared at known accuracy.
//!
//! `cargo bench -p bloomlab-benches --bench scalable`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use bloomlab_scalable::{Config, Layout, ScalableBloomFilter};
use criterion::{
    BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use growable_bloom_filter::GrowableBloom;
use probabilistic_collections::bloom::ScalableBloomFilter as PcScalable;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const N0: usize = 1_000;
const P: f64 = 0.01;
/// Queries per timed contains iteration.
const QUERIES: usize = 100_000;

fn n() -> usize {
    std::env::var("BLOOMLAB_SCALABLE_N")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .map_or(1_000_000, |x| x as usize)
}

fn keys(seed: u64, n: usize, odd: bool) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let k: u64 = rng.random();
            if odd { k | 1 } else { k & !1 }
        })
        .collect()
}

/// A constructor of one of our filters.
type Make = fn() -> ScalableBloomFilter;

fn bloomlab() -> ScalableBloomFilter {
    ScalableBloomFilter::new(N0 as u64, P).unwrap()
}

fn bloomlab_s2() -> ScalableBloomFilter {
    let c = Config::new(N0 as u64, P).growth(2).tightening(0.85);
    ScalableBloomFilter::with_config(c).unwrap()
}

fn bloomlab_standard() -> ScalableBloomFilter {
    let c = Config::new(N0 as u64, P)
        .layout(Layout::Standard)
        .tightening(0.5)
        .growth(2);
    ScalableBloomFilter::with_config(c).unwrap()
}

fn redisbloom() -> ScalableBloomFilter {
    ScalableBloomFilter::redisbloom_reserve(P, N0 as u64, Some(2), false)
        .unwrap()
}

fn growable() -> GrowableBloom {
    GrowableBloom::new(P, N0)
}

fn pc() -> PcScalable<u64> {
    PcScalable::new(9_586, P, 2.0, 0.5)
}

fn fpr(hits: usize, others: &[u64]) -> f64 {
    hits as f64 / others.len() as f64
}

fn bench(c: &mut Criterion) {
    let n = n();
    let members = keys(1, n, false);
    let others = keys(2, 1_000_000, true);

    let ours: [(&str, Make); 4] = [
        ("bloomlab", bloomlab),
        ("bloomlab-s2", bloomlab_s2),
        ("bloomlab-standard", bloomlab_standard),
        ("bloomlab-redisbloom", redisbloom),
    ];
    let mut filled: Vec<(&str, ScalableBloomFilter)> =
        ours.iter().map(|(name, make)| (*name, make())).collect();
    let mut gb = growable();
    let mut p = pc();
    for k in &members {
        for (_, f) in &mut filled {
            f.add(&k.to_le_bytes()).unwrap();
        }
        gb.insert(k);
        p.insert(k);
    }
    for (name, f) in &filled {
        let hits =
            others.iter().filter(|k| f.contains(&k.to_le_bytes())).count();
        eprintln!(
            "n = {n}: {name} false-positive rate {:.5}, {} layers, {:.2} \
             bits/key, compounded bound {:.5}",
            fpr(hits, &others),
            f.layers().len(),
            f.total_bits() as f64 / n as f64,
            f.compounded_error()
        );
    }
    let hits = others.iter().filter(|k| gb.contains(*k)).count();
    eprintln!(
        "n = {n}: growable-bloom-filter false-positive rate {:.5}",
        fpr(hits, &others)
    );
    let hits = others.iter().filter(|k| p.contains(*k)).count();
    eprintln!(
        "n = {n}: probabilistic-collections false-positive rate {:.5}, {} \
         layers, {:.2} bits/key",
        fpr(hits, &others),
        p.filter_count(),
        p.len() as f64 / n as f64,
    );

    let mut g = c.benchmark_group("scalable");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .sample_size(10)
        .throughput(Throughput::Elements(n as u64));

    // Grow a fresh filter from 1,000 to n keys (allocation of the first
    // layer outside the timing; growth inside it).
    for (name, make) in ours {
        g.bench_function(BenchmarkId::new(format!("insert/{name}"), n), |b| {
            b.iter_batched_ref(
                make,
                |f| {
                    for k in &members {
                        f.add(&k.to_le_bytes()).unwrap();
                    }
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    g.bench_function(
        BenchmarkId::new("insert/growable-bloom-filter", n),
        |b| {
            b.iter_batched_ref(
                growable,
                |f| {
                    for k in &members {
                        f.insert(k);
                    }
                },
                criterion::BatchSize::LargeInput,
            )
        },
    );
    g.bench_function(
        BenchmarkId::new("insert/probabilistic-collections", n),
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

    g.throughput(Throughput::Elements(QUERIES as u64));
    let step = (members.len() / QUERIES).max(1);
    let member_probes: Vec<u64> =
        members.iter().step_by(step).take(QUERIES).copied().collect();
    let other_probes = &others[..QUERIES];
    for (label, probes) in
        [("member", &member_probes[..]), ("non-member", other_probes)]
    {
        for (name, f) in &filled {
            g.bench_function(
                BenchmarkId::new(format!("contains-{label}/{name}"), n),
                |b| {
                    b.iter(|| {
                        probes
                            .iter()
                            .filter(|k| {
                                f.contains(&black_box(**k).to_le_bytes())
                            })
                            .count()
                    })
                },
            );
        }
        g.bench_function(
            BenchmarkId::new(
                format!("contains-{label}/growable-bloom-filter"),
                n,
            ),
            |b| {
                b.iter(|| {
                    probes
                        .iter()
                        .filter(|k| gb.contains(black_box(*k)))
                        .count()
                })
            },
        );
        g.bench_function(
            BenchmarkId::new(
                format!("contains-{label}/probabilistic-collections"),
                n,
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
