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
//! bit; the `blocked_kernel_matches_generic` test checks that. Where the
//! CPU has AVX2, salted probes are made eight to a register and queries
//! test them there ([`test_salted`]).

use crate::blocked::{BLOCK_SALTS, BlockScheme, Line};
use crate::kernel::{
    Kernel, Kernels, ROUND_BATCH, fold128_key, fold128_word, reduce,
    xxh3_64_key, xxh3_64_word, xxh3_128_key, xxh3_128_word,
};
use crate::split::{self, Avx2, Simd};
use bloomlab_hash::{Family, Funnel};

/// `fn(seed, lines, blocks, key)`: whether every probe of `key` is set.
pub(crate) type QueryFn = fn(u64, &[Line], u64, &[u8]) -> bool;
/// `fn(seed, lines, blocks, key)`: sets the probes; whether any bit
/// changed.
pub(crate) type InsertFn = fn(u64, &mut [Line], u64, &[u8]) -> bool;
/// `fn(seed, lines, blocks, key)`: sets the probes, without the answer.
pub(crate) type AddFn = fn(u64, &mut [Line], u64, &[u8]);

/// [`QueryFn`] for a one-word key (see [`crate::kernel::Kernels`]):
/// `fn(lines, seed, key, blocks, simd)`. The arguments come in the order
/// the split-block AVX2 code takes them (the order its closure first uses
/// them), so the call into it passes its registers through.
pub(crate) type QueryWordFn = fn(&[Line], u64, u64, u64, Simd) -> bool;
/// [`InsertFn`] for a one-word key.
pub(crate) type InsertWordFn = fn(&mut [Line], u64, u64, u64, Simd) -> bool;
/// [`AddFn`] for a one-word key.
pub(crate) type AddWordFn = fn(&mut [Line], u64, u64, u64, Simd);

/// A blocked filter's chosen probe loops, for keys given as bytes and
/// for one-word keys.
pub(crate) type BlockedKernels = Kernels<
    Kernel<QueryFn, InsertFn, AddFn>,
    Kernel<QueryWordFn, InsertWordFn, AddWordFn>,
>;

/// The `(block hash, in-block hash)` of a key, as `BlockedBloomFilter`'s
/// `split` of its digest.
trait Split {
    fn split(seed: u64, key: &[u8]) -> (u64, u32);
    /// `split` of a one-word key's eight little-endian bytes.
    fn split_word(seed: u64, key: u64) -> (u64, u32);
}

struct X64;
struct X128;
struct Fold;

impl Split for X64 {
    #[inline(always)]
    fn split(seed: u64, key: &[u8]) -> (u64, u32) {
        let h = xxh3_64_key(seed, key);
        (h, h as u32)
    }

    #[inline(always)]
    fn split_word(seed: u64, key: u64) -> (u64, u32) {
        let h = xxh3_64_word(key, seed);
        (h, h as u32)
    }
}

impl Split for X128 {
    #[inline(always)]
    fn split(seed: u64, key: &[u8]) -> (u64, u32) {
        let v = xxh3_128_key(seed, key);
        (v as u64, (v >> 64) as u32)
    }

    #[inline(always)]
    fn split_word(seed: u64, key: u64) -> (u64, u32) {
        let v = xxh3_128_word(key, seed);
        (v as u64, (v >> 64) as u32)
    }
}

impl Split for Fold {
    #[inline(always)]
    fn split(seed: u64, key: &[u8]) -> (u64, u32) {
        let (lo, hi) = fold128_key(seed, key);
        (lo, hi as u32)
    }

    #[inline(always)]
    fn split_word(seed: u64, key: u64) -> (u64, u32) {
        let (lo, hi) = fold128_word(key, seed);
        (lo, hi as u32)
    }
}

/// Where a scheme puts a key's bits, given its split `(lo, h)`: the
/// block from `lo`, the bits in it from `h`.
trait Place {
    /// The line that holds the key's block.
    fn line(lo: u64, blocks: u64) -> usize;
    /// Whether every probe is set.
    fn query<const K: u32>(lines: &[Line], blocks: u64, s: (u64, u32))
    -> bool;
    /// Sets the probes; whether any bit changed.
    fn insert<const K: u32>(
        lines: &mut [Line],
        blocks: u64,
        s: (u64, u32),
    ) -> bool;
    /// Sets the probes.
    fn add<const K: u32>(lines: &mut [Line], blocks: u64, s: (u64, u32));

    /// Whether the batch loops run compiled for AVX2 where the CPU has
    /// it, testing and setting bits with [`Place::query_avx`] and
    /// [`Place::insert_avx`].
    const AVX2: bool = false;

    /// [`Place::query`] with AVX2.
    #[inline(always)]
    fn query_avx<const K: u32>(
        _: Avx2,
        lines: &[Line],
        blocks: u64,
        s: (u64, u32),
    ) -> bool {
        Self::query::<K>(lines, blocks, s)
    }

    /// [`Place::add`] with AVX2.
    #[inline(always)]
    fn add_avx<const K: u32>(
        _: Avx2,
        lines: &mut [Line],
        blocks: u64,
        s: (u64, u32),
    ) {
        Self::add::<K>(lines, blocks, s);
    }

    /// [`Place::insert`] with AVX2.
    #[inline(always)]
    fn insert_avx<const K: u32>(
        _: Avx2,
        lines: &mut [Line],
        blocks: u64,
        s: (u64, u32),
    ) -> bool {
        Self::insert::<K>(lines, blocks, s)
    }
}

/// [`BlockScheme::Salted`] with one-line (512-bit) blocks. With AVX2,
/// `MASK` sets a key's bits by two ORs of a line-wide mask
/// ([`mask_salted`]) instead of one OR a probe ([`add_salted`]): in
/// batches, and one key at a time in filters of at most
/// [`MASK_MAX_BYTES`].
struct Salted<const MASK: bool>;
/// [`BlockScheme::ParquetSplit`] (`K` is always 8).
struct Parquet;

/// Probe `i`'s bit in a 512-bit line: the top 9 bits of `h · s_i`.
#[inline(always)]
fn position(h: u32, i: usize) -> u32 {
    h.wrapping_mul(BLOCK_SALTS[i]) >> 23
}

impl<const MASK: bool> Place for Salted<MASK> {
    #[inline(always)]
    fn line(lo: u64, blocks: u64) -> usize {
        reduce(lo, blocks) as usize
    }

    #[inline(always)]
    fn query<const K: u32>(
        lines: &[Line],
        blocks: u64,
        (lo, h): (u64, u32),
    ) -> bool {
        let Some(line) = lines.get(Self::line(lo, blocks)) else {
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

    #[inline(always)]
    fn insert<const K: u32>(
        lines: &mut [Line],
        blocks: u64,
        (lo, h): (u64, u32),
    ) -> bool {
        let Some(line) = lines.get_mut(Self::line(lo, blocks)) else {
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

    #[inline(always)]
    fn add<const K: u32>(
        lines: &mut [Line],
        blocks: u64,
        (lo, h): (u64, u32),
    ) {
        let Some(line) = lines.get_mut(Self::line(lo, blocks)) else {
            return;
        };
        for i in 0..K as usize {
            let p = position(h, i);
            line.0[(p >> 6) as usize] |= 1u64 << (p & 63);
        }
    }

    const AVX2: bool = true;

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn query_avx<const K: u32>(
        avx: Avx2,
        lines: &[Line],
        blocks: u64,
        (lo, h): (u64, u32),
    ) -> bool {
        if K > AVX_MAX_K {
            return Self::query::<K>(lines, blocks, (lo, h));
        }
        lines
            .get(Self::line(lo, blocks))
            .is_some_and(|line| test_salted::<K>(avx, &line.0, h))
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn add_avx<const K: u32>(
        avx: Avx2,
        lines: &mut [Line],
        blocks: u64,
        (lo, h): (u64, u32),
    ) {
        if K > AVX_MAX_K {
            return Self::add::<K>(lines, blocks, (lo, h));
        }
        if let Some(line) = lines.get_mut(Self::line(lo, blocks)) {
            if MASK {
                mask_salted::<K>(avx, &mut line.0, h);
            } else {
                add_salted::<K>(avx, &mut line.0, h);
            }
        }
    }

    // A bit changed unless every probe was set before: the vector test,
    // then the vector-made ORs (or the mask's own test).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn insert_avx<const K: u32>(
        avx: Avx2,
        lines: &mut [Line],
        blocks: u64,
        (lo, h): (u64, u32),
    ) -> bool {
        if K > AVX_MAX_K {
            return Self::insert::<K>(lines, blocks, (lo, h));
        }
        let Some(line) = lines.get_mut(Self::line(lo, blocks)) else {
            return false;
        };
        if MASK {
            return mask_salted::<K>(avx, &mut line.0, h);
        }
        let had = test_salted::<K>(avx, &line.0, h);
        add_salted::<K>(avx, &mut line.0, h);
        !had
    }
}

/// Most probes the salted scheme's AVX2 code makes: two registers of
/// eight lanes (`k` = 10 for p = 0.1% takes both).
const AVX_MAX_K: u32 = 16;

/// The salts of probes `8g..8g + 8`, one a lane of an AVX2 register.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const fn salt_lanes(g: usize) -> [u32; 8] {
    let mut s = [0; 8];
    let mut i = 0;
    while i < 8 {
        s[i] = BLOCK_SALTS[8 * g + i];
        i += 1;
    }
    s
}

/// 1 in the lanes of probes `8g..8g + 8` that are below `k`, 0 in the
/// others (a lane of 0 asks for no bit).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const fn probe_lanes(k: u32, g: u32) -> [u32; 8] {
    let mut s = [0; 8];
    let mut i = 0;
    while i < 8 {
        if 8 * g + (i as u32) < k {
            s[i] = 1;
        }
        i += 1;
    }
    s
}

/// The positions of probes `8g..8g + 8` of in-block hash `h`, one a lane
/// (lane `i` is [`position`]`(h, 8g + i)`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn positions(
    v: pulp::x86::V3,
    h: u32,
    g: usize,
) -> core::arch::x86_64::__m256i {
    let salts: core::arch::x86_64::__m256i = pulp::cast(salt_lanes(g));
    let x =
        v.avx2._mm256_mullo_epi32(salts, v.avx._mm256_set1_epi32(h as i32));
    v.avx2._mm256_srli_epi32::<23>(x)
}

/// For probes `8g..8g + 8` below `K` of in-block hash `h`, in a line
/// whose two halves are `lo` and `hi`: each probe's 32-bit word of the
/// line, picked by two permutes and a blend, and its bit (0 in the
/// lanes past `K`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn picked<const K: u32>(
    v: pulp::x86::V3,
    (lo, hi): (core::arch::x86_64::__m256i, core::arch::x86_64::__m256i),
    h: u32,
    g: u32,
) -> (core::arch::x86_64::__m256i, core::arch::x86_64::__m256i) {
    use core::arch::x86_64::{__m256, __m256i};
    let p = positions(v, h, g as usize);
    // The word of a 512-bit line as sixteen 32-bit words (little-endian,
    // so bit `p` of the line is bit `p % 32` of word `p / 32`).
    let word = v.avx2._mm256_srli_epi32::<5>(p);
    let a: __m256 = pulp::cast(v.avx2._mm256_permutevar8x32_epi32(lo, word));
    let b: __m256 = pulp::cast(v.avx2._mm256_permutevar8x32_epi32(hi, word));
    // Bit 3 of the word (the line's upper half) in each lane's sign bit,
    // which the blend reads.
    let upper: __m256 = pulp::cast(v.avx2._mm256_slli_epi32::<28>(word));
    let w: __m256i = pulp::cast(v.avx._mm256_blendv_ps(a, b, upper));
    let bit = v.avx2._mm256_and_si256(p, v.avx._mm256_set1_epi32(31));
    let lanes: __m256i = pulp::cast(probe_lanes(K, g));
    (w, v.avx2._mm256_sllv_epi32(lanes, bit))
}

/// Whether probes `0..K` (`K` ≤ [`AVX_MAX_K`]) of in-block hash `h` are
/// all set in `line`, eight to an AVX2 register ([`picked`]): about 12
/// instructions for eight probes, where the scalar probes take about
/// six each. Measured at n = 1e6 (k = 7, XXH3-128, `contains-member` and
/// `contains-non-member` of `benches/benches/standard.rs`, bench
/// binaries without and with it alternated three times, 2026-11-25):
/// 13.4–15.2 ns a query against 6.1–7.4, sbbf-rs-safe 4.6–5.5 in the
/// same runs; `contains_many` at 1e7 12.0–27.6 (members) and 14.4–33.4
/// (non-members) against 5.4–11.6 and 5.8–7.1.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn test_salted<const K: u32>(avx: Avx2, line: &[u64; 8], h: u32) -> bool {
    use core::arch::x86_64::__m256i;
    let v = avx.0;
    let [lo, hi]: [__m256i; 2] = pulp::cast(*line);
    let (w, m) = picked::<K>(v, (lo, hi), h, 0);
    if K <= 8 {
        return v.avx._mm256_testc_si256(w, m) != 0;
    }
    let (w1, m1) = picked::<K>(v, (lo, hi), h, 1);
    // A lane is non-zero where a probe's bit is missing.
    let missing = v.avx2._mm256_or_si256(
        v.avx2._mm256_andnot_si256(w, m),
        v.avx2._mm256_andnot_si256(w1, m1),
    );
    v.avx._mm256_testz_si256(missing, missing) != 0
}

/// Sets probes `0..K` (`K` ≤ [`AVX_MAX_K`]) of in-block hash `h` in
/// `line`: the positions made eight to an AVX2 register as
/// [`test_salted`] makes them, each bit then set by one OR into its
/// 32-bit word (AVX2 has no scatter). Measured at n = 1e6 (k = 7, bench
/// binaries without and with it alternated three times, 2026-11-25):
/// `build` 12.1–15.0 ns a key against 9.7–10.3, `insert` 12.8–13.7
/// against 10.0–11.7 (sbbf-rs-safe 4.1–5.0 and 4.8–6.3 in the same
/// runs).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn add_salted<const K: u32>(avx: Avx2, line: &mut [u64; 8], h: u32) {
    let v = avx.0;
    let words: &mut [u32; 16] = bytemuck::cast_mut(line);
    for g in 0..K.div_ceil(8) {
        let p = positions(v, h, g as usize);
        let word: [u32; 8] = pulp::cast(v.avx2._mm256_srli_epi32::<5>(p));
        let bit = v.avx2._mm256_and_si256(p, v.avx._mm256_set1_epi32(31));
        let one = v.avx._mm256_set1_epi32(1);
        let mask: [u32; 8] = pulp::cast(v.avx2._mm256_sllv_epi32(one, bit));
        for i in 0..(K - 8 * g).min(8) as usize {
            words[word[i] as usize & 15] |= mask[i];
        }
    }
}

/// Filters of at most this many bytes set a salted key's bits with
/// [`mask_salted`], larger ones with [`add_salted`], one key at a time
/// (batches take the mask at every size: [`batch_by_k`]). The mask takes more
/// instructions a key (about eight a probe against five, all vector),
/// which pays while a line is near, and costs once lines come from the
/// L3 cache or memory: the core's window then holds fewer keys' misses.
/// Measured on the project's machine (2026-11-27, a one-off program
/// inserting n keys at 10 bits a key into the filter and into
/// sbbf-rs-safe's, both builds alternated three times, a design
/// measurement and not a bench): the filter's time ÷ sbbf's at
/// n = 1e6 (1.25 MB) 1.73–1.78 with the mask against 2.00–2.04 without,
/// 2.5 MB 1.80–1.81 against 1.99–2.03, 5 MB 1.71–1.77 against
/// 1.94–2.08, and at 12.5 MB 1.94–2.12 against 1.70–1.81; at 7.5 and
/// 10 MB the host's noise was larger than the difference.
pub(crate) const MASK_MAX_BYTES: u64 = 8 << 20;

/// The bits of probes `0..K` (`K` ≤ [`AVX_MAX_K`]) of in-block hash `h`
/// as a 512-bit line in two AVX2 registers. Each probe's position `p`
/// is broadcast to every lane, and lane `j` of the lower half shifts a 1
/// left by `p − 32j`: a count past 31 (or below 0, seen as unsigned)
/// shifts it out, so only the probe's own 32-bit word keeps its bit.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn salted_mask<const K: u32>(
    v: pulp::x86::V3,
    h: u32,
) -> (core::arch::x86_64::__m256i, core::arch::x86_64::__m256i) {
    let one = v.avx._mm256_set1_epi32(1);
    let low: core::arch::x86_64::__m256i =
        pulp::cast([0u32, 32, 64, 96, 128, 160, 192, 224]);
    let high = v.avx2._mm256_add_epi32(low, v.avx._mm256_set1_epi32(256));
    let (mut lo, mut hi) =
        (v.avx._mm256_setzero_si256(), v.avx._mm256_setzero_si256());
    for g in 0..K.div_ceil(8) {
        let p = positions(v, h, g as usize);
        for i in 0..(K - 8 * g).min(8) {
            let each = v.avx2._mm256_permutevar8x32_epi32(
                p,
                v.avx._mm256_set1_epi32(i as i32),
            );
            let at = |base| {
                let count = v.avx2._mm256_sub_epi32(each, base);
                v.avx2._mm256_sllv_epi32(one, count)
            };
            lo = v.avx2._mm256_or_si256(lo, at(low));
            hi = v.avx2._mm256_or_si256(hi, at(high));
        }
    }
    (lo, hi)
}

/// Sets probes `0..K` (`K` ≤ [`AVX_MAX_K`]) of in-block hash `h` in
/// `line` by ORing [`salted_mask`] into its two halves; whether a bit
/// changed. The bits are [`add_salted`]'s.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mask_salted<const K: u32>(avx: Avx2, line: &mut [u64; 8], h: u32) -> bool {
    use core::arch::x86_64::__m256i;
    let v = avx.0;
    let (m0, m1) = salted_mask::<K>(v, h);
    let [w0, w1]: [__m256i; 2] = pulp::cast(*line);
    // Non-zero where a probe's bit was clear.
    let new = v.avx2._mm256_or_si256(
        v.avx2._mm256_andnot_si256(w0, m0),
        v.avx2._mm256_andnot_si256(w1, m1),
    );
    *line = pulp::cast([
        v.avx2._mm256_or_si256(w0, m0),
        v.avx2._mm256_or_si256(w1, m1),
    ]);
    v.avx._mm256_testz_si256(new, new) == 0
}

impl Place for Parquet {
    #[inline(always)]
    fn line(lo: u64, blocks: u64) -> usize {
        split::place(split::block_of(lo, blocks)).0
    }

    #[inline(always)]
    fn query<const K: u32>(
        lines: &[Line],
        blocks: u64,
        (lo, h): (u64, u32),
    ) -> bool {
        let (line, o) = split::place(split::block_of(lo, blocks));
        lines.get(line).is_some_and(|l| split::test(&l.0, o, h))
    }

    #[inline(always)]
    fn insert<const K: u32>(
        lines: &mut [Line],
        blocks: u64,
        (lo, h): (u64, u32),
    ) -> bool {
        let (line, o) = split::place(split::block_of(lo, blocks));
        lines.get_mut(line).is_some_and(|l| split::set(&mut l.0, o, h))
    }

    #[inline(always)]
    fn add<const K: u32>(lines: &mut [Line], blocks: u64, s: (u64, u32)) {
        Self::insert::<K>(lines, blocks, s);
    }

    const AVX2: bool = true;

    // Blocks are addressed directly, as half lines: one shift from the
    // block index to the address.
    #[inline(always)]
    fn query_avx<const K: u32>(
        avx: Avx2,
        lines: &[Line],
        blocks: u64,
        (lo, h): (u64, u32),
    ) -> bool {
        let halves: &[[u64; 4]] = bytemuck::cast_slice(lines);
        let b = split::block_of(lo, blocks) as usize;
        halves.get(b).is_some_and(|block| avx.test(block, h))
    }

    // A split block's bits are one OR, whose answer costs nothing.
    #[inline(always)]
    fn add_avx<const K: u32>(
        avx: Avx2,
        lines: &mut [Line],
        blocks: u64,
        s: (u64, u32),
    ) {
        Self::insert_avx::<K>(avx, lines, blocks, s);
    }

    #[inline(always)]
    fn insert_avx<const K: u32>(
        avx: Avx2,
        lines: &mut [Line],
        blocks: u64,
        (lo, h): (u64, u32),
    ) -> bool {
        let halves: &mut [[u64; 4]] = bytemuck::cast_slice_mut(lines);
        let b = split::block_of(lo, blocks) as usize;
        halves.get_mut(b).is_some_and(|block| avx.set(block, h))
    }
}

fn key_query<H: Split, P: Place, const K: u32>(
    seed: u64,
    lines: &[Line],
    blocks: u64,
    key: &[u8],
) -> bool {
    P::query::<K>(lines, blocks, H::split(seed, key))
}

fn key_insert<H: Split, P: Place, const K: u32>(
    seed: u64,
    lines: &mut [Line],
    blocks: u64,
    key: &[u8],
) -> bool {
    P::insert::<K>(lines, blocks, H::split(seed, key))
}

fn key_add<H: Split, P: Place, const K: u32>(
    seed: u64,
    lines: &mut [Line],
    blocks: u64,
    key: &[u8],
) {
    P::add::<K>(lines, blocks, H::split(seed, key));
}

fn word_query<H: Split, P: Place, const K: u32>(
    lines: &[Line],
    seed: u64,
    key: u64,
    blocks: u64,
    _: Simd,
) -> bool {
    P::query::<K>(lines, blocks, H::split_word(seed, key))
}

fn word_insert<H: Split, P: Place, const K: u32>(
    lines: &mut [Line],
    seed: u64,
    key: u64,
    blocks: u64,
    _: Simd,
) -> bool {
    P::insert::<K>(lines, blocks, H::split_word(seed, key))
}

fn word_add<H: Split, P: Place, const K: u32>(
    lines: &mut [Line],
    seed: u64,
    key: u64,
    blocks: u64,
    _: Simd,
) {
    P::add::<K>(lines, blocks, H::split_word(seed, key));
}

/// The split of `key`, through its one-word form where it has one.
#[inline(always)]
fn split_key<H: Split, T: Funnel>(seed: u64, key: &T) -> (u64, u32) {
    match key.as_le_word() {
        Some(w) => H::split_word(seed, w),
        None => key.with_bytes(|b| H::split(seed, b)),
    }
}

/// Hashes `keys` (at most [`ROUND_BATCH`]) into `splits` and prefetches
/// each key's line, so that the batch's misses are in flight together,
/// not only the few whose queries fit in the core's out-of-order window.
#[inline(always)]
fn hash_batch<H: Split, P: Place, T: Funnel>(
    seed: u64,
    lines: &[Line],
    blocks: u64,
    keys: &[T],
    splits: &mut [(u64, u32); ROUND_BATCH],
) {
    for (s, key) in splits.iter_mut().zip(keys) {
        *s = split_key::<H, T>(seed, key);
        if let Some(line) = lines.get(P::line(s.0, blocks)) {
            bloomlab_core::prefetch_l2(&line.0, 0);
        }
    }
}

/// `contains` for each key into `out`, [`ROUND_BATCH`] keys at a time
/// ([`hash_batch`], then the tests). A scheme with AVX2 code runs the
/// whole loop compiled for it, on a CPU that has it: one dispatch a
/// call, not one a key.
fn contains_many<H: Split, P: Place, const K: u32, T: Funnel>(
    seed: u64,
    lines: &[Line],
    blocks: u64,
    keys: &[T],
    out: &mut [bool],
    simd: Simd,
) {
    if !P::AVX2 {
        return contains_loop::<H, P, T>(
            seed,
            lines,
            blocks,
            keys,
            out,
            |l, s| P::query::<K>(l, blocks, s),
        );
    }
    simd.run(
        (lines, keys, out),
        #[inline(always)]
        move |avx, (lines, keys, out)| {
            contains_loop::<H, P, T>(seed, lines, blocks, keys, out, |l, s| {
                P::query_avx::<K>(avx, l, blocks, s)
            })
        },
        move |(lines, keys, out)| {
            contains_loop::<H, P, T>(seed, lines, blocks, keys, out, |l, s| {
                P::query::<K>(l, blocks, s)
            })
        },
    );
}

/// The loop of [`contains_many`], testing each key with `test`.
#[inline(always)]
fn contains_loop<H: Split, P: Place, T: Funnel>(
    seed: u64,
    lines: &[Line],
    blocks: u64,
    keys: &[T],
    out: &mut [bool],
    test: impl Fn(&[Line], (u64, u32)) -> bool,
) {
    let mut splits = [(0u64, 0u32); ROUND_BATCH];
    for (chunk, outs) in
        keys.chunks(ROUND_BATCH).zip(out.chunks_mut(ROUND_BATCH))
    {
        let n = chunk.len().min(outs.len());
        hash_batch::<H, P, T>(seed, lines, blocks, &chunk[..n], &mut splits);
        for (&s, o) in splits[..n].iter().zip(&mut outs[..n]) {
            *o = test(lines, s);
        }
    }
}

/// `insert` of each key, [`ROUND_BATCH`] keys at a time ([`hash_batch`],
/// then the bits); returns how many inserts changed a bit. AVX2 as in
/// [`contains_many`].
fn insert_many<H: Split, P: Place, const K: u32, T: Funnel>(
    seed: u64,
    lines: &mut [Line],
    blocks: u64,
    keys: &[T],
    simd: Simd,
) -> usize {
    if !P::AVX2 {
        return insert_loop::<H, P, T>(seed, lines, blocks, keys, |l, s| {
            P::insert::<K>(l, blocks, s)
        });
    }
    simd.run(
        (lines, keys),
        #[inline(always)]
        move |avx, (lines, keys)| {
            insert_loop::<H, P, T>(seed, lines, blocks, keys, |l, s| {
                P::insert_avx::<K>(avx, l, blocks, s)
            })
        },
        move |(lines, keys)| {
            insert_loop::<H, P, T>(seed, lines, blocks, keys, |l, s| {
                P::insert::<K>(l, blocks, s)
            })
        },
    )
}

/// The loop of [`insert_many`], setting each key's bits with `set`.
#[inline(always)]
fn insert_loop<H: Split, P: Place, T: Funnel>(
    seed: u64,
    lines: &mut [Line],
    blocks: u64,
    keys: &[T],
    set: impl Fn(&mut [Line], (u64, u32)) -> bool,
) -> usize {
    let mut splits = [(0u64, 0u32); ROUND_BATCH];
    let mut changed = 0;
    for chunk in keys.chunks(ROUND_BATCH) {
        hash_batch::<H, P, T>(seed, lines, blocks, chunk, &mut splits);
        for &s in &splits[..chunk.len()] {
            changed += usize::from(set(lines, s));
        }
    }
    changed
}

/// `fn(seed, lines, blocks, keys, out, simd)`: `contains` of each key
/// into `out`.
pub(crate) type ContainsManyFn<T> =
    fn(u64, &[Line], u64, &[T], &mut [bool], Simd);
/// `fn(seed, lines, blocks, keys, simd)`: `insert` of each key; how many
/// changed a bit.
pub(crate) type InsertManyFn<T> =
    fn(u64, &mut [Line], u64, &[T], Simd) -> usize;

/// A blocked filter's batch loops for keys of type `T`, monomorphic in
/// the hash, the scheme and `k` as the kernels are.
pub(crate) struct Batch<T> {
    pub(crate) contains: ContainsManyFn<T>,
    pub(crate) insert: InsertManyFn<T>,
}

/// [`Batch`] of hash `H` and the salted scheme, for `k` up to 16. Its
/// inserts set a key's bits with [`mask_salted`] whatever the filter's
/// size: a batch prefetches its lines before it sets any, so the mask's
/// instructions no longer stand between misses (see [`MASK_MAX_BYTES`]).
/// Measured on the project's machine (2026-11-27, n = 1e7, 12.5 MB,
/// `insert_many` of all keys, the filter's time ÷ the split blocks'
/// `insert_many` in the same process, builds with and without alternated
/// three times, a design measurement): 2.09–2.20 with the mask against
/// 2.44–2.47 with one OR a probe (9.1–9.6 against 10.6–10.8 ns a key).
fn batch_by_k<H: Split, T: Funnel>(k: u32) -> Option<Batch<T>> {
    macro_rules! arms {
        ($($n:literal)*) => {
            match k {
                $($n => Some(batch_of::<H, Salted<true>, $n, T>()),)*
                _ => None,
            }
        };
    }
    arms!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

fn batch_of<H: Split, P: Place, const K: u32, T: Funnel>() -> Batch<T> {
    Batch {
        contains: contains_many::<H, P, K, T>,
        insert: insert_many::<H, P, K, T>,
    }
}

/// [`Batch`] of hash `H` for a filter of this shape and scheme.
fn batch_for<H: Split, T: Funnel>(
    (block_bits, k, scheme, _): Shape,
) -> Option<Batch<T>> {
    match scheme {
        BlockScheme::Salted if block_bits == 512 => batch_by_k::<H, T>(k),
        BlockScheme::ParquetSplit => Some(batch_of::<H, Parquet, 8, T>()),
        BlockScheme::Salted => None,
    }
}

/// A blocked filter's `(block bits, k, scheme, bytes of bits)`: what
/// its kernels are chosen by.
pub(crate) type Shape = (u64, u32, BlockScheme, u64);

/// The batch loops of a blocked filter, for the configurations that have
/// kernels ([`for_config`]).
pub(crate) fn batch<T: Funnel>(
    family: Family,
    shape: Shape,
) -> Option<Batch<T>> {
    match family {
        Family::Xxh3_64 => batch_for::<X64, T>(shape),
        Family::Xxh3_128 => batch_for::<X128, T>(shape),
        Family::Fold128 => batch_for::<Fold, T>(shape),
        _ => None,
    }
}

/// Both kernels of hash `H`, scheme `P` and `k = K`.
fn kernels<H: Split, P: Place, const K: u32>() -> BlockedKernels {
    Kernels {
        bytes: Kernel {
            query: key_query::<H, P, K>,
            insert: key_insert::<H, P, K>,
            add: key_add::<H, P, K>,
        },
        word: Kernel {
            query: word_query::<H, P, K>,
            insert: word_insert::<H, P, K>,
            add: word_add::<H, P, K>,
        },
    }
}

/// [`kernels`] of the salted scheme: with `k` up to [`AVX_MAX_K`] the
/// one-word loops make their probes in AVX2 registers where the CPU has
/// it.
fn salted_kernels<H: Split, const K: u32>(mask: bool) -> BlockedKernels {
    let mut kernels = kernels::<H, Salted<false>, K>();
    if K <= AVX_MAX_K {
        kernels.word = if mask {
            avx_word_kernel::<H, Salted<true>, K>()
        } else {
            avx_word_kernel::<H, Salted<false>, K>()
        };
    }
    kernels
}

/// The one-word loops of scheme `P` that test for AVX2 and jump into code
/// compiled for it ([`query_word`], [`insert_word`], [`add_word`]).
fn avx_word_kernel<H: Split, P: Place, const K: u32>()
-> Kernel<QueryWordFn, InsertWordFn, AddWordFn> {
    Kernel {
        query: query_word::<H, P, K>,
        insert: insert_word::<H, P, K>,
        add: add_word::<H, P, K>,
    }
}

/// `Some(salted_kernels::<H, k>(mask))` for `k` up to 16, else `None`.
macro_rules! by_k {
    ($k:expr, $h:ty, $mask:expr) => {
        by_k!(@arms $k, $h, $mask; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    };
    (@arms $k:expr, $h:ty, $mask:expr; $($n:literal)*) => {
        match $k {
            $($n => Some(salted_kernels::<$h, $n>($mask)),)*
            _ => None,
        }
    };
}

/// The kernels of hash `H` for a filter of this shape and scheme.
fn kernels_for<H: Split>(
    (block_bits, k, scheme, bytes): Shape,
) -> Option<BlockedKernels> {
    match scheme {
        BlockScheme::Salted if block_bits == 512 => {
            by_k!(k, H, bytes <= MASK_MAX_BYTES)
        }
        BlockScheme::ParquetSplit => Some(split_kernels::<H>()),
        BlockScheme::Salted => None,
    }
}

/// The kernels of a blocked filter, if its configuration has them: an
/// XXH3 or fold family (XXH3-64 with seed 0 without the test for it), and
/// blocks of one line with `k` up to 16 (salted scheme) or Parquet's split
/// blocks.
pub(crate) fn for_config(
    family: Family,
    seed: u64,
    shape: Shape,
) -> Option<BlockedKernels> {
    match family {
        Family::Xxh3_64 if seed == 0 => kernels_for::<X64Unseeded>(shape),
        Family::Xxh3_64 => kernels_for::<X64>(shape),
        Family::Xxh3_128 => kernels_for::<X128>(shape),
        Family::Fold128 => kernels_for::<Fold>(shape),
        _ => None,
    }
}

/// The kernels of Parquet's split blocks with hash `H`: the one-word
/// loops test for AVX2 and jump into code compiled for it, so a key costs
/// one predicted indirect call, as `sbbf-rs-safe`'s `dyn` dispatch does.
/// A `match` on the hash at every key (the design this replaced) kept
/// `contains` too large to inline into callers' loops: queries at 1e6
/// took 8.3 ns against 7.4 with the pointer, and 7.0 once the arguments
/// came in the AVX2 code's order and blocks were addressed as half
/// lines (`benches/benches/standard.rs`, sbbf-rs-safe 6.4–6.6 in the
/// same runs, 2026-11-24).
fn split_kernels<H: Split>() -> BlockedKernels {
    let mut kernels = kernels::<H, Parquet, 8>();
    kernels.word = avx_word_kernel::<H, Parquet, 8>();
    kernels
}

/// `split_word` of XXH3-64 with seed 0, without the test for it.
struct X64Unseeded;

impl Split for X64Unseeded {
    #[inline(always)]
    fn split(_: u64, key: &[u8]) -> (u64, u32) {
        X64::split(0, key)
    }

    #[inline(always)]
    fn split_word(_: u64, key: u64) -> (u64, u32) {
        let h = xxhash_rust::xxh3::xxh3_64(&key.to_le_bytes());
        (h, h as u32)
    }
}

/// The one-word query of scheme `P`: AVX2 where the CPU has it.
fn query_word<H: Split, P: Place, const K: u32>(
    lines: &[Line],
    seed: u64,
    key: u64,
    blocks: u64,
    simd: Simd,
) -> bool {
    simd.run(
        lines,
        #[inline(always)]
        move |avx, lines| {
            let s = H::split_word(seed, key);
            P::query_avx::<K>(avx, lines, blocks, s)
        },
        move |lines| query_word_sse2::<H, P, K>(seed, lines, blocks, key),
    )
}

/// The query without AVX2, out of line: the AVX2 path is the one kept
/// small enough to inline.
#[inline(never)]
fn query_word_sse2<H: Split, P: Place, const K: u32>(
    seed: u64,
    lines: &[Line],
    blocks: u64,
    key: u64,
) -> bool {
    P::query::<K>(lines, blocks, H::split_word(seed, key))
}

/// The one-word `insert` of scheme `P`: AVX2 where the CPU has it.
fn insert_word<H: Split, P: Place, const K: u32>(
    lines: &mut [Line],
    seed: u64,
    key: u64,
    blocks: u64,
    simd: Simd,
) -> bool {
    simd.run(
        lines,
        #[inline(always)]
        move |avx, lines| {
            let s = H::split_word(seed, key);
            P::insert_avx::<K>(avx, lines, blocks, s)
        },
        move |lines| insert_word_sse2::<H, P, K>(seed, lines, blocks, key),
    )
}

/// The one-word `add` of scheme `P`: AVX2 where the CPU has it.
fn add_word<H: Split, P: Place, const K: u32>(
    lines: &mut [Line],
    seed: u64,
    key: u64,
    blocks: u64,
    simd: Simd,
) {
    simd.run(
        lines,
        #[inline(always)]
        move |avx, lines| {
            let s = H::split_word(seed, key);
            P::add_avx::<K>(avx, lines, blocks, s);
        },
        move |lines| add_word_sse2::<H, P, K>(seed, lines, blocks, key),
    );
}

/// The `add` without AVX2, out of line (see [`query_word_sse2`]).
#[inline(never)]
fn add_word_sse2<H: Split, P: Place, const K: u32>(
    seed: u64,
    lines: &mut [Line],
    blocks: u64,
    key: u64,
) {
    P::add::<K>(lines, blocks, H::split_word(seed, key));
}

/// The insert without AVX2, out of line (see [`query_word_sse2`]).
#[inline(never)]
fn insert_word_sse2<H: Split, P: Place, const K: u32>(
    seed: u64,
    lines: &mut [Line],
    blocks: u64,
    key: u64,
) -> bool {
    P::insert::<K>(lines, blocks, H::split_word(seed, key))
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// The salted scheme's AVX2 paths, with and without the line-wide
    /// mask, against its scalar probes on one line: the same answer to
    /// `query`, the same words after `add`, the same words and answer
    /// after `insert`. Returns the answer.
    fn agree<const K: u32>(avx: Avx2, line: &[u64; 8], h: u32) -> bool {
        let answer = agree_as::<K, false>(avx, line, h);
        assert_eq!(agree_as::<K, true>(avx, line, h), answer);
        answer
    }

    fn agree_as<const K: u32, const MASK: bool>(
        avx: Avx2,
        line: &[u64; 8],
        h: u32,
    ) -> bool {
        type Scalar = Salted<false>;
        let s = (0, h);
        let scalar = [Line(*line)];
        let answer = Scalar::query::<K>(&scalar, 1, s);
        assert_eq!(Salted::<MASK>::query_avx::<K>(avx, &scalar, 1, s), answer);
        let (mut a, mut b) = ([Line(*line)], [Line(*line)]);
        Salted::<MASK>::add_avx::<K>(avx, &mut a, 1, s);
        Scalar::add::<K>(&mut b, 1, s);
        assert_eq!(a[0].0, b[0].0, "add, k = {K}, mask {MASK}, h = {h:#x}");
        let (mut a, mut b) = ([Line(*line)], [Line(*line)]);
        let changed = Scalar::insert::<K>(&mut b, 1, s);
        let avx_changed = Salted::<MASK>::insert_avx::<K>(avx, &mut a, 1, s);
        assert_eq!(avx_changed, changed, "k = {K}, mask {MASK}, h = {h:#x}");
        assert_eq!(a[0].0, b[0].0, "insert, k = {K}, mask {MASK}, h = {h:#x}");
        assert_eq!(changed, !answer);
        answer
    }

    /// [`agree`] for every `k` the AVX2 paths serve, on lines that hold
    /// every probe, all but one, none, and random bits.
    #[test]
    fn salted_avx2_paths_match_the_scalar_probes() {
        // Without AVX2 there is no vector path to compare.
        let Some(avx) = pulp::x86::V3::try_new().map(Avx2) else {
            return;
        };
        let each_k = |k: u32, line: &[u64; 8], h: u32| -> bool {
            macro_rules! arms {
                ($($n:literal)*) => {
                    match k {
                        $($n => agree::<$n>(avx, line, h),)*
                        _ => unreachable!("k is 1 to 16"),
                    }
                };
            }
            arms!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
        };
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state
        };
        let mut answers = [0usize; 2];
        for k in 1..=AVX_MAX_K {
            for _ in 0..3_000 {
                let h = (next() >> 32) as u32;
                assert!(!each_k(k, &[0; 8], h), "k = {k}, h = {h:#x}");
                let mut line = [0u64; 8];
                for i in 0..k as usize {
                    let p = position(h, i);
                    line[(p >> 6) as usize] |= 1 << (p & 63);
                }
                assert!(each_k(k, &line, h), "k = {k}, h = {h:#x}");
                // Each probe's bit alone missing.
                for i in 0..k as usize {
                    let p = position(h, i);
                    let mut without = line;
                    without[(p >> 6) as usize] &= !(1 << (p & 63));
                    each_k(k, &without, h);
                }
                // Dense random bits (about 3/4 set), so both answers occur.
                let random = line.map(|_| next() | next());
                answers[usize::from(each_k(k, &random, h))] += 1;
            }
        }
        // Both answers came up, or the random lines tested nothing.
        assert!(answers.iter().all(|&n| n > 1_000), "{answers:?}");
    }
}

#[cfg(test)]
mod threshold_tests {
    use super::MASK_MAX_BYTES;
    use crate::BlockedBloomFilter;
    use bloomlab_hash::Family;

    /// Filters at [`MASK_MAX_BYTES`] (whose one-key paths set bits with
    /// the line-wide mask where the CPU has AVX2) and one line past it
    /// (one OR a probe; `insert_many` takes the mask at both sizes):
    /// one-word `insert`, `add` and `insert_many` each set the bits of
    /// [`BlockedBloomFilter::positions`], and `insert` answers whether
    /// the key was new.
    #[test]
    fn both_sides_of_the_mask_threshold_set_the_positions() {
        let keys: Vec<u64> = (0..3_000u64).map(|i| i * 0x9e37_79b9).collect();
        for bytes in [MASK_MAX_BYTES, MASK_MAX_BYTES + 64] {
            for (family, k) in [(Family::Xxh3_64, 7), (Family::Xxh3_128, 10)] {
                let empty = BlockedBloomFilter::with_config(
                    family,
                    0,
                    bytes * 8,
                    k,
                    512,
                )
                .unwrap();
                let mut want = vec![0u64; (bytes / 8) as usize];
                for key in &keys {
                    for p in empty.positions(key) {
                        want[(p / 64) as usize] |= 1 << (p % 64);
                    }
                }
                let (mut a, mut b, mut c) =
                    (empty.clone(), empty.clone(), empty.clone());
                for key in &keys {
                    assert!(a.insert(key), "{bytes} {family} k={k}");
                    assert!(!a.insert(key), "{bytes} {family} k={k}");
                    b.add(key);
                }
                assert_eq!(c.insert_many(&keys), keys.len());
                for f in [&a, &b, &c] {
                    assert!(f.words().eq(want.iter().copied()), "{bytes} {k}");
                }
            }
        }
    }
}
