//! The classic filter with lock-free inserts through `&self`.

use bloomlab_core::{AtomicBitArray, Filter, PREFETCH_MIN_BYTES, theory};
use bloomlab_hash::{Digest, Funnel};

use crate::classic::BATCH;
use crate::config::Probes;
use crate::{BloomFilter, Config, Result};

/// A [`BloomFilter`] that many threads can fill at once: inserts take
/// `&self` and set bits with atomic `fetch_or` (relaxed ordering), like
/// Guava's `LockFreeBitArray`. Same hashing, same bits: converting to a
/// [`BloomFilter`] gives exactly the filter a sequential build of the same
/// keys gives, whatever the interleaving, so its size and false-positive
/// rate are [`BloomFilter`]'s (9.59 bits a key and the exact formula's
/// rate at p = 1%, measured in [`BloomFilter`]'s example).
///
/// ```
/// use bloomlab_standard::AtomicBloomFilter;
///
/// let f = AtomicBloomFilter::new(10_000, 0.01)?;
/// std::thread::scope(|s| {
///     s.spawn(|| for i in 0..500u64 { f.insert(&i); });
///     s.spawn(|| for i in 500..1000u64 { f.insert(&i); });
/// });
/// assert!((0..1000u64).all(|i| f.contains(&i)));
/// let plain = f.into_bloom_filter();
/// assert!(plain.contains(&999u64));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct AtomicBloomFilter {
    bits: AtomicBitArray,
    probes: Probes,
}

impl AtomicBloomFilter {
    /// A filter for `n` items at rate `p` (Guava's sizing), default
    /// [`Config`].
    pub fn new(n: u64, p: f64) -> Result<AtomicBloomFilter> {
        Ok(BloomFilter::new(n, p)?.into())
    }

    /// A filter of `m` bits and `k` probes with the given configuration.
    pub fn with_config(
        config: Config,
        m: u64,
        k: u32,
    ) -> Result<AtomicBloomFilter> {
        Ok(BloomFilter::with_config(config, m, k)?.into())
    }

    /// The hashing configuration.
    pub fn config(&self) -> Config {
        self.probes.config()
    }

    /// Number of bits, `m`.
    pub fn bits(&self) -> u64 {
        self.probes.m()
    }

    /// Probes per key, `k`.
    pub fn hash_count(&self) -> u32 {
        self.probes.k()
    }

    /// Inserts a typed key; returns whether this call changed a bit.
    #[inline]
    pub fn insert<T: Funnel + ?Sized>(&self, key: &T) -> bool {
        key.with_bytes(|b| self.insert_bytes(b))
    }

    /// Whether a typed key may have been inserted.
    #[inline]
    pub fn contains<T: Funnel + ?Sized>(&self, key: &T) -> bool {
        key.with_bytes(|b| self.contains_bytes(b))
    }

    /// Inserts a key given as bytes.
    ///
    /// In a filter of [`PREFETCH_MIN_BYTES`] or more, every probe's line
    /// is prefetched before the first is set: an atomic `fetch_or` is a
    /// barrier on x86, so otherwise each probe's miss would start only
    /// when the one before it had completed. Measured on a loaded host
    /// (2026-11-25): in a one-off loop (7 probes a key into 12 MB of
    /// `AtomicU64`, both ways alternated in one process, 12 rounds) the
    /// prefetching insert was faster in 11 rounds, by a median of about
    /// 1.2×; bench binaries alternated three times (`many-build`,
    /// `bloomlab-atomic-insert`, n = 1e7) gave 1.65–1.88 s against
    /// 1.68–2.22 s without, with fastbloom's atomic build moving from
    /// 1.09 to 1.44 s in the same runs.
    #[inline]
    pub fn insert_bytes(&self, key: &[u8]) -> bool {
        if self.probes.digest_only()
            && self.bits.bytes_of_memory() >= PREFETCH_MIN_BYTES
        {
            let d = self.probes.digest(key);
            self.prefetch_digest(d);
            return self.set_digest(d);
        }
        let mut changed = false;
        self.probes.all(key, |i| {
            changed |= self.bits.set(i);
            true
        });
        changed
    }

    /// Whether a key given as bytes may have been inserted.
    #[inline]
    pub fn contains_bytes(&self, key: &[u8]) -> bool {
        self.probes.all(key, |i| self.bits.get(i))
    }

    /// Inserts many keys, hashing a batch ahead of setting its bits;
    /// returns how many inserts changed a bit. Every bit of a batch is
    /// prefetched before the first is set: an atomic `fetch_or` is a
    /// barrier on x86, so without prefetches a thread's misses overlap
    /// little. Single-threaded builds of n = 1e7 keys (12 MB), two runs
    /// of `benches/benches/standard.rs` (`many-build`): 57.7 and 62.5 ns
    /// a key, against 76 and 150 one `insert` at a time, and 41 and 55
    /// for fastbloom's `AtomicBloomFilter` (a blocked filter: one line a
    /// key) in the same runs.
    pub fn insert_many<T: Funnel>(&self, keys: &[T]) -> usize {
        if !self.probes.digest_only() {
            return keys.iter().filter(|k| self.insert(*k)).count();
        }
        let mut count = 0;
        let mut ds = [Digest::default(); BATCH];
        for chunk in keys.chunks(BATCH) {
            for (d, key) in ds.iter_mut().zip(chunk) {
                *d = key.with_bytes(|b| self.probes.digest(b));
            }
            for &d in &ds[..chunk.len()] {
                self.prefetch_digest(d);
            }
            for &d in &ds[..chunk.len()] {
                count += usize::from(self.set_digest(d));
            }
        }
        count
    }

    /// Answers [`contains`](Self::contains) for each key into `out` (as
    /// many keys as both slices hold), while other threads may insert.
    ///
    /// On a filter of [`PREFETCH_MIN_BYTES`] or more, keys are hashed a
    /// batch at a time and every probe's line prefetched (into the L2
    /// cache) before the first is read, so that the batch's misses are
    /// in flight together; smaller filters answer key by key. At n = 1e7
    /// (12 MB) members took 22-23.5 ns a key against 53-74 one key at a
    /// time, non-members 24.5-26 against 41-50; at 4.8 MB both ways were
    /// level (one-off loop, three runs, 2026-11-27; a design
    /// measurement). In `benches/benches/standard.rs` (`many-*` groups,
    /// `bloomlab-atomic-contains-many`), one run on 2026-11-27: 26.9 ns a
    /// member and 26.5 a non-member, against 48.9 and 23.0 for fastbloom's
    /// `AtomicBloomFilter` one key at a time (a blocked filter: one line a
    /// key, so its non-members need one miss where a classic filter's
    /// batch prefetches every probe). Testing the first two probes of a
    /// batch before prefetching the rest, as the classic filter's batch
    /// does, was tried through the generic walk and was slower (members
    /// 33-36 ns, non-members 33-38, alternated runs). Answers
    /// are those of `contains` at the same moment: a key inserted by
    /// another thread during the call may or may not be seen, as with
    /// `contains` one key at a time.
    ///
    /// ```
    /// use bloomlab_standard::AtomicBloomFilter;
    ///
    /// let f = AtomicBloomFilter::new(1000, 0.01)?;
    /// f.insert_many(&[1u64, 2, 3]);
    /// let mut out = [false; 3];
    /// f.contains_many(&[1u64, 2, 99], &mut out);
    /// assert_eq!(&out[..2], [true, true]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_many<T: Funnel>(&self, keys: &[T], out: &mut [bool]) {
        if !self.probes.digest_only()
            || self.bits.bytes_of_memory() < PREFETCH_MIN_BYTES
        {
            for (key, o) in keys.iter().zip(out.iter_mut()) {
                *o = self.contains(key);
            }
            return;
        }
        let mut ds = [Digest::default(); BATCH];
        for (chunk, outs) in keys.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            let n = chunk.len().min(outs.len());
            for (d, key) in ds.iter_mut().zip(&chunk[..n]) {
                *d = key.with_bytes(|b| self.probes.digest(b));
            }
            for &d in &ds[..n] {
                self.prefetch_digest(d);
            }
            for (&d, o) in ds[..n].iter().zip(outs.iter_mut()) {
                *o = self.probes.all_of_digest(d, |i| self.bits.get(i));
            }
        }
    }

    /// Starts loading the lines of every probe of digest `d`.
    #[inline]
    fn prefetch_digest(&self, d: Digest) {
        self.probes.all_of_digest(d, |i| {
            self.bits.prefetch(i);
            true
        });
    }

    /// Sets every probe of digest `d`; whether any bit changed.
    #[inline]
    fn set_digest(&self, d: Digest) -> bool {
        let mut changed = false;
        self.probes.all_of_digest(d, |i| {
            changed |= self.bits.set(i);
            true
        });
        changed
    }

    /// Number of bits set (a snapshot while other threads insert).
    pub fn bit_count(&self) -> u64 {
        self.bits.count_ones()
    }

    /// Guava's `expectedFpp()` of the current fill.
    pub fn expected_fpp(&self) -> f64 {
        theory::guava_expected_fpp(
            self.bit_count(),
            self.bits(),
            self.hash_count(),
        )
    }

    /// Guava's `approximateElementCount()` of the current fill.
    pub fn approximate_element_count(&self) -> i64 {
        theory::guava_approximate_element_count(
            self.bit_count(),
            self.bits(),
            self.hash_count(),
        )
    }

    /// A plain filter with the bits set so far.
    pub fn to_bloom_filter(&self) -> BloomFilter {
        BloomFilter::from_raw(self.bits.to_bit_array(), self.probes)
    }

    /// Converts into a plain filter.
    pub fn into_bloom_filter(self) -> BloomFilter {
        self.to_bloom_filter()
    }

    /// The bits set so far, in bloomlab's format: the file of
    /// [`to_bloom_filter`](Self::to_bloom_filter) (a concurrent filter
    /// is saved as the classic filter it holds). Inserts racing with it
    /// may or may not be in it.
    ///
    /// ```
    /// use bloomlab_standard::AtomicBloomFilter;
    ///
    /// let f = AtomicBloomFilter::new(1000, 0.01)?;
    /// f.insert(&7u64);
    /// let back = AtomicBloomFilter::read(&f.to_bytes()?)?;
    /// assert!(back.contains(&7u64));
    /// # Ok::<(), bloomlab_standard::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.to_bloom_filter().to_bytes()
    }

    /// Reads a classic filter's file (bloomlab's format or Guava's, as
    /// [`BloomFilter::read`]) into a concurrent filter.
    pub fn read(bytes: &[u8]) -> Result<AtomicBloomFilter> {
        BloomFilter::read(bytes).map(AtomicBloomFilter::from)
    }

    /// Adds every key of `other` (word-wise atomic OR), after the same
    /// compatibility check as [`BloomFilter::union`].
    pub fn union(&self, other: &BloomFilter) -> Result<()> {
        crate::classic::check_compatible(&self.probes, other.probes())?;
        self.bits.union_with(other.bit_array())?;
        Ok(())
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        self.bits.clear();
    }
}

impl From<BloomFilter> for AtomicBloomFilter {
    fn from(f: BloomFilter) -> AtomicBloomFilter {
        let probes = *f.probes();
        AtomicBloomFilter {
            bits: AtomicBitArray::from(f.into_bit_array()),
            probes,
        }
    }
}

impl From<AtomicBloomFilter> for BloomFilter {
    fn from(f: AtomicBloomFilter) -> BloomFilter {
        f.into_bloom_filter()
    }
}

impl Filter for AtomicBloomFilter {
    fn variant(&self) -> &'static str {
        "standard-atomic"
    }

    fn insert_bytes(&mut self, key: &[u8]) -> bool {
        AtomicBloomFilter::insert_bytes(self, key)
    }

    fn contains_bytes(&self, key: &[u8]) -> bool {
        AtomicBloomFilter::contains_bytes(self, key)
    }

    fn bits(&self) -> u64 {
        AtomicBloomFilter::bits(self)
    }

    fn hash_count(&self) -> u32 {
        AtomicBloomFilter::hash_count(self)
    }

    fn bits_set(&self) -> u64 {
        self.bit_count()
    }

    fn estimated_count(&self) -> f64 {
        theory::estimate_count(
            self.bits(),
            self.hash_count(),
            self.bit_count(),
        )
    }

    fn expected_fpp(&self) -> f64 {
        AtomicBloomFilter::expected_fpp(self)
    }

    fn bytes_of_memory(&self) -> usize {
        self.bits.bytes_of_memory()
    }

    fn insert_u64_batch(&mut self, keys: &[u64]) -> usize {
        self.insert_many(keys)
    }

    fn contains_u64_batch(&self, keys: &[u64], out: &mut [bool]) {
        self.contains_many(keys, out);
    }

    fn contains_batch(&self, keys: &[&[u8]], out: &mut [bool]) {
        self.contains_many(keys, out);
    }
}
