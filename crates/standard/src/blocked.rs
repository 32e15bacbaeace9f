//! The cache-blocked Bloom filter (Putze, Sanders & Singler 2007).

use bloomlab_core::{Filter, Words, theory};
use bloomlab_hash::strategy::mix64;
use bloomlab_hash::{Digest, Family, Funnel, Hasher};

use crate::blocked_kernel::{self, BlockedKernels};
use crate::classic::BATCH;
use crate::split::{self, MAX_SPLIT_BLOCKS, SPLIT_BLOCK_BITS, SPLIT_K, Simd};
use crate::{Builder, Error, Result};

/// Default block size: one 64-byte cache line.
pub const DEFAULT_BLOCK_BITS: u64 = 512;

/// The hash family of a blocked filter built without one
/// ([`BlockedBloomFilter::new`], [`BlockedBloomFilter::with_bits`],
/// [`BlockedBloomFilter::split_block`], a [`Builder`] not given a family
/// or a configuration): `xxh3-64`.
///
/// A blocked filter reads 96 bits of a key's hash at most (64 for the
/// block, 32 for the in-block probes) and a split block 64, so one 64-bit
/// XXH3 serves: the block from its high bits, the probes from its low
/// 32, as Parquet's split-block filter takes them. Measured at n = 1e6
/// (`bloomlab-blocked` against `bloomlab-blocked-xxh3-128` in
/// `benches/benches/standard.rs`, the same runs, 2026-11-26): queries
/// 5.1 ns a key against 6.1–6.2 with `xxh3-128`, builds 8.6 against 9.4
/// ns, at the same false-positive rate (0.967% against 0.975% at 10^6,
/// 0.970% against 0.960% at 10^7). The classic filter needs two
/// 64-bit words for its walk and keeps `xxh3-128` ([`crate::Config`]).
pub const DEFAULT_BLOCKED_FAMILY: Family = Family::Xxh3_64;

/// Largest block size accepted (a page of 8 KiB).
pub const MAX_BLOCK_BITS: u64 = 1 << 16;

/// Largest `k` of a blocked filter (one salt per probe).
pub const MAX_BLOCKED_K: u32 = 64;

/// The name of the salted in-block probe scheme
/// ([`BlockScheme::Salted`]), as files and `inspect` show it.
pub const BLOCK_SCHEME: &str = "blocked-salted-multiply";

/// How a blocked filter places a key's `k` bits inside its block.
///
/// ```
/// use bloomlab_standard::{BlockScheme, BlockedBloomFilter};
///
/// let f = BlockedBloomFilter::split_block(1_000_000, 0.01)?;
/// assert_eq!(f.scheme(), BlockScheme::ParquetSplit);
/// assert_eq!((f.block_bits(), f.hash_count()), (256, 8));
/// assert_eq!(BlockScheme::from_name("parquet-split-block"), Some(f.scheme()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BlockScheme {
    /// `k` salted probes anywhere in a block of any power-of-two size
    /// ([`BLOCK_SALTS`]); the default.
    #[default]
    Salted,
    /// Parquet's split block: 256-bit blocks of eight 32-bit words, one
    /// bit in each (`k = 8`), placed as Apache Parquet's `BloomFilter.md`
    /// places them, so that for the same 64-bit hashes the bits are
    /// Parquet's (and Impala's, Kudu's, `sbbf-rs`'s) bit for bit. Fewer
    /// instructions a key than the salted scheme (its eight bits are made
    /// and set in SIMD registers, one shift for all eight; the salted
    /// scheme's probes, with `k` up to 16 and one-line blocks, are made
    /// and tested eight to an AVX2 register too, but each probe's bit
    /// costs its own shifts, or its own OR in filters past 8 MiB), at a
    /// higher false-positive rate
    /// for the same bits per key
    /// ([`bloomlab_core::theory::fpr_split_block`]: 1.26% against 0.98%
    /// at 10 bits per key).
    ParquetSplit,
}

impl BlockScheme {
    /// Every scheme.
    pub const ALL: [BlockScheme; 2] =
        [BlockScheme::Salted, BlockScheme::ParquetSplit];

    /// The name files, `inspect` and results show.
    pub fn name(self) -> &'static str {
        match self {
            BlockScheme::Salted => BLOCK_SCHEME,
            BlockScheme::ParquetSplit => "parquet-split-block",
        }
    }

    /// The scheme of a name ([`BlockScheme::name`]; `salted` and
    /// `parquet-split` are accepted too).
    pub fn from_name(name: &str) -> Option<BlockScheme> {
        match name {
            BLOCK_SCHEME | "salted" => Some(BlockScheme::Salted),
            "parquet-split-block" | "parquet-split" => {
                Some(BlockScheme::ParquetSplit)
            }
            _ => None,
        }
    }

    /// The block size the scheme uses unless told otherwise.
    pub fn default_block_bits(self) -> u64 {
        match self {
            BlockScheme::Salted => DEFAULT_BLOCK_BITS,
            BlockScheme::ParquetSplit => SPLIT_BLOCK_BITS,
        }
    }
}

impl std::fmt::Display for BlockScheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One cache line; the storage is a vector of them so that a 512-bit
/// block never straddles two lines.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    bytemuck::Pod,
    bytemuck::Zeroable,
)]
#[repr(C, align(64))]
pub(crate) struct Line(pub(crate) [u64; 8]);

/// The in-block probes' salts ([`BLOCK_SCHEME`]): odd 32-bit
/// multipliers, one per probe, the low halves of the first
/// [`MAX_BLOCKED_K`] outputs of SplitMix64 from state 0, with the low bit
/// set. Probe `i` of a key with in-block hash `h` is bit
/// `(h · BLOCK_SALTS[i] mod 2^32) >> (32 - log2 B)` of its block, for
/// other implementations of the layout to reproduce.
///
/// ```
/// use bloomlab_standard::BLOCK_SALTS;
///
/// assert!(BLOCK_SALTS.iter().all(|s| s % 2 == 1));
/// ```
pub const BLOCK_SALTS: [u32; MAX_BLOCKED_K as usize] = salts();

const fn salts() -> [u32; MAX_BLOCKED_K as usize] {
    let mut out = [0u32; MAX_BLOCKED_K as usize];
    let mut state = 0u64;
    let mut i = 0;
    while i < out.len() {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        out[i] = ((z ^ (z >> 31)) as u32) | 1;
        i += 1;
    }
    out
}

/// A cache-blocked Bloom filter: every key sets and tests its `k` bits
/// inside one block of `B` bits (default 512, one cache line), so an
/// insert or a query touches one cache line instead of `k`.
///
/// How a key's bits are chosen, from its 64-bit hash `h` (a 64-bit
/// family's hash, as `xxh3-64`'s, the default
/// [`DEFAULT_BLOCKED_FAMILY`], or the low word of a 128-bit family's):
///
/// * block: `(h · blocks) >> 64`, Lemire's multiply-shift, which reads
///   the *high* bits of `h`;
/// * probe `i` in the block: the top `log2 B` bits of the 32-bit product
///   `(h mod 2^32) · s_i`, with `s_i` a fixed odd 32-bit salt (the scheme
///   of Parquet's split-block filter, here anywhere in the block rather
///   than one bit per 32-bit word).
///
/// (A 128-bit family gives the probes the low half of its high word; a
/// 32-bit family's hash is moved to the top for the block and mixed for
/// the probes.) The block and the in-block positions come from different
/// bits of the hash, so
/// the false-positive rate is the blocked formula of `THEORY.md` §4
/// ([`bloomlab_core::theory::fpr_blocked`] with the exact inner rate); the
/// price of the speed is a rate about 1.1–1.2× the classic filter's at 10
/// bits per key (more at more bits per key).
///
/// ```
/// use bloomlab_standard::BlockedBloomFilter;
///
/// let mut f = BlockedBloomFilter::new(10_000, 0.01)?;
/// assert_eq!(f.block_bits(), 512);
/// assert_eq!(f.bits() % 512, 0);
/// f.insert(&42u64);
/// assert!(f.contains(&42u64));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Its false-positive rate is the blocked formula's
/// ([`bloomlab_core::theory::fpr_blocked`] with the exact inner rate):
/// for 10^5 keys at p = 1% the filter takes the classic filter's 9.59
/// bits a key and k = 7 (Guava's sizing, in whole blocks), at 1.15× the
/// classic filter's rate, and the example measures the rate on 10^5 keys never inserted and checks that
/// the formula lies in the measured rate's 99.9% Clopper–Pearson interval
/// (about ±10% of it here). The interval covers the queries' noise; one
/// filter's block loads move its rate from the formula's by about 1.5%
/// at this size (the spread of the mean over its blocks of each block's
/// rate, Poisson loads), well inside.
///
/// ```
/// use bloomlab_core::{stats, theory};
/// use bloomlab_standard::BlockedBloomFilter;
///
/// let n = 100_000u64;
/// let mut f = BlockedBloomFilter::new(n, 0.01)?;
/// assert_eq!((f.bits(), f.hash_count()), (958_976, 7)); // 9.59 bits a key
/// for key in 0..n {
///     f.add(&key);
/// }
/// let queries = 100_000u64;
/// let hits = (n..n + queries).filter(|key| f.contains(key)).count();
/// let inner = theory::BlockInner::Exact;
/// let formula =
///     theory::fpr_blocked(f.bits(), n, f.hash_count(), 512, inner)?;
/// let classic = theory::fpr_exact(f.bits(), n, 7)?.value;
/// assert!((1.1..1.2).contains(&(formula / classic)));
/// let ci = stats::clopper_pearson(hits as u64, queries, 0.999)?;
/// assert!(ci.contains(formula), "{hits} hits, {ci:?} against {formula}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedBloomFilter {
    /// In huge pages when large (see [`Words`]): at 1e7 keys the filter
    /// is 12 MB, past what 4 KiB pages' TLB entries cover.
    lines: Words<Line>,
    hasher: Hasher,
    blocks: u64,
    block_bits: u64,
    /// log2 of the block size.
    shift: u32,
    k: u32,
    scheme: BlockScheme,
    /// AVX2, if the CPU has it (split blocks; salted blocks of one line
    /// with `k` up to 16).
    simd: Simd,
    /// The probe loops of this configuration, chosen once (see
    /// `blocked_kernel`).
    kernel: Option<BlockedKernels>,
}

impl BlockedBloomFilter {
    /// A filter for `n` items at rate `p`: Guava's `m` rounded up to whole
    /// 512-bit blocks, Guava's `k`, hashed with `xxh3-64`
    /// ([`DEFAULT_BLOCKED_FAMILY`]).
    pub fn new(n: u64, p: f64) -> Result<BlockedBloomFilter> {
        Builder::rate(n, p).build_blocked()
    }

    /// A filter of at least `m` bits (rounded up to whole 512-bit blocks)
    /// and `k` probes, hashed with `xxh3-64` ([`DEFAULT_BLOCKED_FAMILY`]).
    pub fn with_bits(m: u64, k: u32) -> Result<BlockedBloomFilter> {
        Builder::bits(m, k).build_blocked()
    }

    /// A Parquet split-block filter ([`BlockScheme::ParquetSplit`]) for
    /// `n` items at rate `p`: the fewest 256-bit blocks whose
    /// false-positive rate by [`bloomlab_core::theory::fpr_split_block`]
    /// is at most `p`, `k = 8`, hashed with `xxh3-64`
    /// ([`DEFAULT_BLOCKED_FAMILY`]): given the same key, the bits
    /// `sbbf-rs` sets for the hash `xxh3_64(key)`.
    pub fn split_block(n: u64, p: f64) -> Result<BlockedBloomFilter> {
        Builder::rate(n, p)
            .block_scheme(BlockScheme::ParquetSplit)
            .build_blocked()
    }

    /// A filter of at least `m` bits in blocks of `block_bits` (a power of
    /// two from 64 to [`MAX_BLOCK_BITS`]), `k` probes (1 to
    /// [`MAX_BLOCKED_K`]), keys hashed by `family` with `seed`, with the
    /// salted scheme.
    pub fn with_config(
        family: Family,
        seed: i128,
        m: u64,
        k: u32,
        block_bits: u64,
    ) -> Result<BlockedBloomFilter> {
        Self::with_scheme(family, seed, m, k, block_bits, BlockScheme::Salted)
    }

    /// [`BlockedBloomFilter::with_config`] with the in-block scheme given:
    /// [`BlockScheme::ParquetSplit`] takes `block_bits = 256`, `k = 8`
    /// and at most 2^32 blocks.
    pub fn with_scheme(
        family: Family,
        seed: i128,
        m: u64,
        k: u32,
        block_bits: u64,
        scheme: BlockScheme,
    ) -> Result<BlockedBloomFilter> {
        let hasher = Hasher::new(family, seed)?;
        let (blocks, shift) = check_shape(m, k, block_bits, scheme)?;
        let words = blocks * (block_bits / 64);
        let lines = usize::try_from(words.div_ceil(8))
            .map_err(|_| Error::invalid("m", m, "too large"))?;
        let lines = Words::zeroed(lines)
            .ok_or_else(|| Error::invalid("m", m, "cannot allocate"))?;
        Ok(BlockedBloomFilter {
            lines,
            hasher,
            blocks,
            block_bits,
            shift,
            k,
            scheme,
            simd: Simd::detect(),
            kernel: blocked_kernel::for_config(
                family,
                hasher.seed(),
                (block_bits, k, scheme, blocks * block_bits / 8),
            ),
        })
    }

    /// A filter from its parts: `words` are the `m / 64` words in order.
    pub fn from_words(
        family: Family,
        seed: i128,
        k: u32,
        block_bits: u64,
        words: &[u64],
    ) -> Result<BlockedBloomFilter> {
        Self::from_words_with_scheme(
            family,
            seed,
            k,
            block_bits,
            BlockScheme::Salted,
            words,
        )
    }

    /// [`BlockedBloomFilter::from_words`] with the in-block scheme given.
    /// A Parquet split-block filter's words are its bitset's bytes read
    /// as little-endian `u64`s.
    pub fn from_words_with_scheme(
        family: Family,
        seed: i128,
        k: u32,
        block_bits: u64,
        scheme: BlockScheme,
        words: &[u64],
    ) -> Result<BlockedBloomFilter> {
        let m = (words.len() as u64).saturating_mul(64);
        let mut f = BlockedBloomFilter::with_scheme(
            family, seed, m, k, block_bits, scheme,
        )?;
        if f.bits() != m {
            return Err(Error::corrupt(
                "words",
                words.len(),
                "not a whole number of blocks",
            ));
        }
        for (i, &w) in words.iter().enumerate() {
            f.lines[i >> 3].0[i & 7] = w;
        }
        Ok(f)
    }

    /// The `m / 64` words in order (bit `i` is bit `i & 63` of word
    /// `i >> 6`).
    pub fn words(&self) -> impl Iterator<Item = u64> + '_ {
        let n = (self.bits() / 64) as usize;
        self.lines.iter().flat_map(|l| l.0).take(n)
    }

    /// The hash family.
    pub fn family(&self) -> Family {
        self.hasher.family()
    }

    /// The (normalised) seed.
    pub fn seed(&self) -> u64 {
        self.hasher.seed()
    }

    /// Number of bits, `m` (a whole number of blocks).
    pub fn bits(&self) -> u64 {
        self.blocks * self.block_bits
    }

    /// Probes per key, `k`.
    pub fn hash_count(&self) -> u32 {
        self.k
    }

    /// Bits per block, `B`.
    pub fn block_bits(&self) -> u64 {
        self.block_bits
    }

    /// Number of blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// How a key's bits are placed in its block.
    pub fn scheme(&self) -> BlockScheme {
        self.scheme
    }

    #[inline(always)]
    fn digest(&self, key: &[u8]) -> Digest {
        match self.hasher.family() {
            Family::Xxh3_64 => Digest {
                lo: xxhash_rust::xxh3::xxh3_64_with_seed(
                    key,
                    self.hasher.seed(),
                ),
                hi: 0,
            },
            _ => self.hasher.hash(key),
        }
    }

    /// `(block, h)` of a digest: the block from the high bits of `lo`
    /// (multiply-shift), `h` the 32 bits the in-block positions come from
    /// (the low half of `lo`, or of `hi` for a 128-bit family, or of a
    /// 64-bit mix of a 32-bit hash).
    #[inline(always)]
    fn split(&self, d: Digest) -> (u64, u32) {
        let (lo, h) = match self.hasher.family().output_bits() {
            128 => (d.lo, d.hi as u32),
            32 => (d.lo << 32, mix64(d.lo) as u32),
            _ => (d.lo, d.lo as u32),
        };
        let block = match self.scheme {
            BlockScheme::Salted => {
                ((u128::from(lo) * u128::from(self.blocks)) >> 64) as u64
            }
            BlockScheme::ParquetSplit => split::block_of(lo, self.blocks),
        };
        (block, h)
    }

    /// The key's bit positions in probe order (may repeat).
    pub fn positions<T: Funnel + ?Sized>(&self, key: &T) -> Vec<u64> {
        let (block, h) = key.with_bytes(|b| self.split(self.digest(b)));
        let base = block * self.block_bits;
        if self.scheme == BlockScheme::ParquetSplit {
            return (0..SPLIT_K as usize)
                .map(|i| base + 32 * i as u64 + u64::from(split::bit(h, i)))
                .collect();
        }
        BLOCK_SALTS[..self.k as usize]
            .iter()
            .map(|s| base + u64::from(h.wrapping_mul(*s) >> (32 - self.shift)))
            .collect()
    }

    /// Inserts a typed key; returns whether any bit changed.
    #[inline]
    pub fn insert<T: Funnel + ?Sized>(&mut self, key: &T) -> bool {
        // One pointer a path, so that the method stays small enough to
        // inline into callers' loops (split blocks at n = 1e6, bench
        // binaries alternated three times, 2026-11-25: inserts 5.2-5.8 ns
        // a key against 5.7-7.7, queries 5.1-5.6 against 5.2-6.0, with a
        // second pointer for split blocks tested first).
        if let (Some(kernel), Some(w)) = (self.kernel, key.as_le_word()) {
            return (kernel.word.insert)(
                &mut self.lines,
                self.hasher.seed(),
                w,
                self.blocks,
                self.simd,
            );
        }
        self.insert_other(key)
    }

    /// Inserts a typed key without telling whether any bit changed: the
    /// faster way to fill a filter (see [`crate::BloomFilter::add`]).
    ///
    /// ```
    /// use bloomlab_standard::BlockedBloomFilter;
    ///
    /// let mut f = BlockedBloomFilter::new(1000, 0.01)?;
    /// f.add("apple");
    /// assert!(f.contains("apple"));
    /// assert!(!f.insert("apple")); // already there
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn add<T: Funnel + ?Sized>(&mut self, key: &T) {
        if let (Some(kernel), Some(w)) = (self.kernel, key.as_le_word()) {
            (kernel.word.add)(
                &mut self.lines,
                self.hasher.seed(),
                w,
                self.blocks,
                self.simd,
            );
            return;
        }
        self.add_other(key);
    }

    /// Whether a typed key may have been inserted.
    #[inline]
    pub fn contains<T: Funnel + ?Sized>(&self, key: &T) -> bool {
        if let (Some(kernel), Some(w)) = (self.kernel, key.as_le_word()) {
            return (kernel.word.query)(
                &self.lines,
                self.hasher.seed(),
                w,
                self.blocks,
                self.simd,
            );
        }
        self.contains_other(key)
    }

    /// `insert` of a key without a one-word kernel, out of line so that
    /// the one-word paths stay small enough to inline into callers.
    #[inline(never)]
    fn insert_other<T: Funnel + ?Sized>(&mut self, key: &T) -> bool {
        key.with_bytes(|b| self.insert_bytes(b))
    }

    /// `add` of a key without a one-word kernel (see
    /// [`Self::insert_other`]).
    #[inline(never)]
    fn add_other<T: Funnel + ?Sized>(&mut self, key: &T) {
        key.with_bytes(|b| self.add_bytes(b));
    }

    /// `contains` of a key without a one-word kernel (see
    /// [`Self::insert_other`]).
    #[inline(never)]
    fn contains_other<T: Funnel + ?Sized>(&self, key: &T) -> bool {
        key.with_bytes(|b| self.contains_bytes(b))
    }

    /// Inserts a key given as bytes; returns whether any bit changed.
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        if let Some(kernel) = self.kernel {
            return (kernel.bytes.insert)(
                self.hasher.seed(),
                &mut self.lines,
                self.blocks,
                key,
            );
        }
        let d = self.digest(key);
        self.insert_digest(d)
    }

    /// Inserts a key given as bytes, without the answer (see
    /// [`BlockedBloomFilter::add`]).
    #[inline]
    pub fn add_bytes(&mut self, key: &[u8]) {
        if let Some(kernel) = self.kernel {
            (kernel.bytes.add)(
                self.hasher.seed(),
                &mut self.lines,
                self.blocks,
                key,
            );
            return;
        }
        let d = self.digest(key);
        self.insert_digest(d);
    }

    /// Whether a key given as bytes may have been inserted.
    #[inline]
    pub fn contains_bytes(&self, key: &[u8]) -> bool {
        if let Some(kernel) = self.kernel {
            return (kernel.bytes.query)(
                self.hasher.seed(),
                &self.lines,
                self.blocks,
                key,
            );
        }
        self.contains_digest(self.digest(key))
    }

    #[inline(always)]
    fn insert_digest(&mut self, d: Digest) -> bool {
        let (block, h) = self.split(d);
        if self.scheme == BlockScheme::ParquetSplit {
            let (line, o) = split::place(block);
            return self
                .lines
                .get_mut(line)
                .is_some_and(|l| split::set(&mut l.0, o, h));
        }
        let salts = &BLOCK_SALTS[..self.k as usize];
        if self.shift == 9 {
            // One cache line: set each bit in place (no mask array on the
            // stack, whose scalar stores and vector reloads stall).
            let Some(line) = self.lines.get_mut(block as usize) else {
                return false;
            };
            let mut changed = 0;
            for s in salts {
                let p = h.wrapping_mul(*s) >> 23;
                let w = &mut line.0[(p >> 6) as usize];
                let bit = 1u64 << (p & 63);
                changed |= !*w & bit;
                *w |= bit;
            }
            return changed != 0;
        }
        let base = block * self.block_bits;
        let mut changed = false;
        for s in salts {
            let bit =
                base + u64::from(h.wrapping_mul(*s) >> (32 - self.shift));
            let w = (bit >> 6) as usize;
            if let Some(line) = self.lines.get_mut(w >> 3) {
                let word = &mut line.0[w & 7];
                let mask = 1u64 << (bit & 63);
                changed |= *word & mask == 0;
                *word |= mask;
            }
        }
        changed
    }

    #[inline(always)]
    fn contains_digest(&self, d: Digest) -> bool {
        let (block, h) = self.split(d);
        if self.scheme == BlockScheme::ParquetSplit {
            let (line, o) = split::place(block);
            return self
                .lines
                .get(line)
                .is_some_and(|l| split::test(&l.0, o, h));
        }
        let salts = &BLOCK_SALTS[..self.k as usize];
        if self.shift == 9 {
            let Some(line) = self.lines.get(block as usize) else {
                return false;
            };
            let mut all = 1;
            for s in salts {
                let p = h.wrapping_mul(*s) >> 23;
                all &= line.0[(p >> 6) as usize] >> (p & 63);
            }
            return all & 1 == 1;
        }
        let base = block * self.block_bits;
        let mut all = true;
        for s in salts {
            let bit =
                base + u64::from(h.wrapping_mul(*s) >> (32 - self.shift));
            let w = (bit >> 6) as usize;
            all &= self
                .lines
                .get(w >> 3)
                .is_some_and(|l| (l.0[w & 7] >> (bit & 63)) & 1 == 1);
        }
        all
    }

    /// Inserts many keys, hashing a batch ahead of setting its bits;
    /// returns how many inserts changed a bit (as `insert` of each in
    /// turn would). With one-line blocks, each key's line is prefetched
    /// as the batch is hashed, so the batch's misses are in flight
    /// together: at n = 1e7, 19.5 and 23.7 ns a key in two runs of
    /// `benches/benches/standard.rs` (`many-build`), against 55 and 64
    /// for the same filter built one key at a time in the same runs
    /// (`build`, `bloomlab-blocked`). A split-block filter
    /// ([`BlockScheme::ParquetSplit`]) runs the whole batch compiled for
    /// AVX2 when the CPU has it, choosing once a call rather than once a
    /// key (`many-build`, `bloomlab-split-insert-many`).
    pub fn insert_many<T: Funnel>(&mut self, keys: &[T]) -> usize {
        if let Some(b) = self.batch::<T>() {
            return (b.insert)(
                self.hasher.seed(),
                &mut self.lines,
                self.blocks,
                keys,
                self.simd,
            );
        }
        let mut count = 0;
        let mut ds = [Digest::default(); BATCH];
        for chunk in keys.chunks(BATCH) {
            for (d, key) in ds.iter_mut().zip(chunk) {
                *d = key.with_bytes(|b| self.digest(b));
            }
            for &d in &ds[..chunk.len()] {
                count += usize::from(self.insert_digest(d));
            }
        }
        count
    }

    /// Answers `contains` for many keys into `out` (as many as the
    /// shorter of the two).
    ///
    /// With one-line blocks, keys are hashed 256 at a time and each key's
    /// line prefetched before any is tested, so that the batch's cache
    /// misses are in flight together: on members at n = 1e7, 1.7 to 8
    /// times faster per key than `contains` one key at a time in the same
    /// run (`benches/benches/standard.rs`, `many-member` against
    /// `contains-member`, four runs on 2026-11-24). Split-block filters
    /// run the batch in AVX2 as [`insert_many`](Self::insert_many) does
    /// (`bloomlab-split-contains-many`), and so do salted filters of
    /// one-line blocks and `k` up to 16, whose queries test their probes
    /// eight to an AVX2 register. The answers are `contains`'s.
    ///
    /// ```
    /// use bloomlab_standard::BlockedBloomFilter;
    ///
    /// let mut f = BlockedBloomFilter::new(1000, 0.01)?;
    /// f.insert_many(&[1u64, 2, 3]);
    /// let mut out = [false; 3];
    /// f.contains_many(&[1u64, 2, 99], &mut out);
    /// assert_eq!(&out[..2], [true, true]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_many<T: Funnel>(&self, keys: &[T], out: &mut [bool]) {
        if let Some(b) = self.batch::<T>() {
            (b.contains)(
                self.hasher.seed(),
                &self.lines,
                self.blocks,
                keys,
                out,
                self.simd,
            );
            return;
        }
        let mut ds = [Digest::default(); BATCH];
        for (chunk, outs) in keys.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            for (d, key) in ds.iter_mut().zip(chunk) {
                *d = key.with_bytes(|b| self.digest(b));
            }
            for (&d, o) in ds.iter().zip(outs.iter_mut()).take(chunk.len()) {
                *o = self.contains_digest(d);
            }
        }
    }

    /// The batch loops of this configuration, if it has kernels.
    fn batch<T: Funnel>(&self) -> Option<blocked_kernel::Batch<T>> {
        blocked_kernel::batch(
            self.family(),
            (
                self.block_bits,
                self.k,
                self.scheme,
                self.blocks * self.block_bits / 8,
            ),
        )
    }

    /// Number of bits set.
    pub fn bit_count(&self) -> u64 {
        self.words().map(|w| u64::from(w.count_ones())).sum()
    }

    /// The false-positive rate of a random non-member given these bits:
    /// it picks a block uniformly and must find all its bits set there,
    /// so the rate is the mean over the blocks `b` of each block's own
    /// rate,
    ///
    /// ```text
    /// salted:        (1/blocks) Σ_b (X_b / B)^k
    /// parquet-split: (1/blocks) Σ_b Π_{w=0..7} (X_{b,w} / 32)
    /// ```
    ///
    /// `X_b` the bits set in block `b`, `X_{b,w}` those in its 32-bit word
    /// `w`. This takes a query's salted probes as `k` independent uniform
    /// positions in its block: each is uniform (an odd multiple of a
    /// uniform 32-bit hash), nothing makes them distinct, and the rates
    /// measured agree (`tests/integration/blocked_fill.rs`); a split
    /// block's, as one uniform bit in each word.
    /// Guava's `(X/m)^k` for the whole filter is below this (`x^k` is
    /// convex), the more so the more the blocks' fills vary: 1.1× for
    /// `B = 512`, `k = 6` at 8 bits a key, 3.8× for `k = 14` at 20.
    ///
    /// ```
    /// use bloomlab_standard::BlockedBloomFilter;
    ///
    /// let mut f = BlockedBloomFilter::with_bits(1 << 16, 4)?;
    /// assert_eq!((f.blocks(), f.expected_fpp()), (128, 0.0));
    /// f.insert(&1u64);
    /// // One block of 128 holds the key's distinct bits, the others none.
    /// let mut bits = f.positions(&1u64);
    /// bits.sort();
    /// bits.dedup();
    /// let rate = (bits.len() as f64 / 512.0).powi(4) / 128.0;
    /// assert_eq!(f.expected_fpp(), rate);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn expected_fpp(&self) -> f64 {
        // One pass over the words, no allocation: a filter may have 10^9
        // bits.
        let words: &[u64] = bytemuck::cast_slice(&self.lines);
        let words = &words[..words.len().min((self.bits() / 64) as usize)];
        let blocks = self.blocks as f64;
        match self.scheme {
            BlockScheme::Salted => {
                let per_block = (self.block_bits / 64) as usize;
                let b = self.block_bits as f64;
                let k = self.k as i32;
                let sum: f64 = words
                    .chunks_exact(per_block)
                    .map(|block| {
                        let x: u32 =
                            block.iter().map(|w| w.count_ones()).sum();
                        (f64::from(x) / b).powi(k)
                    })
                    .sum();
                sum / blocks
            }
            BlockScheme::ParquetSplit => {
                // Π_w X_{b,w} ≤ 32^8 = 2^40 is an exact integer, and the
                // sum over at most 2^32 blocks fits a u128: the mean is
                // rounded twice only.
                let sum: u128 = words
                    .chunks_exact(4)
                    .map(|block| {
                        let ones = |w: u64| {
                            u64::from((w as u32).count_ones())
                                * u64::from((w >> 32).count_ones())
                        };
                        u128::from(
                            block.iter().map(|&w| ones(w)).product::<u64>(),
                        )
                    })
                    .sum();
                sum as f64 / blocks / (1u64 << 40) as f64
            }
        }
    }

    /// Guava's `approximateElementCount` formula applied to the fill, for
    /// comparison with Guava's classic filter: it assumes a classic
    /// filter's layout, and a salted block's probes collide more often,
    /// so it undercounts (by 0.3% to 1.2% at `B = 512` from 8 to 20 bits a
    /// key, 4.6% at `B = 64`, `k = 7`, 10 bits a key).
    /// [`Filter::estimated_count`] inverts this layout's own expected
    /// fill.
    pub fn approximate_element_count(&self) -> i64 {
        theory::guava_approximate_element_count(
            self.bit_count(),
            self.bits(),
            self.k,
        )
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        self.lines.fill(Line::default());
    }

    /// Checks that `other` has the same `m`, `k`, block size, family and
    /// seed.
    pub fn check_compatible(&self, other: &BlockedBloomFilter) -> Result<()> {
        let pairs: [(&'static str, String, String); 6] = [
            (
                "block scheme",
                self.scheme.to_string(),
                other.scheme.to_string(),
            ),
            ("m", self.bits().to_string(), other.bits().to_string()),
            ("k", self.k.to_string(), other.k.to_string()),
            (
                "block bits",
                self.block_bits.to_string(),
                other.block_bits.to_string(),
            ),
            ("family", self.family().to_string(), other.family().to_string()),
            ("seed", self.seed().to_string(), other.seed().to_string()),
        ];
        for (what, left, right) in pairs {
            if left != right {
                return Err(Error::Incompatible { what, left, right });
            }
        }
        Ok(())
    }

    /// Adds every key of `other` (word-wise OR).
    pub fn union(&mut self, other: &BlockedBloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        for (a, b) in self.lines.iter_mut().zip(&other.lines) {
            for (x, y) in a.0.iter_mut().zip(b.0) {
                *x |= y;
            }
        }
        Ok(())
    }

    /// Keeps only bits set in both (word-wise AND).
    pub fn intersect(&mut self, other: &BlockedBloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        for (a, b) in self.lines.iter_mut().zip(&other.lines) {
            for (x, y) in a.0.iter_mut().zip(b.0) {
                *x &= y;
            }
        }
        Ok(())
    }
}

/// `(blocks, log2 B)` for a requested `m`, or why the shape is refused.
pub(crate) fn check_shape(
    m: u64,
    k: u32,
    block_bits: u64,
    scheme: BlockScheme,
) -> Result<(u64, u32)> {
    if scheme == BlockScheme::ParquetSplit {
        if block_bits != SPLIT_BLOCK_BITS {
            return Err(Error::invalid(
                "block bits",
                block_bits,
                "the parquet-split-block scheme has 256-bit blocks",
            ));
        }
        if k != SPLIT_K {
            return Err(Error::invalid(
                "k",
                k,
                "the parquet-split-block scheme sets one bit in each of 8 words: k = 8",
            ));
        }
        if m.div_ceil(block_bits) > MAX_SPLIT_BLOCKS {
            return Err(Error::invalid(
                "m",
                m,
                "a parquet-split-block filter has at most 2^32 blocks (2^40 bits)",
            ));
        }
    }
    if !(64..=MAX_BLOCK_BITS).contains(&block_bits)
        || !block_bits.is_power_of_two()
    {
        return Err(Error::invalid(
            "block bits",
            block_bits,
            "must be a power of two from 64 to 65536",
        ));
    }
    if k == 0 || k > MAX_BLOCKED_K {
        return Err(Error::invalid("k", k, "must be from 1 to 64"));
    }
    if m == 0 {
        return Err(Error::invalid("m", m, "must be at least 1"));
    }
    let blocks = m.div_ceil(block_bits);
    // Keep the byte size within what a Vec can hold (isize::MAX).
    if blocks.checked_mul(block_bits / 8).is_none_or(|b| b > isize::MAX as u64)
    {
        return Err(Error::invalid("m", m, "too large for this machine"));
    }
    Ok((blocks, block_bits.trailing_zeros()))
}

/// Inserts every key, as [`BlockedBloomFilter::insert_many`] does, a batch of
/// [`bloomlab_core::EXTEND_BATCH`] keys at a time (so large filters get
/// the batch's prefetching).
///
/// ```
/// use bloomlab_standard::BlockedBloomFilter;
///
/// let mut f = BlockedBloomFilter::new(10_000, 0.01)?;
/// f.extend(vec![String::from("alice"), String::from("bob")]);
/// assert!(f.contains("alice"));
/// # Ok::<(), bloomlab_standard::Error>(())
/// ```
impl<K: Funnel> Extend<K> for BlockedBloomFilter {
    fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
        bloomlab_core::for_each_batch(keys, |batch| {
            self.insert_many(batch);
        });
    }
}

impl Filter for BlockedBloomFilter {
    fn variant(&self) -> &'static str {
        "blocked"
    }

    #[inline]
    fn insert_bytes(&mut self, key: &[u8]) -> bool {
        BlockedBloomFilter::insert_bytes(self, key)
    }

    #[inline]
    fn contains_bytes(&self, key: &[u8]) -> bool {
        BlockedBloomFilter::contains_bytes(self, key)
    }

    fn bits(&self) -> u64 {
        BlockedBloomFilter::bits(self)
    }

    fn hash_count(&self) -> u32 {
        self.k
    }

    fn bits_set(&self) -> u64 {
        self.bit_count()
    }

    /// The inverse of the expected fill of this layout
    /// ([`theory::estimate_count_blocked`],
    /// [`theory::estimate_count_split_block`]): one key sets a given bit
    /// with probability `(B/m)(1 − (1 − 1/B)^k)` (salted) or `k/m`
    /// (split block), not the classic filter's `1 − (1 − 1/m)^k`.
    fn estimated_count(&self) -> f64 {
        let (m, x) = (self.bits(), self.bit_count());
        match self.scheme {
            BlockScheme::Salted => {
                theory::estimate_count_blocked(m, self.k, self.block_bits, x)
            }
            BlockScheme::ParquetSplit => theory::estimate_count_split_block(
                m,
                self.k,
                self.block_bits,
                x,
            ),
        }
    }

    fn expected_fpp(&self) -> f64 {
        BlockedBloomFilter::expected_fpp(self)
    }

    fn bytes_of_memory(&self) -> usize {
        self.lines.len() * 64
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
