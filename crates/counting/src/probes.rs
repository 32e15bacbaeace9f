//! The probe engine: a key's `k` counter positions, exactly the bit
//! positions `bloomlab-standard` gives the same key under the same
//! [`Config`], with the default configuration inlined.

use bloomlab_hash::strategy::mix64;
use bloomlab_hash::{Digest, Family, Hasher, Indexer, Reduction, Strategy};
use bloomlab_standard::Config;

use crate::Result;

/// The specialised walks, chosen once at construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// xxh3-64 + enhanced double + multiply-shift (the default).
    Xxh3EnhancedMs,
    /// xxh3-64 + double + multiply-shift.
    Xxh3DoubleMs,
    /// Any other strategy whose positions follow from one digest.
    Digest,
    /// Strategies that hash more than once (`redisbloom`, `independent`).
    Keyed,
}

/// An [`Indexer`] with the common configurations inlined: the same
/// positions, in the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Probes {
    indexer: Indexer,
    kind: Kind,
    seed: u64,
    k: u32,
    m: u64,
}

/// Lemire's multiply-shift: `x` mapped to `[0, m)`.
#[inline(always)]
fn reduce(x: u64, m: u64) -> u64 {
    ((u128::from(x) * u128::from(m)) >> 64) as u64
}

impl Probes {
    pub(crate) fn new(config: &Config, k: u32, m: u64) -> Result<Probes> {
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
            (_, s) if s.digest_only() => Kind::Digest,
            _ => Kind::Keyed,
        };
        Ok(Probes { indexer, kind, seed: hasher.seed(), k, m })
    }

    #[inline(always)]
    pub(crate) fn k(&self) -> u32 {
        self.k
    }

    #[inline(always)]
    pub(crate) fn m(&self) -> u64 {
        self.m
    }

    /// The configuration, with the seed as the family uses it.
    pub(crate) fn config(&self) -> Config {
        let h = self.indexer.hasher();
        Config {
            family: h.family(),
            seed: i128::from(h.seed()),
            strategy: self.indexer.strategy(),
            reduction: self.indexer.reduction(),
        }
    }

    /// Whether one digest of the key determines all positions.
    #[inline(always)]
    pub(crate) fn digest_only(&self) -> bool {
        self.kind != Kind::Keyed
    }

    /// The key's digest (for [`Probes::walk_digest`]).
    #[inline(always)]
    pub(crate) fn digest(&self, key: &[u8]) -> Digest {
        match self.kind {
            Kind::Xxh3EnhancedMs | Kind::Xxh3DoubleMs => Digest {
                lo: if self.seed == 0 {
                    xxhash_rust::xxh3::xxh3_64(key)
                } else {
                    xxhash_rust::xxh3::xxh3_64_with_seed(key, self.seed)
                },
                hi: 0,
            },
            Kind::Digest | Kind::Keyed => self.indexer.digest(key),
        }
    }

    /// For the multiply-shift double-hashing fast paths (the default
    /// configuration and `xxh3-64` + `double`): the key's walk start
    /// `(x, y)` and whether it is enhanced; `None` for other
    /// configurations (without hashing the key).
    #[inline(always)]
    pub(crate) fn ms_start(&self, key: &[u8]) -> Option<(u64, u64, bool)> {
        let enhanced = match self.kind {
            Kind::Xxh3EnhancedMs => true,
            Kind::Xxh3DoubleMs => false,
            Kind::Digest | Kind::Keyed => return None,
        };
        let lo = self.digest(key).lo;
        Some((lo, mix64(lo), enhanced))
    }

    /// Calls `f(probe, position)` for each probe of the key in order until
    /// it returns false; returns whether every call returned true.
    #[inline(always)]
    pub(crate) fn walk(
        &self,
        key: &[u8],
        mut f: impl FnMut(u32, u64) -> bool,
    ) -> bool {
        if self.kind == Kind::Keyed {
            let mut i = 0;
            return self.indexer.all_indices(key, |p| {
                let go = f(i, p);
                i += 1;
                go
            });
        }
        self.walk_digest(self.digest(key), f)
    }

    /// As [`Probes::walk`], from [`Probes::digest`]'s value (only when
    /// [`Probes::digest_only`]).
    #[inline(always)]
    pub(crate) fn walk_digest(
        &self,
        d: Digest,
        mut f: impl FnMut(u32, u64) -> bool,
    ) -> bool {
        let (k, m) = (self.k, self.m);
        match self.kind {
            Kind::Xxh3EnhancedMs => {
                let mut x = d.lo;
                let mut y = mix64(d.lo);
                for i in 0..k {
                    if !f(i, reduce(x, m)) {
                        return false;
                    }
                    x = x.wrapping_add(y);
                    y = y.wrapping_add(u64::from(i) + 1);
                }
                true
            }
            Kind::Xxh3DoubleMs => {
                let mut x = d.lo;
                let y = mix64(d.lo);
                for i in 0..k {
                    if !f(i, reduce(x, m)) {
                        return false;
                    }
                    x = x.wrapping_add(y);
                }
                true
            }
            Kind::Digest | Kind::Keyed => {
                let mut i = 0;
                self.indexer.all_indices_of_digest(d, |p| {
                    let go = f(i, p);
                    i += 1;
                    go
                })
            }
        }
    }
}
