//! `bloomlab-counting` against `fastbloom-rs` 0.5's 4-bit
//! `CountingBloomFilter`, and bloomlab's own standard `BloomFilter`,
//! measured in the same run: insert, remove, member and non-member
//! queries on random `u64` keys at n = 1e6 and 1e7, p = 1%, single thread
//! (ns per key). `bloomlab-counting-fold` is the default filter with
//! bloomlab's fastest hash family, `fold-64` (`fold-128` until
//! 2026-11-27), in place of `xxh3-128`;
//! `bloomlab-counting-summary` the default filter keeping a summary
//! (`keep_summary`: `m` more bits, which its queries read instead of
//! the counters, and which its inserts and removes update).
//!
//! * Insert and remove run at a steady load: the filter holds n keys, and
//!   each timed chunk of 4096 fresh keys is inserted (or removed) while
//!   its inverse runs untimed (`iter_custom`), so counters neither
//!   saturate nor empty over a long measurement.
//! * `fastbloom-rs` runs with repeat inserts enabled (its default), so it
//!   counts multiplicities as bloomlab does.
//! * `build` fills a new filter with the n members: one `insert` at a
//!   time, or (`bloomlab-counting-insert-many`) one `insert_many` call,
//!   which prefetches on filters of `INSERT_PREFETCH_MIN_BYTES` or more;
//!   `bloomlab-counting-contains-many` is `contains_many` per key, in
//!   calls of 1,024 keys (batched on filters of that size or more, key
//!   by key below), beside the one-key queries.
//! * `teardown` removes the first half of the members from a full filter
//!   (copied outside the timing), whose lines are then cold, as a churn
//!   workload deletes its oldest keys: one `remove` at a time, or
//!   (`bloomlab-counting-remove-many`) one `remove_many` call.
//!
//! * `alternated`: the default filter, the summary and fastbloom-rs
//!   taking turns on the same keys in 21 rounds (`bloomlab_benches::turns`),
//!   so that each round's ratio compares them at the same moment; the
//!   median round's ratio is printed and kept in the README block.
//!
//! Before measuring, each filter's false-positive rate on 1e6
//! non-members and its memory are printed to stderr, and a churn check
//! shows what each counting filter loses after overload and heavy
//! deletes: `fastbloom-rs` decrements counters that saturated at 15
//! (their true count is higher), so they reach zero early and live keys
//! become false negatives; bloomlab never decrements a saturated counter.
//!
//! `cargo bench -p bloomlab-benches --bench counting`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "common/counting.rs"]
mod common;

use bloomlab_benches::turns::{self, ROUND_KEYS, ROUNDS};
use bloomlab_counting::CountingBloomFilter;
use bloomlab_hash::Family;
use bloomlab_standard::BloomFilter;
use common::{Counting, fastbloom_rs};
use criterion::{
    BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput,
    criterion_group, criterion_main,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const P: f64 = 0.01;
/// Keys per timed chunk of inserts or removes.
const CHUNK: usize = 4096;

/// The standard filter, for the contains comparison (no remove).
impl Counting for BloomFilter {
    #[inline]
    fn insert(&mut self, key: u64) {
        BloomFilter::insert(self, &key);
    }
    fn remove(&mut self, _: u64) {
        unreachable!("a standard filter has no remove")
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        BloomFilter::contains(self, &key)
    }
}

struct Keys {
    members: Vec<u64>,
    others: Vec<u64>,
    fresh: Vec<u64>,
}

fn keys(n: usize, seed: u64) -> Keys {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Members have the top two bits 00, fresh keys 01, non-members 1x.
    let members = (0..n).map(|_| rng.random::<u64>() >> 2).collect();
    let fresh = (0..n).map(|_| rng.random::<u64>() >> 2 | 1 << 62).collect();
    let others = (0..n).map(|_| rng.random::<u64>() | 1 << 63).collect();
    Keys { members, others, fresh }
}

/// Times `timed` over chunks of `fresh`, running `untimed` on each chunk
/// too (before or after), for `iters` keys in all.
fn chunked<F>(
    f: &mut F,
    fresh: &[u64],
    iters: u64,
    before: bool,
    timed: fn(&mut F, u64),
    untimed: fn(&mut F, u64),
) -> Duration {
    let mut total = Duration::ZERO;
    let mut done = 0u64;
    let mut at = 0usize;
    while done < iters {
        let len = CHUNK.min((iters - done) as usize);
        if at + len > fresh.len() {
            at = 0;
        }
        let chunk = &fresh[at..at + len];
        if before {
            chunk.iter().for_each(|&k| untimed(f, k));
        }
        let start = Instant::now();
        for &k in chunk {
            timed(f, black_box(k));
        }
        total += start.elapsed();
        if !before {
            chunk.iter().for_each(|&k| untimed(f, k));
        }
        at += len;
        done += len as u64;
    }
    total
}

/// Measures `f` (filled with the members first) and returns it.
fn run<F: Counting>(
    c: &mut Criterion,
    label: &str,
    name: &str,
    mut f: F,
    keys: &Keys,
    removes: bool,
    memory: usize,
) -> F {
    for &k in &keys.members {
        f.insert(k);
    }
    let fp = keys.others[..1_000_000].iter().filter(|&&k| f.contains(k));
    eprintln!(
        "n = {label}: {name} false-positive rate {:.5}, {:.1} MB",
        fp.count() as f64 / 1e6,
        memory as f64 / 1e6
    );

    let mut g = c.benchmark_group(format!("counting/insert/{label}"));
    g.throughput(Throughput::Elements(1));
    if removes {
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|iters| {
                chunked(
                    &mut f,
                    &keys.fresh,
                    iters,
                    false,
                    F::insert,
                    F::remove,
                )
            });
        });
    }
    g.finish();

    let mut g = c.benchmark_group(format!("counting/remove/{label}"));
    g.throughput(Throughput::Elements(1));
    if removes {
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|iters| {
                chunked(&mut f, &keys.fresh, iters, true, F::remove, F::insert)
            });
        });
    }
    g.finish();

    for (what, probe) in
        [("member", &keys.members), ("non-member", &keys.others)]
    {
        let mut g =
            c.benchmark_group(format!("counting/contains-{what}/{label}"));
        g.throughput(Throughput::Elements(1));
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            let mut i = 0;
            b.iter(|| {
                let hit = f.contains(black_box(probe[i]));
                i += 1;
                if i == probe.len() {
                    i = 0;
                }
                hit
            });
        });
        g.finish();
    }
    f
}

/// Keys per `contains_many` call.
const BATCH: usize = 1024;

/// `contains_many` of the filled filter `f`, per key, in batches of
/// [`BATCH`] keys, beside the one-key queries of the same groups.
fn many(c: &mut Criterion, label: &str, f: &CountingBloomFilter, keys: &Keys) {
    let mut out = vec![false; BATCH];
    for (what, probe) in
        [("member", &keys.members), ("non-member", &keys.others)]
    {
        let mut g =
            c.benchmark_group(format!("counting/contains-{what}/{label}"));
        g.throughput(Throughput::Elements(BATCH as u64));
        let id =
            BenchmarkId::from_parameter("bloomlab-counting-contains-many");
        g.bench_function(id, |b| {
            let mut i = 0;
            b.iter(|| {
                f.contains_many(&probe[i..i + BATCH], &mut out);
                i = (i + BATCH) % (probe.len() - BATCH);
                black_box(&out);
            });
        });
        g.finish();
    }
}

/// bloomlab's counting filter (default, and keeping a summary) and
/// fastbloom-rs taking turns on the same keys
/// ([`bloomlab_benches::turns`]), each its own filter holding the `n`
/// members: inserts of fresh keys, removes of the same keys (so the load
/// stays at `n`), member and non-member queries. Prints a line for each
/// of bloomlab's filters, which `bench-report` keeps in the README block.
fn alternated(label: &str, n: usize, keys: &Keys) {
    let mut ours = CountingBloomFilter::new(n as u64, P).unwrap();
    let mut summary = bloomlab_counting::Builder::rate(n as u64, P)
        .summary(true)
        .build()
        .unwrap();
    let mut peer = fastbloom_rs(n, P);
    for &k in &keys.members {
        Counting::insert(&mut ours, k);
        Counting::insert(&mut summary, k);
        Counting::insert(&mut peer, k);
    }
    let ops = ["insert", "remove", "contains-member", "contains-non-member"];
    let seconds = turns::run(ops.len(), 3, |op, filter, round| {
        let at = round * ROUND_KEYS % (n - ROUND_KEYS);
        let chunk = at..at + ROUND_KEYS;
        let (keys, op) = match op {
            0 => (&keys.fresh[chunk], Op::Insert),
            1 => (&keys.fresh[chunk], Op::Remove),
            2 => (&keys.members[chunk], Op::Contains),
            _ => (&keys.others[chunk], Op::Contains),
        };
        match filter {
            0 => timed(&mut ours, keys, op),
            1 => timed(&mut summary, keys, op),
            _ => timed(&mut peer, keys, op),
        }
    });
    for (filter, name) in
        [(0, "bloomlab-counting"), (1, "bloomlab-counting-summary")]
    {
        eprintln!(
            "alternated n = {label}: fastbloom-rs's time ÷ {name}'s, the \
             median of {ROUNDS} rounds of {ROUND_KEYS} keys each \
             (lowest–highest): {}",
            turns::ratios(&ops, &seconds, 2, filter)
        );
    }
}

/// What [`timed`] does with each key.
#[derive(Clone, Copy)]
enum Op {
    Insert,
    Remove,
    Contains,
}

/// Seconds `f` takes to apply `op` to every key of `keys`.
fn timed<F: Counting>(f: &mut F, keys: &[u64], op: Op) -> f64 {
    let start = Instant::now();
    match op {
        Op::Insert => keys.iter().for_each(|&k| f.insert(black_box(k))),
        Op::Remove => keys.iter().for_each(|&k| f.remove(black_box(k))),
        Op::Contains => {
            let hits =
                keys.iter().filter(|&&k| f.contains(black_box(k))).count();
            black_box(hits);
        }
    }
    start.elapsed().as_secs_f64()
}

/// Overload, then heavy deletes: a filter sized for `n` takes `6n` keys
/// (kn/m ≈ 4.2, so some 4-bit counters pass 15), then loses `5n` of
/// them. Prints the false negatives among the `n` keys still inserted.
fn churn() {
    let n = 100_000usize;
    let k = keys(6 * n, 42);
    let live = &k.members[..n];
    let gone = &k.members[n..];
    let mut ours = CountingBloomFilter::new(n as u64, P).unwrap();
    let mut peer = fastbloom_rs(n, P);
    for &key in &k.members {
        Counting::insert(&mut ours, key);
        Counting::insert(&mut peer, key);
    }
    let saturated = ours.saturated_counters();
    for &key in gone {
        Counting::remove(&mut ours, key);
        Counting::remove(&mut peer, key);
    }
    let fn_ours = live.iter().filter(|&&x| !Counting::contains(&ours, x));
    let fn_peer = live.iter().filter(|&&x| !Counting::contains(&peer, x));
    eprintln!(
        "churn (sized for 1e5, insert 6e5, delete 5e5): false negatives \
         among 1e5 live keys: bloomlab-counting {} ({} saturated counters \
         kept, {} decrements skipped), fastbloom-rs {}",
        fn_ours.count(),
        saturated,
        ours.stats().skipped_decrements,
        fn_peer.count()
    );
}

/// `counting/build`: a new filter filled with the members, one `insert`
/// at a time (bloomlab's and fastbloom-rs's) or by one `insert_many`.
fn builds(c: &mut Criterion, label: &str, members: &[u64]) {
    let n = members.len();
    let mut g = c.benchmark_group(format!("counting/build/{label}"));
    g.throughput(Throughput::Elements(n as u64));
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    let new = || CountingBloomFilter::new(n as u64, P).unwrap();
    g.bench_function(BenchmarkId::from_parameter("bloomlab-counting"), |b| {
        b.iter_batched_ref(
            new,
            |f| {
                members.iter().for_each(|&k| Counting::insert(f, black_box(k)))
            },
            BatchSize::PerIteration,
        );
    });
    let id = BenchmarkId::from_parameter("bloomlab-counting-insert-many");
    g.bench_function(id, |b| {
        b.iter_batched_ref(
            new,
            |f| f.insert_many(black_box(members)),
            BatchSize::PerIteration,
        );
    });
    g.bench_function(BenchmarkId::from_parameter("fastbloom-rs"), |b| {
        b.iter_batched_ref(
            || fastbloom_rs(n, P),
            |f| {
                members.iter().for_each(|&k| Counting::insert(f, black_box(k)))
            },
            BatchSize::PerIteration,
        );
    });
    g.finish();
}

/// `counting/teardown`: the first half of the members removed from a
/// full filter (a copy made outside the timing), oldest first, as a
/// churn workload deletes them: their counters' lines are cold. One
/// `remove` at a time (bloomlab's and fastbloom-rs's), or by one
/// `remove_many` call, which prefetches its batches on filters of
/// `INSERT_PREFETCH_MIN_BYTES` or more.
fn teardowns(c: &mut Criterion, label: &str, members: &[u64]) {
    let n = members.len();
    let half = &members[..n / 2];
    let mut g = c.benchmark_group(format!("counting/teardown/{label}"));
    g.throughput(Throughput::Elements(half.len() as u64));
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    let mut full = CountingBloomFilter::new(n as u64, P).unwrap();
    full.insert_many(members);
    g.bench_function(BenchmarkId::from_parameter("bloomlab-counting"), |b| {
        b.iter_batched_ref(
            || full.clone(),
            |f| half.iter().for_each(|&k| Counting::remove(f, black_box(k))),
            BatchSize::PerIteration,
        );
    });
    let id = BenchmarkId::from_parameter("bloomlab-counting-remove-many");
    g.bench_function(id, |b| {
        b.iter_batched_ref(
            || full.clone(),
            |f| assert_eq!(f.remove_many(black_box(half)), half.len()),
            BatchSize::PerIteration,
        );
    });
    drop(full);
    let mut peer = fastbloom_rs(n, P);
    members.iter().for_each(|&k| Counting::insert(&mut peer, k));
    g.bench_function(BenchmarkId::from_parameter("fastbloom-rs"), |b| {
        b.iter_batched_ref(
            || peer.clone(),
            |f| half.iter().for_each(|&k| Counting::remove(f, black_box(k))),
            BatchSize::PerIteration,
        );
    });
    g.finish();
}

fn counting(c: &mut Criterion) {
    churn();
    for n in [1_000_000usize, 10_000_000] {
        let keys = keys(n, n as u64);
        let label = if n == 1_000_000 { "1e6" } else { "1e7" };
        builds(c, label, &keys.members);
        teardowns(c, label, &keys.members);
        alternated(label, n, &keys);
        let ours = CountingBloomFilter::new(n as u64, P).unwrap();
        let mem = ours.bytes_of_memory();
        let ours = run(c, label, "bloomlab-counting", ours, &keys, true, mem);
        many(c, label, &ours, &keys);
        drop(ours);
        // bloomlab's fastest family, as fastbloom-rs hashes with its own.
        let fold = bloomlab_counting::Builder::rate(n as u64, P)
            .family(Family::Fold64)
            .build()
            .unwrap();
        let mem = fold.bytes_of_memory();
        run(c, label, "bloomlab-counting-fold", fold, &keys, true, mem);
        // Queries read the summary (`m` bits) instead of the counters.
        let summary = bloomlab_counting::Builder::rate(n as u64, P)
            .summary(true)
            .build()
            .unwrap();
        let mem = summary.bytes_of_memory();
        run(c, label, "bloomlab-counting-summary", summary, &keys, true, mem);
        let peer = fastbloom_rs(n, P);
        // 4 bits per counter.
        let mem = peer.config().size as usize / 2;
        run(c, label, "fastbloom-rs", peer, &keys, true, mem);
        let std = BloomFilter::new(n as u64, P).unwrap();
        let mem = std.bit_array().bytes_of_memory();
        let (m, k) = (std.bits(), std.hash_count());
        run(c, label, "bloomlab-standard", std, &keys, false, mem);
        // The standard filter at the counting filter's memory (4m bits,
        // same k): how much of the gap is cache footprint alone.
        let wide = BloomFilter::with_bits(4 * m, k).unwrap();
        let mem = wide.bit_array().bytes_of_memory();
        run(c, label, "bloomlab-standard-4m", wide, &keys, false, mem);
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = counting
}
criterion_main!(benches);
