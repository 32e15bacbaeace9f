//! `bloomlab-standard` against peer crates, measured in the same run:
//! builds, inserts, member and non-member queries on random `u64` keys
//! at n = 1e6 and 1e7, p = 1%, single thread (ns per key).
//!
//! * `build`: every member inserted into a new, empty filter (made and
//!   dropped outside the timing); `insert`: members inserted again into
//!   the filled filter. Both insert as a caller who does not use the
//!   answer does: bloomlab's `add`, the peers' `insert` or `set`.
//!   `bloomlab-insert` and `fastbloom-insert` use the answer (whether
//!   the key was new), which costs both crates about as much: each must
//!   load the `k` words and keep what it read.
//! * `bloomlab` (classic, default config: xxh3-128, enhanced double,
//!   multiply-shift) vs `fastbloom` 0.17 (foldhash) and `bloomfilter` 3;
//! * `bloomlab-fold`: the same with bloomlab's fastest family, `fold-64`
//!   (one folded multiply, as foldhash is, but fixed across versions and
//!   platforms; `fold-128` until 2026-11-27), as fastbloom runs with its
//!   fastest hasher;
//! * `bloomlab-many`: `contains_many` per key vs `fastbloom`'s `contains`
//!   (`bloomlab-fold-contains-many` with the `fold-64` family, as
//!   `bloomlab-fold` above), and a build by `insert_many` vs one `insert`
//!   at a time (`many-build`);
//!   `bloomlab-atomic-contains-many` is `AtomicBloomFilter::contains_many`
//!   beside fastbloom's `AtomicBloomFilter` one key at a time
//!   (`fastbloom-atomic-contains`);
//!   the split-block filter's batches likewise beside `sbbf-rs-safe` one
//!   key at a time (`sbbf-contains`, `sbbf-insert`), which has no batch
//!   call;
//!   on members, `loads-only` tests the same `k` bits of each key in the
//!   same filter at positions computed beforehand, with plain loads (no
//!   hashing, no prefetch): the misses the core's out-of-order window
//!   overlaps by itself, which `contains_many`'s prefetches go beyond;
//! * `bloomlab-blocked` (512-bit blocks, 10 bits/key, k = 7, its default
//!   hash xxh3-64) vs `sbbf-rs-safe` (256-bit split blocks, 10 bits/key,
//!   k = 8; it takes hashes, and is given xxh3-64's);
//!   `bloomlab-blocked-xxh3-128` the same filter hashed by xxh3-128 (its
//!   default until 2026-11-26), which shows what the default's hash gains;
//! * `bloomlab-split`: `BlockedBloomFilter` with Parquet's split blocks
//!   (`BlockScheme::ParquetSplit`: 256-bit blocks, one bit in each of
//!   eight 32-bit words, k = 8) at 10 bits/key, hashed by xxh3-64: the
//!   layout, hash and bits of `sbbf-rs-safe` above, so the same
//!   false-positive rate, with the eight bits made in AVX2 chosen at
//!   run time through `pulp`'s safe tokens, where sbbf uses `unsafe`;
//! * `bloomlab-guava`: the Guava preset (murmur3, MITZ_64, modulo), to
//!   compare with Guava's own figures (put ≈ 200 ns, mightContain ≈ 100 ns
//!   at 1e6; ≈ 500 / 300 ns at 1e7); its inserts use the answer, as
//!   `put` returns it.
//!
//! * `alternated`: bloomlab (default and `fold-64`), fastbloom, and
//!   fastbloom with XXH3-128 as its source hash (`fastbloom-xxh3`: what
//!   the hash alone costs its walk) taking turns on the same keys in 21 rounds (`bloomlab_benches::turns`), so
//!   that each round's ratio compares them at the same moment; the
//!   median round's ratio is printed and kept in the README block;
//!   likewise `bloomlab-blocked`, `bloomlab-split` and `sbbf-rs-safe`
//!   (`alternated_blocked`).
//!
//! Before measuring, each filter's false-positive rate on 1e6 non-members
//! is printed to stderr, so speed is compared at known accuracy.
//!
//! `cargo bench -p bloomlab-benches --bench standard`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use bloomlab_benches::turns::{self, ROUND_KEYS, ROUNDS};
use bloomlab_hash::{Family, Strategy};
use bloomlab_standard::{
    AtomicBloomFilter, BlockScheme, BlockedBloomFilter, BloomFilter, Builder,
    guava,
};
use criterion::measurement::WallTime;
use criterion::{
    BatchSize, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode,
    Throughput, criterion_group, criterion_main,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use xxhash_rust::xxh3::{xxh3_64, xxh3_128};

const P: f64 = 0.01;
/// Bits per key of the two split/blocked filters.
const BLOCKED_BITS_PER_KEY: usize = 10;
/// Keys per `contains_many` call.
const BATCH: usize = 1024;
/// Members whose positions `loads_only` holds (7 probes of 4 bytes each:
/// 29 MB, read in order).
const FLOOR_KEYS: usize = 1 << 20;

/// A filter under test, behind one interface for the benchmark loops.
/// `insert` is each crate's way to insert a key whose answer the caller
/// does not use: bloomlab's `add`, the peers' `insert` or `set` with
/// the answer dropped (inlined, their compiled loops skip computing it).
trait Insert {
    fn insert(&mut self, key: u64);
}

trait Bench: Insert {
    fn contains(&self, key: u64) -> bool;
}

impl Insert for BloomFilter {
    #[inline]
    fn insert(&mut self, key: u64) {
        BloomFilter::add(self, &key);
    }
}

impl Bench for BloomFilter {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        BloomFilter::contains(self, &key)
    }
}

impl Insert for BlockedBloomFilter {
    #[inline]
    fn insert(&mut self, key: u64) {
        BlockedBloomFilter::add(self, &key);
    }
}

impl Bench for BlockedBloomFilter {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        BlockedBloomFilter::contains(self, &key)
    }
}

type Fast = fastbloom::BloomFilter<foldhash::fast::RandomState>;

impl Insert for Fast {
    #[inline]
    fn insert(&mut self, key: u64) {
        fastbloom::BloomFilter::insert(self, &key);
    }
}

impl Bench for Fast {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        fastbloom::BloomFilter::contains(self, &key)
    }
}

/// fastbloom's own walk and bits with XXH3-128 (the low word of its
/// digest of the key's 8 bytes, bloomlab's default hash) as the source
/// hash in place of foldhash, through fastbloom's `insert_hash` and
/// `contains_hash`: what the hash alone costs fastbloom.
struct FastXxh3(Fast);

impl FastXxh3 {
    #[inline]
    fn hash(key: u64) -> u64 {
        xxh3_128(&key.to_le_bytes()) as u64
    }
}

impl Insert for FastXxh3 {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.0.insert_hash(Self::hash(key));
    }
}

impl Bench for FastXxh3 {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.contains_hash(Self::hash(key))
    }
}

/// A filter whose `insert` answer (whether the key was new) is used:
/// bloomlab's `insert`, fastbloom's `insert`, kept from the optimizer.
/// The Guava preset is measured this way too, as Guava's `put`
/// returns its answer.
struct Answered<F>(F);

impl Insert for Answered<BloomFilter> {
    #[inline]
    fn insert(&mut self, key: u64) {
        black_box(self.0.insert(&key));
    }
}

impl Bench for Answered<BloomFilter> {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
}

impl Insert for Answered<Fast> {
    #[inline]
    fn insert(&mut self, key: u64) {
        black_box(self.0.insert(&key));
    }
}

impl Insert for bloomfilter::Bloom<u64> {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.set(&key);
    }
}

impl Bench for bloomfilter::Bloom<u64> {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.check(&key)
    }
}

struct Sbbf(sbbf_rs_safe::Filter);

impl Insert for Sbbf {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.0.insert_hash(xxh3_64(&key.to_le_bytes()));
    }
}

impl Sbbf {
    /// `insert_hash`'s answer (whether the key was there), kept as
    /// `insert_many` counts changed inserts.
    #[inline]
    fn insert_answer(&mut self, key: u64) -> bool {
        !self.0.insert_hash(xxh3_64(&key.to_le_bytes()))
    }
}

impl Bench for Sbbf {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.contains_hash(xxh3_64(&key.to_le_bytes()))
    }
}

/// Parquet's split blocks at [`BLOCKED_BITS_PER_KEY`], hashed as
/// sbbf-rs-safe is given keys: the same bits as sbbf's (a test checks
/// it).
fn split_filter(n: usize) -> BlockedBloomFilter {
    Builder::bits((BLOCKED_BITS_PER_KEY * n) as u64, 8)
        .family(Family::Xxh3_64)
        .block_scheme(BlockScheme::ParquetSplit)
        .build_blocked()
        .unwrap()
}

fn keys(n: usize, seed: u64) -> (Vec<u64>, Vec<u64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Members have the top bit clear, non-members set.
    let members = (0..n).map(|_| rng.random::<u64>() >> 1).collect();
    let others = (0..n).map(|_| rng.random::<u64>() | 1 << 63).collect();
    (members, others)
}

fn fast(n: usize) -> Fast {
    fastbloom::BloomFilter::with_false_pos(P)
        .hasher(foldhash::fast::RandomState::default())
        .expected_items(n)
}

/// Measures a build (every member inserted into a new filter from
/// `new`) and inserts of members again into the filled filter, which it
/// returns.
fn inserts<F: Insert>(
    c: &mut Criterion,
    label: &str,
    name: &str,
    new: impl Fn() -> F,
    members: &[u64],
) -> F {
    let mut g = c.benchmark_group(format!("standard/build/{label}"));
    g.throughput(Throughput::Elements(members.len() as u64));
    // One build is 10^6 or 10^7 inserts: a few samples of one each.
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    g.bench_function(BenchmarkId::from_parameter(name), |b| {
        // The new filter is made, and dropped, outside the timing.
        b.iter_batched_ref(
            &new,
            |f| {
                for &k in members {
                    f.insert(black_box(k));
                }
            },
            BatchSize::PerIteration,
        );
    });
    g.finish();

    let mut f = new();
    for &k in members {
        f.insert(k);
    }
    let mut g = c.benchmark_group(format!("standard/insert/{label}"));
    g.throughput(Throughput::Elements(1));
    g.bench_function(BenchmarkId::from_parameter(name), |b| {
        let mut i = 0;
        b.iter(|| {
            f.insert(black_box(members[i]));
            i += 1;
            if i == members.len() {
                i = 0;
            }
        });
    });
    g.finish();
    f
}

/// [`inserts`], then the filled filter's false-positive rate (printed)
/// and member and non-member queries (monomorphic loops).
fn run<F: Bench>(
    c: &mut Criterion,
    label: &str,
    name: &str,
    new: impl Fn() -> F,
    members: &[u64],
    others: &[u64],
) {
    let f = inserts(c, label, name, new, members);
    let fp = others[..1_000_000].iter().filter(|&&k| f.contains(k)).count();
    eprintln!(
        "n = {label}: {name} false-positive rate {:.5}",
        fp as f64 / 1e6
    );

    for (what, probe) in [("member", members), ("non-member", others)] {
        let mut g =
            c.benchmark_group(format!("standard/contains-{what}/{label}"));
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
}

fn standard(c: &mut Criterion) {
    for n in [1_000_000usize, 10_000_000] {
        let (members, others) = keys(n, n as u64);
        let label = if n == 1_000_000 { "1e6" } else { "1e7" };
        let (m, o) = (&members[..], &others[..]);
        let new = || BloomFilter::new(n as u64, P).unwrap();
        run(c, label, "bloomlab", new, m, o);
        // bloomlab's fastest family, as fastbloom runs with its fastest.
        let new = || {
            Builder::rate(n as u64, P).family(Family::Fold64).build().unwrap()
        };
        run(c, label, "bloomlab-fold", new, m, o);
        run(c, label, "fastbloom", || fast(n), m, o);
        alternated(label, n, m, o);
        alternated_blocked(label, n, m, o);
        let new = || Answered(BloomFilter::new(n as u64, P).unwrap());
        inserts(c, label, "bloomlab-insert", new, m);
        inserts(c, label, "fastbloom-insert", || Answered(fast(n)), m);
        let new = || bloomfilter::Bloom::new_for_fp_rate(n, P).unwrap();
        run(c, label, "bloomfilter", new, m, o);
        let new = || {
            Answered(
                guava::create(n as i64, P, Strategy::GuavaMitz64).unwrap(),
            )
        };
        run(c, label, "bloomlab-guava", new, m, o);
        let bits = (BLOCKED_BITS_PER_KEY * n) as u64;
        let new = || BlockedBloomFilter::with_bits(bits, 7).unwrap();
        run(c, label, "bloomlab-blocked", new, m, o);
        // The blocked filter's default before 2026-11-26, in the same run.
        let new = || {
            Builder::bits(bits, 7)
                .family(Family::Xxh3_128)
                .build_blocked()
                .unwrap()
        };
        run(c, label, "bloomlab-blocked-xxh3-128", new, m, o);
        run(c, label, "bloomlab-split", || split_filter(n), m, o);
        let new = || Sbbf(sbbf_rs_safe::Filter::new(BLOCKED_BITS_PER_KEY, n));
        run(c, label, "sbbf-rs-safe", new, m, o);
        if n == 10_000_000 {
            contains_many(c, m, o);
        }
    }
}

/// bloomlab (default and `fold-64`), fastbloom and fastbloom hashing by
/// XXH3-128 ([`FastXxh3`]) taking turns on the same keys
/// ([`bloomlab_benches::turns`]): inserts (again, into the full filter),
/// member and non-member queries, each filter its own copy. Prints
/// fastbloom's time ÷ each other filter's, lines `bench-report` keeps in
/// the README block.
fn alternated(label: &str, n: usize, members: &[u64], others: &[u64]) {
    let mut ours = BloomFilter::new(n as u64, P).unwrap();
    let mut fold =
        Builder::rate(n as u64, P).family(Family::Fold64).build().unwrap();
    let mut peer = fast(n);
    let mut peer_xxh3 = FastXxh3(fast(n));
    for &k in members {
        Insert::insert(&mut ours, k);
        Insert::insert(&mut fold, k);
        Insert::insert(&mut peer, k);
        Insert::insert(&mut peer_xxh3, k);
    }
    let seconds = turns::run(TURN_OPS.len(), 4, |op, filter, round| {
        let (keys, insert) = turn_keys(op, round, members, others);
        match filter {
            0 => timed(&mut ours, keys, insert),
            1 => timed(&mut fold, keys, insert),
            2 => timed(&mut peer, keys, insert),
            _ => timed(&mut peer_xxh3, keys, insert),
        }
    });
    print_turns(
        label,
        (2, "fastbloom"),
        &seconds,
        &[(0, "bloomlab"), (1, "bloomlab-fold"), (3, "fastbloom-xxh3")],
    );
}

/// The blocked filters (default and Parquet's split blocks) and
/// sbbf-rs-safe taking turns as [`alternated`] does: sbbf's time ÷
/// each, at the same moments (criterion's 10^7 medians of one filter
/// after another have differed by up to three times from run to run).
fn alternated_blocked(label: &str, n: usize, members: &[u64], others: &[u64]) {
    let bits = (BLOCKED_BITS_PER_KEY * n) as u64;
    let mut blocked = BlockedBloomFilter::with_bits(bits, 7).unwrap();
    let mut split = split_filter(n);
    let mut peer = Sbbf(sbbf_rs_safe::Filter::new(BLOCKED_BITS_PER_KEY, n));
    for &k in members {
        Insert::insert(&mut blocked, k);
        Insert::insert(&mut split, k);
        Insert::insert(&mut peer, k);
    }
    let seconds = turns::run(TURN_OPS.len(), 3, |op, filter, round| {
        let (keys, insert) = turn_keys(op, round, members, others);
        match filter {
            0 => timed(&mut blocked, keys, insert),
            1 => timed(&mut split, keys, insert),
            _ => timed(&mut peer, keys, insert),
        }
    });
    print_turns(
        label,
        (2, "sbbf-rs-safe"),
        &seconds,
        &[(0, "bloomlab-blocked"), (1, "bloomlab-split")],
    );
}

/// The operations filters take turns at.
const TURN_OPS: [&str; 3] =
    ["insert", "contains-member", "contains-non-member"];

/// The keys of operation `op` (an index into [`TURN_OPS`]) in round
/// `round`, and whether it inserts them.
fn turn_keys<'a>(
    op: usize,
    round: usize,
    members: &'a [u64],
    others: &'a [u64],
) -> (&'a [u64], bool) {
    let at = round * ROUND_KEYS % (members.len() - ROUND_KEYS);
    match op {
        0 => (&members[at..at + ROUND_KEYS], true),
        1 => (&members[at..at + ROUND_KEYS], false),
        _ => (&others[at..at + ROUND_KEYS], false),
    }
}

/// Prints the `peer` filter's time ÷ each of `ours`' (`(index, name)`),
/// lines `bench-report` keeps in the README block.
fn print_turns(
    label: &str,
    (peer, peer_name): (usize, &str),
    seconds: &[Vec<Vec<f64>>],
    ours: &[(usize, &str)],
) {
    for &(filter, name) in ours {
        eprintln!(
            "alternated n = {label}: {peer_name}'s time ÷ {name}'s, the \
             median of {ROUNDS} rounds of {ROUND_KEYS} keys each \
             (lowest–highest): {}",
            turns::ratios(&TURN_OPS, seconds, peer, filter)
        );
    }
}

/// Seconds `f` takes to insert (as [`Insert::insert`]) or query `keys`.
fn timed<F: Bench>(f: &mut F, keys: &[u64], insert: bool) -> f64 {
    let start = Instant::now();
    if insert {
        keys.iter().for_each(|&k| f.insert(black_box(k)));
    } else {
        let hits = keys.iter().filter(|&&k| f.contains(black_box(k))).count();
        black_box(hits);
    }
    start.elapsed().as_secs_f64()
}

/// `contains_many` (a batch of 1024 keys per call) against fastbloom's
/// `contains` on the same keys, per key.
fn contains_many(c: &mut Criterion, members: &[u64], others: &[u64]) {
    let n = members.len();
    many_build(c, members);
    let mut ours = BloomFilter::new(n as u64, P).unwrap();
    ours.insert_many(members);
    // bloomlab's fastest family, as fastbloom runs with its fastest.
    let mut fold =
        Builder::rate(n as u64, P).family(Family::Fold64).build().unwrap();
    fold.insert_many(members);
    let mut fast = fast(n);
    for k in members {
        fast.insert(k);
    }
    let mut blocked =
        BlockedBloomFilter::with_bits((BLOCKED_BITS_PER_KEY * n) as u64, 7)
            .unwrap();
    blocked.insert_many(members);
    let mut split = split_filter(n);
    split.insert_many(members);
    let mut sbbf = Sbbf(sbbf_rs_safe::Filter::new(BLOCKED_BITS_PER_KEY, n));
    members.iter().for_each(|&k| Insert::insert(&mut sbbf, k));
    let atomic = AtomicBloomFilter::new(n as u64, P).unwrap();
    atomic.insert_many(members);
    let fast_atomic = fast_atomic(n);
    members.iter().for_each(|k| {
        fast_atomic.insert(k);
    });
    for (what, probe) in [("member", members), ("non-member", others)] {
        let mut g = c.benchmark_group(format!("standard/many-{what}/1e7"));
        g.throughput(Throughput::Elements(BATCH as u64));
        let mut out = vec![false; BATCH];
        let out = &mut out[..];
        batches(&mut g, "bloomlab-contains-many", probe, out, |k, o| {
            ours.contains_many(k, o)
        });
        batches(&mut g, "bloomlab-fold-contains-many", probe, out, |k, o| {
            fold.contains_many(k, o)
        });
        batches(
            &mut g,
            "bloomlab-blocked-contains-many",
            probe,
            out,
            |k, o| blocked.contains_many(k, o),
        );
        batches(&mut g, "bloomlab-split-contains-many", probe, out, |k, o| {
            split.contains_many(k, o)
        });
        batches(&mut g, "sbbf-contains", probe, out, |k, o| {
            o.iter_mut().zip(k).for_each(|(o, &k)| *o = sbbf.contains(k));
        });
        if what == "member" {
            loads_only(&mut g, &ours, &probe[..FLOOR_KEYS]);
        }
        batches(&mut g, "fastbloom-contains", probe, out, |k, o| {
            o.iter_mut().zip(k).for_each(|(o, k)| *o = fast.contains(k));
        });
        batches(
            &mut g,
            "bloomlab-atomic-contains-many",
            probe,
            out,
            |k, o| atomic.contains_many(k, o),
        );
        batches(&mut g, "fastbloom-atomic-contains", probe, out, |k, o| {
            let f = &fast_atomic;
            o.iter_mut().zip(k).for_each(|(o, k)| *o = f.contains(k));
        });
        g.finish();
    }
}

/// fastbloom's `AtomicBloomFilter` for `n` keys at rate `P`, hashed by
/// foldhash as its plain filter is.
fn fast_atomic(
    n: usize,
) -> fastbloom::AtomicBloomFilter<foldhash::fast::RandomState> {
    fastbloom::AtomicBloomFilter::with_false_pos(P)
        .hasher(foldhash::fast::RandomState::default())
        .expected_items(n)
}

/// Times `answer(keys, out)` on successive batches of [`BATCH`] keys of
/// `probe`: a filter's `contains_many`, or a peer's `contains` of each.
fn batches(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    probe: &[u64],
    out: &mut [bool],
    mut answer: impl FnMut(&[u64], &mut [bool]),
) {
    g.bench_function(name, |b| {
        let mut i = 0;
        b.iter(|| {
            answer(&probe[i..i + BATCH], out);
            i = (i + BATCH) % (probe.len() - BATCH);
            black_box(&*out);
        });
    });
}

/// `many-build`: a new filter built by `insert_many` in one call (classic,
/// blocked as in the `bloomlab-blocked` column, and atomic), against the
/// same build one `insert` at a time, bloomlab's and fastbloom's (all
/// keeping the answer, as `insert_many` counts the changed inserts).
fn many_build(c: &mut Criterion, members: &[u64]) {
    let n = members.len();
    let mut g = c.benchmark_group("standard/many-build/1e7");
    g.throughput(Throughput::Elements(n as u64));
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    let classic = || BloomFilter::new(n as u64, P).unwrap();
    let blocked = || {
        BlockedBloomFilter::with_bits((BLOCKED_BITS_PER_KEY * n) as u64, 7)
            .unwrap()
    };
    let atomic = || AtomicBloomFilter::new(n as u64, P).unwrap();
    build(&mut g, "bloomlab-insert-many", classic, |f| {
        f.insert_many(black_box(members))
    });
    build(&mut g, "bloomlab-insert", classic, |f| {
        members.iter().filter(|&k| f.insert(black_box(k))).count()
    });
    build(&mut g, "bloomlab-blocked-insert-many", blocked, |f| {
        f.insert_many(black_box(members))
    });
    build(
        &mut g,
        "bloomlab-split-insert-many",
        || split_filter(n),
        |f| f.insert_many(black_box(members)),
    );
    let sbbf = || Sbbf(sbbf_rs_safe::Filter::new(BLOCKED_BITS_PER_KEY, n));
    build(&mut g, "sbbf-insert", sbbf, |f| {
        members.iter().filter(|&&k| f.insert_answer(black_box(k))).count()
    });
    build(&mut g, "bloomlab-atomic-insert-many", atomic, |f| {
        f.insert_many(black_box(members))
    });
    build(&mut g, "bloomlab-atomic-insert", atomic, |f| {
        members.iter().filter(|&k| f.insert(black_box(k))).count()
    });
    build(
        &mut g,
        "fastbloom-insert",
        || fast(n),
        |f| members.iter().filter(|&k| f.insert(black_box(k))).count(),
    );
    build(
        &mut g,
        "fastbloom-atomic-insert",
        || fast_atomic(n),
        |f| members.iter().filter(|&k| f.insert(black_box(k))).count(),
    );
    g.finish();
}

/// One `many-build` entry: `fill` times a new filter from `new` (made and
/// dropped outside the timing).
fn build<F>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    new: impl Fn() -> F,
    fill: impl Fn(&mut F) -> usize,
) {
    g.bench_function(name, |b| {
        b.iter_batched_ref(&new, &fill, BatchSize::PerIteration);
    });
}

/// `loads-only`: the `k` bits of each member at positions computed
/// beforehand, in batches like `contains_many`'s, with plain loads (no
/// hashing, no prefetch): what the out-of-order window alone overlaps.
fn loads_only(
    g: &mut BenchmarkGroup<'_, WallTime>,
    f: &BloomFilter,
    keys: &[u64],
) {
    let words = f.bit_array().words();
    let k = f.hash_count() as usize;
    // 4 bytes a probe (m < 2^32 at n = 1e7).
    let positions: Vec<u32> = keys
        .iter()
        .flat_map(|key| f.positions(key))
        .map(|p| u32::try_from(p).unwrap())
        .collect();
    let test = |positions: &[u32], out: &mut [bool]| {
        for (o, key) in out.iter_mut().zip(positions.chunks_exact(k)) {
            *o = key
                .iter()
                .all(|&p| words[p as usize >> 6] >> (p & 63) & 1 == 1);
        }
    };
    // The filter's own answers, so the same loads.
    let (mut out, mut want) = (vec![false; BATCH], vec![false; BATCH]);
    test(&positions[..BATCH * k], &mut out);
    f.contains_many(&keys[..BATCH], &mut want);
    assert_eq!(out, want);
    g.bench_function("loads-only", |b| {
        let mut i = 0;
        b.iter(|| {
            test(&positions[i * k..(i + BATCH) * k], &mut out);
            i = (i + BATCH) % (keys.len() - BATCH);
            black_box(&out);
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = standard
}
criterion_main!(benches);
