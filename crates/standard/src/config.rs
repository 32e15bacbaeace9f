//! Configuration shared by the three layouts, and the probe engine that
//! turns a key into bit positions with one `match` per key.

use bloomlab_hash::fold::fold64_step;
use bloomlab_hash::murmur3;
use bloomlab_hash::strategy::mix64;
use bloomlab_hash::{Digest, Family, Hasher, Indexer, Reduction, Strategy};

use crate::Result;

/// How keys become bit positions: hash family, seed, index strategy and
/// range reduction.
///
/// The default is `xxh3-128`, seed 0, `enhanced-double`, `multiply-shift`:
/// the fastest combination measured (`benches/benches/standard.rs`) whose
/// false-positive rate matches the exact formula. Enhanced double hashing
/// avoids the excess of plain double hashing on small filters (see
/// `THEORY.md` §5) at the cost of one addition per probe; the two halves
/// of one 128-bit XXH3 hash start and step the walk, which saves mixing a
/// 64-bit hash into a second one (about 1 ns a key).
///
/// `fold-128` ([`bloomlab_hash::fold`]) has the same fast paths with
/// fewer instructions than XXH3 on keys of up to 16 bytes (15 against
/// 23 for an 8-byte key on x86-64): up to
/// about 1 ns a key faster at n = 1e6 (non-member queries, counting
/// filters), level elsewhere. `fold-64`, its first half, steps the walk
/// by the hash rotated and xored with a constant
/// ([`bloomlab_hash::Family::step`]) instead of a second multiply: 5–7%
/// faster again at n = 1e6 (`benches/NOTEBOOK.md`, "The fold
/// families"). They are bloomlab's own hashes, whose constants are
/// public, so the default stays the established XXH3.
///
/// ```
/// use bloomlab_standard::Config;
/// use bloomlab_hash::{Family, Reduction, Strategy};
///
/// let c = Config::default();
/// assert_eq!(c.family, Family::Xxh3_128);
/// assert_eq!(c.strategy, Strategy::EnhancedDouble);
/// assert_eq!(c.reduction, Reduction::MultiplyShift);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct Config {
    /// The hash family.
    pub family: Family,
    /// The seed, as the family takes it (see [`Family::check_seed`]).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_impls::seed"))]
    pub seed: i128,
    /// The index strategy.
    pub strategy: Strategy,
    /// The range reduction.
    pub reduction: Reduction,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            family: Family::Xxh3_128,
            seed: 0,
            strategy: Strategy::EnhancedDouble,
            reduction: Reduction::MultiplyShift,
        }
    }
}

impl Config {
    /// Guava's filter: `murmur3-x64-128`, seed 0, the given strategy
    /// (`guava-mitz64` is Guava's default), modulo reduction.
    pub fn guava(strategy: Strategy) -> Config {
        Config {
            family: Family::Murmur3X64_128,
            seed: 0,
            strategy,
            reduction: Reduction::Modulo,
        }
    }

    /// Sets the hash family.
    pub fn with_family(mut self, family: Family) -> Config {
        self.family = family;
        self
    }

    /// Sets the seed.
    pub fn with_seed(mut self, seed: i128) -> Config {
        self.seed = seed;
        self
    }

    /// Sets the index strategy.
    pub fn with_strategy(mut self, strategy: Strategy) -> Config {
        self.strategy = strategy;
        self
    }

    /// Sets the range reduction.
    pub fn with_reduction(mut self, reduction: Reduction) -> Config {
        self.reduction = reduction;
        self
    }
}

/// The specialised probe loops. Chosen once at construction, matched
/// once per key; each arm is a monomorphic loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// xxh3-64 + enhanced double + multiply-shift.
    Xxh3EnhancedMs,
    /// xxh3-64 + double + multiply-shift.
    Xxh3DoubleMs,
    /// xxh3-128 + enhanced double + multiply-shift (the default): the
    /// two halves of one hash are the walk's start and step, no mixing
    /// needed.
    Xxh3x128EnhancedMs,
    /// xxh3-128 + double + multiply-shift.
    Xxh3x128DoubleMs,
    /// fold-128 + enhanced double + multiply-shift: as xxh3-128.
    Fold128EnhancedMs,
    /// fold-128 + double + multiply-shift.
    Fold128DoubleMs,
    /// fold-64 + enhanced double + multiply-shift: the step is the
    /// hash's [`Family::step`].
    Fold64EnhancedMs,
    /// fold-64 + double + multiply-shift.
    Fold64DoubleMs,
    /// murmur3-x64-128 + Guava MITZ_64 (Guava's default).
    Mitz64,
    /// Any other combination whose positions follow from one digest.
    Digest,
    /// Strategies that hash more than once (`redisbloom`, `independent`).
    Keyed,
}

/// An [`Indexer`] with fast paths: the same positions, bit for bit, with
/// the common configurations inlined. Public so that every filter hashing
/// like the standard filter (the counting filter, for one) shares these
/// loops instead of copying them.
///
/// ```
/// use bloomlab_standard::{Config, Probes};
///
/// let p = Probes::new(&Config::default(), 7, 1000)?;
/// let mut positions = Vec::new();
/// p.all(b"key", |i| { positions.push(i); true });
/// assert_eq!(positions.len(), 7);
/// assert!(positions.iter().all(|&i| i < 1000));
/// # Ok::<(), bloomlab_standard::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probes {
    indexer: Indexer,
    kind: Kind,
    seed: u64,
    k: u32,
    m: u64,
}

impl Probes {
    /// The probes of `config` with `k` positions in `[0, m)`; errors for
    /// a combination the hash crate refuses.
    pub fn new(config: &Config, k: u32, m: u64) -> Result<Probes> {
        let hasher = Hasher::new(config.family, config.seed)?;
        let indexer = Indexer::with_hasher(
            hasher,
            config.strategy,
            config.reduction,
            k,
            m,
        )?;
        let ms = config.reduction == Reduction::MultiplyShift;
        let kind = match (config.family, config.strategy) {
            (Family::Xxh3_64, Strategy::EnhancedDouble) if ms => {
                Kind::Xxh3EnhancedMs
            }
            (Family::Xxh3_64, Strategy::Double) if ms => Kind::Xxh3DoubleMs,
            (Family::Xxh3_128, Strategy::EnhancedDouble) if ms => {
                Kind::Xxh3x128EnhancedMs
            }
            (Family::Xxh3_128, Strategy::Double) if ms => {
                Kind::Xxh3x128DoubleMs
            }
            (Family::Fold128, Strategy::EnhancedDouble) if ms => {
                Kind::Fold128EnhancedMs
            }
            (Family::Fold128, Strategy::Double) if ms => Kind::Fold128DoubleMs,
            (Family::Fold64, Strategy::EnhancedDouble) if ms => {
                Kind::Fold64EnhancedMs
            }
            (Family::Fold64, Strategy::Double) if ms => Kind::Fold64DoubleMs,
            (Family::Murmur3X64_128, Strategy::GuavaMitz64) => Kind::Mitz64,
            (_, s) if s.digest_only() => Kind::Digest,
            _ => Kind::Keyed,
        };
        Ok(Probes { indexer, kind, seed: hasher.seed(), k, m })
    }

    /// Positions per key.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// The range of positions.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// The configuration, with the seed as the family uses it.
    pub fn config(&self) -> Config {
        let h = self.indexer.hasher();
        Config {
            family: h.family(),
            seed: i128::from(h.seed()),
            strategy: self.indexer.strategy(),
            reduction: self.indexer.reduction(),
        }
    }

    /// Whether a batch can be hashed first and probed second.
    #[inline]
    pub fn digest_only(&self) -> bool {
        self.kind != Kind::Keyed
    }

    /// The key's digest (for [`Probes::all_of_digest`]).
    #[inline(always)]
    pub fn digest(&self, key: &[u8]) -> Digest {
        match self.kind {
            Kind::Xxh3EnhancedMs | Kind::Xxh3DoubleMs => Digest {
                // Seed 0 is the same function with the seed folded away.
                lo: if self.seed == 0 {
                    xxhash_rust::xxh3::xxh3_64(key)
                } else {
                    xxhash_rust::xxh3::xxh3_64_with_seed(key, self.seed)
                },
                hi: 0,
            },
            Kind::Xxh3x128EnhancedMs | Kind::Xxh3x128DoubleMs => {
                let v = if self.seed == 0 {
                    xxhash_rust::xxh3::xxh3_128(key)
                } else {
                    xxhash_rust::xxh3::xxh3_128_with_seed(key, self.seed)
                };
                Digest { lo: v as u64, hi: (v >> 64) as u64 }
            }
            Kind::Fold128EnhancedMs | Kind::Fold128DoubleMs => {
                let (lo, hi) = bloomlab_hash::fold::fold128(key, self.seed);
                Digest { lo, hi }
            }
            Kind::Fold64EnhancedMs | Kind::Fold64DoubleMs => Digest {
                lo: bloomlab_hash::fold::fold64(key, self.seed),
                hi: 0,
            },
            Kind::Mitz64 => {
                let (lo, hi) = bloomlab_hash::murmur3::x64_128(
                    key,
                    self.seed as u32 as i32,
                );
                Digest { lo, hi }
            }
            Kind::Digest | Kind::Keyed => self.indexer.digest(key),
        }
    }

    /// For the multiply-shift double-hashing fast paths (the default
    /// configuration and `xxh3-64`/`xxh3-128` with `double` or
    /// `enhanced-double`): the start `(x, y)` of the
    /// walk and whether it is enhanced (`y += i + 1` after probe `i`). The
    /// positions are `(x · m) >> 64` along the walk, as
    /// [`Probes::all_of_digest`] gives them.
    #[inline(always)]
    pub fn ms_walk(&self, d: Digest) -> Option<(u64, u64, bool)> {
        match self.kind {
            Kind::Xxh3EnhancedMs => Some((d.lo, mix64(d.lo), true)),
            Kind::Xxh3DoubleMs => Some((d.lo, mix64(d.lo), false)),
            Kind::Xxh3x128EnhancedMs | Kind::Fold128EnhancedMs => {
                Some((d.lo, d.hi, true))
            }
            Kind::Xxh3x128DoubleMs | Kind::Fold128DoubleMs => {
                Some((d.lo, d.hi, false))
            }
            Kind::Fold64EnhancedMs => Some((d.lo, fold64_step(d.lo), true)),
            Kind::Fold64DoubleMs => Some((d.lo, fold64_step(d.lo), false)),
            _ => None,
        }
    }

    /// [`Probes::ms_walk`] of the key's digest, without hashing the key
    /// when the configuration has no multiply-shift fast path.
    #[inline(always)]
    pub fn ms_start(&self, key: &[u8]) -> Option<(u64, u64, bool)> {
        match self.kind {
            Kind::Xxh3EnhancedMs
            | Kind::Xxh3DoubleMs
            | Kind::Xxh3x128EnhancedMs
            | Kind::Xxh3x128DoubleMs
            | Kind::Fold128EnhancedMs
            | Kind::Fold128DoubleMs
            | Kind::Fold64EnhancedMs
            | Kind::Fold64DoubleMs => self.ms_walk(self.digest(key)),
            _ => None,
        }
    }

    /// Whether this is Guava's MITZ_64 walk (murmur3-x64-128, modulo),
    /// whose probes [`Probes::mitz64_at`] gives.
    #[inline(always)]
    pub(crate) fn is_mitz64(&self) -> bool {
        self.kind == Kind::Mitz64
    }

    /// For Guava's MITZ_64 walk, the digest of a one-word key (a `long`:
    /// murmur3-x64-128 of its eight little-endian bytes), hashed inline;
    /// `None` for any other walk.
    #[inline(always)]
    pub(crate) fn mitz64_word_digest(&self, w: u64) -> Option<Digest> {
        if self.kind != Kind::Mitz64 {
            return None;
        }
        // The checked seed of a 32-bit-seeded family: its low 32 bits.
        let (lo, hi) = murmur3::x64_128_word(w, self.seed as u32 as i32);
        Some(Digest { lo, hi })
    }

    /// Probe `i` of Guava's MITZ_64 walk of digest `d`, in closed form:
    /// `((lo + i·hi) & i64::MAX) % m`, so that no probe waits for the one
    /// before it.
    #[inline(always)]
    pub(crate) fn mitz64_at(&self, d: Digest, i: u32) -> u64 {
        let c = d.lo.wrapping_add(d.hi.wrapping_mul(u64::from(i)));
        (c & i64::MAX as u64) % self.m
    }

    /// Calls `f` with each position of the key until it returns false;
    /// returns whether every call returned true.
    #[inline(always)]
    pub fn all(&self, key: &[u8], f: impl FnMut(u64) -> bool) -> bool {
        if self.kind == Kind::Keyed {
            return self.indexer.all_indices(key, f);
        }
        self.all_of_digest(self.digest(key), f)
    }

    /// As [`Probes::all`], from [`Probes::digest`]'s value (not for
    /// `Kind::Keyed`, where it falls back to the indexer's documented
    /// approximation; callers check [`Probes::digest_only`]).
    #[inline(always)]
    pub fn all_of_digest(
        &self,
        d: Digest,
        mut f: impl FnMut(u64) -> bool,
    ) -> bool {
        let (k, m) = (self.k, self.m);
        if let Some((mut x, mut y, enhanced)) = self.ms_walk(d) {
            for i in 0..k {
                if !f(((u128::from(x) * u128::from(m)) >> 64) as u64) {
                    return false;
                }
                x = x.wrapping_add(y);
                if enhanced {
                    y = y.wrapping_add(u64::from(i) + 1);
                }
            }
            return true;
        }
        match self.kind {
            Kind::Mitz64 => (0..k).all(|i| f(self.mitz64_at(d, i))),
            // (The multiply-shift kinds were walked above; the indexer
            // gives the same positions.)
            _ => self.indexer.all_indices_of_digest(d, f),
        }
    }

    /// Which multiply-shift walk ([`Probes::ms_walk`]) this configuration
    /// takes, if any: the hash that starts it (its [`MsStart`] type) and
    /// whether the walk is enhanced.
    ///
    /// [`MsStart`]: crate::MsStart
    #[inline]
    pub fn ms_hash(&self) -> Option<(MsHash, bool)> {
        match self.kind {
            Kind::Xxh3EnhancedMs => Some((MsHash::Xxh3x64, true)),
            Kind::Xxh3DoubleMs => Some((MsHash::Xxh3x64, false)),
            Kind::Xxh3x128EnhancedMs => Some((MsHash::Xxh3x128, true)),
            Kind::Xxh3x128DoubleMs => Some((MsHash::Xxh3x128, false)),
            Kind::Fold128EnhancedMs => Some((MsHash::Fold128, true)),
            Kind::Fold128DoubleMs => Some((MsHash::Fold128, false)),
            Kind::Fold64EnhancedMs => Some((MsHash::Fold64, true)),
            Kind::Fold64DoubleMs => Some((MsHash::Fold64, false)),
            _ => None,
        }
    }

    /// The seed as the family takes it.
    #[inline]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// For the multiply-shift fast paths ([`Probes::ms_walk`]): a
    /// function giving the walk's start `(x, y)` from `(seed, key)`
    /// ([`Probes::seed`]), and whether the walk is enhanced. Filters that
    /// pick their probe loops once, at construction, call it instead of
    /// [`Probes::ms_start`], whose per-key `match` it saves.
    ///
    /// ```
    /// use bloomlab_standard::{Config, Probes};
    ///
    /// let p = Probes::new(&Config::default(), 7, 1000)?;
    /// let (start, enhanced) = p.ms_starter().unwrap();
    /// assert!(enhanced);
    /// let (x, y) = start(p.seed(), b"key");
    /// assert_eq!(p.ms_start(b"key"), Some((x, y, true)));
    /// # Ok::<(), bloomlab_standard::Error>(())
    /// ```
    pub fn ms_starter(&self) -> Option<(crate::StartFn, bool)> {
        let (hash, enhanced) = self.ms_hash()?;
        Some((crate::kernel::starter(hash), enhanced))
    }
}

/// The hashes that start a multiply-shift walk (see [`Probes::ms_walk`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MsHash {
    /// xxh3-64, the step a 64-bit mix of it ([`Xxh3x64Start`]).
    ///
    /// [`Xxh3x64Start`]: crate::Xxh3x64Start
    Xxh3x64,
    /// xxh3-128, start and step its two halves ([`Xxh3x128Start`]).
    ///
    /// [`Xxh3x128Start`]: crate::Xxh3x128Start
    Xxh3x128,
    /// fold-128, start and step its two halves ([`Fold128Start`]).
    ///
    /// [`Fold128Start`]: crate::Fold128Start
    Fold128,
    /// fold-64, the step its [`Family::step`] ([`Fold64Start`]).
    ///
    /// [`Fold64Start`]: crate::Fold64Start
    Fold64,
}
