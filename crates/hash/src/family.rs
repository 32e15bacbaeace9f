//! Hash families: bytes (and a seed) in, a 32-, 64- or 128-bit value out.
//!
//! Each family has a stable kebab-case name ([`Family::name`],
//! [`Family::from_name`]) and reproduces its reference implementation bit
//! for bit: Guava for murmur3, RedisBloom for MurmurHash64A, the xxHash
//! and SipHash reference code, Java for `String.hashCode` and hutool for
//! its `HashUtil` functions. Java-string families (`java-hashcode`,
//! `hutool-*`) hash the UTF-16 view of the key (see
//! [`crate::funnel::with_java_units`]).
//!
//! ```
//! use bloomlab_hash::{Family, Hasher};
//!
//! let f = Family::from_name("hutool-elf")?;
//! let h = Hasher::new(f, 0)?;
//! assert_eq!(f.value_string(h.hash(b"hello")), "7258927");
//! # Ok::<(), bloomlab_hash::Error>(())
//! ```

use std::hash::Hasher as _;

use crate::funnel::with_java_units;
use crate::hutool::HutoolHash;
use crate::{Error, Result, murmur3, murmur64a};

/// A hash value: the low and high 64 bits. Families narrower than 128 bits
/// leave `hi` at 0 and put their value in the low bits of `lo`
/// (zero-extended; see [`Family::value_string`] for the signed view).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Digest {
    /// Low 64 bits (Guava's `asLong()` for murmur3 x64_128).
    pub lo: u64,
    /// High 64 bits (0 for 32- and 64-bit families).
    pub hi: u64,
}

/// What kind of seed a family takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedKind {
    /// No seed: the family has a single function (seed must be 0).
    None,
    /// A 32-bit seed (Guava's Java `int`).
    Int32,
    /// A 64-bit seed.
    U64,
}

/// A registered hash family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Family {
    /// `murmur3-x64-128`: Guava's `Hashing.murmur3_128(seed)`.
    Murmur3X64_128,
    /// `murmur3-x86-32`: Guava's `murmur3_32_fixed(seed)` (= reference).
    Murmur3X86_32,
    /// `murmur3-x86-32-guava-legacy`: Guava's deprecated `murmur3_32(seed)`
    /// applied to the key as a Java string, bug for bug on non-BMP text.
    Murmur3X86_32GuavaLegacy,
    /// `murmur64a`: MurmurHash64A, RedisBloom's hash.
    Murmur64A,
    /// `xxh64`: XXH64.
    Xxh64,
    /// `xxh3-64`: XXH3, 64-bit output.
    Xxh3_64,
    /// `xxh3-128`: XXH3, 128-bit output.
    Xxh3_128,
    /// `fnv1a-64`: 64-bit FNV-1a over bytes.
    Fnv1a64,
    /// `siphash-1-3`: SipHash-1-3 with key `(seed, 0)`.
    SipHash13,
    /// `java-hashcode`: Java's `String.hashCode()`.
    JavaHashCode,
    /// `hutool-*`: one of hutool's `HashUtil` functions.
    Hutool(HutoolHash),
    /// `fold-128`: bloomlab's folded multiply ([`crate::fold`]), the
    /// fastest family for short keys.
    Fold128,
    /// `fold-64`: `fold-128`'s first half, one multiply
    /// ([`crate::fold::fold64`]); the standard, counting and partitioned
    /// filters step its probes by the hash rotated and xored with a
    /// constant ([`Family::step`]). The fastest family for short keys.
    Fold64,
}

const FIXED: [Family; 12] = [
    Family::Murmur3X64_128,
    Family::Murmur3X86_32,
    Family::Murmur3X86_32GuavaLegacy,
    Family::Murmur64A,
    Family::Xxh64,
    Family::Xxh3_64,
    Family::Xxh3_128,
    Family::Fnv1a64,
    Family::SipHash13,
    Family::JavaHashCode,
    Family::Fold128,
    Family::Fold64,
];

impl Family {
    /// Every registered family, in registry order.
    pub fn all() -> impl Iterator<Item = Family> {
        FIXED
            .into_iter()
            .chain(HutoolHash::ALL.into_iter().map(Family::Hutool))
    }

    /// The family's registry name.
    pub const fn name(self) -> &'static str {
        match self {
            Family::Murmur3X64_128 => "murmur3-x64-128",
            Family::Murmur3X86_32 => "murmur3-x86-32",
            Family::Murmur3X86_32GuavaLegacy => "murmur3-x86-32-guava-legacy",
            Family::Murmur64A => "murmur64a",
            Family::Xxh64 => "xxh64",
            Family::Xxh3_64 => "xxh3-64",
            Family::Xxh3_128 => "xxh3-128",
            Family::Fnv1a64 => "fnv1a-64",
            Family::SipHash13 => "siphash-1-3",
            Family::JavaHashCode => "java-hashcode",
            Family::Hutool(h) => h.name(),
            Family::Fold128 => "fold-128",
            Family::Fold64 => "fold-64",
        }
    }

    /// Looks a family up by its registry name (case-insensitive).
    pub fn from_name(name: &str) -> Result<Family> {
        let wanted = name.trim().to_ascii_lowercase();
        Family::all().find(|f| f.name() == wanted).ok_or_else(|| {
            Error::UnknownFamily {
                name: name.to_string(),
                known: Family::all()
                    .map(Family::name)
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })
    }

    /// Width of the output in bits: 32, 64 or 128.
    pub const fn output_bits(self) -> u32 {
        match self {
            Family::Murmur3X64_128 | Family::Xxh3_128 | Family::Fold128 => 128,
            Family::Murmur3X86_32
            | Family::Murmur3X86_32GuavaLegacy
            | Family::JavaHashCode => 32,
            Family::Hutool(h) if !h.returns_long() => 32,
            _ => 64,
        }
    }

    /// The seed this family takes.
    pub const fn seed_kind(self) -> SeedKind {
        match self {
            Family::Murmur3X64_128
            | Family::Murmur3X86_32
            | Family::Murmur3X86_32GuavaLegacy => SeedKind::Int32,
            Family::Murmur64A
            | Family::Xxh64
            | Family::Xxh3_64
            | Family::Xxh3_128
            | Family::SipHash13
            | Family::Fold128
            | Family::Fold64 => SeedKind::U64,
            Family::Fnv1a64 | Family::JavaHashCode | Family::Hutool(_) => {
                SeedKind::None
            }
        }
    }

    /// One line on what the family is and whose values it reproduces.
    pub const fn description(self) -> &'static str {
        match self {
            Family::Murmur3X64_128 => {
                "MurmurHash3 x64_128, Guava's murmur3_128 (int seed sign-extended)"
            }
            Family::Murmur3X86_32 => {
                "MurmurHash3 x86_32, Guava's murmur3_32_fixed and the reference code"
            }
            Family::Murmur3X86_32GuavaLegacy => {
                "Guava's deprecated murmur3_32 on the key as a Java string (non-BMP bug)"
            }
            Family::Murmur64A => "MurmurHash64A, RedisBloom's item hash",
            Family::Xxh64 => "XXH64 (xxhash-rust)",
            Family::Xxh3_64 => "XXH3 64-bit (xxhash-rust)",
            Family::Xxh3_128 => "XXH3 128-bit (xxhash-rust)",
            Family::Fnv1a64 => "FNV-1a 64-bit over bytes",
            Family::SipHash13 => "SipHash-1-3 with key (seed, 0)",
            Family::JavaHashCode => "Java String.hashCode over UTF-16 units",
            Family::Hutool(_) => "hutool 5.8 HashUtil, over UTF-16 units",
            Family::Fold128 => {
                "bloomlab's folded multiply: fast for keys up to 16 bytes; not for adversarial keys"
            }
            Family::Fold64 => {
                "fold-128's first half, one multiply: fastest for keys up to 16 bytes; not for adversarial keys"
            }
        }
    }

    /// Checks and normalises a seed for this family. Seeds are given as
    /// signed or unsigned integers: a 32-bit family accepts any value that
    /// fits `i32` or `u32` (the same 32 bits), a 64-bit one any value that
    /// fits `i64` or `u64`, and a family without a seed only 0.
    pub fn check_seed(self, seed: i128) -> Result<u64> {
        let bad =
            |reason| Error::BadSeed { family: self.name(), seed, reason };
        match self.seed_kind() {
            SeedKind::None if seed == 0 => Ok(0),
            SeedKind::None => Err(bad("takes no seed")),
            SeedKind::Int32
                if (-(1i128 << 31)..1i128 << 32).contains(&seed) =>
            {
                Ok(u64::from(seed as u32))
            }
            SeedKind::Int32 => Err(bad("takes a 32-bit seed")),
            SeedKind::U64 if (-(1i128 << 63)..1i128 << 64).contains(&seed) => {
                Ok(seed as u64)
            }
            SeedKind::U64 => Err(bad("takes a 64-bit seed")),
        }
    }

    /// Hashes `key` with a seed already checked by [`Family::check_seed`]
    /// (32-bit families use its low 32 bits; seedless families ignore it).
    /// For many keys, [`Hasher::hash`] is faster: it resolves the family
    /// once.
    #[inline]
    pub fn hash_raw(self, key: &[u8], seed: u64) -> Digest {
        (self.hash_fn())(key, seed)
    }

    /// The value double hashing steps by when this family's hash `h` is
    /// narrower than 128 bits (a 128-bit family's second half is its
    /// step): [`crate::fold::fold64_step`] for `fold-64` (two
    /// instructions; see [`crate::fold`] for why they suffice),
    /// SplitMix64's mix of `h` ([`crate::strategy::mix64`]) for every
    /// other family.
    ///
    /// ```
    /// use bloomlab_hash::Family;
    /// use bloomlab_hash::strategy::mix64;
    ///
    /// assert_eq!(Family::Xxh3_64.step(5), mix64(5));
    /// assert_ne!(Family::Fold64.step(5), mix64(5));
    /// ```
    #[inline(always)]
    pub fn step(self, h: u64) -> u64 {
        match self {
            Family::Fold64 => crate::fold::fold64_step(h),
            _ => crate::strategy::mix64(h),
        }
    }

    /// The family's hash as a plain function. One small function per
    /// family, each with its hash inlined: calling through the pointer
    /// costs about 1 ns, where one `match` over every family cost 5-6 ns
    /// per key (the combined body was too large to inline or optimise
    /// per arm; see `benches/benches/hash.rs`).
    pub fn hash_fn(self) -> HashFn {
        match self {
            Family::Murmur3X64_128 => |k, s| {
                let (lo, hi) = murmur3::x64_128(k, s as u32 as i32);
                Digest { lo, hi }
            },
            Family::Murmur3X86_32 => {
                |k, s| low(u64::from(murmur3::x86_32(k, s as u32)))
            }
            Family::Murmur3X86_32GuavaLegacy => |k, s| {
                let v = match std::str::from_utf8(k) {
                    Ok(st) => murmur3::guava_legacy_x86_32_str(st, s as u32),
                    Err(_) => murmur3::x86_32(k, s as u32),
                };
                low(u64::from(v))
            },
            Family::Murmur64A => |k, s| low(murmur64a::murmur64a(k, s)),
            Family::Xxh64 => |k, s| low(xxhash_rust::xxh64::xxh64(k, s)),
            Family::Xxh3_64 => {
                |k, s| low(xxhash_rust::xxh3::xxh3_64_with_seed(k, s))
            }
            Family::Xxh3_128 => |k, s| {
                let v = xxhash_rust::xxh3::xxh3_128_with_seed(k, s);
                Digest { lo: v as u64, hi: (v >> 64) as u64 }
            },
            Family::Fnv1a64 => |k, _| low(fnv1a_64(k)),
            Family::SipHash13 => |k, s| {
                let mut h = siphasher::sip::SipHasher13::new_with_keys(s, 0);
                h.write(k);
                low(h.finish())
            },
            // java-hashcode is HashUtil.javaDefaultHash: String.hashCode.
            Family::JavaHashCode => {
                |k, _| java_string(HutoolHash::JavaDefault, k)
            }
            Family::Hutool(h) => HUTOOL_FNS[h as usize],
            Family::Fold128 => |k, s| {
                let (lo, hi) = crate::fold::fold128(k, s);
                Digest { lo, hi }
            },
            Family::Fold64 => |k, s| low(crate::fold::fold64(k, s)),
        }
    }

    /// The value as its reference implementation prints it: signed decimal
    /// for Java `int`/`long` results (Guava's `asInt()`/`asLong()`, Java's
    /// and hutool's hashes), unsigned decimal otherwise (a 128-bit XXH3
    /// value as one 128-bit number).
    pub fn value_string(self, d: Digest) -> String {
        match self {
            Family::Murmur3X64_128 => (d.lo as i64).to_string(),
            Family::Xxh3_128 | Family::Fold128 => {
                ((u128::from(d.hi) << 64) | u128::from(d.lo)).to_string()
            }
            Family::Hutool(h) if h.returns_long() => (d.lo as i64).to_string(),
            _ if self.output_bits() == 32 => (d.lo as u32 as i32).to_string(),
            _ => d.lo.to_string(),
        }
    }

    /// All output bytes in hex, in the byte order the reference uses:
    /// Guava's `HashCode.toString()` (little-endian) for murmur3, SipHash's
    /// little-endian output bytes, and the big-endian (canonical) form of
    /// the number for every other family.
    pub fn hex_string(self, d: Digest) -> String {
        let bytes: Vec<u8> = match self {
            Family::Murmur3X64_128 => {
                [d.lo.to_le_bytes(), d.hi.to_le_bytes()].concat()
            }
            Family::Murmur3X86_32 | Family::Murmur3X86_32GuavaLegacy => {
                (d.lo as u32).to_le_bytes().to_vec()
            }
            Family::SipHash13 => d.lo.to_le_bytes().to_vec(),
            Family::Xxh3_128 | Family::Fold128 => {
                [d.hi.to_be_bytes(), d.lo.to_be_bytes()].concat()
            }
            _ if self.output_bits() == 32 => {
                (d.lo as u32).to_be_bytes().to_vec()
            }
            _ => d.lo.to_be_bytes().to_vec(),
        };
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Family {
    type Err = Error;
    fn from_str(s: &str) -> Result<Family> {
        Family::from_name(s)
    }
}

/// A family's hash function: key bytes and checked seed in, digest out.
pub type HashFn = fn(&[u8], u64) -> Digest;

#[inline(always)]
fn low(v: u64) -> Digest {
    Digest { lo: v, hi: 0 }
}

/// A hutool (or Java) hash of the key's Java-string view, as a digest:
/// long results as they are, int results zero-extended from 32 bits.
#[inline(always)]
fn java_string(h: HutoolHash, key: &[u8]) -> Digest {
    let v = with_java_units(key, |u| h.hash_units(u));
    if h.returns_long() { low(v as u64) } else { low(java_int(v)) }
}

/// One function per hutool hash, indexed by `HutoolHash as usize`, so the
/// hash is a constant inside each.
const HUTOOL_FNS: [HashFn; 17] = {
    macro_rules! f {
        ($($v:ident),*) => {[$(|k, _| java_string(HutoolHash::$v, k)),*]};
    }
    f!(
        JavaDefault,
        Elf,
        Fnv,
        Js,
        Pjw,
        Rs,
        Sdbm,
        Bkdr,
        Ap,
        Djb,
        Dek,
        OneByOne,
        Bernstein,
        Hf,
        HfIp,
        Tianl,
        Mix
    )
};

/// A Java `int` result (sign-extended in `v`) as the zero-extended low 32
/// bits of a [`Digest`].
#[inline]
fn java_int(v: i64) -> u64 {
    u64::from(v as u32)
}

/// 64-bit FNV-1a over bytes (Fowler, Noll, Vo).
#[inline]
pub fn fnv1a_64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A family with a checked seed: the value filters keep and call.
#[derive(Clone, Copy)]
pub struct Hasher {
    family: Family,
    seed: u64,
    f: HashFn,
}

impl std::fmt::Debug for Hasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hasher")
            .field("family", &self.family)
            .field("seed", &self.seed)
            .finish()
    }
}

// The function pointer is determined by the family, so equality and
// hashing look at (family, seed) only.
impl PartialEq for Hasher {
    fn eq(&self, other: &Hasher) -> bool {
        (self.family, self.seed) == (other.family, other.seed)
    }
}

impl Eq for Hasher {}

impl std::hash::Hash for Hasher {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.family, self.seed).hash(state);
    }
}

impl Hasher {
    /// A hasher for `family` with `seed` (see [`Family::check_seed`]).
    pub fn new(family: Family, seed: i128) -> Result<Hasher> {
        Ok(Hasher {
            family,
            seed: family.check_seed(seed)?,
            f: family.hash_fn(),
        })
    }

    /// The family.
    pub fn family(&self) -> Family {
        self.family
    }

    /// The checked seed (for 32-bit families, the low 32 bits matter).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Hashes `key`.
    #[inline]
    pub fn hash(&self, key: &[u8]) -> Digest {
        (self.f)(key, self.seed)
    }

    /// Hashes `key` with another seed (used by strategies that need more
    /// than one hash per key). Seedless families ignore it.
    #[inline]
    pub fn hash_with_seed(&self, key: &[u8], seed: u64) -> Digest {
        (self.f)(key, seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let names: Vec<_> = Family::all().map(Family::name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        for f in Family::all() {
            assert_eq!(Family::from_name(f.name()), Ok(f));
        }
        assert!(matches!(
            Family::from_name("md5"),
            Err(Error::UnknownFamily { .. })
        ));
    }

    #[test]
    fn seeds_are_checked() {
        let m = Family::Murmur3X64_128;
        assert_eq!(m.check_seed(-1), Ok(0xffff_ffff));
        assert_eq!(m.check_seed(0xffff_ffff), Ok(0xffff_ffff));
        assert!(m.check_seed(1 << 32).is_err());
        assert!(Family::Fnv1a64.check_seed(1).is_err());
        assert_eq!(Family::Xxh64.check_seed(-1), Ok(u64::MAX));
        assert!(Family::Xxh64.check_seed(1 << 64).is_err());
    }

    #[test]
    fn fnv1a_reference_values() {
        // From the FNV reference test suite.
        assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_64(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
