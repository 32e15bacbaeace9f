//! Filter sizing, bit-exact with Guava's `BloomFilter.create`.
//!
//! Guava computes the number of bits as
//! `(long) (-n * ln p / (ln 2)^2)` (truncated), the number of hash
//! functions as `max(1, Math.round(m / n * ln 2))` from that *unrounded*
//! bit count, and then allocates `ceil(m / 64)` longs, so the filter really
//! has `64 * ceil(m / 64)` bits. [`GuavaSizing`] reproduces every step,
//! including Java's rounding and casts, and fails where Guava throws.
//!
//! ```
//! use bloomlab_core::sizing::{self, GuavaSizing};
//!
//! // Guava's default: 3% for 1000 items, "we always get 5 hash functions".
//! let s = GuavaSizing::new(1000, 0.03)?;
//! assert_eq!((s.optimal_bits, s.hash_functions, s.bit_size), (7298, 5, 7360));
//!
//! // Where Guava throws, bloomlab returns a typed error.
//! assert!(GuavaSizing::new(1, 0.9).is_err()); // 0 bits
//! assert!(sizing::optimal(0, 0.01).is_err()); // n must be >= 1
//! # Ok::<(), bloomlab_core::Error>(())
//! ```
//!
//! # Java's `Math.log`
//!
//! Guava calls `Math.log`, which HotSpot computes with its own intrinsic,
//! not with `StrictMath`'s fdlibm; bloomlab calls the platform's `ln`
//! (glibc's on Linux). Over 10^6 random `p` (OpenJDK 17.0.15 on x86-64,
//! 2026-11-28; `tools/jvm-math`), `Math.log` differed from glibc's in the
//! last bit 463 times, and from `StrictMath.log` 44,745 times, so glibc is
//! the closer match by far. A last-bit difference changes the bit count
//! only when the product lands next to an integer, and the word count,
//! which decides whether two filters can be merged, more rarely still:
//! for `n = 278674391, p = 0.691` Guava on that JVM makes 214,385,921
//! bits (3,349,781 words) and bloomlab, like Guava with `StrictMath`,
//! 214,385,920 (3,349,780). A Guava file records its own size, so reading
//! and writing Guava's files is exact whatever the JVM; only a filter
//! that Java sizes itself from the same `(n, p)` can come out a word
//! apart, which Guava's `putAll` then refuses.

use std::f64::consts::LN_2;

use crate::{Error, Result};

/// Guava's largest `numHashFunctions` (it is written as one unsigned byte).
pub const GUAVA_MAX_HASH_FUNCTIONS: u32 = 255;

/// Guava's largest word count: a Java array index (`Ints.checkedCast`).
pub const GUAVA_MAX_WORDS: u64 = i32::MAX as u64;

/// Guava's `optimalNumOfBits(n, p)`: `(long) (-n * Math.log(p) /
/// (Math.log(2) * Math.log(2)))`, truncated toward zero; `p == 0` is
/// replaced by `Double.MIN_VALUE`. No validation, exactly as Guava's
/// package-private helper.
pub fn guava_optimal_num_of_bits(n: i64, p: f64) -> i64 {
    let p = if p == 0.0 { f64::from_bits(1) } else { p };
    // Java evaluates `-n` as a long, then widens it for the product.
    let bits = (n.wrapping_neg() as f64) * p.ln() / (LN_2 * LN_2);
    // `as` saturates (and maps NaN to 0) exactly like Java's (long) cast.
    bits as i64
}

/// Guava's `optimalNumOfHashFunctions(n, m)`:
/// `max(1, (int) Math.round((double) m / n * Math.log(2)))`.
pub fn guava_optimal_num_of_hash_functions(n: i64, m: i64) -> i32 {
    let x = m as f64 / n as f64 * LN_2;
    // Java's (int) of a long keeps the low 32 bits.
    let k = java_math_round(x) as i32;
    k.max(1)
}

/// Java's `Math.round(double)`: nearest long, ties toward positive
/// infinity, NaN to 0, saturating at the `long` range.
pub fn java_math_round(x: f64) -> i64 {
    if x.is_nan() {
        return 0;
    }
    let f = x.floor();
    // x - floor(x) is exact in binary floating point, so the tie test is
    // exact too (unlike `floor(x + 0.5)`, which misrounds 0.49999999999999994).
    let r = if x - f >= 0.5 { f + 1.0 } else { f };
    r as i64
}

/// The size of the filter Guava's `BloomFilter.create(funnel, n, p)`
/// returns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GuavaSizing {
    /// Expected insertions as used (Guava replaces 0 by 1).
    pub expected_insertions: i64,
    /// Target false-positive probability.
    pub fpp: f64,
    /// `optimalNumOfBits`, before rounding up to whole words.
    pub optimal_bits: u64,
    /// `numHashFunctions`, computed from the unrounded bit count.
    pub hash_functions: u32,
    /// `ceil(optimal_bits / 64)`: the number of 64-bit words.
    pub words: u64,
    /// `64 * words`: the bits the filter really has.
    pub bit_size: u64,
}

impl GuavaSizing {
    /// Sizes a filter exactly as `BloomFilter.create(funnel, n, p)` does.
    ///
    /// Like Guava, `n == 0` is treated as 1. Errors, in Guava's order:
    /// `n < 0` or `p` outside (0, 1) ([`Error::InvalidParameter`]); a
    /// sizing of 0 bits ([`Error::ZeroBits`]); more than 2^31 - 1 words
    /// ([`Error::TooLarge`]); more than 255 hash functions
    /// ([`Error::TooManyHashFunctions`]).
    pub fn new(expected_insertions: i64, fpp: f64) -> Result<GuavaSizing> {
        if expected_insertions < 0 {
            return Err(Error::invalid(
                "n",
                expected_insertions,
                "expected insertions must be >= 0",
            ));
        }
        // `!(p > 0 && p < 1)` also rejects NaN, as Guava's checks do.
        if !(fpp > 0.0 && fpp < 1.0) {
            return Err(Error::invalid("p", fpp, "must be in (0, 1)"));
        }
        let n = expected_insertions.max(1);
        let bits = guava_optimal_num_of_bits(n, fpp);
        let k = guava_optimal_num_of_hash_functions(n, bits);
        if bits <= 0 {
            return Err(Error::ZeroBits { n, p: fpp });
        }
        let bits = bits as u64;
        let words = bits.div_ceil(64);
        if words > GUAVA_MAX_WORDS {
            return Err(Error::TooLarge { bits, words, max: GUAVA_MAX_WORDS });
        }
        let k = k as u32;
        if k > GUAVA_MAX_HASH_FUNCTIONS {
            return Err(Error::TooManyHashFunctions { k: u64::from(k) });
        }
        Ok(GuavaSizing {
            expected_insertions: n,
            fpp,
            optimal_bits: bits,
            hash_functions: k,
            words,
            bit_size: words * 64,
        })
    }
}

/// Sizing for `n >= 1` items at false-positive rate `p`: Guava's bits and
/// hash functions (see [`GuavaSizing`]), but `n == 0` is an error rather
/// than silently treated as 1.
pub fn optimal(n: u64, p: f64) -> Result<GuavaSizing> {
    if n == 0 {
        return Err(Error::invalid("n", n, "must be at least 1"));
    }
    let n = i64::try_from(n)
        .map_err(|_| Error::invalid("n", n, "must be below 2^63"))?;
    GuavaSizing::new(n, p)
}

/// The real-valued optimum for `n` items at rate `p`:
/// `m = -n ln p / (ln 2)^2` bits and `k = (m / n) ln 2` hash functions
/// (Bloom 1970; Broder & Mitzenmacher 2004).
pub fn optimal_real(n: f64, p: f64) -> Result<(f64, f64)> {
    if !(n > 0.0 && n.is_finite()) {
        return Err(Error::invalid("n", n, "must be positive and finite"));
    }
    if !(p > 0.0 && p < 1.0) {
        return Err(Error::invalid("p", p, "must be in (0, 1)"));
    }
    let m = -n * p.ln() / (LN_2 * LN_2);
    Ok((m, m / n * LN_2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_round_ties_and_edges() {
        assert_eq!(java_math_round(0.5), 1);
        assert_eq!(java_math_round(-0.5), 0);
        assert_eq!(java_math_round(0.49999999999999994), 0);
        assert_eq!(java_math_round(2.5), 3);
        assert_eq!(java_math_round(f64::NAN), 0);
        assert_eq!(java_math_round(1e300), i64::MAX);
    }

    #[test]
    fn errors_in_guavas_order() {
        assert!(matches!(
            GuavaSizing::new(-1, 0.1),
            Err(Error::InvalidParameter { name: "n", .. })
        ));
        for p in [0.0, 1.0, 1.5, -0.1, f64::NAN] {
            assert!(matches!(
                GuavaSizing::new(10, p),
                Err(Error::InvalidParameter { name: "p", .. })
            ));
        }
        assert_eq!(
            GuavaSizing::new(1, 1e-300),
            Err(Error::TooManyHashFunctions { k: 996 })
        );
    }
}
