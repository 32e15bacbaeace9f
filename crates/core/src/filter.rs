//! The object-safe trait every bloomlab filter implements.

/// A membership filter as the experiment runner sees it: keys are bytes,
/// answers are "maybe present" or "certainly absent".
///
/// The trait is object safe (`Box<dyn Filter>`), so the runner drives every
/// variant through one code path. Typed methods (`insert(&T) where T:
/// Funnel`) live on each filter type in its own crate; a key reaches this
/// trait as the bytes its funnel produced.
///
/// The batch methods have simple defaults; filters override them when
/// hashing a batch first and probing second is faster (it usually is on
/// filters larger than the CPU cache).
///
/// ```
/// use bloomlab_core::Filter;
///
/// // Any filter can be driven through the trait object.
/// fn false_positives(f: &dyn Filter, probes: &[u64]) -> usize {
///     let mut out = vec![false; probes.len()];
///     f.contains_u64_batch(probes, &mut out);
///     out.iter().filter(|&&hit| hit).count()
/// }
/// # let _ = false_positives;
/// ```
pub trait Filter: Send + Sync {
    /// A short name of the variant (`standard`, `blocked`, `counting`,
    /// `partitioned`, `scalable`, ...).
    fn variant(&self) -> &'static str;

    /// Inserts a key; returns whether any bit (or counter) changed, like
    /// Guava's `put`.
    fn insert_bytes(&mut self, key: &[u8]) -> bool;

    /// Whether the key may have been inserted (never false for a key that
    /// was).
    fn contains_bytes(&self, key: &[u8]) -> bool;

    /// Number of bits (for counting filters: counters) in the filter.
    fn bits(&self) -> u64;

    /// Number of probes per key (for a scalable filter: the newest layer's).
    fn hash_count(&self) -> u32;

    /// Number of bits (counters) currently set (non-zero).
    fn bits_set(&self) -> u64;

    /// Fraction of bits set, in [0, 1].
    fn fill(&self) -> f64 {
        self.bits_set() as f64 / self.bits() as f64
    }

    /// Number of distinct keys inserted, estimated from the fill
    /// (Swamidass & Baldi 2007 for a classic filter; each layout inverts
    /// its own expected fill).
    fn estimated_count(&self) -> f64;

    /// The false-positive probability the filter's current fill implies.
    fn expected_fpp(&self) -> f64;

    /// Heap bytes the filter's storage occupies.
    fn bytes_of_memory(&self) -> usize;

    /// Inserts each 64-bit key as Guava's `longFunnel` would (8 bytes,
    /// little-endian); returns how many inserts changed a bit.
    fn insert_u64_batch(&mut self, keys: &[u64]) -> usize {
        keys.iter().filter(|k| self.insert_bytes(&k.to_le_bytes())).count()
    }

    /// Answers `contains` for each 64-bit key (8 bytes, little-endian)
    /// into `out`, which must be as long as `keys` (extra entries are left
    /// alone, missing ones are not answered).
    fn contains_u64_batch(&self, keys: &[u64], out: &mut [bool]) {
        for (k, o) in keys.iter().zip(out.iter_mut()) {
            *o = self.contains_bytes(&k.to_le_bytes());
        }
    }

    /// Answers `contains` for each key into `out` (as
    /// [`Filter::contains_u64_batch`]).
    fn contains_batch(&self, keys: &[&[u8]], out: &mut [bool]) {
        for (k, o) in keys.iter().zip(out.iter_mut()) {
            *o = self.contains_bytes(k);
        }
    }
}
