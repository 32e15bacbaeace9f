//! MurmurHash3 (Austin Appleby), exactly as Guava computes it.
//!
//! Two variants: `x64_128` (Guava's `Hashing.murmur3_128`, the hash behind
//! every Guava Bloom filter) and `x86_32` (Guava's `murmur3_32_fixed`).
//! Guava differs from the reference C code in one place that matters for
//! interop: it **sign-extends** its `int` seed into both 64-bit lanes of
//! `x64_128`, so seed -1 starts with `h1 = h2 = 0xFFFF_FFFF_FFFF_FFFF`
//! while the C code zero-extends. [`x64_128`] takes the seed as Guava's
//! Java `int` (`i32`).
//!
//! Guava's deprecated `murmur3_32()` also hashes strings with a fast path
//! that mishandles supplementary (non-BMP) characters; [`guava_legacy_x86_32_str`]
//! reproduces that bug so old Guava-built values can be matched.
//!
//! Why not the `murmur3` crate: its API reads from `std::io::Read`, which
//! costs a cursor and a copy per call on short keys, and it zero-extends
//! the seed. The benchmarks (`cargo bench -p bloomlab-benches --bench
//! hash`) measure both; the tests check both agree on non-negative seeds.
//!
//! ```
//! use bloomlab_hash::murmur3;
//!
//! // Guava: Hashing.murmur3_128().hashString("hello", UTF_8).asLong()
//! let (h1, _h2) = murmur3::x64_128(b"hello", 0);
//! assert_eq!(h1 as i64, -3758069500696749310);
//! ```

const C1_128: u64 = 0x87c3_7b91_1142_53d5;
const C2_128: u64 = 0x4cf5_ad43_2745_937f;

#[inline(always)]
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

#[inline(always)]
fn mix_k1_128(k1: u64) -> u64 {
    k1.wrapping_mul(C1_128).rotate_left(31).wrapping_mul(C2_128)
}

#[inline(always)]
fn mix_k2_128(k2: u64) -> u64 {
    k2.wrapping_mul(C2_128).rotate_left(33).wrapping_mul(C1_128)
}

/// Reads up to 8 bytes little-endian, zero-padded.
#[inline(always)]
fn le_tail(b: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    let n = b.len().min(8);
    buf[..n].copy_from_slice(&b[..n]);
    u64::from_le_bytes(buf)
}

/// MurmurHash3_x64_128 with Guava's seeding: the `int` seed is
/// sign-extended into both lanes. Returns `(h1, h2)`; Guava's `asBytes()`
/// is `h1` then `h2`, each little-endian, and `asLong()` is `h1`.
#[inline]
pub fn x64_128(data: &[u8], seed: i32) -> (u64, u64) {
    let lane = i64::from(seed) as u64;
    let (mut h1, mut h2) = (lane, lane);
    let mut blocks = data.chunks_exact(16);
    for b in &mut blocks {
        let (lo, hi) = b.split_at(8);
        let k1 = le_tail(lo);
        let k2 = le_tail(hi);
        h1 ^= mix_k1_128(k1);
        h1 = h1.rotate_left(27).wrapping_add(h2);
        h1 = h1.wrapping_mul(5).wrapping_add(0x52dc_e729);
        h2 ^= mix_k2_128(k2);
        h2 = h2.rotate_left(31).wrapping_add(h1);
        h2 = h2.wrapping_mul(5).wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    if tail.len() > 8 {
        h2 ^= mix_k2_128(le_tail(&tail[8..]));
    }
    if !tail.is_empty() {
        h1 ^= mix_k1_128(le_tail(tail));
    }
    finish_128(h1, h2, data.len() as u64)
}

/// x64_128's finalisation of the two lanes for an input of `len` bytes.
#[inline(always)]
fn finish_128(mut h1: u64, mut h2: u64, len: u64) -> (u64, u64) {
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}

/// [`x64_128`] of the eight little-endian bytes of `w` (Guava's
/// `putLong`, or `Funnels.longFunnel()`), with the block loop and the
/// tail's byte copy gone: an 8-byte key is a tail of one word.
///
/// ```
/// use bloomlab_hash::murmur3::{x64_128, x64_128_word};
///
/// let w = 0x0102_0304_0506_0708u64;
/// assert_eq!(x64_128_word(w, 0), x64_128(&w.to_le_bytes(), 0));
/// assert_eq!(x64_128_word(w, -7), x64_128(&w.to_le_bytes(), -7));
/// ```
#[inline(always)]
pub fn x64_128_word(w: u64, seed: i32) -> (u64, u64) {
    let lane = i64::from(seed) as u64;
    finish_128(lane ^ mix_k1_128(w), lane, 8)
}

const C1_32: u32 = 0xcc9e_2d51;
const C2_32: u32 = 0x1b87_3593;

#[inline(always)]
fn mix_k1_32(k1: u32) -> u32 {
    k1.wrapping_mul(C1_32).rotate_left(15).wrapping_mul(C2_32)
}

#[inline(always)]
fn mix_h1_32(h1: u32, k1: u32) -> u32 {
    (h1 ^ k1).rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64)
}

#[inline(always)]
fn fmix32(mut h: u32, len: u32) -> u32 {
    h ^= len;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// MurmurHash3_x86_32 (Guava's `murmur3_32_fixed`, and the reference C
/// code: a 32-bit seed has no sign to extend). Guava's `asInt()` is the
/// returned value as `i32`.
#[inline]
pub fn x86_32(data: &[u8], seed: u32) -> u32 {
    let mut h1 = seed;
    let mut blocks = data.chunks_exact(4);
    for b in &mut blocks {
        let k1 = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        h1 = mix_h1_32(h1, mix_k1_32(k1));
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        h1 ^= mix_k1_32(le_tail(tail) as u32);
    }
    // Java hashes lengths as int: the length wraps past 2^32 bytes too.
    fmix32(h1, data.len() as u32)
}

/// Guava's `Murmur3_32HashFunction.hashString(s, UTF_8)`, with
/// `fixed = true` for `murmur3_32_fixed()` and `fixed = false` for the
/// deprecated `murmur3_32()`.
///
/// The fixed form equals [`x86_32`] of the UTF-8 bytes. The legacy form
/// differs on strings with a supplementary (non-BMP) character: its fast
/// path packs the character's four UTF-8 bytes into the buffer without
/// advancing the buffer's shift, so the next bytes are OR-ed over them
/// while the length still counts all four.
pub fn guava_x86_32_str(s: &str, seed: u32, fixed: bool) -> u32 {
    let mut h1 = seed;
    let mut len: u32 = 0;
    let mut buffer: u64 = 0;
    let mut shift: u32 = 0;
    for ch in s.chars() {
        let mut utf8 = [0u8; 4];
        let bytes = ch.encode_utf8(&mut utf8).as_bytes();
        let packed = le_tail(bytes);
        buffer |= packed << shift;
        let n = bytes.len() as u32;
        // The legacy code forgot to advance the shift for 4-byte sequences.
        if n < 4 || fixed {
            shift += 8 * n;
        }
        len = len.wrapping_add(n);
        if shift >= 32 {
            h1 = mix_h1_32(h1, mix_k1_32(buffer as u32));
            buffer >>= 32;
            shift -= 32;
        }
    }
    h1 ^= mix_k1_32(buffer as u32);
    fmix32(h1, len)
}

/// Guava's deprecated `Hashing.murmur3_32(seed).hashString(s, UTF_8)`,
/// bug for bug (see [`guava_x86_32_str`]).
pub fn guava_legacy_x86_32_str(s: &str, seed: u32) -> u32 {
    guava_x86_32_str(s, seed, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_string_path_is_the_utf8_bytes() {
        for s in ["", "a", "abcd", "héllo wörld", "東京", "🦀x", "a🦀bc🦀"]
        {
            assert_eq!(guava_x86_32_str(s, 7, true), x86_32(s.as_bytes(), 7));
        }
        // And the legacy path only differs once a non-BMP char appears.
        assert_eq!(
            guava_legacy_x86_32_str("héllo", 0),
            x86_32("héllo".as_bytes(), 0)
        );
    }
}
