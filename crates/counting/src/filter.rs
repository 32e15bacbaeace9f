//! The counting Bloom filter: packed counters, insert, remove, sticky
//! saturation, and the conversion to a standard filter.

use bloomlab_core::{BitArray, Filter, Words, prefetch_l2, theory};
use bloomlab_hash::{Digest, Family, Funnel, Reduction, Strategy};
use bloomlab_standard::{BloomFilter, Config, Size};

use crate::fast::{Kernel, Lanes};
use crate::probes::Probes;
use crate::{CounterWidth, Error, Result};

/// Keys hashed, and their counters prefetched, ahead of probing in
/// [`CountingBloomFilter::contains_many`]: enough misses in flight to
/// cover the latency of memory, as the standard filter's batches.
const BATCH: usize = 256;

/// Filters at least this large prefetch in
/// [`CountingBloomFilter::insert_many`] and answer
/// [`CountingBloomFilter::contains_many`] in prefetched batches (smaller
/// ones key by key, which is faster there; measured on `contains_many`'s
/// doc): twice [`bloomlab_core::PREFETCH_MIN_BYTES`], as each key is
/// hashed twice in `insert_many` (once to prefetch, once to insert).
/// Measured at p = 0.01 with
/// 4-bit counters, `insert_many` against `insert` one key at a time in
/// a one-off timing program (2026-11-24; a design measurement, not a
/// bench): 4.8 MB 37-40 ns a key against 30-34, 7.2 MB mixed, 9.6 MB
/// 46-47 against 53-64, 14 MB 55-76 against 106-124, 48 MB 135-146
/// against 159-168. The counting bench's `build` group shows the 48 MB
/// case beside fastbloom-rs (`benches/benches/counting.rs`). Since the
/// batch prefetches into the L2 ([`bloomlab_core::prefetch_l2`], which
/// made the 48 MB case about three times faster) the 4.8 MB case still
/// loses: the bench's `build` at n = 1e6 took 25.4 and 26.0 ms with a
/// batch prefetch from 4 MiB against 22.5 and 23.6 without (bench
/// binaries alternated, 2026-11-27).
pub const INSERT_PREFETCH_MIN_BYTES: usize =
    2 * bloomlab_core::PREFETCH_MIN_BYTES;

/// Filters at least this large prefetch every counter of a query
/// ([`CountingBloomFilter::contains`]) and then test each with a branch,
/// where smaller ones test the first three without: the standard
/// filter's threshold ([`bloomlab_core::QUERY_BRANCH_MIN_BYTES`], where
/// it is measured). Prefetching first took member queries at n = 1e7
/// (48 MB) from 90.5 and 93.5 ns a key to 81.0 and 79.0, non-members
/// from 80.7 and 81.8 to 64.0 and 63.8 (bench binaries alternated,
/// 2026-11-27, `benches/benches/counting.rs`).
pub const QUERY_BRANCH_MIN_BYTES: usize =
    bloomlab_core::QUERY_BRANCH_MIN_BYTES;

/// Counters of every key tested in `contains_many`'s first pass.
const FIRST_PASS: u32 = 2;

/// The largest number of probes per key (Guava's limit too).
pub const MAX_K: u32 = 255;

/// What happened to a filter: operations, and everything that went wrong
/// that a counting filter can see.
///
/// ```
/// use bloomlab_counting::{CounterWidth, CountingBloomFilter};
///
/// let mut f = CountingBloomFilter::builder_counters(64, 3)
///     .width(CounterWidth::Two)
///     .build()?;
/// for _ in 0..4 {
///     f.insert("a");
/// }
/// let s = f.stats();
/// assert_eq!((s.inserts, s.removes), (4, 0));
/// // Each of the 3 counters went 1, 2, 3 (saturated), then lost the 4th
/// // increment (fewer if two probes share a counter).
/// assert!(s.saturation_events >= 3);
/// assert!(f.saturated_counters() >= 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Stats {
    /// Calls of `insert`.
    pub inserts: u64,
    /// Successful calls of `remove`.
    pub removes: u64,
    /// Calls of `remove` refused because the key was certainly absent
    /// (a zero counter): deletes of keys never inserted, or removed twice.
    pub rejected_removes: u64,
    /// Increments lost to saturation: an insert (or a union) that found a
    /// counter already at its maximum, which then stayed there.
    pub saturation_events: u64,
    /// Decrements not applied because the counter was saturated (its true
    /// value is unknown, so it is never decremented again).
    pub skipped_decrements: u64,
}

impl Stats {
    /// `inserts − removes`: the number of live items if every remove was
    /// of an inserted item (the filter cannot know; see the crate docs on
    /// deleting false positives).
    pub fn live(&self) -> u64 {
        self.inserts.saturating_sub(self.removes)
    }

    pub(crate) fn merged(self, o: Stats, lost: u64) -> Stats {
        Stats {
            inserts: self.inserts.saturating_add(o.inserts),
            removes: self.removes.saturating_add(o.removes),
            rejected_removes: self
                .rejected_removes
                .saturating_add(o.rejected_removes),
            saturation_events: self
                .saturation_events
                .saturating_add(o.saturation_events)
                .saturating_add(lost),
            skipped_decrements: self
                .skipped_decrements
                .saturating_add(o.skipped_decrements),
        }
    }

    /// All fields, for the file format.
    pub(crate) fn new(
        inserts: u64,
        removes: u64,
        rejected_removes: u64,
        saturation_events: u64,
        skipped_decrements: u64,
    ) -> Stats {
        Stats {
            inserts,
            removes,
            rejected_removes,
            saturation_events,
            skipped_decrements,
        }
    }
}

/// A counting Bloom filter (Fan, Cao, Almeida & Broder 2000): `m`
/// counters of 2, 4 (default) or 8 bits packed into `u64` words, `k`
/// probes per key placed exactly as [`bloomlab_standard::BloomFilter`]
/// places them under the same [`Config`].
///
/// * [`insert`](Self::insert) increments the counter of each of the `k`
///   probes. Probes are counted, not positions: when two probes of a key
///   land on the same counter (possible with every strategy), that
///   counter is incremented twice, and [`remove`](Self::remove)
///   decrements it twice.
/// * [`contains`](Self::contains): all `k` counters non-zero.
/// * [`remove`](Self::remove) decrements them, or returns
///   [`Error::NotPresent`] and changes no counter when the key is
///   certainly absent (a zero counter).
/// * [`count_estimate`](Self::count_estimate): the minimum of the `k`
///   counters (Cohen & Matias' minimum selection), never below the key's
///   multiplicity (capped at the counter maximum) unless a false positive
///   was removed.
///
/// **Saturation is sticky.** A counter that reaches its maximum
/// ([`CounterWidth::max`]) means "at least the maximum": further
/// increments are lost ([`Stats::saturation_events`]) and it is never
/// decremented again ([`Stats::skipped_decrements`]), so a delete cannot
/// zero a counter that other keys still need. The price: a saturated
/// counter never clears, so the false-positive rate cannot fall back
/// after heavy churn. [`saturated_counters`](Self::saturated_counters)
/// counts them.
///
/// ```
/// use bloomlab_counting::CountingBloomFilter;
///
/// let mut f = CountingBloomFilter::new(1000, 0.01)?; // 9600 counters
/// assert_eq!((f.counters(), f.hash_count()), (9600, 7));
/// assert_eq!(f.bytes_of_memory(), 9600 * 4 / 8);
/// f.insert("apple");
/// f.insert("apple");
/// assert_eq!(f.count_estimate("apple"), 2);
/// f.remove("apple")?;
/// assert!(f.contains("apple"));
/// f.remove("apple")?;
/// assert!(!f.contains("apple"));
/// assert!(f.remove("apple").is_err()); // certainly absent: refused
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Its false-positive rate is the standard filter's for the keys it holds
/// now (the exact formula, [`bloomlab_core::theory::fpr_exact`], at the
/// live load), as its non-zero counters are that filter's bits
/// ([`to_standard`](Self::to_standard)). For 10^5 keys at p = 1% it takes
/// 9.59 counters a key (38.3 bits of memory with 4-bit counters) and
/// k = 7. The example churns it as issue 4 does (10^5 keys in, the older
/// half out, 5·10^4 new keys in), measures the rate on 10^5 keys never
/// inserted and checks that the formula for the 10^5 live keys lies in
/// the measured rate's 99.9% Clopper–Pearson interval (about ±10% of it
/// here; one filter's counters move its rate by about 0.4%, well inside).
///
/// ```
/// use bloomlab_core::{stats, theory};
/// use bloomlab_counting::CountingBloomFilter;
///
/// let n = 100_000u64;
/// let mut f = CountingBloomFilter::new(n, 0.01)?;
/// assert_eq!((f.counters(), f.hash_count()), (958_528, 7));
/// assert_eq!(f.bytes_of_memory(), 958_528 / 2); // 4 bits a counter
/// for key in 0..n {
///     f.insert(&key);
/// }
/// for key in 0..n / 2 {
///     f.remove(&key)?;
/// }
/// for key in n..n + n / 2 {
///     f.insert(&key);
/// }
/// let live = n / 2..n + n / 2;
/// assert!(live.clone().all(|key| f.contains(&key))); // no false negative
/// let queries = 100_000u64;
/// let absent = 2 * n..2 * n + queries;
/// let hits = absent.filter(|key| f.contains(key)).count();
/// let exact = theory::fpr_exact(f.counters(), n, f.hash_count())?.value;
/// let ci = stats::clopper_pearson(hits as u64, queries, 0.999)?;
/// assert!(ci.contains(exact), "{hits} hits, {ci:?} against {exact}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct CountingBloomFilter {
    words: Words,
    width: CounterWidth,
    probes: Probes,
    stats: Stats,
    /// The probe loops of `probes` and `width`, chosen once.
    kernel: Option<Kernel>,
    /// The bits of the non-zero counters, kept in step with them
    /// ([`CountingBloomFilter::keep_summary`]).
    summary: Option<BloomFilter>,
}

/// Equal when they hold the same counters, hashing and statistics;
/// whether either keeps a summary (bits derived from its counters, which
/// files do not hold) does not matter, so a filter equals itself read
/// back from its bytes.
impl PartialEq for CountingBloomFilter {
    fn eq(&self, other: &Self) -> bool {
        self.words == other.words
            && self.width == other.width
            && self.probes == other.probes
            && self.stats == other.stats
    }
}

impl Eq for CountingBloomFilter {}

/// Builds a [`CountingBloomFilter`] from a [`Config`], a [`Size`] and a
/// [`CounterWidth`].
///
/// ```
/// use bloomlab_counting::{CounterWidth, CountingBloomFilter};
/// use bloomlab_hash::{Family, Reduction, Strategy};
///
/// let f = CountingBloomFilter::builder(10_000, 0.01)
///     .family(Family::Murmur3X64_128)
///     .strategy(Strategy::GuavaMitz64)
///     .reduction(Reduction::Modulo)
///     .width(CounterWidth::Eight)
///     .build()?;
/// assert_eq!(f.counter_width(), CounterWidth::Eight);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Builder {
    config: Config,
    size: Size,
    width: CounterWidth,
    summary: bool,
}

impl Builder {
    /// For `n` items at false-positive rate `p`: Guava's sizing, one
    /// counter per bit of Guava's filter (`m` a multiple of 64).
    pub fn rate(n: u64, p: f64) -> Builder {
        Builder::sized(Size::Rate { n, p })
    }

    /// `m` counters and `k` probes per key.
    pub fn counters(m: u64, k: u32) -> Builder {
        Builder::sized(Size::Bits { m, k })
    }

    /// With a [`Size`].
    pub fn sized(size: Size) -> Builder {
        Builder {
            config: Config::default(),
            size,
            width: CounterWidth::Four,
            summary: false,
        }
    }

    /// Sets the whole hashing configuration.
    pub fn config(mut self, config: Config) -> Builder {
        self.config = config;
        self
    }

    /// Sets the hash family.
    pub fn family(mut self, family: Family) -> Builder {
        self.config.family = family;
        self
    }

    /// Sets the seed.
    pub fn seed(mut self, seed: i128) -> Builder {
        self.config.seed = seed;
        self
    }

    /// Sets the index strategy.
    pub fn strategy(mut self, strategy: Strategy) -> Builder {
        self.config.strategy = strategy;
        self
    }

    /// Sets the range reduction.
    pub fn reduction(mut self, reduction: Reduction) -> Builder {
        self.config.reduction = reduction;
        self
    }

    /// Sets the counter width.
    pub fn width(mut self, width: CounterWidth) -> Builder {
        self.width = width;
        self
    }

    /// Whether the filter keeps a summary of its counters
    /// ([`CountingBloomFilter::keep_summary`]; off by default).
    pub fn summary(mut self, keep: bool) -> Builder {
        self.summary = keep;
        self
    }

    /// Builds the filter (all counters zero).
    pub fn build(self) -> Result<CountingBloomFilter> {
        let (m, k) = self.size.resolve()?;
        let mut f =
            CountingBloomFilter::with_config(self.config, self.width, m, k)?;
        if self.summary {
            f.keep_summary()?;
        }
        Ok(f)
    }
}

/// Word index and shift of counter `p` for a width of `2^lw` bits.
#[inline(always)]
fn locate(p: u64, lw: u32) -> (usize, u64) {
    ((p >> (6 - lw)) as usize, (p << lw) & 63)
}

impl CountingBloomFilter {
    /// A filter for `n` items at false-positive rate `p` (Guava's sizing:
    /// `m` counters where Guava would use `m` bits), default [`Config`],
    /// 4-bit counters.
    pub fn new(n: u64, p: f64) -> Result<CountingBloomFilter> {
        Builder::rate(n, p).build()
    }

    /// `m` counters, `k` probes, default [`Config`], 4-bit counters.
    pub fn with_counters(m: u64, k: u32) -> Result<CountingBloomFilter> {
        Builder::counters(m, k).build()
    }

    /// A [`Builder`] for `n` items at rate `p`.
    pub fn builder(n: u64, p: f64) -> Builder {
        Builder::rate(n, p)
    }

    /// A [`Builder`] for `m` counters and `k` probes.
    pub fn builder_counters(m: u64, k: u32) -> Builder {
        Builder::counters(m, k)
    }

    /// `m` counters of `width` bits, `k` probes (1..=[`MAX_K`]), hashing
    /// by `config`. Errors on `m = 0`, a bad `k`, a configuration the
    /// hash crate refuses, or counters that cannot be allocated.
    pub fn with_config(
        config: Config,
        width: CounterWidth,
        m: u64,
        k: u32,
    ) -> Result<CountingBloomFilter> {
        check_k(k)?;
        let probes = Probes::new(&config, k, m)?;
        let words = zeroed_words(width, m)?;
        let bytes = size_of_val(&words[..]);
        let kernel = Kernel::new(probes.inner(), width.log2(), bytes);
        Ok(CountingBloomFilter {
            words,
            width,
            probes,
            stats: Stats::default(),
            kernel,
            summary: None,
        })
    }

    /// A filter holding the given counters: `words` are `m` counters of
    /// `width` bits packed as [`CountingBloomFilter::words`] returns them
    /// (for counters kept elsewhere, e.g. in Redis). The statistics start
    /// at zero; `saturated_counters` is recomputed from the words. Errors
    /// for a word count that does not match `m` and the width, non-zero
    /// padding after the last counter, or parameters
    /// [`CountingBloomFilter::with_config`] refuses.
    ///
    /// ```
    /// use bloomlab_counting::{Config, CounterWidth, CountingBloomFilter};
    ///
    /// let mut f = CountingBloomFilter::new(100, 0.01)?;
    /// f.insert("a");
    /// let g = CountingBloomFilter::from_words(
    ///     f.config(), CounterWidth::Four, f.counters(), f.hash_count(),
    ///     f.words().to_vec(),
    /// )?;
    /// assert!(g.contains("a"));
    /// assert_eq!(g.words(), f.words());
    /// # Ok::<(), bloomlab_counting::Error>(())
    /// ```
    pub fn from_words(
        config: Config,
        width: CounterWidth,
        m: u64,
        k: u32,
        words: Vec<u64>,
    ) -> Result<CountingBloomFilter> {
        Self::from_parts(config, width, m, k, words, Stats::default())
    }

    /// A filter from its parts (what the reader decoded): `words` must be
    /// the packed counters of `m` counters of `width` bits, with zero
    /// padding after the last counter.
    pub(crate) fn from_parts(
        config: Config,
        width: CounterWidth,
        m: u64,
        k: u32,
        words: Vec<u64>,
        stats: Stats,
    ) -> Result<CountingBloomFilter> {
        check_k(k)?;
        let probes = Probes::new(&config, k, m)?;
        let expected = width.words_for(m);
        if expected != Some(words.len() as u64) {
            return Err(Error::corrupt(
                "word count",
                words.len(),
                "does not match m and the counter width",
            ));
        }
        let used = m % u64::from(width.per_word());
        if used != 0
            && let Some(&last) = words.last()
            && last >> (used << width.log2()) != 0
        {
            return Err(Error::corrupt(
                "counters",
                format!("{last:#018x}"),
                "non-zero padding after the last counter",
            ));
        }
        let bytes = size_of_val(&words[..]);
        let kernel = Kernel::new(probes.inner(), width.log2(), bytes);
        let words = Words::from_vec(words);
        Ok(CountingBloomFilter {
            words,
            width,
            probes,
            stats,
            kernel,
            summary: None,
        })
    }

    /// The hashing configuration (seed as the family uses it).
    pub fn config(&self) -> Config {
        self.probes.config()
    }

    /// Number of counters, `m`.
    #[inline]
    pub fn counters(&self) -> u64 {
        self.probes.m()
    }

    /// Probes per key, `k`.
    #[inline]
    pub fn hash_count(&self) -> u32 {
        self.probes.k()
    }

    /// Bits per counter.
    pub fn counter_width(&self) -> CounterWidth {
        self.width
    }

    /// The packed counters (see [`CounterWidth`] for the layout).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// What has happened to the filter.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Counter `i`, or `None` beyond `m`.
    pub fn counter(&self, i: u64) -> Option<u64> {
        if i >= self.counters() {
            return None;
        }
        let (w, sh) = locate(i, self.width.log2());
        Some((self.words[w] >> sh) & self.width.max())
    }

    /// The key's counter indices in probe order (may repeat).
    pub fn positions<T: Funnel + ?Sized>(&self, key: &T) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.hash_count() as usize);
        key.with_bytes(|b| {
            self.probes.walk(b, |_, p| {
                out.push(p);
                true
            })
        });
        out
    }

    /// Inserts a typed key (funnelled as Guava would); returns whether any
    /// counter changed (false only when all its counters are saturated).
    #[inline]
    pub fn insert<T: Funnel + ?Sized>(&mut self, key: &T) -> bool {
        match (self.kernel, key.as_le_word()) {
            (Some(kn), Some(w)) => {
                let (seed, m) = (self.probes.inner().seed(), self.counters());
                let words = &mut self.words;
                let lost = match &mut self.summary {
                    None => (kn.add_word)(seed, m, words, w),
                    Some(s) => {
                        (kn.add_word_sum)(seed, m, words, s.bit_array_mut(), w)
                    }
                };
                self.inserted(lost)
            }
            _ => key.with_bytes(|b| self.insert_bytes(b)),
        }
    }

    /// Inserts many keys, as [`insert`](Self::insert) of each in turn
    /// would; returns how many inserts changed a counter.
    ///
    /// On a filter of [`INSERT_PREFETCH_MIN_BYTES`] or more, keys are
    /// hashed a batch at a time and every counter they will increment
    /// prefetched (into the L2 cache, [`bloomlab_core::prefetch_l2`])
    /// before the first is, so that the batch's cache misses are in
    /// flight together (with a summary, its bits too); each key is then
    /// inserted as `insert` does (so it is hashed twice). At n = 1e7
    /// (48 MB) that is about three times faster than `insert` one key at
    /// a time (0.39 s against 1.05-1.13 s for 10^7 keys,
    /// `benches/benches/counting.rs`, `build`). Smaller filters insert
    /// one key at a time.
    ///
    /// ```
    /// use bloomlab_counting::CountingBloomFilter;
    ///
    /// let mut f = CountingBloomFilter::new(1000, 0.01)?;
    /// assert_eq!(f.insert_many(&[1u64, 2, 3, 2]), 4);
    /// assert_eq!(f.count_estimate(&2u64), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert_many<T: Funnel>(&mut self, keys: &[T]) -> usize {
        if !self.batches_updates() {
            return keys.iter().filter(|k| self.insert(*k)).count();
        }
        keys.chunks(BATCH)
            .map(|chunk| {
                self.prefetch_updates(chunk);
                chunk.iter().filter(|k| self.insert(*k)).count()
            })
            .sum()
    }

    /// Removes many keys, as [`remove`](Self::remove) of each in turn
    /// would; returns how many were removed. A key refused by `remove`
    /// (a zero counter: certainly absent) changes nothing here either,
    /// and is counted in [`Stats::rejected_removes`]; the warning of
    /// [`remove_bytes`](Self::remove_bytes) about removing keys that were
    /// never inserted applies to each key.
    ///
    /// On a filter of [`INSERT_PREFETCH_MIN_BYTES`] or more the batch is
    /// prefetched as [`insert_many`](Self::insert_many)'s is (with a
    /// summary, its bits too), then each key removed as `remove` does.
    /// Removing the first half of the keys of a full filter at n = 1e7
    /// (48 MB, lines not in the caches) took 36-38 ns a key against
    /// 106-118 for `remove` one key at a time, with a summary 80-86
    /// against 134-183; at n = 2e6 (9.6 MB) 29-42 against 35-51 (one-off
    /// loop, both ways alternated three times, 2026-11-27; a design
    /// measurement).
    ///
    /// ```
    /// use bloomlab_counting::CountingBloomFilter;
    ///
    /// let mut f = CountingBloomFilter::new(1000, 0.01)?;
    /// f.insert_many(&[1u64, 2, 2]);
    /// // 2 twice: its second occurrence; 3 was never inserted.
    /// assert_eq!(f.remove_many(&[1u64, 2, 2, 3]), 3);
    /// assert_eq!(f.stats().rejected_removes, 1);
    /// assert!(!f.contains(&2u64));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn remove_many<T: Funnel>(&mut self, keys: &[T]) -> usize {
        if !self.batches_updates() {
            return keys.iter().filter(|k| self.remove(*k).is_ok()).count();
        }
        keys.chunks(BATCH)
            .map(|chunk| {
                self.prefetch_updates(chunk);
                chunk.iter().filter(|k| self.remove(*k).is_ok()).count()
            })
            .sum()
    }

    /// Whether `insert_many` and `remove_many` prefetch their batches:
    /// filters of [`INSERT_PREFETCH_MIN_BYTES`] or more whose positions
    /// come from one digest.
    fn batches_updates(&self) -> bool {
        self.probes.digest_only()
            && self.bytes_of_memory() >= INSERT_PREFETCH_MIN_BYTES
    }

    /// Prefetches into the L2 cache every counter (and summary bit) that
    /// an update of each key of `chunk` will touch, so that their misses
    /// are in flight together; the keys are hashed again when applied.
    // Hashing once instead (positions kept for an update pass through the
    // generic walk) was measured and not kept: level at 48 MB, where the
    // build is bound by memory, and slower at 9.6 MB (31.8-33.8 ns a key
    // against 27.2-28.2) than the unrolled one-key kernels it replaces.
    fn prefetch_updates(&self, chunk: &[impl Funnel]) {
        let lw = self.width.log2();
        let mut ds = [Digest::default(); BATCH];
        for (d, key) in ds.iter_mut().zip(chunk) {
            *d = key.with_bytes(|b| self.probes.digest(b));
        }
        let words = &self.words[..];
        // A summary's bits are a second line a probe. Prefetched with
        // the counters, a 1e7 build keeping one took 71-73 ns a key
        // against 86-100 (one-off loop, old and new alternated twice,
        // 2026-11-27; a design measurement); 9.6 MB level (35-37).
        let summary = self.summary.as_ref().map(|s| s.bit_array().words());
        for &d in &ds[..chunk.len().min(BATCH)] {
            self.probes.walk_digest(d, |_, p| {
                prefetch_l2(words, locate(p, lw).0);
                if let Some(s) = summary {
                    prefetch_l2(s, (p >> 6) as usize);
                }
                true
            });
        }
    }

    /// Whether a typed key may be in the filter.
    // Always inlined: left to itself the compiler kept `contains` out of
    // line in a caller's loop, a second call a key; inlined, member
    // queries at n = 1e6 took 19-20 ns against 21-23 (alternated runs
    // against fastbloom-rs, 2026-11-24).
    #[inline(always)]
    pub fn contains<T: Funnel + ?Sized>(&self, key: &T) -> bool {
        if let Some(s) = &self.summary {
            return s.contains(key);
        }
        // The kernel is called here, not through `contains_bytes` (which
        // the compiler keeps out of line): one call a key, not two.
        let (seed, m) = (self.probes.inner().seed(), self.counters());
        match (self.kernel, key.as_le_word()) {
            (Some(kn), Some(w)) => (kn.query_word)(seed, m, &self.words, w),
            (Some(kn), None) => {
                key.with_bytes(|b| (kn.query)(seed, m, &self.words, b))
            }
            (None, _) => key.with_bytes(|b| self.contains_bytes(b)),
        }
    }

    /// Removes one occurrence of a typed key; see
    /// [`remove_bytes`](Self::remove_bytes).
    #[inline]
    pub fn remove<T: Funnel + ?Sized>(&mut self, key: &T) -> Result<()> {
        match (self.kernel, key.as_le_word()) {
            (Some(kn), Some(w)) => {
                let (seed, m) = (self.probes.inner().seed(), self.counters());
                let words = &mut self.words;
                let done = match &mut self.summary {
                    None => (kn.sub_word)(seed, m, words, w),
                    Some(s) => {
                        (kn.sub_word_sum)(seed, m, words, s.bit_array_mut(), w)
                    }
                };
                self.removed(done)
            }
            _ => key.with_bytes(|b| self.remove_bytes(b)),
        }
    }

    /// The minimum of the key's counters: an upper bound on how many times
    /// it was inserted (minus removed), exact unless other keys share all
    /// its counters. A result of [`CounterWidth::max`] means "at least".
    #[inline]
    pub fn count_estimate<T: Funnel + ?Sized>(&self, key: &T) -> u64 {
        key.with_bytes(|b| self.count_estimate_bytes(b))
    }

    /// Inserts a key given as bytes: increments the counter of each probe
    /// (twice for a counter two probes share). A saturated counter stays
    /// at its maximum and the lost increment is counted in
    /// [`Stats::saturation_events`].
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        let changed = self.count_in(key);
        if let Some(s) = &mut self.summary {
            s.add_bytes(key);
        }
        changed
    }

    /// [`insert_bytes`](Self::insert_bytes) of the counters alone.
    #[inline]
    fn count_in(&mut self, key: &[u8]) -> bool {
        let m = self.counters();
        let seed = self.probes.inner().seed();
        let lost = if let Some(kn) = self.kernel {
            (kn.add)(seed, m, &mut self.words, key)
        } else {
            // (Every configuration with a fast walk and `k` ≤ 16 has a
            // kernel; the rest take the generic walk.)
            self.insert_walk(key)
        };
        self.inserted(lost)
    }

    /// Counts an insert that lost `lost` increments to saturated
    /// counters; whether any counter changed.
    #[inline(always)]
    fn inserted(&mut self, lost: u64) -> bool {
        self.stats.inserts = self.stats.inserts.saturating_add(1);
        self.stats.saturation_events =
            self.stats.saturation_events.saturating_add(lost);
        lost < u64::from(self.hash_count())
    }

    /// [`insert_bytes`](Self::insert_bytes) through the generic walk;
    /// returns the increments lost.
    fn insert_walk(&mut self, key: &[u8]) -> u64 {
        let l = self.lanes();
        let words = &mut self.words;
        let mut lost = 0u64;
        self.probes.walk(key, |_, p| {
            let (w, sh) = l.locate(p);
            let word = &mut words[w];
            let full = u64::from((*word >> sh) & l.max == l.max);
            *word += (full ^ 1) << sh;
            lost += full;
            true
        });
        lost
    }

    #[inline(always)]
    fn lanes(&self) -> Lanes {
        Lanes { lw: self.width.log2(), max: self.width.max() }
    }

    /// Whether a key given as bytes may be in the filter: all its counters
    /// are non-zero.
    #[inline]
    pub fn contains_bytes(&self, key: &[u8]) -> bool {
        if let Some(s) = &self.summary {
            return s.contains_bytes(key);
        }
        let (m, l) = (self.counters(), self.lanes());
        let words = &self.words[..];
        if let Some(kn) = self.kernel {
            let seed = self.probes.inner().seed();
            return (kn.query)(seed, m, words, key);
        }
        self.probes.walk(key, |_, p| {
            let (w, sh) = l.locate(p);
            (words[w] >> sh) & l.max != 0
        })
    }

    /// Answers [`contains`](Self::contains) for many keys into `out` (as
    /// many as the shorter of the two).
    ///
    /// On a filter of [`INSERT_PREFETCH_MIN_BYTES`] or more, keys are
    /// hashed a batch at a time. The first two counters of every key are
    /// tested, then the other counters of the keys that passed (a
    /// non-member usually stops at two), each pass prefetching the
    /// counters it will read (into the L2 cache,
    /// [`bloomlab_core::prefetch_l2`]) before it reads any, so a batch's
    /// cache misses are in flight together rather than the few that fit
    /// in the core's out-of-order window: at n = 1e7 (48 MB) 34.0 ns a
    /// member and 22.3 a non-member, against 86.9 and 65.7 for `contains`
    /// one key at a time and 134 and 95.5 for fastbloom-rs's
    /// (`benches/benches/counting.rs`, `bloomlab-counting-contains-many`,
    /// 2026-11-27). Smaller filters answer each key as `contains` does,
    /// which is faster there: at 4.8 MB the batch took 23.5 ns a member
    /// against 15.6, at 7.2 MB 24-30 against 17-22, and at 9.6 MB it won
    /// (27 against 30; one-off loops, a design measurement, not a bench).
    /// The answers are `contains`'s.
    ///
    /// ```
    /// use bloomlab_counting::CountingBloomFilter;
    ///
    /// let mut f = CountingBloomFilter::new(1000, 0.01)?;
    /// f.insert(&1u64);
    /// f.insert(&2u64);
    /// let mut out = [false; 3];
    /// f.contains_many(&[1u64, 2, 99], &mut out);
    /// assert_eq!(&out[..2], [true, true]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_many<T: Funnel>(&self, keys: &[T], out: &mut [bool]) {
        if let Some(s) = &self.summary {
            return s.contains_many(keys, out);
        }
        let large = self.bytes_of_memory() >= INSERT_PREFETCH_MIN_BYTES;
        if !self.probes.digest_only() || !large {
            for (k, o) in keys.iter().zip(out.iter_mut()) {
                *o = self.contains(k);
            }
            return;
        }
        let (lw, max) = (self.width.log2(), self.width.max());
        let words = &self.words[..];
        let mut ds = [Digest::default(); BATCH];
        for (chunk, outs) in keys.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            for (d, key) in ds.iter_mut().zip(chunk) {
                *d = key.with_bytes(|b| self.probes.digest(b));
            }
            let n = chunk.len().min(outs.len());
            let (ds, outs) = (&ds[..n], &mut outs[..n]);
            let head = |i: u32| i < FIRST_PASS;
            for &d in ds {
                self.probes.walk_digest(d, |i, p| {
                    prefetch_l2(words, locate(p, lw).0);
                    head(i + 1)
                });
            }
            // The first counters without early exit: their loads are
            // independent, and which way a non-member goes is a coin toss.
            for (&d, o) in ds.iter().zip(outs.iter_mut()) {
                let mut all = true;
                self.probes.walk_digest(d, |i, p| {
                    let (w, sh) = locate(p, lw);
                    all &= (words[w] >> sh) & max != 0;
                    head(i + 1)
                });
                *o = all;
            }
            for (&d, &o) in ds.iter().zip(outs.iter()) {
                if o {
                    self.probes.walk_digest(d, |i, p| {
                        if !head(i) {
                            prefetch_l2(words, locate(p, lw).0);
                        }
                        true
                    });
                }
            }
            for (&d, o) in ds.iter().zip(outs.iter_mut()) {
                if *o {
                    *o = self.probes.walk_digest(d, |i, p| {
                        let (w, sh) = locate(p, lw);
                        head(i) || (words[w] >> sh) & max != 0
                    });
                }
            }
        }
    }

    /// [`count_estimate`](Self::count_estimate) of a key given as bytes.
    pub fn count_estimate_bytes(&self, key: &[u8]) -> u64 {
        let (lw, max) = (self.width.log2(), self.width.max());
        let words = &self.words[..];
        let mut min = max;
        self.probes.walk(key, |_, p| {
            let (w, sh) = locate(p, lw);
            min = min.min((words[w] >> sh) & max);
            min != 0
        });
        min
    }

    /// Removes one occurrence of a key given as bytes: decrements the
    /// counter of each probe, except saturated counters, which stay (and
    /// are counted in [`Stats::skipped_decrements`]).
    ///
    /// If the key is certainly absent (a zero counter, or a counter shared
    /// by `r` of its probes holding less than `r`), returns
    /// [`Error::NotPresent`], changes no counter and counts the refusal in
    /// [`Stats::rejected_removes`].
    ///
    /// **A successful remove does not prove the key was inserted.** A key
    /// that was never inserted but is a false positive passes the check,
    /// and removing it decrements counters that belong to other keys:
    /// some may fall to zero, making those keys false negatives. Only
    /// remove keys you know are in the filter (crate docs, "Deletes").
    pub fn remove_bytes(&mut self, key: &[u8]) -> Result<()> {
        self.count_out(key)?;
        self.clear_emptied(key);
        Ok(())
    }

    /// [`remove_bytes`](Self::remove_bytes) of the counters alone.
    fn count_out(&mut self, key: &[u8]) -> Result<()> {
        let m = self.counters();
        let done = if let Some(kn) = self.kernel {
            let seed = self.probes.inner().seed();
            (kn.sub)(seed, m, &mut self.words, key)
        } else {
            self.remove_walk(key)
        };
        self.removed(done)
    }

    /// Clears the summary's bits of the key's counters that are now zero
    /// (after a remove; a no-op without a summary).
    fn clear_emptied(&mut self, key: &[u8]) {
        let l = self.lanes();
        let Some(s) = &mut self.summary else {
            return;
        };
        let (words, bits) = (&self.words, s.bit_array_mut());
        self.probes.walk(key, |_, p| {
            let (w, sh) = l.locate(p);
            if (words[w] >> sh) & l.max == 0 {
                bits.unset(p);
            }
            true
        });
    }

    /// Counts a remove: done, with `Ok(skipped)` decrements of saturated
    /// counters skipped, or refused at `Err((probe, counter))`.
    #[inline(always)]
    fn removed(
        &mut self,
        done: std::result::Result<u64, (u32, u64)>,
    ) -> Result<()> {
        match done {
            // Saturating, as `inserted`: the counts may come from a file,
            // at any value.
            Ok(skipped) => {
                self.stats.removes = self.stats.removes.saturating_add(1);
                self.stats.skipped_decrements =
                    self.stats.skipped_decrements.saturating_add(skipped);
                Ok(())
            }
            Err((probe, counter)) => {
                self.stats.rejected_removes =
                    self.stats.rejected_removes.saturating_add(1);
                Err(Error::NotPresent { counter, probe, value: 0 })
            }
        }
    }

    /// [`remove_bytes`](Self::remove_bytes) through the generic walk: one
    /// pass of decrements; at a zero counter, the decrements before it
    /// are undone (a decremented counter is below the maximum, a skipped
    /// one still at it) and the probe is returned.
    fn remove_walk(
        &mut self,
        key: &[u8],
    ) -> std::result::Result<u64, (u32, u64)> {
        let l = self.lanes();
        let mut skipped = 0u64;
        let mut zero = None;
        {
            let words = &mut self.words;
            self.probes.walk(key, |i, p| {
                let (w, sh) = l.locate(p);
                let word = &mut words[w];
                let c = (*word >> sh) & l.max;
                if c == 0 {
                    zero = Some((i, p));
                    return false;
                }
                let full = u64::from(c == l.max);
                *word -= (full ^ 1) << sh;
                skipped += full;
                true
            });
        }
        let Some((probe, counter)) = zero else {
            return Ok(skipped);
        };
        let words = &mut self.words;
        self.probes.walk(key, |i, p| {
            if i >= probe {
                return false;
            }
            let (w, sh) = l.locate(p);
            if (words[w] >> sh) & l.max != l.max {
                words[w] += 1 << sh;
            }
            true
        });
        Err((probe, counter))
    }

    /// Number of non-zero counters (the bits a standard filter would have
    /// set).
    pub fn nonzero_counters(&self) -> u64 {
        let w = self.width;
        self.words
            .iter()
            .map(|&x| u64::from(w.nonzero_lanes(x).count_ones()))
            .sum()
    }

    /// Number of saturated counters (at [`CounterWidth::max`]).
    pub fn saturated_counters(&self) -> u64 {
        let w = self.width;
        self.words
            .iter()
            .map(|&x| u64::from(w.saturated_lanes(x).count_ones()))
            .sum()
    }

    /// Fraction of counters non-zero, in [0, 1].
    pub fn fill(&self) -> f64 {
        self.nonzero_counters() as f64 / self.counters() as f64
    }

    /// Number of distinct live keys, estimated from the fill (Swamidass &
    /// Baldi 2007): `−(m/k)·ln(1 − X/m)` with `X` the non-zero counters.
    pub fn estimated_count(&self) -> f64 {
        theory::estimate_count(
            self.counters(),
            self.hash_count(),
            self.nonzero_counters(),
        )
    }

    /// The false-positive probability the current fill implies,
    /// `(X/m)^k` (Guava's `expectedFpp` on [`to_standard`](Self::to_standard)).
    pub fn expected_fpp(&self) -> f64 {
        theory::guava_expected_fpp(
            self.nonzero_counters(),
            self.counters(),
            self.hash_count(),
        )
    }

    /// Heap bytes of the counters: `m·bits/8` rounded up to whole `u64`
    /// words, plus `m/8` (rounded up likewise) for a
    /// [summary](Self::keep_summary) if the filter keeps one.
    pub fn bytes_of_memory(&self) -> usize {
        let summary = self
            .summary
            .as_ref()
            .map_or(0, |s| s.bit_array().bytes_of_memory());
        self.words.len() * 8 + summary
    }

    /// Sets every counter to zero and the statistics to zero.
    pub fn clear(&mut self) {
        self.words.fill(0);
        self.stats = Stats::default();
        if let Some(s) = &mut self.summary {
            s.clear();
        }
    }

    /// Keeps a summary: the standard filter with a bit set wherever a
    /// counter is non-zero ([`to_standard`](Self::to_standard)), updated
    /// by every insert, remove, union and clear, as the proxies of Fan,
    /// Cao, Almeida & Broder's *Summary Cache* keep one beside their
    /// counters. Queries ([`contains`](Self::contains),
    /// [`contains_bytes`](Self::contains_bytes),
    /// [`contains_many`](Self::contains_many)) then read the summary: the
    /// standard filter's probe loops over `m` bits instead of `m`
    /// counters, a quarter of the memory with 4-bit counters, and the
    /// same answers. The price is `m` bits more memory
    /// ([`bytes_of_memory`](Self::bytes_of_memory) counts them) and
    /// slower updates: an insert also sets the summary's bits, and a
    /// remove clears those whose counters fell to zero, each a second
    /// cache line a probe (in the same loop for one-word keys, a second
    /// walk of the probes for others). And where queries no longer read
    /// the counters, updates find them in the caches less often.
    /// [`summary`](Self::summary) lends it, e.g. to send to other nodes;
    /// [`to_standard`](Self::to_standard) copies it.
    ///
    /// The summary is not part of the file format: a filter read back
    /// has none until this is called again. Errors if the `m` bits
    /// cannot be allocated (the filter is unchanged).
    ///
    /// ```
    /// use bloomlab_counting::CountingBloomFilter;
    ///
    /// let mut f = CountingBloomFilter::new(1000, 0.01)?;
    /// f.insert("apple");
    /// f.keep_summary()?; // built from the counters
    /// f.insert("pear");
    /// f.remove("apple")?;
    /// let s = f.summary().unwrap();
    /// assert!(s.contains("pear") && !s.contains("apple"));
    /// assert_eq!(s, &f.to_standard()?);
    /// assert_eq!(f.bytes_of_memory(), (9600 * 4 + 9600) / 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn keep_summary(&mut self) -> Result<()> {
        if self.summary.is_none() {
            self.summary = Some(self.standard_from_counters()?);
        }
        Ok(())
    }

    /// Stops keeping the summary and frees it.
    pub fn drop_summary(&mut self) {
        self.summary = None;
    }

    /// The summary, if the filter keeps one
    /// ([`keep_summary`](Self::keep_summary)).
    pub fn summary(&self) -> Option<&BloomFilter> {
        self.summary.as_ref()
    }

    /// The standard filter with a bit set wherever a counter is non-zero,
    /// same `m`, `k` and [`Config`]. Without saturated counters and
    /// removed false positives it equals, bit for bit, the
    /// [`BloomFilter`] built from the live keys; otherwise it is a
    /// superset of it (it still contains every live key).
    pub fn to_standard(&self) -> Result<BloomFilter> {
        let Some(s) = &self.summary else {
            return self.standard_from_counters();
        };
        let mut bits = self.zeroed_bits()?;
        bits.copy_from_slice(s.bit_array().words());
        self.standard_of(bits)
    }

    /// `m` zeroed bits, or an error (not an abort) if they cannot be
    /// allocated.
    fn zeroed_bits(&self) -> Result<Vec<u64>> {
        let m = self.counters();
        let n_words = usize::try_from(m.div_ceil(64)).map_err(|_| {
            Error::invalid("m", m, "too large for this machine")
        })?;
        let mut bits: Vec<u64> = Vec::new();
        bits.try_reserve_exact(n_words)
            .map_err(|_| Error::invalid("m", m, "cannot allocate the bits"))?;
        bits.resize(n_words, 0);
        Ok(bits)
    }

    /// The standard filter of this filter's `m`, `k` and [`Config`] with
    /// the given bits.
    fn standard_of(&self, bits: Vec<u64>) -> Result<BloomFilter> {
        let bits = BitArray::from_words(self.counters(), bits)?;
        Ok(BloomFilter::from_bit_array(
            self.config(),
            self.hash_count(),
            bits,
        )?)
    }

    /// [`to_standard`](Self::to_standard) from the counters.
    fn standard_from_counters(&self) -> Result<BloomFilter> {
        let w = self.width;
        let (lw, per) = (w.log2(), u64::from(w.per_word()));
        let mut bits = self.zeroed_bits()?;
        for (wi, &x) in self.words.iter().enumerate() {
            let mut lanes = w.nonzero_lanes(x);
            let base = wi as u64 * per;
            while lanes != 0 {
                let i = base + u64::from(lanes.trailing_zeros() >> lw);
                bits[(i >> 6) as usize] |= 1 << (i & 63);
                lanes &= lanes - 1;
            }
        }
        self.standard_of(bits)
    }

    /// Checks that `other` has the same `m`, `k`, counter width, family,
    /// seed, strategy and reduction.
    pub fn check_compatible(&self, other: &CountingBloomFilter) -> Result<()> {
        let diff = |what, l: String, r: String| {
            Err(Error::Incompatible { what, left: l, right: r })
        };
        let (a, b) = (self.config(), other.config());
        if self.counters() != other.counters() {
            return diff(
                "m",
                self.counters().to_string(),
                other.counters().to_string(),
            );
        }
        if self.hash_count() != other.hash_count() {
            return diff(
                "k",
                self.hash_count().to_string(),
                other.hash_count().to_string(),
            );
        }
        if self.width != other.width {
            return diff(
                "counter bits",
                self.width.to_string(),
                other.width.to_string(),
            );
        }
        if a.family != b.family {
            return diff("family", a.family.to_string(), b.family.to_string());
        }
        if a.seed != b.seed {
            return diff("seed", a.seed.to_string(), b.seed.to_string());
        }
        if a.strategy != b.strategy {
            return diff(
                "strategy",
                a.strategy.to_string(),
                b.strategy.to_string(),
            );
        }
        if a.reduction != b.reduction {
            return diff(
                "reduction",
                a.reduction.to_string(),
                b.reduction.to_string(),
            );
        }
        Ok(())
    }

    /// Adds `other`'s counters to this filter's, saturating: the filter of
    /// both key multisets. A sum above the maximum saturates the counter
    /// and counts the excess in [`Stats::saturation_events`]; a saturated
    /// operand gives a saturated result. The statistics are added.
    pub fn union(&mut self, other: &CountingBloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        // Before any counter changes, so that an allocation failure
        // leaves the filter as it was.
        let theirs = match self.summary {
            Some(_) => Some(other.to_standard()?),
            None => None,
        };
        let w = self.width;
        let (bits, max, per) = (w.bits(), w.max(), w.per_word());
        let mut lost = 0u64;
        for (a, &b) in self.words.iter_mut().zip(&other.words) {
            if b == 0 {
                continue;
            }
            let mut out = 0u64;
            for lane in 0..per {
                let sh = lane * bits;
                let (x, y) = ((*a >> sh) & max, (b >> sh) & max);
                let s = if x == max || y == max {
                    // Unknown beyond the maximum: it stays saturated.
                    lost += if x == max { y } else { x };
                    max
                } else if x + y > max {
                    lost += x + y - max;
                    max
                } else {
                    x + y
                };
                out |= s << sh;
            }
            *a = out;
        }
        self.stats = self.stats.merged(other.stats, lost);
        // A sum is non-zero where either counter is: the bits' union.
        if let (Some(s), Some(theirs)) = (&mut self.summary, &theirs) {
            s.union(theirs)?;
        }
        Ok(())
    }
}

fn check_k(k: u32) -> Result<()> {
    if k == 0 || k > MAX_K {
        return Err(Error::invalid("k", k, "must be in 1..=255"));
    }
    Ok(())
}

/// Zeroed words for `m` counters, or an error (not an abort) when they
/// cannot be allocated.
fn zeroed_words(width: CounterWidth, m: u64) -> Result<Words> {
    if m == 0 {
        return Err(Error::invalid("m", m, "must be at least 1"));
    }
    let words = width
        .words_for(m)
        .and_then(|w| usize::try_from(w).ok())
        .ok_or_else(|| Error::invalid("m", m, "too large for this machine"))?;
    Words::zeroed(words)
        .ok_or_else(|| Error::invalid("m", m, "cannot allocate the counters"))
}

/// Inserts every key, as [`CountingBloomFilter::insert_many`] does, a batch of
/// [`bloomlab_core::EXTEND_BATCH`] keys at a time (so large filters get
/// the batch's prefetching).
///
/// ```
/// use bloomlab_counting::CountingBloomFilter;
///
/// let mut f = CountingBloomFilter::new(10_000, 0.01)?;
/// f.extend(["a", "b", "a"]);
/// assert_eq!(f.count_estimate("a"), 2);
/// # Ok::<(), bloomlab_counting::Error>(())
/// ```
impl<K: Funnel> Extend<K> for CountingBloomFilter {
    fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
        bloomlab_core::for_each_batch(keys, |batch| {
            self.insert_many(batch);
        });
    }
}

impl Filter for CountingBloomFilter {
    fn variant(&self) -> &'static str {
        "counting"
    }

    #[inline]
    fn insert_bytes(&mut self, key: &[u8]) -> bool {
        CountingBloomFilter::insert_bytes(self, key)
    }

    #[inline]
    fn contains_bytes(&self, key: &[u8]) -> bool {
        CountingBloomFilter::contains_bytes(self, key)
    }

    fn bits(&self) -> u64 {
        self.counters()
    }

    fn hash_count(&self) -> u32 {
        CountingBloomFilter::hash_count(self)
    }

    fn bits_set(&self) -> u64 {
        self.nonzero_counters()
    }

    fn fill(&self) -> f64 {
        CountingBloomFilter::fill(self)
    }

    fn estimated_count(&self) -> f64 {
        CountingBloomFilter::estimated_count(self)
    }

    fn expected_fpp(&self) -> f64 {
        CountingBloomFilter::expected_fpp(self)
    }

    fn bytes_of_memory(&self) -> usize {
        CountingBloomFilter::bytes_of_memory(self)
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
