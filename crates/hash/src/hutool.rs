//! hutool's string hashes (`cn.hutool.core.util.HashUtil`, hutool 5.8.34)
//! and the index arithmetic of its `cn.hutool.bloomfilter` filters,
//! reproduced bit for bit.
//!
//! Every hutool hash walks the **UTF-16 code units** of a Java `String`
//! (`charAt`), never its bytes: an emoji is two units and "length" is the
//! UTF-16 length. Hash [`java_units`] of a `&str`, not its UTF-8 bytes.
//! All arithmetic is Java's: `int`/`long` wrap, `>>` is arithmetic, `%`
//! truncates and `Math.abs(MIN_VALUE)` is `MIN_VALUE`.
//!
//! Quirks kept on purpose, because hutool has them:
//!
//! * ELF and PJW shift with the arithmetic `>>`, so once bit 31 is set
//!   they differ from the textbook (unsigned) versions.
//! * `hfHash` ignores unit 0: every string of length ≤ 1 hashes to 0.
//! * `hfIpHash` is 0 for every string of length ≤ 4.
//! * `tianlHash` ignores ASCII case and, past 96 units, all but the last
//!   96 units.
//! * `jsHash` maps an internal `Integer.MIN_VALUE` to 0.
//! * A filter's bit index is `|h rem size|`, not the floor-mod: hash -1
//!   in a filter of 100 bits is bit 1, not bit 99 ([`filter_index`]).
//!
//! # Example
//!
//! ```
//! use bloomlab_hash::hutool::{HutoolHash, filter_index, java_units};
//!
//! // The value hutool 5.8.34 prints for `HashUtil.elfHash("hello")`.
//! let units = java_units("hello");
//! assert_eq!(HutoolHash::Elf.hash_units(&units), 7_258_927);
//!
//! // An emoji is two UTF-16 units, and a 2-unit string has hfIpHash 0.
//! assert_eq!(java_units("😀").len(), 2);
//! assert_eq!(HutoolHash::HfIp.hash_units(&java_units("😀")), 0);
//!
//! // Java's remainder keeps the sign of the hash, then `Math.abs`.
//! assert_eq!(filter_index(-1, 100), Some(1));
//! assert_eq!(filter_index(42, 0), None);
//! ```

/// One of hutool's `cn.hutool.core.util.HashUtil` string hashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HutoolHash {
    /// `javaDefaultHash`: `String.hashCode()`, unmasked (may be negative).
    JavaDefault,
    /// `elfHash`: ELF hash with Java's arithmetic `>>`.
    Elf,
    /// `fnvHash(String)`: FNV-1a over units, a final mix, `Math.abs`.
    Fnv,
    /// `jsHash`: Justin Sobel's hash, `Math.abs` then masked.
    Js,
    /// `pjwHash`: PJW hash with Java's arithmetic `>>`, below 2^28.
    Pjw,
    /// `rsHash`: Robert Sedgewick's hash, masked to 31 bits.
    Rs,
    /// `sdbmHash`: the SDBM hash, masked to 31 bits.
    Sdbm,
    /// `bkdrHash`: the BKDR hash (seed 131), masked to 31 bits.
    Bkdr,
    /// `apHash`: Arash Partow's hash, unmasked (may be negative).
    Ap,
    /// `djbHash`: DJB hash (`h * 33 + c` from 5381), masked to 31 bits.
    Djb,
    /// `dekHash`: Knuth's hash seeded with the length, masked.
    Dek,
    /// `oneByOneHash`: Jenkins one-at-a-time, unmasked.
    OneByOne,
    /// `bernstein`: `h * 33 + c` from 0, unmasked.
    Bernstein,
    /// `hfHash` (long): sum of `u[i] * 3 * i`; unit 0 never counts.
    Hf,
    /// `hfIpHash` (long): sum of `u[i % 4] ^ u[i]`; 0 up to 4 units.
    HfIp,
    /// `tianlHash` (long): case-insensitive, last 96 units only.
    Tianl,
    /// `mixHash` (long): `hashCode() << 32 | fnvHash` (sign-extended).
    Mix,
}

impl HutoolHash {
    /// All 17, in declaration order.
    pub const ALL: [HutoolHash; 17] = [
        Self::JavaDefault,
        Self::Elf,
        Self::Fnv,
        Self::Js,
        Self::Pjw,
        Self::Rs,
        Self::Sdbm,
        Self::Bkdr,
        Self::Ap,
        Self::Djb,
        Self::Dek,
        Self::OneByOne,
        Self::Bernstein,
        Self::Hf,
        Self::HfIp,
        Self::Tianl,
        Self::Mix,
    ];

    /// The registry name, e.g. `"hutool-elf"` or `"hutool-one-by-one"`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::JavaDefault => "hutool-default",
            Self::Elf => "hutool-elf",
            Self::Fnv => "hutool-fnv",
            Self::Js => "hutool-js",
            Self::Pjw => "hutool-pjw",
            Self::Rs => "hutool-rs",
            Self::Sdbm => "hutool-sdbm",
            Self::Bkdr => "hutool-bkdr",
            Self::Ap => "hutool-ap",
            Self::Djb => "hutool-djb",
            Self::Dek => "hutool-dek",
            Self::OneByOne => "hutool-one-by-one",
            Self::Bernstein => "hutool-bernstein",
            Self::Hf => "hutool-hf",
            Self::HfIp => "hutool-hfip",
            Self::Tianl => "hutool-tianl",
            Self::Mix => "hutool-mix",
        }
    }

    /// The `HashUtil` method name, e.g. `"elfHash"` or `"bernstein"`
    /// (the key used in the reference vectors).
    pub const fn java_name(self) -> &'static str {
        match self {
            Self::JavaDefault => "javaDefaultHash",
            Self::Elf => "elfHash",
            Self::Fnv => "fnvHash",
            Self::Js => "jsHash",
            Self::Pjw => "pjwHash",
            Self::Rs => "rsHash",
            Self::Sdbm => "sdbmHash",
            Self::Bkdr => "bkdrHash",
            Self::Ap => "apHash",
            Self::Djb => "djbHash",
            Self::Dek => "dekHash",
            Self::OneByOne => "oneByOneHash",
            Self::Bernstein => "bernstein",
            Self::Hf => "hfHash",
            Self::HfIp => "hfIpHash",
            Self::Tianl => "tianlHash",
            Self::Mix => "mixHash",
        }
    }

    /// True for the long-valued hashes (`Hf`, `HfIp`, `Tianl`, `Mix`);
    /// the others return a Java `int`.
    pub const fn returns_long(self) -> bool {
        matches!(self, Self::Hf | Self::HfIp | Self::Tianl | Self::Mix)
    }

    /// Hashes Java `char`s (UTF-16 code units). Int-valued hashes are
    /// sign-extended to `i64`, as Java's `Number.longValue()` does.
    pub fn hash_units(self, units: &[u16]) -> i64 {
        match self {
            Self::JavaDefault => i64::from(java_default(units)),
            Self::Elf => i64::from(elf(units)),
            Self::Fnv => i64::from(fnv(units)),
            Self::Js => i64::from(js(units)),
            Self::Pjw => i64::from(pjw(units)),
            Self::Rs => i64::from(rs(units)),
            Self::Sdbm => i64::from(sdbm(units)),
            Self::Bkdr => i64::from(bkdr(units)),
            Self::Ap => i64::from(ap(units)),
            Self::Djb => i64::from(djb(units)),
            Self::Dek => i64::from(dek(units)),
            Self::OneByOne => i64::from(one_by_one(units)),
            Self::Bernstein => i64::from(bernstein(units)),
            Self::Hf => hf(units),
            Self::HfIp => hf_ip(units),
            Self::Tianl => tianl(units),
            Self::Mix => mix(units),
        }
    }
}

/// `AbstractFilter.hash` then `Math.abs`: `|value rem size|` with Java's
/// truncated remainder, so -1 in 100 bits is 1, not 99. `None` when
/// `size == 0`, where hutool throws `ArithmeticException`. Never
/// overflows.
pub fn filter_index(value: i64, size: i64) -> Option<i64> {
    // `wrapping_rem` gives Java's 0 for MIN % -1, and |rem| < |size|, so
    // the abs cannot overflow either.
    if size == 0 {
        None
    } else {
        Some(value.wrapping_rem(size).wrapping_abs())
    }
}

/// The hash hutool's `BitSetBloomFilter` uses for probe `i`: 0..=7 are
/// rs, js, elf, bkdr, ap, djb, sdbm, pjw; `i >= 8` is the constant 0.
/// Returns the Java `int`.
pub fn bitset_hash(units: &[u16], i: u32) -> i32 {
    match i {
        0 => rs(units),
        1 => js(units),
        2 => elf(units),
        3 => bkdr(units),
        4 => ap(units),
        5 => djb(units),
        6 => sdbm(units),
        7 => pjw(units),
        _ => 0,
    }
}

/// `Math.abs(hash % size)` in Java `int` arithmetic (the position
/// `BitSetBloomFilter` probes). `None` when `size == 0`.
pub fn bitset_position(hash: i32, size: i32) -> Option<i32> {
    if size == 0 { None } else { Some(hash.wrapping_rem(size).wrapping_abs()) }
}

/// The UTF-16 code units of a Java string holding `s`
/// (`s.encode_utf16()` collected).
pub fn java_units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

// The hashes below follow hutool 5.8.34's `HashUtil` step by step.
// Shifts by a constant below 32 need no masking, so plain `<<`/`>>` on
// i32 are exactly Java's `<<`/`>>`; only `+ - *` must wrap explicitly.

/// `0xF0000000` as a Java int (negative): the top nibble.
const HIGH_NIBBLE: i32 = 0xF000_0000_u32 as i32;

fn java_default(units: &[u16]) -> i32 {
    units
        .iter()
        .fold(0_i32, |h, &c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

fn elf(units: &[u16]) -> i32 {
    let mut h = 0_i32;
    for &c in units {
        h = (h << 4).wrapping_add(i32::from(c));
        let x = h & HIGH_NIBBLE;
        if x != 0 {
            // Arithmetic shift: a set bit 31 also flips bits 8..31.
            h ^= x >> 24;
            h &= !x;
        }
    }
    h & i32::MAX
}

fn fnv(units: &[u16]) -> i32 {
    let mut h = 0x811C_9DC5_u32 as i32;
    for &c in units {
        h = (h ^ i32::from(c)).wrapping_mul(16_777_619);
    }
    h = h.wrapping_add(h << 13);
    h ^= h >> 7;
    h = h.wrapping_add(h << 3);
    h ^= h >> 17;
    h = h.wrapping_add(h << 5);
    // hutool's Math.abs; MIN_VALUE cannot occur (after `h ^= h >> 17`
    // bit 31 is clear, and 33 * h is never 2^31 for such h).
    h.wrapping_abs()
}

fn js(units: &[u16]) -> i32 {
    let mut h = 1_315_423_911_i32;
    for &c in units {
        h ^= (h << 5).wrapping_add(i32::from(c)).wrapping_add(h >> 2);
    }
    // Math.abs(MIN_VALUE) is MIN_VALUE, which the mask turns into 0.
    h.wrapping_abs() & i32::MAX
}

fn pjw(units: &[u16]) -> i32 {
    let mut h = 0_i32;
    for &c in units {
        h = (h << 4).wrapping_add(i32::from(c));
        let t = h & HIGH_NIBBLE;
        if t != 0 {
            // Same arithmetic-shift quirk as ELF, but the whole top
            // nibble is cleared.
            h = (h ^ (t >> 24)) & !HIGH_NIBBLE;
        }
    }
    h & i32::MAX
}

fn rs(units: &[u16]) -> i32 {
    let b = 378_551_i32;
    let mut a = 63_689_i32;
    let mut h = 0_i32;
    for &c in units {
        h = h.wrapping_mul(a).wrapping_add(i32::from(c));
        a = a.wrapping_mul(b);
    }
    h & i32::MAX
}

fn sdbm(units: &[u16]) -> i32 {
    let mut h = 0_i32;
    for &c in units {
        h = i32::from(c)
            .wrapping_add(h << 6)
            .wrapping_add(h << 16)
            .wrapping_sub(h);
    }
    h & i32::MAX
}

fn bkdr(units: &[u16]) -> i32 {
    let h = units
        .iter()
        .fold(0_i32, |h, &c| h.wrapping_mul(131).wrapping_add(i32::from(c)));
    h & i32::MAX
}

fn ap(units: &[u16]) -> i32 {
    let mut h = 0_i32;
    for (i, &c) in units.iter().enumerate() {
        let c = i32::from(c);
        h ^= if i % 2 == 0 {
            (h << 7) ^ c ^ (h >> 3)
        } else {
            !((h << 11) ^ c ^ (h >> 5))
        };
    }
    h
}

fn djb(units: &[u16]) -> i32 {
    let mut h = 5381_i32;
    for &c in units {
        h = (h << 5).wrapping_add(h).wrapping_add(i32::from(c));
    }
    h & i32::MAX
}

fn dek(units: &[u16]) -> i32 {
    // Java's `str.length()`; a Java string never exceeds i32::MAX units,
    // longer slices wrap as an int would.
    let mut h = units.len() as i32;
    for &c in units {
        h = ((h << 5) ^ (h >> 27)) ^ i32::from(c);
    }
    h & i32::MAX
}

fn one_by_one(units: &[u16]) -> i32 {
    let mut h = 0_i32;
    for &c in units {
        h = h.wrapping_add(i32::from(c));
        h = h.wrapping_add(h << 10);
        h ^= h >> 6;
    }
    h = h.wrapping_add(h << 3);
    h ^= h >> 11;
    h.wrapping_add(h << 15)
}

fn bernstein(units: &[u16]) -> i32 {
    units
        .iter()
        .fold(0_i32, |h, &c| h.wrapping_mul(33).wrapping_add(i32::from(c)))
}

fn hf(units: &[u16]) -> i64 {
    let mut h = 0_i64;
    for (i, &c) in units.iter().enumerate() {
        // In long since hutool 5.8.0; index 0 contributes nothing.
        let term = i64::from(c).wrapping_mul(3).wrapping_mul(i as i64);
        h = h.wrapping_add(term);
    }
    // hutool negates a negative sum; unreachable below ~10^12 units.
    if h < 0 { h.wrapping_neg() } else { h }
}

fn hf_ip(units: &[u16]) -> i64 {
    // Pairs unit i with unit i % 4 (for fewer than 4 units, cycling the
    // prefix gives the same partner), so units 0..4 add 0.
    let heads = units.iter().take(4).cycle();
    units
        .iter()
        .zip(heads)
        .fold(0_i64, |h, (&c, &head)| h.wrapping_add(i64::from(c ^ head)))
}

fn tianl(units: &[u16]) -> i64 {
    let len = units.len();
    if len == 0 {
        return 0;
    }
    // Bounded (len <= 256), so no overflow.
    let mut h =
        if len <= 256 { 16_777_216 * (len as i64 - 1) } else { 4_278_190_080 };
    // Only the last 96 units count, at positions 1..=96.
    let tail = units.iter().skip(len.saturating_sub(96));
    for (i, &u) in (1_i64..).zip(tail) {
        // ASCII-only lower-casing: 'A' and 'a' collide.
        let v = i64::from(if (0x41..=0x5A).contains(&u) { u + 32 } else { u });
        // i <= 96 and v < 2^16: every term is below 2^41, no overflow.
        h += (3 * i * v * v + 5 * i * v + 7 * i + 11 * v) % 16_777_216;
    }
    // Always < 2^33, so hutool's "negate if negative" never fires.
    h
}

fn mix(units: &[u16]) -> i64 {
    // `(long) hashCode << 32 | fnvHash`: the int is sign-extended first.
    (i64::from(java_default(units)) << 32) | i64::from(fnv(units))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_prefixed() {
        let mut names: Vec<_> =
            HutoolHash::ALL.iter().map(|h| h.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 17);
        assert!(names.iter().all(|n| n.starts_with("hutool-")));
        let long: Vec<_> =
            HutoolHash::ALL.into_iter().filter(|h| h.returns_long()).collect();
        assert_eq!(
            long,
            [
                HutoolHash::Hf,
                HutoolHash::HfIp,
                HutoolHash::Tianl,
                HutoolHash::Mix
            ]
        );
    }

    #[test]
    fn js_min_value_maps_to_zero() {
        // Found by search: jsHash's state is Integer.MIN_VALUE after these
        // units (the vectors hold no such string).
        let units = [122, 74, 85, 43, 32, 95, 45045];
        let mut h = 1_315_423_911_i32;
        for &c in &units {
            h ^= (h << 5).wrapping_add(i32::from(c)).wrapping_add(h >> 2);
        }
        assert_eq!(h, i32::MIN);
        assert_eq!(HutoolHash::Js.hash_units(&units), 0);
        assert_eq!(bitset_position(bitset_hash(&units, 1), 8000), Some(0));
    }

    #[test]
    fn remainders_follow_java() {
        assert_eq!(filter_index(-7, 5), Some(2));
        assert_eq!(filter_index(7, -5), Some(2));
        assert_eq!(filter_index(i64::MIN, -1), Some(0));
        assert_eq!(filter_index(i64::MIN, i64::MIN), Some(0));
        assert_eq!(filter_index(i64::MIN, i64::MAX), Some(1));
        assert_eq!(filter_index(1, 0), None);
        assert_eq!(bitset_position(i32::MIN, -1), Some(0));
        assert_eq!(bitset_position(i32::MIN, 8000), Some(3648));
        assert_eq!(bitset_position(-1, 0), None);
        assert_eq!(bitset_hash(&java_units("x"), 8), 0);
        assert_eq!(bitset_hash(&java_units("x"), u32::MAX), 0);
    }

    #[test]
    fn quirks() {
        let h = |f: HutoolHash, s: &str| f.hash_units(&java_units(s));
        assert_eq!(h(HutoolHash::Hf, "z"), 0);
        assert_eq!(h(HutoolHash::Hf, "ab"), h(HutoolHash::Hf, "zb"));
        assert_eq!(h(HutoolHash::HfIp, "wxyz"), 0);
        assert_eq!(
            h(HutoolHash::Tianl, "HeLLo"),
            h(HutoolHash::Tianl, "hello")
        );
        let a = format!("a{}", "q".repeat(96));
        let b = format!("b{}", "q".repeat(96));
        assert_eq!(h(HutoolHash::Tianl, &a), h(HutoolHash::Tianl, &b));
    }
}
