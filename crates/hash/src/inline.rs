//! The hashes that start a multiply-shift walk (XXH3-64, XXH3-128,
//! fold-128 and fold-64), in the forms the filters' probe loops inline:
//! an 8-byte key (a funnelled `u64`/`i64`) or a one-word key in a
//! register takes the hash's short path with its length known (about
//! 1 ns a key less than a call at n = 1e6); other lengths call the full function, which
//! inlined would carry every length path of XXH3, up to its long-input
//! loop, into each loop. The values are the families' own
//! ([`crate::Family::hash_raw`]).
//!
//! ```
//! use bloomlab_hash::{Family, inline};
//!
//! let k = 0x0102_0304_0506_0708u64;
//! for seed in [0, 7] {
//!     let d = Family::Xxh3_128.hash_raw(&k.to_le_bytes(), seed);
//!     let v = inline::xxh3_128_word(k, seed);
//!     assert_eq!((v as u64, (v >> 64) as u64), (d.lo, d.hi));
//!     assert_eq!(inline::xxh3_128_key(seed, b"longer key"), {
//!         let d = Family::Xxh3_128.hash_raw(b"longer key", seed);
//!         u128::from(d.hi) << 64 | u128::from(d.lo)
//!     });
//!     let d = Family::Xxh3_64.hash_raw(&k.to_le_bytes(), seed);
//!     assert_eq!(inline::xxh3_64_word(k, seed), d.lo);
//!     assert_eq!(inline::xxh3_64_key(seed, &k.to_le_bytes()), d.lo);
//!     let d = Family::Fold128.hash_raw(b"key", seed);
//!     assert_eq!(inline::fold128_key(seed, b"key"), (d.lo, d.hi));
//!     let d = Family::Fold64.hash_raw(b"key", seed);
//!     assert_eq!(inline::fold64_key(seed, b"key"), d.lo);
//! }
//! ```

use crate::fold::{fold64_word, fold128_word};

/// XXH3-64 of `key` with `seed`: an unseeded 8-byte key inlined, others
/// called.
#[inline(always)]
pub fn xxh3_64_key(seed: u64, key: &[u8]) -> u64 {
    match <&[u8; 8]>::try_from(key) {
        Ok(k8) if seed == 0 => xxhash_rust::xxh3::xxh3_64(k8),
        _ => xxh3_64(key, seed),
    }
}

/// XXH3-128 of `key` with `seed`, as [`xxh3_64_key`].
#[inline(always)]
pub fn xxh3_128_key(seed: u64, key: &[u8]) -> u128 {
    match <&[u8; 8]>::try_from(key) {
        Ok(k8) if seed == 0 => xxhash_rust::xxh3::xxh3_128(k8),
        _ => xxh3_128(key, seed),
    }
}

/// fold-128 of `key` with `seed`, as [`xxh3_64_key`] (any seed inlined).
#[inline(always)]
pub fn fold128_key(seed: u64, key: &[u8]) -> (u64, u64) {
    match <&[u8; 8]>::try_from(key) {
        Ok(k8) => fold128_word(u64::from_le_bytes(*k8), seed),
        Err(_) => fold128(key, seed),
    }
}

/// fold-64 of `key` with `seed`, as [`fold128_key`].
#[inline(always)]
pub fn fold64_key(seed: u64, key: &[u8]) -> u64 {
    match <&[u8; 8]>::try_from(key) {
        Ok(k8) => fold64_word(u64::from_le_bytes(*k8), seed),
        Err(_) => fold64(key, seed),
    }
}

/// XXH3-64 of a one-word key's eight little-endian bytes, inlined for
/// any seed (the seeded 8-byte path is a few instructions more), so that
/// a loop calling it makes no call and saves no registers for one.
#[inline(always)]
pub fn xxh3_64_word(key: u64, seed: u64) -> u64 {
    if seed == 0 {
        xxhash_rust::xxh3::xxh3_64(&key.to_le_bytes())
    } else {
        xxhash_rust::xxh3::xxh3_64_with_seed(&key.to_le_bytes(), seed)
    }
}

/// XXH3-128 of a one-word key, as [`xxh3_64_word`].
#[inline(always)]
pub fn xxh3_128_word(key: u64, seed: u64) -> u128 {
    if seed == 0 {
        xxhash_rust::xxh3::xxh3_128(&key.to_le_bytes())
    } else {
        xxhash_rust::xxh3::xxh3_128_with_seed(&key.to_le_bytes(), seed)
    }
}

#[inline(never)]
fn xxh3_64(key: &[u8], seed: u64) -> u64 {
    // Seed 0 is the same function with the seed folded away.
    if seed == 0 {
        xxhash_rust::xxh3::xxh3_64(key)
    } else {
        xxhash_rust::xxh3::xxh3_64_with_seed(key, seed)
    }
}

#[inline(never)]
fn xxh3_128(key: &[u8], seed: u64) -> u128 {
    if seed == 0 {
        xxhash_rust::xxh3::xxh3_128(key)
    } else {
        xxhash_rust::xxh3::xxh3_128_with_seed(key, seed)
    }
}

#[inline(never)]
fn fold128(key: &[u8], seed: u64) -> (u64, u64) {
    crate::fold::fold128(key, seed)
}

#[inline(never)]
fn fold64(key: &[u8], seed: u64) -> u64 {
    crate::fold::fold64(key, seed)
}
