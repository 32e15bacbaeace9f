//! The probe engine: a key's `k` counter positions, exactly the bit
//! positions `bloomlab-standard` gives the same key under the same
//! [`Config`]. The loops are `bloomlab_standard::Probes`; this adapter
//! adds the probe number, which the counting filter needs to tell two
//! probes landing on one counter apart.

use bloomlab_hash::Digest;
use bloomlab_standard::Config;

use crate::Result;

/// [`bloomlab_standard::Probes`], with each position's probe number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Probes(bloomlab_standard::Probes);

impl Probes {
    pub(crate) fn new(config: &Config, k: u32, m: u64) -> Result<Probes> {
        Ok(Probes(bloomlab_standard::Probes::new(config, k, m)?))
    }

    /// The standard crate's probes (for [`crate::fast::Kernel::new`]).
    pub(crate) fn inner(&self) -> &bloomlab_standard::Probes {
        &self.0
    }

    #[inline(always)]
    pub(crate) fn k(&self) -> u32 {
        self.0.k()
    }

    #[inline(always)]
    pub(crate) fn m(&self) -> u64 {
        self.0.m()
    }

    /// The configuration, with the seed as the family uses it.
    pub(crate) fn config(&self) -> Config {
        self.0.config()
    }

    /// Whether one digest of the key determines all positions.
    #[inline(always)]
    pub(crate) fn digest_only(&self) -> bool {
        self.0.digest_only()
    }

    /// The key's digest (for [`Probes::walk_digest`]).
    #[inline(always)]
    pub(crate) fn digest(&self, key: &[u8]) -> Digest {
        self.0.digest(key)
    }

    /// Calls `f(probe, position)` for each probe of the key in order until
    /// it returns false; returns whether every call returned true.
    #[inline(always)]
    pub(crate) fn walk(
        &self,
        key: &[u8],
        mut f: impl FnMut(u32, u64) -> bool,
    ) -> bool {
        let mut i = 0;
        self.0.all(key, |p| {
            let go = f(i, p);
            i += 1;
            go
        })
    }

    /// As [`Probes::walk`], from [`Probes::digest`]'s value (only when
    /// [`Probes::digest_only`]).
    #[inline(always)]
    pub(crate) fn walk_digest(
        &self,
        d: Digest,
        mut f: impl FnMut(u32, u64) -> bool,
    ) -> bool {
        let mut i = 0;
        self.0.all_of_digest(d, |p| {
            let go = f(i, p);
            i += 1;
            go
        })
    }
}
