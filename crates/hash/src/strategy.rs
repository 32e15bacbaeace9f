//! Index strategies: how a key's hash becomes `k` bit positions in
//! `[0, m)`.
//!
//! | name | positions | source |
//! |---|---|---|
//! | `guava-mitz32` | `h1 + i·h2` in Java `int`, `i = 1..=k`, negative → `!x`, `% m` | Guava `MURMUR128_MITZ_32` |
//! | `guava-mitz64` | `(h1 + i·h2) & i64::MAX % m`, 64-bit, `i = 0..k` | Guava `MURMUR128_MITZ_64` |
//! | `double` | `reduce(h1 + i·h2)`, 64-bit wrapping | Kirsch & Mitzenmacher 2006 |
//! | `enhanced-double` | `h1 + i·h2 + (i³ − i)/6` (`x += y; y += i`) | Dillinger & Manolios 2004 |
//! | `redisbloom` | `a = H(key, s0)`, `b = H(key, a)`, `(a + i·b) % m` | RedisBloom `bloom.c` |
//! | `redisson` | `h += h2` on even `i`, `h += h1` on odd, `& i64::MAX % m` | Redisson `RedissonBloomFilter`'s scheme (its hash, HighwayHash-128 over the codec's bytes, is not one of these families) |
//! | `independent` | `reduce(H(key, seed + i))`: k seeded hashes | the textbook model |
//!
//! For `guava-mitz*`, Guava splits murmur3's 128 bits: `h1` is the low 64
//! (`asLong()`), `h2` the high 64; MITZ_32 uses the two halves of `h1`
//! instead. With a family narrower than the scheme needs, `h1` is the hash
//! and the missing half is a 64-bit mix of it (SplitMix64's finaliser), so
//! the pair only collides when the hash does; only `murmur3-x64-128` is
//! Guava-exact.
//!
//! Known weakness, kept because it is Redisson's: its alternating
//! increments make probe 3 equal `2(h1 + h2)`, always even, so with an
//! even `m` that probe only reaches even bits (and probe 7, `4(h1 + h2)`,
//! only multiples of 4).
//!
//! Enhanced double hashing and the multiply-shift: the reduction keeps
//! the high bits of the 64-bit `x`, and the cubic term, under 2^16 for
//! `k ≤ 64`, moves a position by less than `m/2^48` of a bit, so with
//! [`Reduction::MultiplyShift`] `enhanced-double` places its probes as
//! `double` does (it stays the default for large filters, where both
//! meet the formulas). Both then share double hashing's small-filter
//! excess: a key whose step `h2/2^64` lies within `1/(mk)` of a fraction
//! `j/q` puts all `k` probes on `q` bits. With [`Reduction::Modulo`] the
//! term is reduced with the rest and does its work. Measured (1,500
//! filters each, m = 1024, n = 64, k = 11; `bloomlab_core::theory::pair_floor_multiply_shift`
//! says where this matters): the rate over the exact formula's was 1.63
//! for `enhanced-double` and 1.61 for `double` with multiply-shift, 1.10
//! and 3.82 with modulo, 1.00 for `independent`.
//!
//! Range reduction maps a hash value `x` to `[0, m)`: [`Reduction::Modulo`]
//! (`x % m`, Guava's and RedisBloom's) or [`Reduction::MultiplyShift`]
//! (`(x · m) >> w` for a `w`-bit `x`, Lemire 2016): no division and no
//! bias worth measuring for 64-bit `x`. Guava's, RedisBloom's and
//! Redisson's schemes are defined with the modulo, so they refuse the
//! multiply-shift.
//!
//! A family that reports 32 bits but fills fewer leaves the top bits of
//! its word zero, and the multiply-shift reads the top bits: most of
//! hutool's hashes are 31-bit (Java's non-negative `int`), PJW 28-bit,
//! so their first probe reaches only the lower half of the filter (PJW
//! about 1/16 of it). Measured on random 16-hex-digit keys
//! (n = 10^5, m = 958,528, k = 7, enhanced double hashing, 200,000
//! queries): false-positive rates 1.66% (PJW), 1.30% (ELF) and about
//! 1.11% (RS, JS, DEK) with the multiply-shift, 1.11%, 1.06% and about
//! 1.00% with the modulo, so a sweep comparing them should use the
//! modulo, as the hutool-exact filters do.
//!
//! `hutool-hf`, `hutool-hfip` and `hutool-tianl` return Java `long`s, so
//! they count as 64-bit and are not widened, but their values are small
//! (tianl's under 2^33): under the multiply-shift their first probe is
//! bit 0 for every key, and `guava-mitz32`, which splits the low 64
//! bits into two 32-bit halves, gets a zero step and puts all `k` probes
//! on one bit. They are kept as hutool computes them, for comparisons
//! that show it; use the modulo and a scheme that does not split the
//! word.
//!
//! ```
//! use bloomlab_hash::{Family, Indexer, Reduction, Strategy};
//!
//! // Guava's default strategy, bit-exact (string "hello", m = 1000, k = 3).
//! let ix = Indexer::new(
//!     Family::Murmur3X64_128, 0, Strategy::GuavaMitz64,
//!     Reduction::Modulo, 3, 1000)?;
//! let positions = ix.indices(b"hello");
//! assert_eq!(positions.len(), 3);
//! assert!(positions.iter().all(|&p| p < 1000));
//! # Ok::<(), bloomlab_hash::Error>(())
//! ```

use crate::family::{Digest, Family, Hasher, SeedKind};
use crate::murmur64a::REDISBLOOM_SEED;
use crate::{Error, Result};

/// Most probes a key an [`Indexer`] takes, as many as a partitioned
/// filter's slices: `indices` allocates `k` positions, so an unchecked
/// `k` of four billion aborted the process asking for 32 GiB.
pub const MAX_K: u32 = 4096;

/// A registered index strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Strategy {
    /// `guava-mitz32`: Guava's legacy `MURMUR128_MITZ_32`.
    GuavaMitz32,
    /// `guava-mitz64`: Guava's default `MURMUR128_MITZ_64`.
    GuavaMitz64,
    /// `double`: Kirsch–Mitzenmacher double hashing `h1 + i·h2`.
    Double,
    /// `enhanced-double`: Dillinger–Manolios enhanced double hashing.
    EnhancedDouble,
    /// `redisbloom`: RedisBloom's seed-chained double hashing.
    RedisBloom,
    /// `redisson`: Redisson's alternating double hashing.
    Redisson,
    /// `independent`: `k` independently seeded hashes.
    Independent,
}

const STRATEGIES: [Strategy; 7] = [
    Strategy::GuavaMitz32,
    Strategy::GuavaMitz64,
    Strategy::Double,
    Strategy::EnhancedDouble,
    Strategy::RedisBloom,
    Strategy::Redisson,
    Strategy::Independent,
];

impl Strategy {
    /// Every registered strategy.
    pub fn all() -> impl Iterator<Item = Strategy> {
        STRATEGIES.into_iter()
    }

    /// The registry name.
    pub const fn name(self) -> &'static str {
        match self {
            Strategy::GuavaMitz32 => "guava-mitz32",
            Strategy::GuavaMitz64 => "guava-mitz64",
            Strategy::Double => "double",
            Strategy::EnhancedDouble => "enhanced-double",
            Strategy::RedisBloom => "redisbloom",
            Strategy::Redisson => "redisson",
            Strategy::Independent => "independent",
        }
    }

    /// One line on the scheme.
    pub const fn description(self) -> &'static str {
        match self {
            Strategy::GuavaMitz32 => {
                "Guava MURMUR128_MITZ_32: int h1 + i*h2, i = 1..k, ~x if negative, % m"
            }
            Strategy::GuavaMitz64 => {
                "Guava MURMUR128_MITZ_64: (h1 + i*h2) & Long.MAX_VALUE % m"
            }
            Strategy::Double => "Kirsch-Mitzenmacher double hashing h1 + i*h2",
            Strategy::EnhancedDouble => {
                "Dillinger-Manolios enhanced double hashing (x += y; y += i)"
            }
            Strategy::RedisBloom => {
                "RedisBloom: a = H(key, 0xc6a4a7935bd1e995), b = H(key, a), (a + i*b) % m"
            }
            Strategy::Redisson => {
                "Redisson's scheme (not its HighwayHash): h += h2 after even i, h += h1 after odd i, & MAX % m"
            }
            Strategy::Independent => {
                "k independent hashes, seeds seed..seed+k-1"
            }
        }
    }

    /// Looks a strategy up by name (case-insensitive).
    pub fn from_name(name: &str) -> Result<Strategy> {
        let wanted = name.trim().to_ascii_lowercase();
        Strategy::all().find(|s| s.name() == wanted).ok_or_else(|| {
            Error::UnknownStrategy {
                name: name.to_string(),
                known: Strategy::all()
                    .map(Strategy::name)
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })
    }

    /// Whether one digest of the key determines all positions (so a batch
    /// can be hashed first and probed second).
    pub const fn digest_only(self) -> bool {
        !matches!(self, Strategy::RedisBloom | Strategy::Independent)
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Strategy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Strategy> {
        Strategy::from_name(s)
    }
}

/// How a hash value is mapped into `[0, m)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Reduction {
    /// `x % m` (Guava, RedisBloom, Redisson).
    Modulo,
    /// `(x · m) >> w` for a `w`-bit value (Lemire's multiply-shift).
    #[default]
    MultiplyShift,
}

impl Reduction {
    /// Every reduction.
    pub fn all() -> impl Iterator<Item = Reduction> {
        [Reduction::Modulo, Reduction::MultiplyShift].into_iter()
    }

    /// The registry name: `modulo` or `multiply-shift`.
    pub const fn name(self) -> &'static str {
        match self {
            Reduction::Modulo => "modulo",
            Reduction::MultiplyShift => "multiply-shift",
        }
    }

    /// Looks a reduction up by name (case-insensitive).
    pub fn from_name(name: &str) -> Result<Reduction> {
        let wanted = name.trim().to_ascii_lowercase();
        Reduction::all().find(|r| r.name() == wanted).ok_or_else(|| {
            Error::UnknownReduction {
                name: name.to_string(),
                known: "modulo, multiply-shift".to_string(),
            }
        })
    }

    /// Maps a 64-bit value into `[0, m)`; `m = 0` gives 0 with either
    /// reduction (multiply-shift's product is 0; modulo would divide by
    /// zero).
    ///
    /// ```
    /// use bloomlab_hash::Reduction;
    /// assert_eq!(Reduction::Modulo.reduce64(10, 7), 3);
    /// assert_eq!(Reduction::MultiplyShift.reduce64(u64::MAX, 7), 6);
    /// assert_eq!(Reduction::Modulo.reduce64(10, 0), 0);
    /// ```
    #[inline(always)]
    pub fn reduce64(self, x: u64, m: u64) -> u64 {
        match self {
            Reduction::Modulo => x.checked_rem(m).unwrap_or(0),
            Reduction::MultiplyShift => {
                ((u128::from(x) * u128::from(m)) >> 64) as u64
            }
        }
    }

    /// Maps a 32-bit value into `[0, m)`; `m = 0` gives 0, as for
    /// [`Reduction::reduce64`].
    #[inline(always)]
    pub fn reduce32(self, x: u32, m: u64) -> u64 {
        match self {
            Reduction::Modulo => u64::from(x).checked_rem(m).unwrap_or(0),
            Reduction::MultiplyShift => {
                ((u128::from(x) * u128::from(m)) >> 32) as u64
            }
        }
    }
}

impl std::fmt::Display for Reduction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Reduction {
    type Err = Error;
    fn from_str(s: &str) -> Result<Reduction> {
        Reduction::from_name(s)
    }
}

/// SplitMix64's finaliser: a bijective 64-bit mix, used to derive `h2`
/// from a hash narrower than 128 bits (but `fold-64`'s:
/// [`Family::step`]).
#[inline(always)]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A hasher, strategy, reduction, `k` and `m`, checked together: turns a
/// key into its `k` positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Indexer {
    hasher: Hasher,
    strategy: Strategy,
    reduction: Reduction,
    k: u32,
    m: u64,
}

impl Indexer {
    /// Checks the combination and builds the indexer. Errors: `k = 0` or
    /// `k >` [`MAX_K`], `m = 0`, a bad seed for the family, a Java-exact strategy
    /// (`guava-*`, `redisson`) with the multiply-shift, `independent` with
    /// a seedless family, `redisbloom` with a family without 64-bit seeds.
    pub fn new(
        family: Family,
        seed: i128,
        strategy: Strategy,
        reduction: Reduction,
        k: u32,
        m: u64,
    ) -> Result<Indexer> {
        Indexer::with_hasher(
            Hasher::new(family, seed)?,
            strategy,
            reduction,
            k,
            m,
        )
    }

    /// As [`Indexer::new`], from a checked [`Hasher`].
    pub fn with_hasher(
        hasher: Hasher,
        strategy: Strategy,
        reduction: Reduction,
        k: u32,
        m: u64,
    ) -> Result<Indexer> {
        if k == 0 {
            return Err(Error::InvalidParameter {
                name: "k",
                value: 0,
                reason: "a filter needs at least one probe",
            });
        }
        if k > MAX_K {
            return Err(Error::InvalidParameter {
                name: "k",
                value: u64::from(k),
                reason: "at most 4096 probes a key (MAX_K; the optimal k \
                         of a filter at a false-positive rate of 2^-4096)",
            });
        }
        if m == 0 {
            return Err(Error::InvalidParameter {
                name: "m",
                value: 0,
                reason: "a filter needs at least one bit",
            });
        }
        let family = hasher.family();
        // The schemes named after a library reduce with `% m` there;
        // another reduction would give other bits under the same name.
        let java_exact = matches!(
            strategy,
            Strategy::GuavaMitz32
                | Strategy::GuavaMitz64
                | Strategy::Redisson
                | Strategy::RedisBloom
        );
        if java_exact && reduction != Reduction::Modulo {
            return Err(Error::Unsupported {
                strategy: strategy.name(),
                with: reduction.name(),
                reason: "the scheme is defined with `% m`; use the modulo \
                         reduction (Reduction::Modulo; `--reduction modulo` \
                         on the command line)",
            });
        }
        match (strategy, family.seed_kind()) {
            (Strategy::Independent, SeedKind::None) => {
                return Err(Error::Unsupported {
                    strategy: strategy.name(),
                    with: family.name(),
                    reason: "it needs a seeded family (murmur3, murmur64a, xxh*, siphash)",
                });
            }
            (Strategy::RedisBloom, kind) if kind != SeedKind::U64 => {
                return Err(Error::Unsupported {
                    strategy: strategy.name(),
                    with: family.name(),
                    reason: "it seeds the second hash with the first, 64-bit one \
                             (use murmur64a, xxh64, xxh3-64, xxh3-128 or siphash-1-3)",
                });
            }
            _ => {}
        }
        Ok(Indexer { hasher, strategy, reduction, k, m })
    }

    /// The hasher.
    pub fn hasher(&self) -> Hasher {
        self.hasher
    }
    /// The strategy.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }
    /// The range reduction.
    pub fn reduction(&self) -> Reduction {
        self.reduction
    }
    /// Probes per key.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// The range: positions are in `[0, m)`.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// The key's positions, in probe order (may repeat).
    pub fn indices(&self, key: &[u8]) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.k as usize);
        self.for_each_index(key, |i| out.push(i));
        out
    }

    /// Calls `f` with each of the key's `k` positions, in probe order.
    #[inline]
    pub fn for_each_index(&self, key: &[u8], mut f: impl FnMut(u64)) {
        self.all_indices(key, |i| {
            f(i);
            true
        });
    }

    /// Calls `f` with each position until it returns false; returns
    /// whether every call returned true (a membership test stops at the
    /// first clear bit).
    #[inline]
    pub fn all_indices(&self, key: &[u8], f: impl FnMut(u64) -> bool) -> bool {
        match self.strategy {
            Strategy::RedisBloom => {
                let s0 = REDISBLOOM_SEED ^ self.hasher.seed();
                let a = self.hasher.hash_with_seed(key, s0).lo;
                let b = self.hasher.hash_with_seed(key, a).lo;
                self.walk_double(a, b, f)
            }
            Strategy::Independent => self.walk_independent(key, f),
            _ => self.all_indices_of_digest(self.hasher.hash(key), f),
        }
    }

    /// Hashes a key once (for strategies where [`Strategy::digest_only`]).
    #[inline]
    pub fn digest(&self, key: &[u8]) -> Digest {
        self.hasher.hash(key)
    }

    /// As [`Indexer::all_indices`], from a digest computed by
    /// [`Indexer::digest`]. For `redisbloom` and `independent`, which hash
    /// more than once, the digest is not enough: callers check
    /// [`Strategy::digest_only`] first; here those two fall back to double
    /// hashing of the digest, which is *not* their scheme.
    #[inline]
    pub fn all_indices_of_digest(
        &self,
        d: Digest,
        mut f: impl FnMut(u64) -> bool,
    ) -> bool {
        let m = self.m;
        match self.strategy {
            Strategy::GuavaMitz64 => {
                let (h1, h2) = self.pair(d);
                let mut c = h1;
                for _ in 0..self.k {
                    if !f((c & i64::MAX as u64) % m) {
                        return false;
                    }
                    c = c.wrapping_add(h2);
                }
                true
            }
            Strategy::GuavaMitz32 => {
                // Guava splits a 64-bit hash into two ints; a 32-bit
                // family supplies only the low one, the high one is mixed.
                let h64 = if self.hasher.family().output_bits() == 32 {
                    d.lo | (mix64(d.lo) << 32)
                } else {
                    d.lo
                };
                let h1 = h64 as u32 as i32;
                let h2 = (h64 >> 32) as u32 as i32;
                for i in 1..=self.k {
                    let mut c = h1.wrapping_add((i as i32).wrapping_mul(h2));
                    if c < 0 {
                        c = !c;
                    }
                    if !f(c as u64 % m) {
                        return false;
                    }
                }
                true
            }
            Strategy::Redisson => {
                let (h1, h2) = self.pair(d);
                let mut c = h1;
                for i in 0..self.k {
                    if !f((c & i64::MAX as u64) % m) {
                        return false;
                    }
                    c = c.wrapping_add(if i % 2 == 0 { h2 } else { h1 });
                }
                true
            }
            Strategy::EnhancedDouble => {
                let (mut x, mut y) = self.pair(d);
                for i in 0..self.k {
                    if !f(self.reduction.reduce64(x, m)) {
                        return false;
                    }
                    // Dillinger & Manolios: x_{i+1} = x_i + y_i and
                    // y_{i+1} = y_i + (i + 1), so x_i = h1 + i*h2 + (i^3-i)/6.
                    x = x.wrapping_add(y);
                    y = y.wrapping_add(u64::from(i) + 1);
                }
                true
            }
            Strategy::Double
            | Strategy::RedisBloom
            | Strategy::Independent => {
                let (h1, h2) = self.pair(d);
                self.walk_double(h1, h2, f)
            }
        }
    }

    /// `(h1, h2)` of a digest: the two halves of a 128-bit hash, or a
    /// narrower hash and its [`Family::step`] (a 64-bit mix of it, or
    /// `fold-64` rotated). Multiply-shift reads the
    /// *high* bits of `h1 + i*h2`, so a 32-bit hash is moved to the top of
    /// the word first (probe 0 is then Lemire's `(h * m) >> 32`); left in
    /// the low bits, probe 0 would always be 0.
    #[inline(always)]
    fn pair(&self, d: Digest) -> (u64, u64) {
        match self.hasher.family().output_bits() {
            128 => (d.lo, d.hi),
            32 if self.reduction == Reduction::MultiplyShift => {
                (d.lo << 32, mix64(d.lo))
            }
            _ => (d.lo, self.hasher.family().step(d.lo)),
        }
    }

    #[inline(always)]
    fn walk_double(
        &self,
        h1: u64,
        h2: u64,
        mut f: impl FnMut(u64) -> bool,
    ) -> bool {
        let mut c = h1;
        for _ in 0..self.k {
            if !f(self.reduction.reduce64(c, self.m)) {
                return false;
            }
            c = c.wrapping_add(h2);
        }
        true
    }

    #[inline]
    fn walk_independent(
        &self,
        key: &[u8],
        mut f: impl FnMut(u64) -> bool,
    ) -> bool {
        let bits = self.hasher.family().output_bits();
        for i in 0..self.k {
            let seed = self.hasher.seed().wrapping_add(u64::from(i));
            let d = self.hasher.hash_with_seed(key, seed);
            let pos = if bits == 32 {
                self.reduction.reduce32(d.lo as u32, self.m)
            } else {
                self.reduction.reduce64(d.lo, self.m)
            };
            if !f(pos) {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Strategy::all() {
            assert_eq!(Strategy::from_name(s.name()), Ok(s));
        }
        for r in Reduction::all() {
            assert_eq!(Reduction::from_name(r.name()), Ok(r));
        }
        assert!(Strategy::from_name("triple").is_err());
    }

    #[test]
    fn bad_combinations_are_errors() {
        let f = Family::Xxh3_64;
        let ms = Reduction::MultiplyShift;
        assert!(Indexer::new(f, 0, Strategy::Double, ms, 0, 10).is_err());
        assert!(Indexer::new(f, 0, Strategy::Double, ms, 1, 0).is_err());
        assert!(Indexer::new(f, 0, Strategy::GuavaMitz64, ms, 3, 10).is_err());
        // RedisBloom's positions are `% m`: under another reduction the
        // name would give other bits than RedisBloom's.
        let m64a = Family::Murmur64A;
        let e = Indexer::new(m64a, 0, Strategy::RedisBloom, ms, 7, 958_528);
        assert!(matches!(e, Err(Error::Unsupported { .. })));
        let mo = Reduction::Modulo;
        assert!(
            Indexer::new(m64a, 0, Strategy::RedisBloom, mo, 7, 958_528)
                .is_ok()
        );
        assert!(
            Indexer::new(Family::Fnv1a64, 0, Strategy::Independent, ms, 3, 10)
                .is_err()
        );
        assert!(
            Indexer::new(
                Family::Murmur3X64_128,
                0,
                Strategy::RedisBloom,
                Reduction::Modulo,
                3,
                10
            )
            .is_err()
        );
    }

    #[test]
    fn multiply_shift_stays_in_range() {
        for m in [1u64, 2, 3, 1000, u64::MAX] {
            for x in [0u64, 1, u64::MAX / 2, u64::MAX] {
                assert!(Reduction::MultiplyShift.reduce64(x, m) < m);
                assert!(Reduction::MultiplyShift.reduce32(x as u32, m) < m);
            }
        }
    }

    #[test]
    fn enhanced_double_adds_tetrahedral_numbers() {
        // x_i = h1 + i*h2 + (i^3 - i)/6 (Dillinger & Manolios 2004).
        let ix = Indexer::new(
            Family::Xxh3_128,
            0,
            Strategy::EnhancedDouble,
            Reduction::Modulo,
            8,
            1 << 40,
        )
        .unwrap();
        let d = ix.digest(b"key");
        let mut got = Vec::new();
        ix.all_indices_of_digest(d, |p| {
            got.push(p);
            true
        });
        for (i, &p) in got.iter().enumerate() {
            let i = i as u64;
            let want =
                d.lo.wrapping_add(i.wrapping_mul(d.hi))
                    .wrapping_add((i * i * i - i) / 6)
                    % (1 << 40);
            assert_eq!(p, want, "probe {i}");
        }
    }
}
