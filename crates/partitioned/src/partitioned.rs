//! The partitioned (sliced) Bloom filter: `k` slices, one probe per slice.

use bloomlab_core::{
    BitArray, Filter, prefetch_l2, theory, worth_prefetching,
};
use bloomlab_hash::hutool::{HutoolHash, filter_index};
use bloomlab_hash::{
    Digest, Family, Funnel, Hasher, Indexer, Reduction, Strategy,
};

use crate::walk::MsWalk;
use crate::{Error, Result};

/// Keys hashed ahead of probing in the batch methods: enough independent
/// memory accesses in flight to hide DRAM latency, few enough to stay on
/// the stack.
const BATCH: usize = 16;

/// The most slices a filter may have (a sizing for `p` down to 2^-255
/// needs 255; the file reader refuses more).
pub const MAX_SLICES: u32 = 4096;

/// How one slice maps its hash value into its `s` bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SliceReduction {
    /// `x % s` on the unsigned value (a 32-bit family's 32 bits, the low
    /// 64 bits otherwise).
    Modulo,
    /// Lemire's `(x · s) >> w` on the unsigned `w`-bit value.
    #[default]
    MultiplyShift,
    /// hutool's `Math.abs(F(s) % size)`: the value as a signed Java
    /// `int` (32-bit families) or `long`, Java's truncated remainder, then
    /// the absolute value, so -1 in 100 bits is bit 1, not 99
    /// ([`bloomlab_hash::hutool::filter_index`]).
    JavaAbsRemainder,
}

impl SliceReduction {
    /// Every slice reduction.
    pub const ALL: [SliceReduction; 3] = [
        SliceReduction::Modulo,
        SliceReduction::MultiplyShift,
        SliceReduction::JavaAbsRemainder,
    ];

    /// The registry name: `modulo`, `multiply-shift` or
    /// `java-abs-remainder`.
    pub const fn name(self) -> &'static str {
        match self {
            SliceReduction::Modulo => "modulo",
            SliceReduction::MultiplyShift => "multiply-shift",
            SliceReduction::JavaAbsRemainder => "java-abs-remainder",
        }
    }

    /// Looks a reduction up by name (case-insensitive).
    pub fn from_name(name: &str) -> Result<SliceReduction> {
        let wanted = name.trim().to_ascii_lowercase();
        SliceReduction::ALL
            .into_iter()
            .find(|r| r.name() == wanted)
            .ok_or_else(|| {
                Error::invalid(
                    "reduction",
                    name,
                    "modulo, multiply-shift or java-abs-remainder",
                )
            })
    }

    /// Maps a digest of a `bits`-wide family (32, 64 or 128) into
    /// `[0, size)`. `size` must be in `1..=i64::MAX`.
    #[inline(always)]
    pub fn reduce(self, d: Digest, bits: u32, size: u64) -> u64 {
        match self {
            SliceReduction::Modulo if bits == 32 => {
                Reduction::Modulo.reduce32(d.lo as u32, size)
            }
            SliceReduction::Modulo => Reduction::Modulo.reduce64(d.lo, size),
            SliceReduction::MultiplyShift if bits == 32 => {
                Reduction::MultiplyShift.reduce32(d.lo as u32, size)
            }
            SliceReduction::MultiplyShift => {
                Reduction::MultiplyShift.reduce64(d.lo, size)
            }
            SliceReduction::JavaAbsRemainder => {
                let v = if bits == 32 {
                    i64::from(d.lo as u32 as i32)
                } else {
                    d.lo as i64
                };
                // |v rem size| < size, and size >= 1 is checked when the
                // filter is built, so the fallback is never taken.
                filter_index(v, size as i64).map_or(0, |i| i as u64)
            }
        }
    }
}

impl std::fmt::Display for SliceReduction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One slice of a filter built from explicit slices: its hash family,
/// seed and reduction, and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct SliceSpec {
    /// The slice's hash family.
    pub family: Family,
    /// The seed, as [`Family::check_seed`] normalises it (0 for seedless
    /// families).
    #[cfg_attr(feature = "serde", serde(default))]
    pub seed: u64,
    /// How the hash value becomes a bit of the slice.
    #[cfg_attr(feature = "serde", serde(default))]
    pub reduction: SliceReduction,
    /// The slice's size in bits (at least 1).
    pub bits: u64,
}

impl SliceSpec {
    /// A slice of `bits` bits hashed by `family` with seed 0 and the
    /// multiply-shift reduction.
    pub fn new(family: Family, bits: u64) -> SliceSpec {
        SliceSpec {
            family,
            seed: 0,
            reduction: SliceReduction::MultiplyShift,
            bits,
        }
    }

    /// The same slice with another seed.
    pub fn seed(self, seed: u64) -> SliceSpec {
        SliceSpec { seed, ..self }
    }

    /// The same slice with another reduction.
    pub fn reduction(self, reduction: SliceReduction) -> SliceSpec {
        SliceSpec { reduction, ..self }
    }
}

/// Hashing of a filter whose slices share one family and an index
/// strategy: probe `i` of the strategy, reduced into `[0, s)`, is the bit
/// of slice `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct Config {
    /// Hash family (default `xxh3-64`).
    pub family: Family,
    /// Seed, normalised by [`Family::check_seed`] (default 0).
    pub seed: u64,
    /// Index strategy (default `enhanced-double`).
    pub strategy: Strategy,
    /// Range reduction into a slice (default multiply-shift).
    pub reduction: Reduction,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            family: Family::Xxh3_64,
            seed: 0,
            strategy: Strategy::EnhancedDouble,
            reduction: Reduction::MultiplyShift,
        }
    }
}

/// How a filter's slices are addressed, as [`PartitionedBloomFilter::layout`]
/// reports it (and the file format stores it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Layout {
    /// `k` slices of `slice_bits` bits, addressed by one family and an
    /// index strategy.
    Strategy {
        /// Family, seed, strategy and reduction.
        config: Config,
        /// Number of slices.
        k: u32,
        /// Bits per slice.
        slice_bits: u64,
    },
    /// One hash function (and size) per slice.
    Slices(Vec<SliceSpec>),
}

/// The `(k, s)` a rate-based constructor chose; see
/// [`PartitionedBloomFilter::sizing`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizing {
    /// Number of slices (and probes): `⌈log2(1/p)⌉`.
    pub k: u32,
    /// Bits per slice.
    pub slice_bits: u64,
}

impl Sizing {
    /// Total bits, `k · s`.
    pub fn bits(&self) -> u64 {
        u64::from(self.k) * self.slice_bits
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Hashing {
    Indexed(Indexer),
    Slices {
        specs: Vec<SliceSpec>,
        hashers: Vec<Hasher>,
        /// The hutool hash of every slice when all are Java-string
        /// families (`java-hashcode`, `hutool-*`): the key's UTF-16 view
        /// is then decoded once per key, not once per slice.
        java: Option<Vec<HutoolHash>>,
    },
}

/// A partitioned Bloom filter: `k` slices of bits, each key sets (and each
/// query tests) exactly one bit per slice.
///
/// Slices are independent, so the false-positive rate after `n` distinct
/// keys is exactly `(1 − (1 − 1/s)^n)^k` for slices of `s` bits with ideal
/// hashing ([`theory::fpr_partitioned`]), slightly above a classic
/// filter's at the same size (the gap is `O(1/m)`). Slices are addressed
/// either by one family and an index strategy ([`Config`]; probe `i`
/// lands in slice `i`) or by one hash function per slice ([`SliceSpec`]),
/// which is how hutool's `BitMapBloomFilter` works
/// ([`crate::HutoolBitMap`]).
///
/// The slices live end to end in one [`BitArray`] (Guava's layout):
/// slice `i` is bits `[o_i, o_i + s_i)`, `o_i` the sum of the sizes
/// before it.
///
/// ```
/// use bloomlab_partitioned::PartitionedBloomFilter;
///
/// let mut f = PartitionedBloomFilter::new(1000, 0.01)?;
/// assert_eq!(f.hash_count(), 7); // ⌈log2(100)⌉
/// assert!(f.insert("apple"));
/// assert!(!f.insert("apple"));
/// assert!(f.contains("apple"));
/// assert!(f.theoretical_fpp(1000)? <= 0.01);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The example below measures it: for 10^5 keys at p = 1% the filter
/// takes k = 7 slices and 9.59 bits a key, and the partitioned formula
/// lies in the 99.9% Clopper–Pearson interval of the rate measured on
/// 10^5 keys never inserted (about ±10% of it here; one filter's bits
/// move its rate by about 0.4%, well inside).
///
/// ```
/// use bloomlab_core::{stats, theory};
/// use bloomlab_partitioned::PartitionedBloomFilter;
///
/// let n = 100_000u64;
/// let mut f = PartitionedBloomFilter::new(n, 0.01)?;
/// assert_eq!((f.bits(), f.hash_count()), (959_301, 7)); // 9.59 bits a key
/// for key in 0..n {
///     f.add(&key);
/// }
/// let queries = 100_000u64;
/// let hits = (n..n + queries).filter(|key| f.contains(key)).count();
/// let formula = theory::fpr_partitioned(f.bits(), n, f.hash_count())?;
/// assert!(formula <= 0.01);
/// let ci = stats::clopper_pearson(hits as u64, queries, 0.999)?;
/// assert!(ci.contains(formula), "{hits} hits, {ci:?} against {formula}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionedBloomFilter {
    bits: BitArray,
    /// Start of each slice, plus the total at the end (`k + 1` entries).
    offsets: Vec<u64>,
    hashing: Hashing,
    /// The indexer's probes with the hash inlined, where it has them.
    walk: Option<MsWalk>,
}

impl PartitionedBloomFilter {
    /// A filter for `n` keys at false-positive rate `p` with the default
    /// [`Config`] (`xxh3-64`, enhanced double hashing, multiply-shift);
    /// sized by [`PartitionedBloomFilter::sizing`].
    pub fn new(n: u64, p: f64) -> Result<PartitionedBloomFilter> {
        PartitionedBloomFilter::with_rate(n, p, Config::default())
    }

    /// A filter for `n` keys at rate `p` with the given hashing.
    pub fn with_rate(
        n: u64,
        p: f64,
        config: Config,
    ) -> Result<PartitionedBloomFilter> {
        let s = PartitionedBloomFilter::sizing(n, p)?;
        PartitionedBloomFilter::with_config(config, s.k, s.slice_bits)
    }

    /// The slice count and size for `n` keys at rate `p`:
    ///
    /// * `k = ⌈log2(1/p)⌉` (at least 1; an error above 255): slices
    ///   about half full at `n` keys, Almeida et al.'s choice. It is not
    ///   always the `k` of the smallest filter: one slice fewer can be a
    ///   little smaller (at `n = 10⁶`, `p = 0.1`, `k = 3` takes 0.67%
    ///   fewer bits than this `k = 4`);
    /// * `s`, the smallest slice for which the partitioned formula
    ///   `(1 − (1 − 1/s)^n)^k` is at most `p`: from the real solution
    ///   `s* = 1 / (1 − (1 − p^{1/k})^{1/n})`, rounded **up** to an
    ///   integer, then raised by one while the formula, evaluated by
    ///   [`theory::fpr_partitioned`], still exceeds `p` (floating-point
    ///   guard), and lowered while `s − 1` would do. No rounding to
    ///   words: `m = k·s` exactly, so `k | m` and the formula is exact.
    ///
    /// Errors: `n = 0`, `p ∉ (0, 1)`, `k > 255`.
    pub fn sizing(n: u64, p: f64) -> Result<Sizing> {
        if n == 0 {
            return Err(Error::invalid("n", n, "must be at least 1"));
        }
        if !(p > 0.0 && p < 1.0) {
            return Err(Error::invalid("p", p, "must be in (0, 1)"));
        }
        let k = (-p.log2()).ceil().max(1.0);
        if k > 255.0 {
            return Err(Error::invalid(
                "p",
                p,
                "needs more than 255 slices; raise p to at least 2^-255",
            ));
        }
        let k = k as u32;
        let fill = p.powf(1.0 / f64::from(k));
        // 1 − (1 − fill)^{1/n}, without cancellation.
        let per_key = -((-fill).ln_1p() / n as f64).exp_m1();
        let real = 1.0 / per_key;
        if !real.is_finite() || real >= (1u64 << 62) as f64 {
            return Err(Error::invalid(
                "n",
                n,
                "the filter would be too large",
            ));
        }
        let mut s = (real.ceil() as u64).max(1);
        let fpr = |s: u64| theory::fpr_partitioned(s * u64::from(k), n, k);
        while fpr(s)? > p {
            s += 1;
        }
        while s > 1 && fpr(s - 1)? <= p {
            s -= 1;
        }
        Ok(Sizing { k, slice_bits: s })
    }

    /// `k` slices of `slice_bits` bits addressed by `config`'s family and
    /// strategy. Errors as [`Indexer::new`] does, and for a zero or
    /// too-large size.
    ///
    /// Mind the order: the slice count comes first and the second number
    /// is a slice's size, not `m`, unlike the standard crate's
    /// `BloomFilter::with_config(config, m, k)`. A filter of `m` bits
    /// has `m / k` bits a slice:
    ///
    /// ```
    /// use bloomlab_partitioned::{Config, PartitionedBloomFilter};
    ///
    /// let (m, k) = (700, 7);
    /// let f = PartitionedBloomFilter::with_config(Config::default(), k, m / 7)?;
    /// assert_eq!((f.bits(), f.hash_count()), (700, 7));
    /// # Ok::<(), bloomlab_partitioned::Error>(())
    /// ```
    pub fn with_config(
        config: Config,
        k: u32,
        slice_bits: u64,
    ) -> Result<PartitionedBloomFilter> {
        let ix = Indexer::new(
            config.family,
            i128::from(config.seed),
            config.strategy,
            config.reduction,
            k,
            slice_bits,
        )?;
        PartitionedBloomFilter::from_indexer(ix)
    }

    /// `ix.k()` slices of `ix.m()` bits each: probe `i` of the indexer is
    /// the bit of slice `i`.
    pub fn from_indexer(ix: Indexer) -> Result<PartitionedBloomFilter> {
        let sizes = vec![ix.m(); ix.k() as usize];
        let offsets = offsets(&sizes)?;
        let bits = zeroed_bits(offsets[sizes.len()])?;
        Ok(PartitionedBloomFilter {
            bits,
            offsets,
            walk: MsWalk::of(&ix),
            hashing: Hashing::Indexed(ix),
        })
    }

    /// One slice per spec, in order (each with its own family, seed,
    /// reduction and size). Errors: no slices, more than
    /// [`MAX_SLICES`], a zero size or one above `i64::MAX`, a bad seed.
    pub fn with_slices(
        specs: Vec<SliceSpec>,
    ) -> Result<PartitionedBloomFilter> {
        let sizes: Vec<u64> = specs.iter().map(|s| s.bits).collect();
        let offsets = offsets(&sizes)?;
        let hashing = slices_hashing(specs)?;
        let bits = zeroed_bits(offsets[sizes.len()])?;
        Ok(PartitionedBloomFilter { bits, offsets, hashing, walk: None })
    }

    /// A filter from a layout and its bits (what a reader decoded).
    pub(crate) fn from_parts(
        layout: Layout,
        bits: BitArray,
    ) -> Result<PartitionedBloomFilter> {
        let (sizes, hashing) = match layout {
            Layout::Strategy { config, k, slice_bits } => {
                let ix = Indexer::new(
                    config.family,
                    i128::from(config.seed),
                    config.strategy,
                    config.reduction,
                    k,
                    slice_bits,
                )?;
                (vec![slice_bits; k as usize], Hashing::Indexed(ix))
            }
            Layout::Slices(specs) => {
                let sizes = specs.iter().map(|s| s.bits).collect();
                (sizes, slices_hashing(specs)?)
            }
        };
        let offsets = offsets(&sizes)?;
        let total = offsets[sizes.len()];
        if bits.bit_len() != total {
            return Err(Error::Core(bloomlab_core::Error::SizeMismatch {
                left: total,
                right: bits.bit_len(),
            }));
        }
        let walk = match &hashing {
            Hashing::Indexed(ix) => MsWalk::of(ix),
            Hashing::Slices { .. } => None,
        };
        Ok(PartitionedBloomFilter { bits, offsets, hashing, walk })
    }

    /// How the slices are addressed.
    pub fn layout(&self) -> Layout {
        match &self.hashing {
            Hashing::Indexed(ix) => {
                let h = ix.hasher();
                Layout::Strategy {
                    config: Config {
                        family: h.family(),
                        seed: h.seed(),
                        strategy: ix.strategy(),
                        reduction: ix.reduction(),
                    },
                    k: ix.k(),
                    slice_bits: ix.m(),
                }
            }
            Hashing::Slices { specs, .. } => Layout::Slices(specs.clone()),
        }
    }

    /// The bit array (all slices, end to end).
    pub fn bit_array(&self) -> &BitArray {
        &self.bits
    }

    /// Total bits, `m`.
    #[inline]
    pub fn bits(&self) -> u64 {
        self.bits.bit_len()
    }

    /// Number of slices (= probes per key), `k`.
    #[inline]
    pub fn hash_count(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    /// Bits of slice `i` (0 when there is no such slice).
    pub fn slice_bits(&self, i: usize) -> u64 {
        // `i + 1` would overflow at usize::MAX, which is no slice either.
        match (
            self.offsets.get(i),
            i.checked_add(1).and_then(|j| self.offsets.get(j)),
        ) {
            (Some(a), Some(b)) => b - a,
            _ => 0,
        }
    }

    /// First bit of slice `i` in [`PartitionedBloomFilter::bit_array`]
    /// (`m` when there is no such slice).
    pub fn slice_offset(&self, i: usize) -> u64 {
        self.offsets.get(i).copied().unwrap_or(self.bits())
    }

    /// Inserts a typed key (funnelled as Guava would); returns whether any
    /// bit changed.
    #[inline]
    pub fn insert<T: Funnel + ?Sized>(&mut self, key: &T) -> bool {
        if let (Some(w), Some(word)) = (&self.walk, key.as_le_word()) {
            return w.insert_word(&mut self.bits, word);
        }
        key.with_bytes(|b| self.insert_bytes(b))
    }

    /// Inserts a typed key, as [`PartitionedBloomFilter::insert`] does,
    /// without telling whether any bit changed: the answer costs time
    /// (each slice's word must be read and kept before its bit is set).
    /// Use `add` to fill a filter, `insert` when the answer matters.
    ///
    /// ```
    /// use bloomlab_partitioned::PartitionedBloomFilter;
    ///
    /// let mut a = PartitionedBloomFilter::new(1000, 0.01)?;
    /// let mut b = a.clone();
    /// for k in 0..100u64 {
    ///     a.add(&k);
    ///     b.insert(&k);
    /// }
    /// assert_eq!(a, b);
    /// assert!(a.contains(&7u64));
    /// # Ok::<(), bloomlab_partitioned::Error>(())
    /// ```
    #[inline]
    pub fn add<T: Funnel + ?Sized>(&mut self, key: &T) {
        if let (Some(w), Some(word)) = (&self.walk, key.as_le_word()) {
            return w.add_word(&mut self.bits, word);
        }
        key.with_bytes(|b| self.add_bytes(b));
    }

    /// [`PartitionedBloomFilter::add`] of a key given as bytes.
    #[inline]
    pub fn add_bytes(&mut self, key: &[u8]) {
        match &self.walk {
            Some(w) => w.add(&mut self.bits, key),
            None => {
                self.insert_bytes_probed(key);
            }
        }
    }

    /// Whether a typed key may have been inserted.
    #[inline]
    pub fn contains<T: Funnel + ?Sized>(&self, key: &T) -> bool {
        if let (Some(w), Some(word)) = (&self.walk, key.as_le_word()) {
            return w.contains_word(self.bits.words(), word);
        }
        key.with_bytes(|b| self.contains_bytes(b))
    }

    /// Inserts a key given as bytes; returns whether any bit changed.
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        match &self.walk {
            Some(w) => w.insert(&mut self.bits, key),
            None => self.insert_bytes_probed(key),
        }
    }

    /// [`PartitionedBloomFilter::insert_bytes`] through [`probe`], out of
    /// line so that the inlined methods stay small.
    #[inline(never)]
    fn insert_bytes_probed(&mut self, key: &[u8]) -> bool {
        let mut changed = false;
        let (bits, offsets, hashing) =
            (&mut self.bits, &self.offsets, &self.hashing);
        probe(hashing, offsets, key, |i| {
            changed |= bits.set(i);
            true
        });
        changed
    }

    /// Whether a key given as bytes may have been inserted. With one
    /// family and a strategy, every slice is probed without an early
    /// exit: the `k` loads are independent, so their cache misses overlap
    /// and no branch depends on them (about 2× faster on non-members of a
    /// filter larger than the cache than stopping at the first clear
    /// bit). With one hash per slice (hutool), slices are checked in order
    /// and the first clear bit stops the query, as hutool does.
    #[inline]
    pub fn contains_bytes(&self, key: &[u8]) -> bool {
        match &self.walk {
            Some(w) => w.contains(self.bits.words(), key),
            None => self.contains_bytes_probed(key),
        }
    }

    /// [`PartitionedBloomFilter::contains_bytes`] through the indexer or
    /// [`probe`], out of line so that the inlined methods stay small.
    #[inline(never)]
    fn contains_bytes_probed(&self, key: &[u8]) -> bool {
        if let Hashing::Indexed(ix) = &self.hashing {
            let s = ix.m();
            let mut base = 0;
            let mut all = true;
            ix.all_indices(key, |p| {
                all &= self.bits.get(base + p);
                base += s;
                true
            });
            return all;
        }
        probe(&self.hashing, &self.offsets, key, |i| self.bits.get(i))
    }

    /// The key's bit in each slice, as an index into the whole bit array
    /// (slice `i`'s bit minus [`PartitionedBloomFilter::slice_offset`] is
    /// the index inside the slice).
    pub fn positions<T: Funnel + ?Sized>(&self, key: &T) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.hash_count() as usize);
        key.with_bytes(|b| {
            probe(&self.hashing, &self.offsets, b, |i| {
                out.push(i);
                true
            })
        });
        out
    }

    /// Inserts many keys; returns how many inserts changed a bit. With a
    /// strategy that needs one digest per key, keys are hashed a batch at
    /// a time before their bits are set, so the memory accesses of a batch
    /// overlap; on a filter of [`bloomlab_core::PREFETCH_MIN_BYTES`] or
    /// more every word the batch will set is prefetched first (into the
    /// L2 cache, [`bloomlab_core::prefetch_l2`]): at n = 1e7 (12 MB),
    /// 37.7 ns a key against 105-126 without (a one-off loop alternating
    /// builds without and with it, 2026-11-27: a design measurement, not
    /// a bench; the partitioned bench's targets are at n = 1e6, below
    /// this size).
    pub fn insert_many<T: Funnel>(&mut self, keys: &[T]) -> usize {
        if let Some(w) = self.walk {
            return self.insert_many_walked(&w, keys);
        }
        let ix = match &self.hashing {
            Hashing::Indexed(ix) if ix.strategy().digest_only() => *ix,
            _ => return keys.iter().filter(|k| self.insert(*k)).count(),
        };
        let s = ix.m();
        let large = worth_prefetching(self.bits.words());
        let mut changed = 0;
        let mut ds = [Digest::default(); BATCH];
        for chunk in keys.chunks(BATCH) {
            for (d, key) in ds.iter_mut().zip(chunk) {
                *d = key.with_bytes(|b| ix.digest(b));
            }
            if large {
                self.prefetch_digests(&ix, &ds[..chunk.len()]);
            }
            for &d in &ds[..chunk.len()] {
                let mut any = false;
                let mut base = 0;
                ix.all_indices_of_digest(d, |p| {
                    any |= self.bits.set(base + p);
                    base += s;
                    true
                });
                changed += usize::from(any);
            }
        }
        changed
    }

    /// [`PartitionedBloomFilter::insert_many`] through the inlined walk.
    fn insert_many_walked<T: Funnel>(
        &mut self,
        w: &MsWalk,
        keys: &[T],
    ) -> usize {
        let large = worth_prefetching(self.bits.words());
        let mut changed = 0;
        let mut starts = [(0, 0); BATCH];
        for chunk in keys.chunks(BATCH) {
            for (st, key) in starts.iter_mut().zip(chunk) {
                *st = w.start_key(key);
            }
            let starts = &starts[..chunk.len()];
            if large {
                let words = self.bits.words();
                for &st in starts {
                    w.each_from(st, |p| prefetch_l2(words, (p >> 6) as usize));
                }
            }
            for &st in starts {
                let mut any = 0;
                w.each_from(st, |p| any |= self.bits.set_diff(p));
                changed += usize::from(any != 0);
            }
        }
        changed
    }

    /// [`PartitionedBloomFilter::contains_many`] through the inlined walk.
    fn contains_many_walked<T: Funnel>(
        &self,
        w: &MsWalk,
        keys: &[T],
        out: &mut [bool],
    ) {
        let words = self.bits.words();
        let large = worth_prefetching(words);
        let mut starts = [(0, 0); BATCH];
        for (chunk, outs) in keys.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            let n = chunk.len().min(outs.len());
            for (st, key) in starts.iter_mut().zip(&chunk[..n]) {
                *st = w.start_key(key);
            }
            let starts = &starts[..n];
            if large {
                for &st in starts {
                    w.each_from(st, |p| prefetch_l2(words, (p >> 6) as usize));
                }
            }
            for (&st, o) in starts.iter().zip(outs.iter_mut()) {
                let mut all = 1;
                w.each_from(st, |p| {
                    all &= words[(p >> 6) as usize] >> (p & 63);
                });
                *o = all & 1 == 1;
            }
        }
    }

    /// Prefetches (into the L2 cache) the word of every slice's bit of
    /// each digest, so that a batch's cache misses are in flight together.
    fn prefetch_digests(&self, ix: &Indexer, ds: &[Digest]) {
        let (s, words) = (ix.m(), self.bits.words());
        for &d in ds {
            let mut base = 0;
            ix.all_indices_of_digest(d, |p| {
                prefetch_l2(words, ((base + p) >> 6) as usize);
                base += s;
                true
            });
        }
    }

    /// Answers [`PartitionedBloomFilter::contains`] for many keys into
    /// `out` (as many as the shorter of the two). With a strategy that
    /// needs one digest per key, keys are hashed a batch at a time, then
    /// every slice of every key in the batch is probed without early exit
    /// (as [`PartitionedBloomFilter::contains_bytes`]), so the cache misses
    /// of a whole batch overlap, each word prefetched first on a filter of
    /// [`bloomlab_core::PREFETCH_MIN_BYTES`] or more (as in
    /// [`PartitionedBloomFilter::insert_many`]): at n = 1e7, 33 ns a key
    /// against 61-110 without.
    pub fn contains_many<T: Funnel>(&self, keys: &[T], out: &mut [bool]) {
        if let Some(w) = &self.walk {
            return self.contains_many_walked(w, keys, out);
        }
        let ix = match &self.hashing {
            Hashing::Indexed(ix) if ix.strategy().digest_only() => ix,
            _ => {
                for (k, o) in keys.iter().zip(out.iter_mut()) {
                    *o = self.contains(k);
                }
                return;
            }
        };
        let s = ix.m();
        let large = worth_prefetching(self.bits.words());
        let mut ds = [Digest::default(); BATCH];
        for (chunk, outs) in keys.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            let n = chunk.len().min(outs.len());
            for (d, key) in ds.iter_mut().zip(&chunk[..n]) {
                *d = key.with_bytes(|b| ix.digest(b));
            }
            if large {
                self.prefetch_digests(ix, &ds[..n]);
            }
            for (&d, o) in ds[..n].iter().zip(outs.iter_mut()) {
                let mut all = true;
                let mut base = 0;
                ix.all_indices_of_digest(d, |p| {
                    all &= self.bits.get(base + p);
                    base += s;
                    true
                });
                *o = all;
            }
        }
    }

    /// Inserts a Java string given as UTF-16 code units (it may hold lone
    /// surrogates, which a `&str` cannot). For slices of Java-string
    /// families (`java-hashcode`, `hutool-*`) the units are hashed as they
    /// are; other families hash the string's UTF-8 encoding (a lone
    /// surrogate becoming U+FFFD).
    pub fn insert_units(&mut self, units: &[u16]) -> bool {
        let mut changed = false;
        let (bits, offsets, hashing) =
            (&mut self.bits, &self.offsets, &self.hashing);
        probe_units(hashing, offsets, units, |i| {
            changed |= bits.set(i);
            true
        });
        changed
    }

    /// Whether a Java string given as UTF-16 code units may have been
    /// inserted (see [`PartitionedBloomFilter::insert_units`]).
    pub fn contains_units(&self, units: &[u16]) -> bool {
        probe_units(&self.hashing, &self.offsets, units, |i| self.bits.get(i))
    }

    /// The positions of a Java string given as UTF-16 code units (see
    /// [`PartitionedBloomFilter::positions`]).
    pub fn positions_of_units(&self, units: &[u16]) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.hash_count() as usize);
        probe_units(&self.hashing, &self.offsets, units, |i| {
            out.push(i);
            true
        });
        out
    }

    /// Number of bits set in the whole filter.
    pub fn bit_count(&self) -> u64 {
        self.bits.count_ones()
    }

    /// Number of bits set in slice `i` (0 when there is no such slice).
    pub fn slice_bit_count(&self, i: usize) -> u64 {
        let (start, len) = (self.slice_offset(i), self.slice_bits(i));
        count_range(self.bits.words(), start, len)
    }

    /// The set bits of slice `i`, as indices inside the slice, ascending.
    pub fn slice_ones(&self, i: usize) -> Vec<u64> {
        let (start, len) = (self.slice_offset(i), self.slice_bits(i));
        self.bits
            .ones()
            .skip_while(|&b| b < start)
            .take_while(|&b| b < start + len)
            .map(|b| b - start)
            .collect()
    }

    /// Distinct keys inserted, estimated from the fill (Swamidass & Baldi
    /// 2007): every key sets one bit per slice, so slice `i` with `X_i` of
    /// its `s_i` bits set gives `−s_i·ln(1 − X_i/s_i)`. With equal slices
    /// the pooled `−s·ln(1 − X/m)` is used (lower variance), otherwise the
    /// mean of the slices' estimates. `+∞` once a slice is full.
    pub fn estimated_count(&self) -> f64 {
        let k = self.hash_count();
        if let Hashing::Indexed(_) = &self.hashing {
            // −(m/k)·ln(1 − X/m) with m/k = s.
            return theory::estimate_count(self.bits(), k, self.bit_count());
        }
        let sum: f64 = (0..k as usize)
            .map(|i| {
                theory::estimate_count(
                    self.slice_bits(i),
                    1,
                    self.slice_bit_count(i),
                )
            })
            .sum();
        sum / f64::from(k)
    }

    /// The false-positive probability of this filter's bits for a random
    /// non-member: the product of the slices' fills `Π X_i/s_i` (one
    /// probe per slice, slices independent).
    pub fn expected_fpp(&self) -> f64 {
        (0..self.hash_count() as usize)
            .map(|i| {
                self.slice_bit_count(i) as f64 / self.slice_bits(i) as f64
            })
            .product()
    }

    /// The partitioned formula for this layout after `n` distinct keys:
    /// `Π_i (1 − (1 − 1/s_i)^n)`, which is
    /// [`theory::fpr_partitioned`]`(m, n, k)` for equal slices (exact
    /// there: `k | m`).
    pub fn theoretical_fpp(&self, n: u64) -> Result<f64> {
        if let Hashing::Indexed(_) = self.hashing {
            return Ok(theory::fpr_partitioned(
                self.bits(),
                n,
                self.hash_count(),
            )?);
        }
        let mut p = 1.0;
        for i in 0..self.hash_count() as usize {
            p *= theory::fpr_partitioned(self.slice_bits(i), n, 1)?;
        }
        Ok(p)
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        self.bits.clear();
    }

    /// Checks that `other` has the same slices and hashing.
    pub fn check_compatible(
        &self,
        other: &PartitionedBloomFilter,
    ) -> Result<()> {
        if self.offsets != other.offsets {
            return Err(Error::Incompatible {
                what: "slices",
                left: format!("{:?}", self.offsets),
                right: format!("{:?}", other.offsets),
            });
        }
        if self.hashing != other.hashing {
            return Err(Error::Incompatible {
                what: "hashing",
                left: format!("{:?}", self.layout()),
                right: format!("{:?}", other.layout()),
            });
        }
        Ok(())
    }

    /// Adds every key of `other` (a word-wise OR). Errors unless both
    /// have the same slices and hashing.
    pub fn union(&mut self, other: &PartitionedBloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        self.bits.union_with(&other.bits)?;
        Ok(())
    }

    /// Keeps only bits set in both (a word-wise AND): a filter that
    /// contains every key in both, and possibly more false positives
    /// than a filter built from the intersection. Errors unless both
    /// have the same slices and hashing.
    pub fn intersect(&mut self, other: &PartitionedBloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        self.bits.intersect_with(&other.bits)?;
        Ok(())
    }
}

/// Calls `f` with the key's bit in each slice, in slice order, until it
/// returns false; returns whether every call returned true.
#[inline(always)]
fn probe(
    hashing: &Hashing,
    offsets: &[u64],
    key: &[u8],
    mut f: impl FnMut(u64) -> bool,
) -> bool {
    match hashing {
        Hashing::Indexed(ix) => {
            let s = ix.m();
            let mut base = 0;
            ix.all_indices(key, |p| {
                let r = f(base + p);
                base += s;
                r
            })
        }
        Hashing::Slices { java: Some(hashes), specs, .. } => {
            bloomlab_hash::funnel::with_java_units(key, |units| {
                probe_java(hashes, specs, offsets, units, f)
            })
        }
        Hashing::Slices { specs, hashers, java: None } => {
            for (i, (spec, h)) in specs.iter().zip(hashers).enumerate() {
                let bits = h.family().output_bits();
                let p = spec.reduction.reduce(h.hash(key), bits, spec.bits);
                if !f(offsets[i] + p) {
                    return false;
                }
            }
            true
        }
    }
}

/// [`probe`] for a Java string given as UTF-16 units.
fn probe_units(
    hashing: &Hashing,
    offsets: &[u64],
    units: &[u16],
    f: impl FnMut(u64) -> bool,
) -> bool {
    match hashing {
        Hashing::Slices { java: Some(hashes), specs, .. } => {
            probe_java(hashes, specs, offsets, units, f)
        }
        _ => {
            let s = String::from_utf16_lossy(units);
            probe(hashing, offsets, s.as_bytes(), f)
        }
    }
}

#[inline]
fn probe_java(
    hashes: &[HutoolHash],
    specs: &[SliceSpec],
    offsets: &[u64],
    units: &[u16],
    mut f: impl FnMut(u64) -> bool,
) -> bool {
    for (i, (&h, spec)) in hashes.iter().zip(specs).enumerate() {
        let v = h.hash_units(units);
        // The digest a Java-string family gives: long results as they
        // are, int results zero-extended from 32 bits.
        let (d, bits) = if h.returns_long() {
            (Digest { lo: v as u64, hi: 0 }, 64)
        } else {
            (Digest { lo: u64::from(v as u32), hi: 0 }, 32)
        };
        if !f(offsets[i] + spec.reduction.reduce(d, bits, spec.bits)) {
            return false;
        }
    }
    true
}

/// The hutool hash behind a Java-string family.
fn java_hash(family: Family) -> Option<HutoolHash> {
    match family {
        Family::JavaHashCode => Some(HutoolHash::JavaDefault),
        Family::Hutool(h) => Some(h),
        _ => None,
    }
}

fn slices_hashing(specs: Vec<SliceSpec>) -> Result<Hashing> {
    let mut hashers = Vec::with_capacity(specs.len());
    for s in &specs {
        hashers.push(Hasher::new(s.family, i128::from(s.seed))?);
    }
    let java: Option<Vec<HutoolHash>> =
        specs.iter().map(|s| java_hash(s.family)).collect();
    Ok(Hashing::Slices { specs, hashers, java })
}

/// Prefix sums of the slice sizes (`k + 1` entries), after checking the
/// count and every size.
fn offsets(sizes: &[u64]) -> Result<Vec<u64>> {
    if sizes.is_empty() {
        return Err(Error::invalid(
            "k",
            0,
            "a filter needs at least one slice",
        ));
    }
    if sizes.len() > MAX_SLICES as usize {
        return Err(Error::invalid(
            "k",
            sizes.len(),
            "more slices than the maximum of 4096",
        ));
    }
    let mut out = Vec::with_capacity(sizes.len() + 1);
    let mut total = 0u64;
    out.push(0);
    for &s in sizes {
        if s == 0 || s > i64::MAX as u64 {
            return Err(Error::invalid(
                "slice bits",
                s,
                "must be in 1..=2^63-1",
            ));
        }
        total = total.checked_add(s).ok_or_else(|| {
            Error::invalid("m", "> 2^64", "the slices add up to too many bits")
        })?;
        out.push(total);
    }
    Ok(out)
}

/// A zeroed bit array, or an error (not an abort) when the allocation
/// fails.
pub(crate) fn zeroed_bits(m: u64) -> Result<BitArray> {
    Ok(BitArray::new(m)?)
}

/// Set bits among `len` bits starting at bit `start`.
fn count_range(words: &[u64], start: u64, len: u64) -> u64 {
    if len == 0 {
        return 0;
    }
    let end = start + len; // exclusive
    let (first, last) = ((start >> 6) as usize, ((end - 1) >> 6) as usize);
    let mut total = 0u64;
    for (wi, &w) in words.iter().enumerate().take(last + 1).skip(first) {
        let mut w = w;
        if wi == first {
            w &= u64::MAX << (start & 63);
        }
        if wi == last {
            let top = end - ((wi as u64) << 6); // 1..=64
            if top < 64 {
                w &= (1u64 << top) - 1;
            }
        }
        total += u64::from(w.count_ones());
    }
    total
}

/// Inserts every key, as [`PartitionedBloomFilter::insert_many`] does, a batch of
/// [`bloomlab_core::EXTEND_BATCH`] keys at a time (so large filters get
/// the batch's prefetching).
///
/// ```
/// use bloomlab_partitioned::PartitionedBloomFilter;
///
/// let mut f = PartitionedBloomFilter::new(10_000, 0.01)?;
/// f.extend(&[7u64, 8, 9]);
/// assert!(f.contains(&8u64));
/// # Ok::<(), bloomlab_partitioned::Error>(())
/// ```
impl<K: Funnel> Extend<K> for PartitionedBloomFilter {
    fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
        bloomlab_core::for_each_batch(keys, |batch| {
            self.insert_many(batch);
        });
    }
}

impl Filter for PartitionedBloomFilter {
    fn variant(&self) -> &'static str {
        "partitioned"
    }

    #[inline]
    fn insert_bytes(&mut self, key: &[u8]) -> bool {
        PartitionedBloomFilter::insert_bytes(self, key)
    }

    #[inline]
    fn contains_bytes(&self, key: &[u8]) -> bool {
        PartitionedBloomFilter::contains_bytes(self, key)
    }

    fn bits(&self) -> u64 {
        PartitionedBloomFilter::bits(self)
    }

    fn hash_count(&self) -> u32 {
        PartitionedBloomFilter::hash_count(self)
    }

    fn bits_set(&self) -> u64 {
        self.bit_count()
    }

    fn estimated_count(&self) -> f64 {
        PartitionedBloomFilter::estimated_count(self)
    }

    fn expected_fpp(&self) -> f64 {
        PartitionedBloomFilter::expected_fpp(self)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_range_matches_naive() {
        let words =
            [0xdead_beef_0123_4567_u64, u64::MAX, 0x8000_0000_0000_0001];
        for start in 0..192 {
            for len in 0..=(192 - start) {
                let naive = (start..start + len)
                    .filter(|&i| {
                        (words[(i >> 6) as usize] >> (i & 63)) & 1 == 1
                    })
                    .count() as u64;
                assert_eq!(count_range(&words, start, len), naive);
            }
        }
    }

    #[test]
    fn sizing_is_minimal_and_within_p() {
        for (n, p) in [(1u64, 0.5), (100, 0.01), (1_000_000, 0.01), (10, 1e-6)]
        {
            let s = PartitionedBloomFilter::sizing(n, p).unwrap();
            let f = |s| {
                theory::fpr_partitioned(s * u64::from(s_k(p)), n, s_k(p))
                    .unwrap()
            };
            assert!(f(s.slice_bits) <= p);
            assert!(s.slice_bits == 1 || f(s.slice_bits - 1) > p);
        }
        fn s_k(p: f64) -> u32 {
            (-p.log2()).ceil().max(1.0) as u32
        }
    }

    /// Slice queries past the last slice answer "no such slice", up to
    /// `usize::MAX` (whose `i + 1` overflowed in debug builds).
    #[test]
    fn slices_past_the_end_are_empty() {
        let f =
            PartitionedBloomFilter::with_rate(100, 0.01, Config::default())
                .unwrap();
        for i in [f.hash_count() as usize, usize::MAX - 1, usize::MAX] {
            assert_eq!(f.slice_bits(i), 0);
            assert_eq!(f.slice_offset(i), f.bits());
            assert_eq!(f.slice_bit_count(i), 0);
            assert!(f.slice_ones(i).is_empty());
        }
    }

    /// A `p` too small for 255 slices says so, in a short number.
    #[test]
    fn a_tiny_p_names_itself_briefly_and_the_fix() {
        let Err(e) = PartitionedBloomFilter::sizing(10, 1e-300) else {
            panic!("1e-300 needs 997 slices");
        };
        let text = e.to_string();
        assert!(text.contains("p = 1e-300"), "{text}");
        assert!(text.contains("raise p"), "{text}");
        assert!(PartitionedBloomFilter::sizing(10, 0.5f64.powi(255)).is_ok());
    }
}
