//! The classic Bloom filter: one bit array, `k` probes per key anywhere in
//! it.

use bloomlab_core::{BitArray, Filter, theory};
use bloomlab_hash::{Digest, Funnel};

use crate::config::{MsHash, Probes};
use crate::kernel::{
    self, BRANCH_FREE, Fold64Start, Fold128Start, Kernels, MAX_KERNEL_K,
    MsStart, ROUND_BATCH, Xxh3x64Start, Xxh3x128Start, insert_many, query,
    query_many, query_many_adaptive, set, start_key, unrolled,
};
use crate::{Builder, Config, Error, Result};

/// Keys hashed ahead of probing in the batch methods: enough independent
/// memory accesses in flight to hide DRAM latency, few enough to stay on
/// the stack.
pub(crate) const BATCH: usize = 16;

/// A classic Bloom filter over one [`BitArray`] (Guava's layout: bit `i`
/// is bit `i & 63` of word `i >> 6`).
///
/// Hashing is configured by a [`Config`] (family, seed, strategy,
/// reduction); the default is `xxh3-128` with enhanced double hashing and
/// multiply-shift. [`crate::guava::create`] builds Guava's filter exactly.
///
/// ```
/// use bloomlab_standard::BloomFilter;
///
/// let mut f = BloomFilter::new(1000, 0.01)?; // Guava's sizing
/// assert_eq!((f.bits(), f.hash_count()), (9600, 7));
/// assert!(f.insert("apple"));   // bits changed
/// assert!(!f.insert("apple"));  // already there
/// assert!(f.contains("apple"));
/// assert_eq!(f.approximate_element_count(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Its false-positive rate is the exact formula's (Bose et al. 2008,
/// [`bloomlab_core::theory::fpr_exact`]): for 10^5 keys at p = 1%, Guava's
/// sizing gives 9.59 bits a key and k = 7, and the example measures the
/// rate on 10^5 keys never inserted and checks that the formula lies in
/// the measured rate's 99.9% Clopper–Pearson interval (about ±10% of it
/// here). The interval covers the queries' noise; one filter's bits move
/// its rate from the formula's by about 0.4% at this size (the spread of
/// its set bits, times `k`), well inside.
///
/// ```
/// use bloomlab_core::{stats, theory};
/// use bloomlab_standard::BloomFilter;
///
/// let n = 100_000u64;
/// let mut f = BloomFilter::new(n, 0.01)?;
/// assert_eq!((f.bits(), f.hash_count()), (958_528, 7)); // 9.59 bits a key
/// for key in 0..n {
///     f.add(&key);
/// }
/// let queries = 100_000u64;
/// let hits = (n..n + queries).filter(|key| f.contains(key)).count();
/// let exact = theory::fpr_exact(f.bits(), n, f.hash_count())?.value;
/// assert!((exact - 0.01).abs() < 0.0005);
/// let ci = stats::clopper_pearson(hits as u64, queries, 0.999)?;
/// assert!(ci.contains(exact), "{hits} hits, {ci:?} against {exact}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BloomFilter {
    bits: BitArray,
    probes: Probes,
    /// The probe loops of `probes`, chosen once (see `kernel`).
    kernel: Option<Kernels>,
}

impl BloomFilter {
    /// A filter for `n` items at false-positive rate `p`, sized exactly as
    /// Guava sizes it, with the default [`Config`].
    pub fn new(n: u64, p: f64) -> Result<BloomFilter> {
        Builder::rate(n, p).build()
    }

    /// A filter of `m` bits and `k` probes, with the default [`Config`].
    pub fn with_bits(m: u64, k: u32) -> Result<BloomFilter> {
        Builder::bits(m, k).build()
    }

    /// A filter of `m` bits and `k` probes with the given configuration.
    pub fn with_config(config: Config, m: u64, k: u32) -> Result<BloomFilter> {
        let probes = Probes::new(&config, k, m)?;
        Ok(BloomFilter::from_raw(zeroed_bits(m)?, probes))
    }

    /// A filter from its parts (what a reader decoded): the bit array
    /// gives `m`.
    pub fn from_bit_array(
        config: Config,
        k: u32,
        bits: BitArray,
    ) -> Result<BloomFilter> {
        let probes = Probes::new(&config, k, bits.bit_len())?;
        Ok(BloomFilter::from_raw(bits, probes))
    }

    pub(crate) fn from_raw(bits: BitArray, probes: Probes) -> BloomFilter {
        let kernel = kernel::for_probes(&probes, size_of_val(bits.words()));
        BloomFilter { bits, probes, kernel }
    }

    pub(crate) fn probes(&self) -> &Probes {
        &self.probes
    }

    /// The hashing configuration.
    pub fn config(&self) -> Config {
        self.probes.config()
    }

    /// The bit array.
    pub fn bit_array(&self) -> &BitArray {
        &self.bits
    }

    /// The bit array, to change bits the filter's own methods do not:
    /// to clear the bits of keys that are gone, as a counting filter's
    /// summary does when a counter falls to zero
    /// (`bloomlab_counting::CountingBloomFilter::keep_summary`). The
    /// filter answers for whatever bits are left: a cleared bit makes
    /// every key that needs it a false negative.
    ///
    /// ```
    /// use bloomlab_standard::BloomFilter;
    ///
    /// let mut f = BloomFilter::with_bits(1024, 3)?;
    /// f.insert("a");
    /// for p in f.positions("a") {
    ///     f.bit_array_mut().unset(p);
    /// }
    /// assert!(!f.contains("a"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bit_array_mut(&mut self) -> &mut BitArray {
        &mut self.bits
    }

    /// Gives up the bit array.
    pub fn into_bit_array(self) -> BitArray {
        self.bits
    }

    /// Number of bits, `m`.
    #[inline]
    pub fn bits(&self) -> u64 {
        self.probes.m()
    }

    /// Probes per key, `k`.
    #[inline]
    pub fn hash_count(&self) -> u32 {
        self.probes.k()
    }

    /// Inserts a typed key (funnelled as Guava would); returns whether any
    /// bit changed, as Guava's `put`.
    #[inline]
    pub fn insert<T: Funnel + ?Sized>(&mut self, key: &T) -> bool {
        // The kernel is called here, not through `insert_bytes` (which
        // the compiler keeps out of line): one call a key, not two.
        let (seed, m) = (self.probes.seed(), self.bits());
        match (self.kernel, key.as_le_word()) {
            (Some(kernel), Some(w)) => {
                (kernel.word.insert)(seed, m, self.bits.words_mut(), w)
            }
            (Some(kernel), None) => key.with_bytes(|b| {
                (kernel.bytes.insert)(seed, m, self.bits.words_mut(), b)
            }),
            (None, Some(w)) => self.insert_word_unkernelled(w),
            (None, None) => key.with_bytes(|b| self.insert_bytes(b)),
        }
    }

    /// Inserts a typed key, as [`BloomFilter::insert`] does, without
    /// telling whether any bit changed.
    ///
    /// The answer costs time: `insert` must read each of the `k` words
    /// before it sets its bit, and keep what it read. At n = 1e6 that
    /// made `insert` about 10 ns a key slower than `add` on this
    /// project's benchmark machine (`cargo bench -p bloomlab-benches
    /// --bench standard`, the `bloomlab` and `bloomlab-insert` columns).
    /// Use `add` to fill a filter; use `insert` when the answer matters
    /// (to count new keys, or to deduplicate).
    ///
    /// ```
    /// use bloomlab_standard::BloomFilter;
    ///
    /// let mut a = BloomFilter::new(1000, 0.01)?;
    /// let mut b = a.clone();
    /// for k in 0u64..500 {
    ///     a.add(&k);
    ///     b.insert(&k);
    /// }
    /// assert_eq!(a, b); // the same bits
    /// assert!(a.contains(&7u64));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn add<T: Funnel + ?Sized>(&mut self, key: &T) {
        match (self.kernel, key.as_le_word()) {
            (Some(kernel), Some(w)) => {
                let m = self.bits();
                (kernel.word.add)(
                    self.probes.seed(),
                    m,
                    self.bits.words_mut(),
                    w,
                );
            }
            (None, Some(w)) => {
                self.insert_word_unkernelled(w);
            }
            _ => key.with_bytes(|b| self.add_bytes(b)),
        }
    }

    /// Whether a typed key may have been inserted.
    // Always inlined, so that a caller's loop makes one call a key (the
    // kernel's), as the counting filter's `contains`.
    #[inline(always)]
    pub fn contains<T: Funnel + ?Sized>(&self, key: &T) -> bool {
        // As `insert`.
        let (seed, m, words) =
            (self.probes.seed(), self.bits(), self.bits.words());
        match (self.kernel, key.as_le_word()) {
            (Some(kernel), Some(w)) => (kernel.word.query)(seed, m, words, w),
            (Some(kernel), None) => {
                key.with_bytes(|b| (kernel.bytes.query)(seed, m, words, b))
            }
            (None, Some(w)) => self.contains_word_unkernelled(w),
            (None, None) => key.with_bytes(|b| self.contains_bytes(b)),
        }
    }

    /// [`BloomFilter::insert`] of a one-word key without a kernel: Guava's
    /// filter of `long`s hashes it here, without the family's call and
    /// the key's bytes; others take the bytes.
    // Never inlined: in `insert`, `add` and `contains` this arm made the
    // kernels' callers too large to inline, which cost the default
    // configuration about 10% a query at n = 1e6 (measured, 2026-11-24).
    #[inline(never)]
    fn insert_word_unkernelled(&mut self, w: u64) -> bool {
        match self.probes.mitz64_word_digest(w) {
            Some(d) => self.mitz64_insert(d),
            None => self.insert_bytes(&w.to_le_bytes()),
        }
    }

    /// [`BloomFilter::contains`] of a one-word key without a kernel (see
    /// `insert_word_unkernelled`).
    #[inline(never)]
    fn contains_word_unkernelled(&self, w: u64) -> bool {
        match self.probes.mitz64_word_digest(w) {
            Some(d) => self.mitz64_contains(d),
            None => self.contains_bytes(&w.to_le_bytes()),
        }
    }

    /// Inserts a key given as bytes; returns whether any bit changed.
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        if let Some(kernel) = self.kernel {
            let m = self.bits();
            return (kernel.bytes.insert)(
                self.probes.seed(),
                m,
                self.bits.words_mut(),
                key,
            );
        }
        if self.probes.digest_only() {
            return self.insert_digest(self.probes.digest(key));
        }
        let bits = &mut self.bits;
        let mut changed = false;
        self.probes.all(key, |i| {
            changed |= bits.set(i);
            true
        });
        changed
    }

    /// Inserts a key given as bytes, without the answer (see
    /// [`BloomFilter::add`]).
    // Always inlined, so that `add` makes one call a key (the kernel's),
    // not two (see `insert`).
    #[inline(always)]
    pub fn add_bytes(&mut self, key: &[u8]) {
        if let Some(kernel) = self.kernel {
            let m = self.bits();
            (kernel.bytes.add)(
                self.probes.seed(),
                m,
                self.bits.words_mut(),
                key,
            );
            return;
        }
        self.insert_bytes(key);
    }

    /// Whether a key given as bytes may have been inserted.
    #[inline]
    pub fn contains_bytes(&self, key: &[u8]) -> bool {
        if let Some(kernel) = self.kernel {
            let (m, words) = (self.bits(), self.bits.words());
            return (kernel.bytes.query)(self.probes.seed(), m, words, key);
        }
        if self.probes.digest_only() {
            return self.contains_digest(self.probes.digest(key));
        }
        self.probes.all(key, |i| self.bits.get(i))
    }

    #[inline(always)]
    fn insert_digest(&mut self, d: Digest) -> bool {
        let (k, m) = (self.hash_count(), self.bits());
        if let Some((x, y, e)) = self.probes.ms_walk(d) {
            let bits = self.bits.words_mut();
            return unrolled!(k, e, set(bits, m, x, y), {
                self.insert_digest_generic(d)
            });
        }
        if self.probes.is_mitz64() {
            return self.mitz64_insert(d);
        }
        self.insert_digest_generic(d)
    }

    #[inline(always)]
    fn insert_digest_generic(&mut self, d: Digest) -> bool {
        let bits = &mut self.bits;
        let mut changed = false;
        self.probes.all_of_digest(d, |i| {
            changed |= bits.set(i);
            true
        });
        changed
    }

    #[inline(always)]
    fn contains_digest(&self, d: Digest) -> bool {
        let (k, m) = (self.hash_count(), self.bits());
        if let Some((x, y, e)) = self.probes.ms_walk(d) {
            let words = self.bits.words();
            return unrolled!(k, e, query(words, m, x, y), {
                self.probes.all_of_digest(d, |i| self.bits.get(i))
            });
        }
        if self.probes.is_mitz64() {
            return self.mitz64_contains(d);
        }
        self.probes.all_of_digest(d, |i| self.bits.get(i))
    }

    /// Guava's MITZ_64 query of digest `d`: the first probes without a
    /// branch between them, as the kernels' (a non-member's first clear
    /// bit is a coin toss a branch would mispredict).
    #[inline(always)]
    fn mitz64_contains(&self, d: Digest) -> bool {
        let k = self.hash_count();
        let words = self.bits.words();
        let bit = |i| kernel::bit(words, self.probes.mitz64_at(d, i));
        let head = k.min(BRANCH_FREE);
        let all = (0..head).fold(1, |all, i| all & bit(i));
        all & 1 == 1 && (head..k).all(|i| bit(i) & 1 == 1)
    }

    /// Guava's MITZ_64 insert of digest `d` (`put`): whether any bit
    /// changed. Each probe in closed form, so no store waits for the
    /// probe before it.
    #[inline(always)]
    fn mitz64_insert(&mut self, d: Digest) -> bool {
        let (k, probes) = (self.hash_count(), self.probes);
        let bits = &mut self.bits;
        (0..k).fold(false, |changed, i| {
            bits.set(probes.mitz64_at(d, i)) | changed
        })
    }

    /// The key's bit positions in probe order (may repeat).
    pub fn positions<T: Funnel + ?Sized>(&self, key: &T) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.hash_count() as usize);
        key.with_bytes(|b| {
            self.probes.all(b, |i| {
                out.push(i);
                true
            })
        });
        out
    }

    /// Inserts many keys; returns how many inserts changed a bit (as
    /// many calls of [`BloomFilter::insert`] would, in order).
    ///
    /// Keys are hashed 256 at a time and every bit they will set is
    /// prefetched (into the L2 cache, [`bloomlab_core::prefetch_l2`])
    /// before the first is set, so that the batch's cache misses are in
    /// flight together: at n = 1e7 (`benches/benches/standard.rs`,
    /// `many-build`, bench binaries alternated twice, 2026-11-27) a build
    /// took 193 and 194 ms, against 435-695 ms for `insert` one key at a
    /// time and 467-751 for fastbloom's (388 and 326 ms when the batch
    /// prefetched into the L1).
    ///
    /// ```
    /// use bloomlab_standard::BloomFilter;
    ///
    /// let mut f = BloomFilter::new(1000, 0.01)?;
    /// assert_eq!(f.insert_many(&[1u64, 2, 3, 2]), 3); // the second 2 changes nothing
    /// assert!(f.contains(&2u64));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert_many<T: Funnel>(&mut self, keys: &[T]) -> usize {
        if !self.probes.digest_only() {
            return keys.iter().filter(|k| self.insert(*k)).count();
        }
        if let Some((hash, e)) = self.probes.ms_hash()
            && self.hash_count() <= MAX_KERNEL_K
        {
            return match hash {
                MsHash::Xxh3x64 => {
                    self.insert_many_ms::<Xxh3x64Start, T>(keys, e)
                }
                MsHash::Xxh3x128 => {
                    self.insert_many_ms::<Xxh3x128Start, T>(keys, e)
                }
                MsHash::Fold128 => {
                    self.insert_many_ms::<Fold128Start, T>(keys, e)
                }
                MsHash::Fold64 => {
                    self.insert_many_ms::<Fold64Start, T>(keys, e)
                }
            };
        }
        let mut changed = 0;
        let mut ds = [Digest::default(); BATCH];
        for chunk in keys.chunks(BATCH) {
            for (d, key) in ds.iter_mut().zip(chunk) {
                *d = key.with_bytes(|b| self.probes.digest(b));
            }
            changed += self.insert_digests(&ds[..chunk.len()]);
        }
        changed
    }

    /// [`insert_many`](Self::insert_many) of a multiply-shift walk
    /// started by `H` (`k` ≤ [`MAX_KERNEL_K`]): hash 256 keys, then
    /// [`kernel::insert_many`] them.
    fn insert_many_ms<H: MsStart, T: Funnel>(
        &mut self,
        keys: &[T],
        e: bool,
    ) -> usize {
        let (k, seed, m) =
            (self.hash_count(), self.probes.seed(), self.bits());
        let mut walks = [(0u64, 0u64); ROUND_BATCH];
        let mut changed = 0;
        for chunk in keys.chunks(ROUND_BATCH) {
            for (w, key) in walks.iter_mut().zip(chunk) {
                *w = match key.as_le_word() {
                    Some(word) => H::start_word(seed, word),
                    None => key.with_bytes(|b| H::start(seed, b)),
                };
            }
            let walks = &walks[..chunk.len()];
            // (`k` ≤ MAX_KERNEL_K: every `k` has an arm.)
            changed += unrolled!(
                k,
                e,
                insert_many(self.bits.words_mut(), m, walks),
                0
            );
        }
        changed
    }

    /// Answers [`BloomFilter::contains`] for many keys into `out` (as many
    /// as the shorter of the two).
    ///
    /// Keys are hashed 256 at a time. A first pass tests the first two
    /// probes of every key without a branch on the bits; a second tests
    /// the other probes of the keys that passed (a non-member usually
    /// stops after two). On a filter of
    /// [`bloomlab_core::PREFETCH_MIN_BYTES`] or more, lines are
    /// prefetched before they are read, so that the cache misses of many
    /// keys are in flight together rather than the few that fit in the
    /// core's out-of-order window, and each round of keys is of one of
    /// two kinds, chosen by the answers of the round before: after mostly
    /// non-members, the two passes above, each prefetching what it will
    /// read; after mostly members (two in five or more), rounds of 64 keys
    /// that prefetch every probe of each key as it is hashed and then
    /// test them all, since a member needs every probe. At n = 1e7
    /// (12 MB, `benches/benches/standard.rs`, `many-*` groups, bench
    /// binaries before and after alternated three times on 2026-11-25),
    /// members took 16.3-16.7 ns a key against 20.5-43.7 in two passes,
    /// non-members 9.8-11.5 against 9.7-10.8. Results are those of
    /// `contains`, bit for bit; prefetching changes only the timing.
    ///
    /// ```
    /// use bloomlab_standard::BloomFilter;
    ///
    /// let mut f = BloomFilter::new(1000, 0.01)?;
    /// f.insert_many(&[1u64, 2, 3]);
    /// let mut out = [false; 3];
    /// f.contains_many(&[1u64, 2, 99], &mut out);
    /// assert_eq!(&out[..2], [true, true]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_many<T: Funnel>(&self, keys: &[T], out: &mut [bool]) {
        if !self.probes.digest_only() {
            return self.contains_each(keys, out);
        }
        if let Some((hash, e)) = self.probes.ms_hash()
            && self.hash_count() <= MAX_KERNEL_K
        {
            // The hash as a type parameter, so that the first pass inlines
            // it rather than calling it through a `StartFn` 256 times.
            match hash {
                MsHash::Xxh3x64 => {
                    self.contains_many_ms::<Xxh3x64Start, T>(keys, out, e);
                }
                MsHash::Xxh3x128 => {
                    self.contains_many_ms::<Xxh3x128Start, T>(keys, out, e);
                }
                MsHash::Fold128 => {
                    self.contains_many_ms::<Fold128Start, T>(keys, out, e);
                }
                MsHash::Fold64 => {
                    self.contains_many_ms::<Fold64Start, T>(keys, out, e);
                }
            }
            return;
        }
        let mut ds = [Digest::default(); BATCH];
        for (chunk, outs) in keys.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            let n = chunk.len().min(outs.len());
            for (d, key) in ds.iter_mut().zip(&chunk[..n]) {
                *d = key.with_bytes(|b| self.probes.digest(b));
            }
            self.contains_digests(&ds[..n], &mut outs[..n]);
        }
    }

    /// [`contains_many`](Self::contains_many) of a multiply-shift walk
    /// started by `H` (`k` ≤ [`MAX_KERNEL_K`]): hash 256 keys, then
    /// [`query_many`] them.
    fn contains_many_ms<H: MsStart, T: Funnel>(
        &self,
        keys: &[T],
        out: &mut [bool],
        e: bool,
    ) {
        let k = self.hash_count();
        let (seed, m, words) =
            (self.probes.seed(), self.bits(), self.bits.words());
        if bloomlab_core::worth_prefetching(words) {
            return unrolled!(
                k,
                e,
                query_many_adaptive::<H, T>(seed, words, m, keys, out),
                self.contains_each(keys, out)
            );
        }
        let mut walks = [(0u64, 0u64); ROUND_BATCH];
        for (chunk, outs) in
            keys.chunks(ROUND_BATCH).zip(out.chunks_mut(ROUND_BATCH))
        {
            let n = chunk.len().min(outs.len());
            for (w, key) in walks.iter_mut().zip(&chunk[..n]) {
                *w = start_key::<H, T>(seed, key);
            }
            let (walks, outs) = (&walks[..n], &mut outs[..n]);
            unrolled!(k, e, query_many(words, m, walks, outs, false), ());
        }
    }

    /// `contains` of each key into `out`.
    fn contains_each<T: Funnel>(&self, keys: &[T], out: &mut [bool]) {
        for (k, o) in keys.iter().zip(out.iter_mut()) {
            *o = self.contains(k);
        }
    }

    #[inline]
    fn insert_digests(&mut self, ds: &[Digest]) -> usize {
        // On a large filter, every bit of the batch prefetched before the
        // first is set (the positions are then computed twice).
        let words = self.bits.words();
        if bloomlab_core::worth_prefetching(words) {
            for &d in ds {
                self.probes.all_of_digest(d, |i| {
                    bloomlab_core::prefetch_l2(words, (i >> 6) as usize);
                    true
                });
            }
        }
        let mut count = 0;
        for &d in ds {
            count += usize::from(self.insert_digest(d));
        }
        count
    }

    #[inline]
    fn contains_digests(&self, ds: &[Digest], out: &mut [bool]) {
        let words = self.bits.words();
        let prefetch =
            |i: u64| bloomlab_core::prefetch_l2(words, (i >> 6) as usize);
        // The first two probes of every key (prefetched first on a large
        // filter), tested without early exit, so that their misses are
        // all in flight at once.
        let large = bloomlab_core::worth_prefetching(words);
        if large {
            for &d in ds {
                let mut n = 0;
                self.probes.all_of_digest(d, |i| {
                    prefetch(i);
                    n += 1;
                    n < 2
                });
            }
        }
        for (&d, o) in ds.iter().zip(out.iter_mut()) {
            let mut all = true;
            let mut n = 0;
            self.probes.all_of_digest(d, |i| {
                all &= self.bits.get(i);
                n += 1;
                n < 2
            });
            *o = all;
        }
        // The rest, only for keys that passed the first two (most
        // non-members stop there): prefetched (on a large filter), then
        // tested.
        for (&d, &o) in ds.iter().zip(out.iter()) {
            if o && large {
                self.probes.all_of_digest(d, |i| {
                    prefetch(i);
                    true
                });
            }
        }
        for (&d, o) in ds.iter().zip(out.iter_mut()) {
            if *o {
                *o = self.probes.all_of_digest(d, |i| self.bits.get(i));
            }
        }
    }

    /// Number of bits set.
    pub fn bit_count(&self) -> u64 {
        self.bits.count_ones()
    }

    /// Guava's `approximateElementCount()`, bit for bit.
    pub fn approximate_element_count(&self) -> i64 {
        theory::guava_approximate_element_count(
            self.bit_count(),
            self.bits(),
            self.hash_count(),
        )
    }

    /// Guava's `expectedFpp()`: `(bits set / m)^k`, as
    /// [`theory::guava_expected_fpp`] computes it (to the bit on every
    /// recorded Guava case; HotSpot's `Math.pow` can differ in the last
    /// bit).
    pub fn expected_fpp(&self) -> f64 {
        theory::guava_expected_fpp(
            self.bit_count(),
            self.bits(),
            self.hash_count(),
        )
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        self.bits.clear();
    }

    /// Checks that `other` has the same `m`, `k`, family, seed, strategy
    /// and reduction.
    pub fn check_compatible(&self, other: &BloomFilter) -> Result<()> {
        check_compatible(&self.probes, &other.probes)
    }

    /// Adds every key of `other` (a word-wise OR, Guava's `putAll`).
    pub fn union(&mut self, other: &BloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        self.bits.union_with(&other.bits)?;
        Ok(())
    }

    /// Keeps only bits set in both (a word-wise AND): a filter that
    /// contains every key in both, and possibly more false positives than
    /// a filter built from the intersection.
    pub fn intersect(&mut self, other: &BloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        self.bits.intersect_with(&other.bits)?;
        Ok(())
    }
}

/// A zeroed bit array, or an error (not an abort) when the allocation
/// fails.
pub(crate) fn zeroed_bits(m: u64) -> Result<BitArray> {
    let words = usize::try_from(m.div_ceil(64))
        .map_err(|_| Error::invalid("m", m, "too large for this machine"))?;
    let mut v: Vec<u64> = Vec::new();
    v.try_reserve_exact(words)
        .map_err(|_| Error::invalid("m", m, "cannot allocate the bits"))?;
    v.resize(words, 0);
    Ok(BitArray::from_words(m, v)?)
}

pub(crate) fn check_compatible(a: &Probes, b: &Probes) -> Result<()> {
    let diff = |what, l: String, r: String| {
        Err(Error::Incompatible { what, left: l, right: r })
    };
    let (ca, cb) = (a.config(), b.config());
    if a.m() != b.m() {
        return diff("m", a.m().to_string(), b.m().to_string());
    }
    if a.k() != b.k() {
        return diff("k", a.k().to_string(), b.k().to_string());
    }
    if ca.family != cb.family {
        return diff("family", ca.family.to_string(), cb.family.to_string());
    }
    if ca.seed != cb.seed {
        return diff("seed", ca.seed.to_string(), cb.seed.to_string());
    }
    if ca.strategy != cb.strategy {
        return diff(
            "strategy",
            ca.strategy.to_string(),
            cb.strategy.to_string(),
        );
    }
    if ca.reduction != cb.reduction {
        return diff(
            "reduction",
            ca.reduction.to_string(),
            cb.reduction.to_string(),
        );
    }
    Ok(())
}

/// Inserts every key, as [`BloomFilter::insert_many`] does, a batch of
/// [`bloomlab_core::EXTEND_BATCH`] keys at a time (so large filters get
/// the batch's prefetching).
///
/// ```
/// use bloomlab_standard::BloomFilter;
///
/// let mut f = BloomFilter::new(10_000, 0.01)?;
/// f.extend(["alice", "bob"]);
/// f.extend(0..1000u64);
/// assert!(f.contains("bob") && f.contains(&999u64));
/// # Ok::<(), bloomlab_standard::Error>(())
/// ```
impl<K: Funnel> Extend<K> for BloomFilter {
    fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
        bloomlab_core::for_each_batch(keys, |batch| {
            self.insert_many(batch);
        });
    }
}

impl Filter for BloomFilter {
    fn variant(&self) -> &'static str {
        "standard"
    }

    #[inline]
    fn insert_bytes(&mut self, key: &[u8]) -> bool {
        BloomFilter::insert_bytes(self, key)
    }

    #[inline]
    fn contains_bytes(&self, key: &[u8]) -> bool {
        BloomFilter::contains_bytes(self, key)
    }

    fn bits(&self) -> u64 {
        BloomFilter::bits(self)
    }

    fn hash_count(&self) -> u32 {
        BloomFilter::hash_count(self)
    }

    fn bits_set(&self) -> u64 {
        self.bit_count()
    }

    /// Swamidass & Baldi's estimate, unrounded (Guava's
    /// `approximateElementCount` before rounding).
    fn estimated_count(&self) -> f64 {
        theory::estimate_count(
            self.bits(),
            self.hash_count(),
            self.bit_count(),
        )
    }

    fn expected_fpp(&self) -> f64 {
        BloomFilter::expected_fpp(self)
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
