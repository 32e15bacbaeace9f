//! `fold-128` and `fold-64`: bloomlab's own folded-multiply hashes: for
//! keys of up to 16 bytes, two (`fold-128`) or one (`fold-64`)
//! 64×64→128-bit multiplies and a few logic instructions.
//!
//! The folded multiply `fold(a, b) = lo(a·b) ⊕ hi(a·b)` is the mixing
//! step of wyhash, ahash and foldhash; fastbloom hashes with foldhash. On
//! a filter past the L2 cache a query waits on memory, and every
//! instruction of the hash keeps other queries out of the core's window
//! (`benches/benches/window.rs`): compiled for x86-64, XXH3-128 of an
//! 8-byte key is 23 instructions and this 15 (four of them loading
//! constants), and the low half, where a filter's first probe comes
//! from, is ready after one multiply. foldhash itself is not used
//! because its output may change between versions and platforms (its
//! documentation says so); this function is fixed here, for every
//! platform, so saved filters keep their meaning.
//!
//! # Definition
//!
//! With `len` the key's length, `le` little-endian reads and `P0..P3` the
//! first four 64-bit words of π's fraction (Blowfish's P-array):
//!
//! * `(a, b)` is `(le64(key[..8]), le64(key[len-8..]))` for `8 ≤ len ≤ 16`,
//!   `(le32(key[..4]), le32(key[len-4..]))` for `4 ≤ len < 8`,
//!   `(key[0], key[len-1]·256 + key[len/2])` for `1 ≤ len < 4`, `(0, 0)`
//!   for the empty key, and `(xxh3-64(key, seed), len)` for `len > 16`;
//! * `s0 = a ⊕ rotr(seed ⊕ P0, len mod 64)` and `s1 = rotl(b, 32) ⊕ P1`;
//! * the digest is `lo = fold(s0, s1)`, `hi = fold(lo ⊕ P2, s1 ⊕ P3)`.
//!
//! `fold-64` is `lo` alone: the first half of `fold-128`, one multiply.
//! A filter needs a second value to step its probes by; for `fold-64` the
//! standard, counting and partitioned filters take [`fold64_step`],
//! `rotl(lo, 32) ⊕ C` with `C = ⌊P0 / 2^33⌋` (π's first 31 bits, an
//! immediate operand): two instructions where
//! `fold-128`'s `hi` costs a second multiply and SplitMix64's mix of a
//! 64-bit hash two. Multiply-shift reads a value's high bits, so probe 0
//! reads `lo`'s high half and the steps add its low half, bits probe 0
//! did not read. The constant is there for modulo reduction: without it
//! `lo + rotl(lo, 32)` has two nearly equal halves, and double hashing of
//! short text keys modulo 1,000 was 8 sd from uniform (chi-square,
//! `crates/hash/tests`); with it, within 2 sd for three kinds of key
//! under both reductions and both double-hashing schemes (measured once,
//! outside the tests). Scalable chains keep SplitMix64's mix for every
//! 64-bit family: their blocked layers read every byte of the step, and
//! the rotation's low bytes are the high bits their block came from. In a filter of
//! 10^6 keys at p = 1% (sequential, strided and random keys, 4·10^6
//! queries each) its false-positive rates were within 1 sd of the
//! formula; the standard filters' formula tests keep it there. At
//! n = 10^6 a key's build, insert and queries took 5–7% less than with
//! `fold-128` (`benches/NOTEBOOK.md`, "The fold families": the blocks of
//! 2026-11-27 14:08 and 16:18 UTC), and the hash alone 2.46 ns against
//! 3.00 through [`crate::Hasher`]; 64 bits against 128 only matter past
//! about 2^32 keys in one filter.
//!
//! # Caveat
//!
//! Its constants are public, so anyone can choose keys that collide (a
//! factor of 0 folds to 0 whatever the other), and a secret seed does
//! not prevent it: one factor of the last fold comes from the key's last
//! word and the constants alone, so every key of 9 to 16 bytes ending in
//! the 8 bytes that zero it hashes alike under every seed. Use it only
//! for keys nobody picks against you; for keys from outside, use a keyed
//! hash (`siphash-1-3` with a secret seed). The families of the standard
//! filters' formula tests include it (`crates/standard/tests`), with
//! random, sequential and strided keys.

/// π's fraction, the first four 64-bit words.
const P: [u64; 4] = [
    0x243f_6a88_85a3_08d3,
    0x1319_8a2e_0370_7344,
    0xa409_3822_299f_31d0,
    0x082e_fa98_ec4e_6c89,
];

/// `lo(a·b) ⊕ hi(a·b)` of the full 128-bit product.
#[inline(always)]
const fn fold(a: u64, b: u64) -> u64 {
    let p = (a as u128) * (b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

/// The digest `(lo, hi)` of the inputs `(a, b)` of a key of `len` bytes.
#[inline(always)]
fn finish(a: u64, b: u64, len: usize, seed: u64) -> (u64, u64) {
    let (lo, s1) = first(a, b, len, seed);
    (lo, fold(lo ^ P[2], s1 ^ P[3]))
}

/// `(lo, s1)`: the digest's low half (all of `fold-64`) and the second
/// factor, which `hi` reuses.
#[inline(always)]
fn first(a: u64, b: u64, len: usize, seed: u64) -> (u64, u64) {
    // `len mod 64`: `rotate_right` takes the count modulo the width.
    let s0 = a ^ (seed ^ P[0]).rotate_right(len as u32);
    let s1 = b.rotate_left(32) ^ P[1];
    (fold(s0, s1), s1)
}

/// The little-endian `u64` of 8 bytes.
#[inline(always)]
fn le64(b: &[u8; 8]) -> u64 {
    u64::from_le_bytes(*b)
}

/// `fold-128` of `key` with `seed`: `(lo, hi)`.
///
/// ```
/// use bloomlab_hash::fold::{fold128, fold128_word};
///
/// let (lo, hi) = fold128(b"item-0", 0);
/// assert_ne!(lo, hi);
/// // A one-word key is its eight little-endian bytes.
/// assert_eq!(fold128_word(7, 1), fold128(&7u64.to_le_bytes(), 1));
/// ```
#[inline]
pub fn fold128(key: &[u8], seed: u64) -> (u64, u64) {
    let (a, b) = inputs(key, seed);
    finish(a, b, key.len(), seed)
}

/// `fold-64` of `key` with `seed`: [`fold128`]'s `lo`, without `hi`.
///
/// ```
/// use bloomlab_hash::fold::{fold64, fold64_word, fold128};
///
/// assert_eq!(fold64(b"item-0", 3), fold128(b"item-0", 3).0);
/// assert_eq!(fold64_word(7, 1), fold64(&7u64.to_le_bytes(), 1));
/// ```
#[inline]
pub fn fold64(key: &[u8], seed: u64) -> u64 {
    let (a, b) = inputs(key, seed);
    first(a, b, key.len(), seed).0
}

/// The value a filter steps `fold-64`'s probes by: `rotl(h, 32) ⊕ C`,
/// `C = ⌊P0 / 2^33⌋ = 0x121f_b544`, small enough to be an instruction's
/// immediate (see the module's documentation; [`crate::Family::step`]).
///
/// ```
/// use bloomlab_hash::{Family, fold::fold64_step};
///
/// assert_eq!(Family::Fold64.step(99), fold64_step(99));
/// ```
#[inline(always)]
pub const fn fold64_step(h: u64) -> u64 {
    h.rotate_left(32) ^ (P[0] >> 33)
}

/// The definition's inputs `(a, b)` of a key.
#[inline(always)]
fn inputs(key: &[u8], seed: u64) -> (u64, u64) {
    let len = key.len();
    match key {
        [] => (0, 0),
        [x] => (u64::from(*x), u64::from(*x) << 8 | u64::from(*x)),
        [x, y] => (u64::from(*x), u64::from(*y) << 8 | u64::from(*y)),
        [x, y, z] => (u64::from(*x), u64::from(*z) << 8 | u64::from(*y)),
        _ if len > 16 => {
            (xxhash_rust::xxh3::xxh3_64_with_seed(key, seed), len as u64)
        }
        _ => match (key.first_chunk::<8>(), key.last_chunk::<8>()) {
            (Some(a), Some(b)) => (le64(a), le64(b)),
            // 4 ≤ len < 8.
            _ => match (key.first_chunk::<4>(), key.last_chunk::<4>()) {
                (Some(a), Some(b)) => (
                    u64::from(u32::from_le_bytes(*a)),
                    u64::from(u32::from_le_bytes(*b)),
                ),
                _ => (0, 0),
            },
        },
    }
}

/// [`fold128`] of a one-word key's eight little-endian bytes, taken by
/// value: everything in registers.
#[inline(always)]
pub fn fold128_word(key: u64, seed: u64) -> (u64, u64) {
    finish(key, key, 8, seed)
}

/// [`fold64`] of a one-word key, as [`fold128_word`].
#[inline(always)]
pub fn fold64_word(key: u64, seed: u64) -> u64 {
    first(key, key, 8, seed).0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reads of the definition, written out for each length.
    fn reads(key: &[u8], seed: u64) -> (u64, u64) {
        let len = key.len();
        let le = |s: &[u8]| {
            s.iter().rev().fold(0u64, |v, &x| (v << 8) | u64::from(x))
        };
        match len {
            0 => (0, 0),
            1..4 => (
                u64::from(key[0]),
                u64::from(key[len - 1]) << 8 | u64::from(key[len / 2]),
            ),
            4..8 => (le(&key[..4]), le(&key[len - 4..])),
            8..=16 => (le(&key[..8]), le(&key[len - 8..])),
            _ => (xxhash_rust::xxh3::xxh3_64_with_seed(key, seed), len as u64),
        }
    }

    #[test]
    fn matches_its_definition_at_every_length() {
        let bytes: Vec<u8> =
            (0..40u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        for len in 0..=bytes.len() {
            for seed in [0, 1, u64::MAX] {
                let key = &bytes[..len];
                let (a, b) = reads(key, seed);
                assert_eq!(
                    fold128(key, seed),
                    finish(a, b, len, seed),
                    "{len}"
                );
            }
        }
    }

    /// `fold-64` is `fold-128`'s low half, at every length and for
    /// one-word keys, so the pinned values below pin it too.
    #[test]
    fn fold64_is_the_low_half() {
        let bytes: Vec<u8> =
            (0..40u8).map(|i| i.wrapping_mul(53) ^ 0xa5).collect();
        for len in 0..=bytes.len() {
            for seed in [0, 1, u64::MAX] {
                let key = &bytes[..len];
                assert_eq!(fold64(key, seed), fold128(key, seed).0, "{len}");
            }
        }
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..1000 {
            x = crate::strategy::mix64(x);
            assert_eq!(fold64_word(x, x >> 9), fold128_word(x, x >> 9).0);
        }
    }

    /// The step is part of what a saved `fold-64` filter means.
    #[test]
    fn fold64_step_is_pinned() {
        assert_eq!(fold64_step(0), 0x121f_b544);
        assert_eq!(fold64_step(0x0123_4567_89ab_cdef), 0x89ab_cdef_133c_f023);
    }

    #[test]
    fn words_are_their_bytes() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..1000 {
            x = crate::strategy::mix64(x);
            for seed in [0, x >> 7] {
                assert_eq!(
                    fold128_word(x, seed),
                    fold128(&x.to_le_bytes(), seed)
                );
            }
        }
    }

    /// Every key of up to two bytes, and the prefixes of a longer one,
    /// hash apart, and so do seeds.
    #[test]
    fn short_keys_lengths_and_seeds_hash_apart() {
        let mut seen = std::collections::HashSet::new();
        let mut keys: Vec<Vec<u8>> = vec![vec![]];
        keys.extend((0..=255u8).map(|a| vec![a]));
        for a in 0..=255u8 {
            keys.extend((0..=255u8).map(|b| vec![a, b]));
        }
        let long: Vec<u8> = (1..=40).collect();
        keys.extend((3..=40).map(|n| long[..n].to_vec()));
        for k in &keys {
            assert!(seen.insert(fold128(k, 0)), "{k:?}");
        }
        for seed in 1..100 {
            assert!(seen.insert(fold128(b"key", seed)), "seed {seed}");
        }
    }

    /// Each output bit of sequential and of strided keys (the structured
    /// keys a multiply mixes worst) is set about half of the time: with
    /// `N = 2^16` keys a bit's count is Binomial(N, 1/2), sd 128, and
    /// ±572 (4.47 sd) is its 1 - 0.001/128 interval, so all 128 bits pass
    /// together with probability 99.9% for a random function.
    #[test]
    fn output_bits_are_balanced_on_structured_keys() {
        const N: u64 = 1 << 16;
        for (name, key) in [
            ("sequential", (|i| i) as fn(u64) -> u64),
            ("strided", |i| i << 32),
            ("top-bits", |i| i << 48),
        ] {
            let mut ones = [0u64; 128];
            for i in 0..N {
                let (lo, hi) = fold128_word(key(i), 0);
                for (b, one) in ones.iter_mut().enumerate() {
                    let w = if b < 64 { lo } else { hi };
                    *one += (w >> (b % 64)) & 1;
                }
            }
            for (b, &one) in ones.iter().enumerate() {
                assert!(one.abs_diff(N / 2) <= 572, "{name}: bit {b}: {one}");
            }
        }
    }

    /// Values pinned so that a change to the definition, which would
    /// change what saved `fold-128` filters mean, cannot pass unseen.
    #[test]
    fn values_are_pinned() {
        let got = [
            fold128(b"", 0),
            fold128(b"a", 0),
            fold128(b"hello", 0),
            fold128(&42u64.to_le_bytes(), 0),
            fold128(b"0123456789abcdef", 7),
            fold128(b"a key longer than sixteen bytes", 7),
        ];
        assert_eq!(got, PINNED);
    }

    const PINNED: [(u64, u64); 6] = [
        (0xbc13_060e_2d1a_ac79, 0xfd3c_06b0_7754_69aa),
        (0x93c5_b30f_40b3_9153, 0x23f0_0544_9be3_d0ec),
        (0x4b96_0e0e_6d07_ec1e, 0x63a5_0784_61ce_614a),
        (0xf36b_1e9a_e3b8_4c1d, 0xd7a0_c9ff_d5ee_70ba),
        (0xa9d3_18d5_e8c6_e499, 0x8d40_9b0b_610e_02f2),
        (0x8a2e_83cd_0405_ec70, 0xea4e_4bbc_cd51_fb6d),
    ];
}
