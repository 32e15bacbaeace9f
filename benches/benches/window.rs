//! What bounds a query of the blocked filter at n = 1e6. At 10 bits a
//! key the filter is 1.2 MB, past this machine's L2 cache, so every
//! query waits on one cache miss; how many of those misses overlap is
//! set by how many queries the core holds in flight, and so by the
//! instructions each query adds to its out-of-order window. Variants of
//! one query over the same lines and random `u64` keys, each hashing
//! with xxh3-64 and choosing the line as the filter does (ns a query):
//!
//! * `one-word`: one bit of the line's first word, nothing more;
//! * `one-word-alu`: the same, plus a chain of about 40 ALU
//!   instructions on the hash that the load does not wait for;
//! * `seven-words`: the AND of the line's first seven words: seven loads,
//!   no position arithmetic;
//! * `seven-probes`: the filter's seven salted probes in scalar code (a
//!   multiply, two shifts, a load, a variable shift and an AND each),
//!   inlined here: the filter's query without AVX2;
//! * `bloomlab-blocked`: `BlockedBloomFilter::contains` on the same
//!   filter (xxh3-64, k = 7, 512-bit blocks), whose probes are made and
//!   tested in AVX2 registers where the CPU has it;
//! * `sbbf-rs-safe`: its AVX2 query, k = 8 in a 256-bit block.
//!
//! Before measuring, the inlined probes are checked against the filter's
//! answers, key by key.
//!
//! `cargo bench -p bloomlab-benches --bench window`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use bloomlab_hash::Family;
use bloomlab_standard::{BLOCK_SALTS, BlockedBloomFilter};
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use xxhash_rust::xxh3::xxh3_64;

const N: usize = 1_000_000;
const BITS_PER_KEY: usize = 10;
const K: usize = 7;

/// One cache line of the filter.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// The key's hash and line, as the filter chooses it.
#[inline(always)]
fn line(lines: &[Line], key: u64) -> (u64, Option<&Line>) {
    let h = xxh3_64(&key.to_le_bytes());
    let block = ((u128::from(h) * lines.len() as u128) >> 64) as usize;
    (h, lines.get(block))
}

#[inline(always)]
fn one_word(lines: &[Line], key: u64) -> bool {
    let (_, l) = line(lines, key);
    l.is_some_and(|l| l.0[0] & 1 == 1)
}

#[inline(always)]
fn one_word_alu(lines: &[Line], key: u64) -> bool {
    let (h, l) = line(lines, key);
    // Ten rounds of five ALU instructions, independent of the load.
    let mut x = h;
    for i in 0..10 {
        x = (x ^ (x >> 13)).wrapping_add(i) ^ (x << 7);
    }
    l.is_some_and(|l| (l.0[0] ^ x) & 1 == 1)
}

#[inline(always)]
fn seven_words(lines: &[Line], key: u64) -> bool {
    let (h, l) = line(lines, key);
    l.is_some_and(|l| {
        let w = &l.0;
        (w[0] & w[1] & w[2] & w[3] & w[4] & w[5] & w[6] & h) & 1 == 1
    })
}

#[inline(always)]
fn seven_probes(lines: &[Line], key: u64) -> bool {
    let (h, l) = line(lines, key);
    let Some(l) = l else { return false };
    let h = h as u32;
    let mut all = 1;
    for &s in &BLOCK_SALTS[..K] {
        let p = h.wrapping_mul(s) >> 23;
        all &= l.0[(p >> 6) as usize] >> (p & 63);
    }
    all & 1 == 1
}

fn window(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(N as u64);
    let keys: Vec<u64> = (0..N).map(|_| rng.random::<u64>() >> 1).collect();
    let bits = (BITS_PER_KEY * N) as u64;
    let mut f =
        BlockedBloomFilter::with_config(Family::Xxh3_64, 0, bits, 7, 512)
            .unwrap();
    for k in &keys {
        f.add(k);
    }
    let words: Vec<u64> = f.words().collect();
    let lines: Vec<Line> =
        words.chunks_exact(8).map(|c| Line(c.try_into().unwrap())).collect();
    let others: Vec<u64> = (0..N as u64).map(|i| i | 1 << 63).collect();
    for k in keys.iter().chain(&others) {
        assert_eq!(seven_probes(&lines, *k), f.contains(k));
    }
    let mut sbbf = sbbf_rs_safe::Filter::new(BITS_PER_KEY, N);
    for k in &keys {
        sbbf.insert_hash(xxh3_64(&k.to_le_bytes()));
    }

    let mut g = c.benchmark_group("window/1e6");
    g.throughput(Throughput::Elements(1));
    let ks = &keys[..];
    bench(&mut g, "one-word", ks, |k| one_word(&lines, k));
    bench(&mut g, "one-word-alu", ks, |k| one_word_alu(&lines, k));
    bench(&mut g, "seven-words", ks, |k| seven_words(&lines, k));
    bench(&mut g, "seven-probes", ks, |k| seven_probes(&lines, k));
    bench(&mut g, "bloomlab-blocked", ks, |k| f.contains(&k));
    bench(&mut g, "sbbf-rs-safe", ks, |k| {
        sbbf.contains_hash(xxh3_64(&k.to_le_bytes()))
    });
    g.finish();
}

/// Times `q` on the keys in turn, one query an iteration; generic, so
/// that each query is inlined into its own loop.
fn bench<F: Fn(u64) -> bool>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    keys: &[u64],
    q: F,
) {
    g.bench_function(name, |b| {
        let mut i = 0;
        b.iter(|| {
            let hit = q(black_box(keys[i]));
            i = if i + 1 == keys.len() { 0 } else { i + 1 };
            hit
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = window
}
criterion_main!(benches);
