//! Whole-key probe loops of a blocked filter with one-line (512-bit)
//! blocks, chosen once per filter as [`crate::kernel`] does for the
//! classic filter.
//!
//! The generic path of [`BlockedBloomFilter`](crate::BlockedBloomFilter)
//! asks at run time, per key, for the hash family, the block size and
//! `k`, and walks a slice of salts of run-time length: at n = 1e6 a
//! query cost 13.3 ns a key that way and costs 10.3-10.8 ns here, an
//! insert 12.0 and 10.7 ns (`benches/benches/standard.rs`).
//! Here each `(hash, k)` is its own function, the salts are constants and
//! the loop is unrolled. The positions are the generic path's, bit for
//! bit; the `blocked_kernel_matches_generic` test checks that.

use crate::blocked::{Line, SALTS};
use crate::kernel::{Kernel, reduce, xxh3_64_key, xxh3_128_key};
use bloomlab_hash::Family;

/// `fn(seed, lines, key)`: whether every probe of `key` is set.
pub(crate) type QueryFn = fn(u64, &[Line], &[u8]) -> bool;
/// `fn(seed, lines, key)`: sets the probes; whether any bit changed.
pub(crate) type InsertFn = fn(u64, &mut [Line], &[u8]) -> bool;
/// `fn(seed, lines, key)`: sets the probes, without the answer.
pub(crate) type AddFn = fn(u64, &mut [Line], &[u8]);

/// A blocked filter's chosen probe loops.
pub(crate) type BlockedKernel = Kernel<QueryFn, InsertFn, AddFn>;

/// The `(block hash, in-block hash)` of a key, as `BlockedBloomFilter`'s
/// `split` of its digest.
trait Split {
    fn split(seed: u64, key: &[u8]) -> (u64, u32);
}

struct X64;
struct X128;

impl Split for X64 {
    #[inline(always)]
    fn split(seed: u64, key: &[u8]) -> (u64, u32) {
        let h = xxh3_64_key(seed, key);
        (h, h as u32)
    }
}

impl Split for X128 {
    #[inline(always)]
    fn split(seed: u64, key: &[u8]) -> (u64, u32) {
        let v = xxh3_128_key(seed, key);
        (v as u64, (v >> 64) as u32)
    }
}

/// Probe `i`'s bit in a 512-bit line: the top 9 bits of `h · s_i`.
#[inline(always)]
fn position(h: u32, i: usize) -> u32 {
    h.wrapping_mul(SALTS[i]) >> 23
}

fn query<H: Split, const K: u32>(
    seed: u64,
    lines: &[Line],
    key: &[u8],
) -> bool {
    let (lo, h) = H::split(seed, key);
    let block = reduce(lo, lines.len() as u64) as usize;
    let Some(line) = lines.get(block) else {
        return false;
    };
    // Without branches: the k words are in one line, already fetched.
    let mut all = 1;
    for i in 0..K as usize {
        let p = position(h, i);
        all &= line.0[(p >> 6) as usize] >> (p & 63);
    }
    all & 1 == 1
}

fn insert<H: Split, const K: u32>(
    seed: u64,
    lines: &mut [Line],
    key: &[u8],
) -> bool {
    let (lo, h) = H::split(seed, key);
    let block = reduce(lo, lines.len() as u64) as usize;
    let Some(line) = lines.get_mut(block) else {
        return false;
    };
    let mut changed = 0;
    for i in 0..K as usize {
        let p = position(h, i);
        let w = &mut line.0[(p >> 6) as usize];
        // `old ^ new`, not `!old & bit`: measured 2-3 ns a key faster.
        let old = *w;
        *w = old | 1u64 << (p & 63);
        changed |= *w ^ old;
    }
    changed != 0
}

fn add<H: Split, const K: u32>(seed: u64, lines: &mut [Line], key: &[u8]) {
    let (lo, h) = H::split(seed, key);
    let block = reduce(lo, lines.len() as u64) as usize;
    let Some(line) = lines.get_mut(block) else {
        return;
    };
    for i in 0..K as usize {
        let p = position(h, i);
        line.0[(p >> 6) as usize] |= 1u64 << (p & 63);
    }
}

/// `Some(f::<H, k>)` for `k` up to 16, else `None`.
macro_rules! by_k {
    ($k:expr, $f:ident, $h:ty, $t:ty) => {
        by_k!(@arms $k, $f, $h, $t; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    };
    (@arms $k:expr, $f:ident, $h:ty, $t:ty; $($n:literal)*) => {
        match $k {
            $($n => Some($f::<$h, $n> as $t),)*
            _ => None,
        }
    };
}

/// The kernel of a blocked filter, if its configuration has one: blocks
/// of one line, an XXH3 family and `k` up to 16.
pub(crate) fn for_config(
    family: Family,
    block_bits: u64,
    k: u32,
) -> Option<BlockedKernel> {
    if block_bits != 512 {
        return None;
    }
    let (query, insert, add) = match family {
        Family::Xxh3_64 => (
            by_k!(k, query, X64, QueryFn),
            by_k!(k, insert, X64, InsertFn),
            by_k!(k, add, X64, AddFn),
        ),
        Family::Xxh3_128 => (
            by_k!(k, query, X128, QueryFn),
            by_k!(k, insert, X128, InsertFn),
            by_k!(k, add, X128, AddFn),
        ),
        _ => return None,
    };
    Some(Kernel { query: query?, insert: insert?, add: add? })
}
