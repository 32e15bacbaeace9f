//! `bloomlab-standard` against peer crates, measured in the same run:
//! insert, member and non-member queries on random `u64` keys at
//! n = 1e6 and 1e7, p = 1%, single thread (ns per key).
//!
//! * `bloomlab` (classic, default config: xxh3-128, enhanced double,
//!   multiply-shift) vs `fastbloom` 0.17 (foldhash) and `bloomfilter` 3;
//! * `bloomlab-many`: `contains_many` per key vs `fastbloom`'s `contains`;
//!   on members, `loads-only` tests the same `k` bits of each key in the
//!   same filter at positions computed beforehand (no hashing): the floor
//!   of any classic filter's member query at this `m` and `k`;
//! * `bloomlab-blocked` (512-bit blocks, 10 bits/key, k = 7) vs
//!   `sbbf-rs-safe` (256-bit split blocks, 10 bits/key, k = 8; it takes
//!   hashes, so keys are hashed with xxh3-64 as bloomlab's are);
//! * `bloomlab-guava`: the Guava preset (murmur3, MITZ_64, modulo), to
//!   compare with Guava's own figures (put ≈ 200 ns, mightContain ≈ 100 ns
//!   at 1e6; ≈ 500 / 300 ns at 1e7).
//!
//! Before measuring, each filter's false-positive rate on 1e6 non-members
//! is printed to stderr, so speed is compared at known accuracy.
//!
//! `cargo bench -p bloomlab-benches --bench standard`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use bloomlab_hash::Strategy;
use bloomlab_standard::{BlockedBloomFilter, BloomFilter, guava};
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group,
    criterion_main,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use xxhash_rust::xxh3::xxh3_64;

const P: f64 = 0.01;
/// Bits per key of the two split/blocked filters.
const BLOCKED_BITS_PER_KEY: usize = 10;
/// Keys per `contains_many` call.
const BATCH: usize = 1024;
/// Members whose positions `loads_only` holds (7 probes of 4 bytes each:
/// 29 MB, read in order).
const FLOOR_KEYS: usize = 1 << 20;

/// A filter under test, behind one interface for the benchmark loops.
trait Bench {
    fn insert(&mut self, key: u64);
    fn contains(&self, key: u64) -> bool;
}

impl Bench for BloomFilter {
    #[inline]
    fn insert(&mut self, key: u64) {
        BloomFilter::insert(self, &key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        BloomFilter::contains(self, &key)
    }
}

impl Bench for BlockedBloomFilter {
    #[inline]
    fn insert(&mut self, key: u64) {
        BlockedBloomFilter::insert(self, &key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        BlockedBloomFilter::contains(self, &key)
    }
}

type Fast = fastbloom::BloomFilter<foldhash::fast::RandomState>;

impl Bench for Fast {
    #[inline]
    fn insert(&mut self, key: u64) {
        fastbloom::BloomFilter::insert(self, &key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        fastbloom::BloomFilter::contains(self, &key)
    }
}

impl Bench for bloomfilter::Bloom<u64> {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.set(&key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.check(&key)
    }
}

struct Sbbf(sbbf_rs_safe::Filter);

impl Bench for Sbbf {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.0.insert_hash(xxh3_64(&key.to_le_bytes()));
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.contains_hash(xxh3_64(&key.to_le_bytes()))
    }
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

/// Fills `f` with `members`, prints its false-positive rate, then
/// measures insert, member and non-member queries (monomorphic loops).
fn run<F: Bench>(
    c: &mut Criterion,
    label: &str,
    name: &str,
    mut f: F,
    members: &[u64],
    others: &[u64],
) {
    for &k in members {
        f.insert(k);
    }
    let fp = others[..1_000_000].iter().filter(|&&k| f.contains(k)).count();
    eprintln!(
        "n = {label}: {name} false-positive rate {:.5}",
        fp as f64 / 1e6
    );

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
        run(
            c,
            label,
            "bloomlab",
            BloomFilter::new(n as u64, P).unwrap(),
            m,
            o,
        );
        run(c, label, "fastbloom", fast(n), m, o);
        let bf = bloomfilter::Bloom::<u64>::new_for_fp_rate(n, P).unwrap();
        run(c, label, "bloomfilter", bf, m, o);
        let g = guava::create(n as i64, P, Strategy::GuavaMitz64).unwrap();
        run(c, label, "bloomlab-guava", g, m, o);
        let bits = (BLOCKED_BITS_PER_KEY * n) as u64;
        let b = BlockedBloomFilter::with_bits(bits, 7).unwrap();
        run(c, label, "bloomlab-blocked", b, m, o);
        let s = Sbbf(sbbf_rs_safe::Filter::new(BLOCKED_BITS_PER_KEY, n));
        run(c, label, "sbbf-rs-safe", s, m, o);
        if n == 10_000_000 {
            contains_many(c, m, o);
        }
    }
}

/// `contains_many` (a batch of 1024 keys per call) against fastbloom's
/// `contains` on the same keys, per key.
fn contains_many(c: &mut Criterion, members: &[u64], others: &[u64]) {
    let n = members.len();
    let mut ours = BloomFilter::new(n as u64, P).unwrap();
    ours.insert_many(members);
    let mut fast = fast(n);
    for k in members {
        fast.insert(k);
    }
    let mut blocked =
        BlockedBloomFilter::with_bits((BLOCKED_BITS_PER_KEY * n) as u64, 7)
            .unwrap();
    blocked.insert_many(members);
    for (what, probe) in [("member", members), ("non-member", others)] {
        let mut g = c.benchmark_group(format!("standard/many-{what}/1e7"));
        g.throughput(Throughput::Elements(BATCH as u64));
        let mut out = vec![false; BATCH];
        g.bench_function("bloomlab-contains-many", |b| {
            let mut i = 0;
            b.iter(|| {
                ours.contains_many(&probe[i..i + BATCH], &mut out);
                i = (i + BATCH) % (n - BATCH);
                black_box(&out);
            });
        });
        g.bench_function("bloomlab-blocked-contains-many", |b| {
            let mut i = 0;
            b.iter(|| {
                blocked.contains_many(&probe[i..i + BATCH], &mut out);
                i = (i + BATCH) % (n - BATCH);
                black_box(&out);
            });
        });
        if what == "member" {
            loads_only(&mut g, &ours, &probe[..FLOOR_KEYS]);
        }
        g.bench_function("fastbloom-contains", |b| {
            let mut i = 0;
            b.iter(|| {
                for (o, k) in out.iter_mut().zip(&probe[i..i + BATCH]) {
                    *o = fast.contains(k);
                }
                i = (i + BATCH) % (n - BATCH);
                black_box(&out);
            });
        });
        g.finish();
    }
}

/// `loads-only`: the `k` bits of each member at positions computed
/// beforehand (no hashing), in batches like `contains_many`'s: what a
/// classic filter's member query cannot go below at this `m` and `k`.
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
