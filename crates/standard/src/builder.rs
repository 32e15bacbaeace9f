//! One builder for the three layouts.

use bloomlab_core::sizing::GuavaSizing;
use bloomlab_hash::{Family, Reduction, Strategy};

use crate::split::{SPLIT_BLOCK_BITS, SPLIT_K};
use crate::{
    AtomicBloomFilter, BlockScheme, BlockedBloomFilter, BloomFilter, Config,
    DEFAULT_BLOCKED_FAMILY, Error, Result,
};

/// How a filter is sized.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Size {
    /// `n` expected items at false-positive rate `p`, sized exactly as
    /// Guava's `BloomFilter.create(funnel, n, p)` (bits rounded up to
    /// whole 64-bit words; `n = 0` is treated as 1).
    Rate {
        /// Expected number of distinct items.
        n: u64,
        /// Target false-positive rate, in (0, 1).
        p: f64,
    },
    /// `m` bits and `k` probes per key, as given.
    Bits {
        /// Number of bits.
        m: u64,
        /// Probes per key.
        k: u32,
    },
}

impl Size {
    /// `(m, k)` of this size.
    pub fn resolve(self) -> Result<(u64, u32)> {
        match self {
            Size::Rate { n, p } => {
                let n = i64::try_from(n).map_err(|_| {
                    Error::invalid("n", n, "must be below 2^63")
                })?;
                let s = GuavaSizing::new(n, p)?;
                Ok((s.bit_size, s.hash_functions))
            }
            Size::Bits { m, k } => {
                if m == 0 {
                    return Err(Error::invalid("m", m, "must be at least 1"));
                }
                if k == 0 {
                    return Err(Error::invalid("k", k, "must be at least 1"));
                }
                Ok((m, k))
            }
        }
    }
}

/// Builds a [`BloomFilter`], [`AtomicBloomFilter`] or
/// [`BlockedBloomFilter`] from a [`Config`] and a [`Size`].
///
/// ```
/// use bloomlab_standard::Builder;
/// use bloomlab_hash::{Family, Strategy};
///
/// let mut f = Builder::rate(10_000, 0.01)
///     .family(Family::Murmur3X64_128)
///     .strategy(Strategy::Double)
///     .build()?;
/// f.insert("hello");
/// assert!(f.contains("hello"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Builder {
    config: Config,
    /// Whether the family was chosen ([`Builder::family`],
    /// [`Builder::config`]); if not, each layout takes its own default.
    family_chosen: bool,
    size: Size,
    /// `None`: the scheme's own ([`BlockScheme::default_block_bits`]).
    block_bits: Option<u64>,
    scheme: BlockScheme,
}

impl Builder {
    /// A builder for `n` items at false-positive rate `p` (Guava's sizing).
    pub fn rate(n: u64, p: f64) -> Builder {
        Builder::sized(Size::Rate { n, p })
    }

    /// A builder for `m` bits and `k` probes.
    pub fn bits(m: u64, k: u32) -> Builder {
        Builder::sized(Size::Bits { m, k })
    }

    /// A builder for the given size, with the default configuration.
    pub fn sized(size: Size) -> Builder {
        Builder {
            config: Config::default(),
            family_chosen: false,
            size,
            block_bits: None,
            scheme: BlockScheme::Salted,
        }
    }

    /// Replaces the whole configuration (its family too: a blocked
    /// filter then takes the configuration's family, not
    /// [`DEFAULT_BLOCKED_FAMILY`]).
    pub fn config(mut self, config: Config) -> Builder {
        self.config = config;
        self.family_chosen = true;
        self
    }

    /// Sets the hash family. Without it (or [`Builder::config`]) the
    /// classic filters take [`Config::default`]'s `xxh3-128` and the
    /// blocked filter [`DEFAULT_BLOCKED_FAMILY`] (`xxh3-64`).
    ///
    /// ```
    /// use bloomlab_hash::Family;
    /// use bloomlab_standard::Builder;
    ///
    /// let b = Builder::rate(1000, 0.01);
    /// assert_eq!(b.build()?.config().family, Family::Xxh3_128);
    /// assert_eq!(b.build_blocked()?.family(), Family::Xxh3_64);
    /// let b = b.family(Family::Xxh3_128);
    /// assert_eq!(b.build_blocked()?.family(), Family::Xxh3_128);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn family(mut self, family: Family) -> Builder {
        self.config.family = family;
        self.family_chosen = true;
        self
    }

    /// Sets the seed.
    pub fn seed(mut self, seed: i128) -> Builder {
        self.config.seed = seed;
        self
    }

    /// Sets the index strategy (classic layouts only).
    pub fn strategy(mut self, strategy: Strategy) -> Builder {
        self.config.strategy = strategy;
        self
    }

    /// Sets the range reduction (classic layouts only).
    pub fn reduction(mut self, reduction: Reduction) -> Builder {
        self.config.reduction = reduction;
        self
    }

    /// Sets the block size of a blocked filter (a power of two, at least
    /// 64; default 512, or 256 for [`BlockScheme::ParquetSplit`], which
    /// takes no other).
    pub fn block_bits(mut self, block_bits: u64) -> Builder {
        self.block_bits = Some(block_bits);
        self
    }

    /// Sets how a blocked filter places a key's bits in its block
    /// (default [`BlockScheme::Salted`]).
    pub fn block_scheme(mut self, scheme: BlockScheme) -> Builder {
        self.scheme = scheme;
        self
    }

    /// Builds the classic filter.
    pub fn build(self) -> Result<BloomFilter> {
        let (m, k) = self.size.resolve()?;
        BloomFilter::with_config(self.config, m, k)
    }

    /// Builds the concurrent classic filter.
    pub fn build_atomic(self) -> Result<AtomicBloomFilter> {
        Ok(AtomicBloomFilter::from(self.build()?))
    }

    /// Builds the cache-blocked filter. With [`Size::Rate`] and the
    /// salted scheme, `m` is Guava's rounded up to whole blocks and `k` is
    /// Guava's; the blocked layout then has a somewhat higher
    /// false-positive rate than the classic one (see
    /// [`BlockedBloomFilter`]). With [`Size::Rate`] and
    /// [`BlockScheme::ParquetSplit`], `k` is 8 and the filter has the
    /// fewest blocks whose rate by
    /// [`bloomlab_core::theory::fpr_split_block`] is at most `p`.
    pub fn build_blocked(self) -> Result<BlockedBloomFilter> {
        let block_bits =
            self.block_bits.unwrap_or(self.scheme.default_block_bits());
        let (m, k) = match (self.scheme, self.size) {
            (BlockScheme::ParquetSplit, Size::Rate { n, p }) => {
                (split_bits(n, p)?, SPLIT_K)
            }
            (_, size) => size.resolve()?,
        };
        let family = if self.family_chosen {
            self.config.family
        } else {
            DEFAULT_BLOCKED_FAMILY
        };
        BlockedBloomFilter::with_scheme(
            family,
            self.config.seed,
            m,
            k,
            block_bits,
            self.scheme,
        )
    }
}

/// The bits of the fewest 256-bit split blocks whose false-positive rate
/// for `n` items is at most `p` (`n = 0` is treated as 1, as Guava does).
fn split_bits(n: u64, p: f64) -> Result<u64> {
    use bloomlab_core::theory::fpr_split_block;
    if !(p > 0.0 && p < 1.0) {
        return Err(Error::invalid("p", p, "must be in (0, 1)"));
    }
    let n = n.max(1);
    let rate = |blocks: u64| {
        fpr_split_block(
            blocks * SPLIT_BLOCK_BITS,
            n,
            SPLIT_K,
            SPLIT_BLOCK_BITS,
        )
    };
    // The rate falls as blocks are added; double from 4 bits an item
    // (a rate near 15%), then bisect.
    let (mut lo, mut hi) = (0u64, n.div_ceil(64).min(crate::MAX_SPLIT_BLOCKS));
    while rate(hi)? > p {
        lo = hi;
        hi = hi
            .checked_mul(2)
            .filter(|&b| b <= crate::MAX_SPLIT_BLOCKS)
            .ok_or_else(|| {
                Error::invalid(
                    "p",
                    p,
                    "needs more than 2^32 split blocks for this n",
                )
            })?;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if rate(mid)? > p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(hi * SPLIT_BLOCK_BITS)
}
