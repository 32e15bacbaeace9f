//! [`ScalableBloomFilter`]: a chain of layers that grows as items arrive.

use bloomlab_core::{BitArray, Filter, theory};
use bloomlab_hash::murmur64a::REDISBLOOM_SEED;
use bloomlab_hash::strategy::mix64;
use bloomlab_hash::{Family, Funnel, Hasher, Reduction};

use crate::config::{Config, Layout, Pairing, Probe, Shape, Sizing, shape};
use crate::parts::LayerSpec;
use crate::probe::{self, Loop};
use crate::{Error, Result};

/// Keys the batch methods hash (and prefetch for) at a time.
const BATCH: usize = 64;

/// One layer of a scalable filter: a Bloom filter with its own capacity,
/// error, bits and `k`.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub(crate) array: BitArray,
    /// The whole array (standard) or one slice (partitioned).
    pub(crate) modulus: u64,
    pub(crate) k: u32,
    pub(crate) capacity: u64,
    pub(crate) error: f64,
    pub(crate) bpe: f64,
    pub(crate) count: u64,
    pub(crate) ones: u64,
}

impl Layer {
    pub(crate) fn new(capacity: u64, error: f64, s: Shape) -> Result<Layer> {
        Ok(Layer {
            array: BitArray::new(s.bits)?,
            modulus: s.modulus,
            k: s.k,
            capacity,
            error,
            bpe: s.bpe,
            count: 0,
            ones: 0,
        })
    }

    /// Items it holds before the chain grows (RedisBloom's `entries`).
    pub fn capacity(&self) -> u64 {
        self.capacity
    }
    /// Items newly set in it (RedisBloom's per-link `size`).
    pub fn count(&self) -> u64 {
        self.count
    }
    /// Its target error `P_i`.
    pub fn error(&self) -> f64 {
        self.error
    }
    /// Its number of bits.
    pub fn bits(&self) -> u64 {
        self.array.bit_len()
    }
    /// Probes per key.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// Bits per entry as sized (RedisBloom stores this figure).
    pub fn bits_per_entry(&self) -> f64 {
        self.bpe
    }
    /// Bits currently set.
    pub fn bits_set(&self) -> u64 {
        self.ones
    }
    /// Fraction of bits set.
    pub fn fill(&self) -> f64 {
        self.ones as f64 / self.bits() as f64
    }
    /// The bit array (RedisBloom's byte array is its words written
    /// little-endian).
    pub fn bit_array(&self) -> &BitArray {
        &self.array
    }
    /// Bytes of its array.
    pub fn bytes(&self) -> u64 {
        self.bits().div_ceil(64) * 8
    }
    /// The false-positive rate its current fill implies: `(X/m)^k` for a
    /// standard layer, the product of the slices' fills for a partitioned
    /// one, the mean over blocks of `Π_j (fill of word j)^c_j` for a
    /// blocked one, `c_j` the probes in word `j` (the rate of a random
    /// non-member given these bits).
    pub fn current_error(&self, layout: Layout) -> f64 {
        match layout {
            Layout::Standard => self.fill().powi(self.k as i32),
            Layout::Partitioned => {
                let s = self.modulus;
                (0..u64::from(self.k))
                    .map(|i| {
                        let ones = (i * s..(i + 1) * s)
                            .filter(|&b| self.array.get(b))
                            .count();
                        ones as f64 / s as f64
                    })
                    .product()
            }
            // The mean over blocks of Π_j (fill of word j)^c_j: a random
            // non-member picks a block uniformly and puts c_j independent
            // uniform bits in its word j.
            Layout::Blocked => {
                let c = |j: u32| f64::from((self.k + 7 - j) / 8);
                let sum: f64 = self
                    .array
                    .words()
                    .chunks(8)
                    .map(|b| {
                        (0u32..)
                            .zip(b)
                            .map(|(j, w)| {
                                (f64::from(w.count_ones()) / 64.0).powf(c(j))
                            })
                            .product::<f64>()
                    })
                    .sum();
                sum / self.modulus as f64
            }
        }
    }

    /// Distinct items it holds, estimated from its fill by inverting
    /// the expected fill of `layout`: Swamidass & Baldi's
    /// `−(m/k)·ln(1 − X/m)` for a standard or partitioned layer, and for
    /// a blocked one [`theory::estimate_count_word_blocks`], which counts
    /// its words' different probe counts.
    pub(crate) fn estimated_count(&self, layout: Layout) -> f64 {
        match layout {
            Layout::Standard | Layout::Partitioned => {
                theory::estimate_count(self.bits(), self.k, self.ones)
            }
            Layout::Blocked => theory::estimate_count_word_blocks(
                self.modulus,
                self.k,
                self.ones,
            ),
        }
    }
}

/// A scalable Bloom filter (Almeida, Baquero, Preguiça & Hutchison 2007):
/// a chain of layers, layer `i` with capacity `n0·s^i` and error
/// `P0·r^i`.
///
/// * **Inserts go to the newest layer.** A layer is full when its count
///   of newly set items reaches its capacity (and, with
///   [`Config::full_at_half_fill`], when half its bits are set); the next
///   layer is created lazily, when an item actually has to be inserted
///   into a full layer (RedisBloom's rule).
/// * **An item that any layer reports present is not inserted again**:
///   [`ScalableBloomFilter::add`] returns `Ok(false)` and the item is
///   counted in [`ScalableBloomFilter::skipped`], not in
///   [`ScalableBloomFilter::len`]. That includes true duplicates and
///   false positives, exactly as RedisBloom's `BF.ADD` replying 0.
/// * Queries test the layers newest to oldest and stop at the first hit.
/// * The key is hashed once; every layer derives its probes from the
///   same pair `(a, b)`, modulo its own size.
///
/// Its false-positive rate is [`compounded_error`](Self::compounded_error),
/// the chance that a non-member hits some layer given the bits the layers
/// hold now, and stays below the target however far the filter grows.
/// The example grows a filter from 1,000 to 10^5 keys at 1%, measures the
/// rate on 10^5 keys never inserted and checks that the compounded error
/// lies in the measured rate's 99.9% Clopper–Pearson interval (it is the
/// rate of this very filter, so the interval, the queries' noise, is the
/// whole tolerance).
///
/// ```
/// use bloomlab_core::stats;
/// use bloomlab_scalable::ScalableBloomFilter;
///
/// let mut f = ScalableBloomFilter::new(1000, 0.01)?;
/// let n = 100_000u64;
/// for key in 0..n {
///     f.add(&key.to_le_bytes())?;
/// }
/// assert_eq!(f.layers().len(), 5); // capacities 1,000 · 4^i
/// // 60.5 bits a key, as the newest layer is sized for 256,000 keys.
/// assert_eq!(f.total_bits(), 6_048_256);
/// let queries = 100_000u64;
/// let absent = n..n + queries;
/// let hits = absent.filter(|key| f.contains(&key.to_le_bytes())).count();
/// let rate = f.compounded_error();
/// assert!(rate < 0.01 && rate <= f.error_bound());
/// let ci = stats::clopper_pearson(hits as u64, queries, 0.999)?;
/// assert!(ci.contains(rate), "{hits} hits, {ci:?} against {rate}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ScalableBloomFilter {
    pub(crate) config: Config,
    pub(crate) hasher: Hasher,
    pub(crate) layers: Vec<Layer>,
    pub(crate) items: u64,
    pub(crate) skipped: u64,
    /// RedisBloom's header `options` (5 scaling, 13 non-scaling).
    pub(crate) redis_options: u32,
    /// RedisBloom's header `growth` (2 for `NONSCALING`, 0 for
    /// `EXPANSION 0`).
    pub(crate) redis_growth: u32,
}

impl ScalableBloomFilter {
    /// A filter for `initial_capacity` items at target error `error`,
    /// with bloomlab's defaults ([`Config::new`]).
    ///
    /// ```
    /// use bloomlab_scalable::ScalableBloomFilter;
    ///
    /// let mut f = ScalableBloomFilter::new(1000, 0.01)?;
    /// for i in 0..10_000u64 {
    ///     f.add(&i.to_le_bytes())?;
    /// }
    /// assert!(f.layers().len() > 1);
    /// assert!(f.compounded_error() < 0.01);
    /// # Ok::<(), bloomlab_scalable::Error>(())
    /// ```
    pub fn new(initial_capacity: u64, error: f64) -> Result<Self> {
        Self::with_config(Config::new(initial_capacity, error))
    }

    /// A filter with these parameters (checked).
    pub fn with_config(config: Config) -> Result<Self> {
        config.validate()?;
        let hasher = Hasher::new(config.family, i128::from(config.seed))?;
        let s = shape(
            config.sizing,
            config.layout,
            config.initial_capacity,
            config.first_error,
        )?;
        let first =
            Layer::new(config.initial_capacity, config.first_error, s)?;
        let growth = u32::try_from(config.growth).unwrap_or(u32::MAX);
        Ok(ScalableBloomFilter {
            config,
            hasher,
            layers: vec![first],
            items: 0,
            skipped: 0,
            redis_options: if config.scaling { 5 } else { 13 },
            redis_growth: if config.scaling { growth } else { 2 },
        })
    }

    /// The paper's recommended settings (Almeida et al. 2007, §5 and the
    /// authors' riak_core code): partitioned layers filled to one half
    /// (`k_i = ⌈log2(1/P_i)⌉`), `s = 2` with `r = 0.85` (slow growth),
    /// `P0 = P(1 − r)`. For fast growth see
    /// [`ScalableBloomFilter::almeida_fast`].
    ///
    /// Give it an `initial_capacity` of 4 or more. The first layers'
    /// slices are `⌈n_i/ln 2⌉` bits, and a slice of a few bits is more
    /// than half full at capacity (3 bits holding 2 items are 5/9 full),
    /// so those layers err above `2^−k`. Measured (10^5 items added, 10^6
    /// non-members, 2026-12-08): `initial_capacity` 1 gives 1.42% at
    /// `P = 1%`, 3 gives 1.03%, 4 gives 0.88%, 1,000 gives 0.43%;
    /// [`ScalableBloomFilter::compounded_error`] reports each within 2%
    /// of that. (Before positions were mixed, [`Probe::MixedDouble`],
    /// `initial_capacity` 1 gave 2.2%, and `compounded_error` 0.62%.)
    pub fn almeida(initial_capacity: u64, error: f64) -> Result<Self> {
        Self::with_config(almeida(initial_capacity, error, 0.85, 2))
    }

    /// The paper's settings for fast growth: `s = 4`, `r = 0.75`. As for
    /// [`ScalableBloomFilter::almeida`], give it an `initial_capacity` of
    /// 4 or more.
    pub fn almeida_fast(initial_capacity: u64, error: f64) -> Result<Self> {
        Self::with_config(almeida(initial_capacity, error, 0.75, 4))
    }

    /// pybloom-live's `ScalableBloomFilter(initial_capacity, error_rate,
    /// mode)` parameters, for comparison: `r = 0.9`, growth 2
    /// (`SMALL_SET_GROWTH`) or 4 (`LARGE_SET_GROWTH`, its default), and
    /// its first layer at `P·r` (so its bound is `9P`, not `P`; see
    /// `THEORY.md` §7). Partitioned layers sized as its `BloomFilter`.
    /// The hashing is bloomlab's, not pybloom-live's.
    pub fn pybloom_live(
        initial_capacity: u64,
        error: f64,
        growth: u64,
    ) -> Result<Self> {
        Self::with_config(pybloom_live(initial_capacity, error, growth))
    }

    /// The preset whose settings the filter has, by the name `bloomlab
    /// build --preset` and experiments use: `redisbloom`
    /// ([`Self::is_redisbloom`]), `almeida`, `almeida-fast` or
    /// `pybloom-live`; `None` for other settings.
    ///
    /// ```
    /// use bloomlab_scalable::{Config, ScalableBloomFilter};
    ///
    /// let f = ScalableBloomFilter::almeida(1000, 0.01)?;
    /// assert_eq!(f.preset(), Some("almeida"));
    /// let g = ScalableBloomFilter::with_config(Config::new(1000, 0.01))?;
    /// assert_eq!(g.preset(), None);
    /// # Ok::<(), bloomlab_scalable::Error>(())
    /// ```
    pub fn preset(&self) -> Option<&'static str> {
        let c = &self.config;
        let (n0, p) = (c.initial_capacity, c.error);
        if self.is_redisbloom() {
            Some("redisbloom")
        } else if *c == almeida(n0, p, 0.85, 2) {
            Some("almeida")
        } else if *c == almeida(n0, p, 0.75, 4) {
            Some("almeida-fast")
        } else if *c == pybloom_live(n0, p, c.growth) {
            Some("pybloom-live")
        } else {
            None
        }
    }

    /// The parameters.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The layers, oldest first.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Items newly inserted (RedisBloom's `BF.CARD`).
    pub fn len(&self) -> u64 {
        self.items
    }

    /// Whether nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.items == 0
    }

    /// Adds that found the item already (apparently) present and inserted
    /// nothing: true duplicates and false positives.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Sum of the layers' capacities (RedisBloom's `BF.INFO Capacity`).
    pub fn capacity(&self) -> u64 {
        self.layers.iter().map(|l| l.capacity).sum()
    }

    /// Sum of the layers' bits.
    pub fn total_bits(&self) -> u64 {
        self.layers.iter().map(Layer::bits).sum()
    }

    /// `1 − Π_i (1 − P_i)`, `P_i` being each layer's false-positive rate
    /// implied by its *current* fill ([`Layer::current_error`]): the
    /// probability that a random non-member is reported present now, if
    /// a key's positions are independent: they are under
    /// [`Probe::MixedDouble`] (the default) and in blocked layers, not
    /// quite under plain or enhanced double hashing in layers of a few
    /// bits per slice, whose true rate is higher (a one-item partitioned
    /// layer at `k = 7`: 0.78% reported, 2.0% measured).
    pub fn compounded_error(&self) -> f64 {
        let errors: Vec<f64> = self
            .layers
            .iter()
            .map(|l| l.current_error(self.config.layout))
            .collect();
        theory::scalable_compounded_error(&errors)
    }

    /// `1 − Π_i (1 − P_i)` over the layers' *target* errors: what the
    /// chain promises once every layer is full.
    pub fn compounded_target_error(&self) -> f64 {
        let errors: Vec<f64> = self.layers.iter().map(|l| l.error).collect();
        theory::scalable_compounded_error(&errors)
    }

    /// The bound on the compounded error however far the filter grows,
    /// `P0/(1 − r)` (its one layer's error when non-scaling).
    pub fn error_bound(&self) -> f64 {
        self.config.error_bound()
    }

    /// Heap bytes of the bit arrays and the layer table.
    pub fn bytes_of_memory(&self) -> usize {
        self.layers.iter().map(|l| l.array.bytes_of_memory()).sum::<usize>()
            + self.layers.capacity() * std::mem::size_of::<Layer>()
    }

    /// Whether the item may have been added: any layer, newest first.
    /// A key is any [`Funnel`] (`&str`, `&[u8]`, `u64`, ...), hashed as
    /// its bytes, so `"a"`, `"a".to_string()` and `b"a"` are one key.
    ///
    /// ```
    /// use bloomlab_scalable::ScalableBloomFilter;
    ///
    /// let mut f = ScalableBloomFilter::new(1000, 0.01)?;
    /// f.add("alice")?;
    /// f.add(&42u64)?;
    /// assert!(f.contains(b"alice") && f.contains(&42u64.to_le_bytes()));
    /// # Ok::<(), bloomlab_scalable::Error>(())
    /// ```
    #[inline]
    pub fn contains<T: Funnel + ?Sized>(&self, key: &T) -> bool {
        key.with_bytes(|key| {
            let ab = probe::pair(&self.config, &self.hasher, key);
            probe::any_hit(&self.layers, Loop::of(&self.config), ab)
        })
    }

    fn layer_full(&self, l: &Layer) -> bool {
        l.count >= l.capacity
            || (self.config.full_at_half_fill && 2 * l.ones >= l.bits())
    }

    fn grow(&mut self) -> Result<()> {
        let index = self.layers.len();
        let last = self
            .layers
            .last()
            .ok_or_else(|| Error::CannotGrow("no layer".into()))?;
        let spec =
            LayerSpec::grown(&self.config, last.capacity, last.error, index)?;
        let layer = Layer::new(spec.capacity, spec.error, spec.shape())
            .map_err(|e| Error::CannotGrow(e.to_string()))?;
        self.layers.push(layer);
        Ok(())
    }

    /// Adds an item, as RedisBloom's `BF.ADD`: `Ok(true)` if it was newly
    /// inserted (reply 1), `Ok(false)` if some layer already reports it
    /// present (reply 0: nothing is inserted, [`Self::skipped`] counts
    /// it), [`Error::Full`] if the filter is non-scaling and full, and
    /// [`Error::CannotGrow`] if the next layer cannot be built. Keys are
    /// [`Funnel`]s, as [`contains`](Self::contains) takes them.
    pub fn add<T: Funnel + ?Sized>(&mut self, key: &T) -> Result<bool> {
        key.with_bytes(|key| self.add_bytes(key))
    }

    fn add_bytes(&mut self, key: &[u8]) -> Result<bool> {
        let ab = probe::pair(&self.config, &self.hasher, key);
        let lp = Loop::of(&self.config);
        if self.layers.len() > 1 {
            probe::prefetch_blocks(&self.layers, lp, ab);
        }
        self.add_pair(lp, ab)
    }

    /// Adds many keys, in order, as [`add`](Self::add) one at a time
    /// would; returns how many were newly inserted. Keys are hashed a
    /// batch at a time, and on a filter of blocked layers taking
    /// [`bloomlab_core::PREFETCH_MIN_BYTES`] or more each key's line in
    /// every layer is asked for before any is read, so a batch's cache
    /// misses overlap.
    ///
    /// At the first key refused ([`Error::Full`], [`Error::CannotGrow`])
    /// it stops with that error; the keys before it stay added, as `add`
    /// would have left them ([`len`](Self::len) counts them).
    ///
    /// ```
    /// use bloomlab_scalable::{Error, ScalableBloomFilter};
    ///
    /// let mut f = ScalableBloomFilter::new(1000, 0.01)?;
    /// assert_eq!(f.add_many(&["a", "b", "a"])?, 2);
    /// let keys: Vec<u64> = (0..10_000).collect();
    /// f.add_many(&keys)?; // grows past its first layer
    /// assert!(f.layers().len() > 1);
    ///
    /// let mut full = ScalableBloomFilter::with_config(
    ///     bloomlab_scalable::Config::new(10, 0.01).non_scaling(),
    /// )?;
    /// assert!(matches!(full.add_many(&keys), Err(Error::Full)));
    /// assert_eq!(full.len(), 10);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn add_many<T: Funnel>(&mut self, keys: &[T]) -> Result<usize> {
        let lp = Loop::of(&self.config);
        let mut added = 0;
        let mut pairs = [(0, 0); BATCH];
        for chunk in keys.chunks(BATCH) {
            self.pairs_of(chunk, &mut pairs);
            let pairs = &pairs[..chunk.len()];
            if self.worth_prefetching(lp) {
                for &ab in pairs {
                    probe::prefetch_blocks_l2(&self.layers, lp, ab);
                }
            }
            for &ab in pairs {
                added += usize::from(self.add_pair(lp, ab)?);
            }
        }
        Ok(added)
    }

    /// Answers [`contains`](Self::contains) for many keys into `out` (as
    /// many as the shorter of the two), hashing and prefetching a batch
    /// at a time as [`add_many`](Self::add_many) does.
    ///
    /// ```
    /// use bloomlab_scalable::ScalableBloomFilter;
    ///
    /// let mut f = ScalableBloomFilter::new(1000, 0.01)?;
    /// f.add_many(&["a", "b"])?;
    /// let mut out = [false; 3];
    /// f.contains_many(&["a", "b", "c"], &mut out);
    /// // "c" was never added: a yes for it would be a false positive
    /// // (at most 1% of such keys), so only the members are asserted.
    /// assert_eq!(&out[..2], [true, true]);
    /// # Ok::<(), bloomlab_scalable::Error>(())
    /// ```
    pub fn contains_many<T: Funnel>(&self, keys: &[T], out: &mut [bool]) {
        let lp = Loop::of(&self.config);
        let prefetch = self.worth_prefetching(lp);
        let mut pairs = [(0, 0); BATCH];
        for (chunk, outs) in keys.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            let chunk = &chunk[..chunk.len().min(outs.len())];
            self.pairs_of(chunk, &mut pairs);
            let pairs = &pairs[..chunk.len()];
            if prefetch {
                for &ab in pairs {
                    probe::prefetch_blocks_l2(&self.layers, lp, ab);
                }
            }
            for (&ab, o) in pairs.iter().zip(outs) {
                *o = probe::any_hit(&self.layers, lp, ab);
            }
        }
    }

    /// Each key's hash pair into `pairs` (`keys` at most [`BATCH`]).
    fn pairs_of<T: Funnel>(&self, keys: &[T], pairs: &mut [(u64, u64)]) {
        for (p, key) in pairs.iter_mut().zip(keys) {
            *p =
                key.with_bytes(|b| probe::pair(&self.config, &self.hasher, b));
        }
    }

    /// Whether batches prefetch: blocked layers (one line a key a layer,
    /// known from the hash alone) of [`bloomlab_core::PREFETCH_MIN_BYTES`]
    /// or more, past the L2 cache, where the lines' misses are worth
    /// overlapping.
    fn worth_prefetching(&self, lp: Loop) -> bool {
        matches!(lp, Loop::Blocked { .. })
            && self.bytes_of_memory() >= bloomlab_core::PREFETCH_MIN_BYTES
    }

    /// [`add`](Self::add) of a key's hash pair.
    #[inline]
    fn add_pair(&mut self, lp: Loop, ab: (u64, u64)) -> Result<bool> {
        if probe::any_hit(&self.layers, lp, ab) {
            // Saturating: the counts may come from a file, at any value.
            self.skipped = self.skipped.saturating_add(1);
            return Ok(false);
        }
        let full = self.layers.last().is_none_or(|l| self.layer_full(l));
        if full {
            if !self.config.scaling {
                return Err(Error::Full);
            }
            self.grow()?;
        }
        let Some(layer) = self.layers.last_mut() else {
            return Err(Error::CannotGrow("no layer".into()));
        };
        layer.ones += probe::set(layer, lp, ab);
        layer.count = layer.count.saturating_add(1);
        self.items = self.items.saturating_add(1);
        Ok(true)
    }

    /// Estimated number of distinct items, summed over the layers from
    /// their fills, each layer inverting its layout's expected fill
    /// (Swamidass & Baldi 2007 for standard and partitioned layers; for
    /// blocked ones the same inversion with each block word's own probe
    /// count, `theory::estimate_count_word_blocks`).
    ///
    /// ```
    /// use bloomlab_scalable::ScalableBloomFilter;
    ///
    /// let mut f = ScalableBloomFilter::new(1000, 0.01)?; // blocked layers
    /// for i in 0..100_000u64 {
    ///     f.add(&i.to_le_bytes())?;
    /// }
    /// assert!((f.estimated_count() / f.len() as f64 - 1.0).abs() < 0.01);
    /// # Ok::<(), bloomlab_scalable::Error>(())
    /// ```
    pub fn estimated_count(&self) -> f64 {
        self.layers.iter().map(|l| l.estimated_count(self.config.layout)).sum()
    }

    /// A summary: totals and each layer's capacity, error, bits, `k` and
    /// count.
    pub fn info(&self) -> Info {
        Info {
            capacity: self.capacity(),
            redis_size: self.redis_size(),
            bytes_of_memory: self.bytes_of_memory() as u64,
            filters: self.layers.len(),
            items: self.items,
            skipped: self.skipped,
            expansion: self.config.scaling.then_some(self.config.growth),
            error: self.config.error,
            error_bound: self.error_bound(),
            compounded_error: self.compounded_error(),
            layers: self
                .layers
                .iter()
                .map(|l| LayerInfo {
                    capacity: l.capacity,
                    error: l.error,
                    bits: l.bits(),
                    k: l.k,
                    count: l.count,
                    bits_set: l.ones,
                })
                .collect(),
        }
    }

    /// RedisBloom's `BF.INFO Size`: `32 + 64·layers + Σ array bytes`
    /// (its struct sizes on 64-bit platforms).
    pub fn redis_size(&self) -> u64 {
        32 + 64 * self.layers.len() as u64
            + self.layers.iter().map(Layer::bytes).sum::<u64>()
    }

    /// The family of the hasher.
    pub fn family(&self) -> Family {
        self.config.family
    }

    /// The reduction.
    pub fn reduction(&self) -> Reduction {
        self.config.reduction
    }
}

/// The pair `(a, b)` a key's probes derive from (shared with
/// [`crate::Prober`], so a chain stored elsewhere probes the same bits).
#[inline]
pub(crate) fn pair_of(
    config: &Config,
    hasher: &Hasher,
    key: &[u8],
) -> (u64, u64) {
    match config.pairing {
        Pairing::Chained => {
            let a =
                hasher.hash_with_seed(key, REDISBLOOM_SEED ^ hasher.seed()).lo;
            (a, hasher.hash_with_seed(key, a).lo)
        }
        Pairing::Single => {
            let d = hasher.hash(key);
            match config.family.output_bits() {
                128 => (d.lo, d.hi),
                // Multiply-shift reads the high bits of `a` (and a blocked
                // layer picks its block from them): a 32-bit hash left in
                // the low bits would send every key's first probe, or
                // every key, to position or block 0. As
                // `bloomlab_hash::Indexer` does for the standard filter.
                32 if config.reduction == Reduction::MultiplyShift => {
                    (d.lo << 32, mix64(d.lo))
                }
                // Not `Family::step`: blocked layers take in-block bits
                // from every byte of `b`, which must not repeat `a`'s.
                _ => (d.lo, mix64(d.lo)),
            }
        }
    }
}

/// Calls `f` with each of a layer's positions (modulus `m`, `k` probes)
/// until it returns false; returns whether it never did.
#[inline(always)]
pub(crate) fn walk_of(
    config: &Config,
    (m, k): (u64, u32),
    (a, b): (u64, u64),
    mut f: impl FnMut(u64) -> bool,
) -> bool {
    if config.layout == Layout::Blocked {
        return probe::blocked_walk(config.reduction, (m, k), (a, b), f);
    }
    let red = config.reduction;
    let part = config.layout == Layout::Partitioned;
    let (mut x, mut y) = (a, b);
    let mix = config.probe == Probe::MixedDouble;
    for i in 0..k {
        let mut pos = red.reduce64(if mix { mix64(x) } else { x }, m);
        if part {
            pos += u64::from(i) * m;
        }
        if !f(pos) {
            return false;
        }
        x = x.wrapping_add(y);
        if config.probe == Probe::EnhancedDouble {
            y = y.wrapping_add(u64::from(i) + 1);
        }
    }
    true
}

/// A summary of a scalable filter; its `Display` prints one line of
/// totals and one line per layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Info {
    /// Sum of the layers' capacities (`BF.INFO Capacity`).
    pub capacity: u64,
    /// RedisBloom's `BF.INFO Size` (`32 + 64·layers + Σ bytes`).
    pub redis_size: u64,
    /// Heap bytes ([`ScalableBloomFilter::bytes_of_memory`]).
    pub bytes_of_memory: u64,
    /// Number of layers (`BF.INFO Number of filters`).
    pub filters: usize,
    /// Items newly inserted (`BF.INFO Number of items inserted`).
    pub items: u64,
    /// Adds skipped because the item was (apparently) present.
    pub skipped: u64,
    /// Growth factor; `None` for a non-scaling filter (`BF.INFO
    /// Expansion rate`).
    pub expansion: Option<u64>,
    /// Target error `P`.
    pub error: f64,
    /// Bound on the compounded error.
    pub error_bound: f64,
    /// Compounded error at the current fill.
    pub compounded_error: f64,
    /// Per layer, oldest first.
    pub layers: Vec<LayerInfo>,
}

/// One layer in [`Info`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerInfo {
    /// Items it holds before the chain grows.
    pub capacity: u64,
    /// Its target error.
    pub error: f64,
    /// Its bits.
    pub bits: u64,
    /// Probes per key.
    pub k: u32,
    /// Items inserted into it.
    pub count: u64,
    /// Bits set.
    pub bits_set: u64,
}

impl std::fmt::Display for Info {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let expansion = match self.expansion {
            Some(s) => s.to_string(),
            None => "none (non-scaling)".to_string(),
        };
        writeln!(
            f,
            "capacity {} items {} skipped {} layers {} expansion {} \
             error {} bound {} compounded {:.6e} size {} bytes {}",
            self.capacity,
            self.items,
            self.skipped,
            self.filters,
            expansion,
            self.error,
            self.error_bound,
            self.compounded_error,
            self.redis_size,
            self.bytes_of_memory,
        )?;
        for (i, l) in self.layers.iter().enumerate() {
            writeln!(
                f,
                "layer {i}: capacity {} error {} bits {} k {} count {} \
                 bits_set {}",
                l.capacity, l.error, l.bits, l.k, l.count, l.bits_set
            )?;
        }
        Ok(())
    }
}

impl Filter for ScalableBloomFilter {
    fn variant(&self) -> &'static str {
        "scalable"
    }

    /// Adds the key; returns whether it was newly inserted (`BF.ADD`'s
    /// 1). A full non-scaling filter, or one that cannot grow, refuses
    /// the key and returns false.
    fn insert_bytes(&mut self, key: &[u8]) -> bool {
        self.add(key).unwrap_or(false)
    }

    fn contains_bytes(&self, key: &[u8]) -> bool {
        self.contains(key)
    }

    fn bits(&self) -> u64 {
        self.total_bits()
    }

    fn hash_count(&self) -> u32 {
        self.layers.last().map_or(0, |l| l.k)
    }

    fn bits_set(&self) -> u64 {
        self.layers.iter().map(|l| l.ones).sum()
    }

    fn estimated_count(&self) -> f64 {
        ScalableBloomFilter::estimated_count(self)
    }

    fn expected_fpp(&self) -> f64 {
        self.compounded_error()
    }

    fn bytes_of_memory(&self) -> usize {
        ScalableBloomFilter::bytes_of_memory(self)
    }

    fn contains_u64_batch(&self, keys: &[u64], out: &mut [bool]) {
        self.contains_many(keys, out);
    }

    fn contains_batch(&self, keys: &[&[u8]], out: &mut [bool]) {
        self.contains_many(keys, out);
    }
}

/// Almeida et al.'s settings: partitioned layers, tightening `r`,
/// growth `s`.
fn almeida(initial_capacity: u64, error: f64, r: f64, s: u64) -> Config {
    Config::new(initial_capacity, error)
        .layout(Layout::Partitioned)
        .tightening(r)
        .growth(s)
}

/// pybloom-live's settings (see [`ScalableBloomFilter::pybloom_live`]).
fn pybloom_live(initial_capacity: u64, error: f64, growth: u64) -> Config {
    let mut c = Config::new(initial_capacity, error)
        .layout(Layout::Partitioned)
        .sizing(Sizing::Pybloom)
        .growth(growth);
    c.tightening = 0.9;
    c.first_error = error * 0.9;
    c
}
