//! bloomlab's own file format for every layout, format detection, and the
//! description `bloomlab inspect` prints. The layout is in `FORMAT.md`.

use std::io::Write;

use bloomlab_core::framing::{Reader, Writer, checksum};
use bloomlab_core::{BitArray, Filter, theory};
use bloomlab_hash::{Family, Reduction, Strategy};

use crate::blocked::BlockScheme;
use crate::{BlockedBloomFilter, BloomFilter, Config, Error, Result, guava};

/// The first 8 bytes of a native file.
pub const MAGIC: [u8; 8] = *b"BLOOMLAB";

/// The format version this build writes and reads.
pub const VERSION: u16 = 1;

/// Variant byte of a classic filter.
const VARIANT_STANDARD: u8 = 0;
/// Variant byte of a blocked filter.
const VARIANT_BLOCKED: u8 = 1;

/// A file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Guava's `writeTo` (classic Guava filters only).
    Guava,
    /// bloomlab's own format (`FORMAT.md`).
    Native,
}

impl Format {
    /// `guava` or `native`.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Guava => "guava",
            Format::Native => "native",
        }
    }

    /// Looks a format up by name.
    pub fn from_name(name: &str) -> Result<Format> {
        match name.trim().to_ascii_lowercase().as_str() {
            "guava" => Ok(Format::Guava),
            "native" => Ok(Format::Native),
            _ => Err(Error::invalid("format", name, "guava or native")),
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Format> {
        Format::from_name(s)
    }
}

/// Any filter of this crate, as read from a file; the CLI's handle.
///
/// ```
/// use bloomlab_standard::{BloomFilter, Format, StandardFilter, read_any};
///
/// let mut f = BloomFilter::new(100, 0.01)?;
/// f.insert("a");
/// let bytes = StandardFilter::from(f).to_bytes(Format::Native)?;
/// let loaded = read_any(&bytes)?;
/// assert_eq!(loaded.format, Format::Native);
/// assert!(loaded.filter.contains_bytes(b"a"));
/// println!("{}", loaded.info());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StandardFilter {
    /// A classic filter (also what an [`crate::AtomicBloomFilter`] saves).
    Classic(BloomFilter),
    /// A cache-blocked filter.
    Blocked(BlockedBloomFilter),
}

impl From<BloomFilter> for StandardFilter {
    fn from(f: BloomFilter) -> StandardFilter {
        StandardFilter::Classic(f)
    }
}

impl From<BlockedBloomFilter> for StandardFilter {
    fn from(f: BlockedBloomFilter) -> StandardFilter {
        StandardFilter::Blocked(f)
    }
}

impl From<crate::AtomicBloomFilter> for StandardFilter {
    fn from(f: crate::AtomicBloomFilter) -> StandardFilter {
        StandardFilter::Classic(f.into_bloom_filter())
    }
}

impl StandardFilter {
    /// The filter through the runner's trait.
    pub fn as_filter(&self) -> &dyn Filter {
        match self {
            StandardFilter::Classic(f) => f,
            StandardFilter::Blocked(f) => f,
        }
    }

    /// The filter through the runner's trait, mutably.
    pub fn as_filter_mut(&mut self) -> &mut dyn Filter {
        match self {
            StandardFilter::Classic(f) => f,
            StandardFilter::Blocked(f) => f,
        }
    }

    /// Inserts a key given as bytes; returns whether any bit changed.
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        self.as_filter_mut().insert_bytes(key)
    }

    /// Whether a key given as bytes may have been inserted.
    pub fn contains_bytes(&self, key: &[u8]) -> bool {
        self.as_filter().contains_bytes(key)
    }

    /// Serializes in `format` (Guava's only for Guava-compatible classic
    /// filters).
    pub fn write<W: Write>(&self, format: Format, out: W) -> Result<()> {
        match (format, self) {
            (Format::Guava, StandardFilter::Classic(f)) => {
                guava::write_guava(f, out)
            }
            (Format::Guava, StandardFilter::Blocked(_)) => {
                Err(Error::NotGuavaCompatible {
                    reason: "Guava has no blocked filter".to_string(),
                })
            }
            (Format::Native, _) => write_native(self, out),
        }
    }

    /// Serializes into a vector.
    pub fn to_bytes(&self, format: Format) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write(format, &mut out)?;
        Ok(out)
    }

    /// What `bloomlab inspect` prints, for a filter read as `format`.
    pub fn describe(&self, format: Format) -> Info {
        let f = self.as_filter();
        let (family, strategy, reduction, seed, block_bits) = match self {
            StandardFilter::Classic(c) => {
                let cfg = c.config();
                (
                    cfg.family.name(),
                    cfg.strategy.name(),
                    cfg.reduction.name(),
                    cfg.seed as u64,
                    None,
                )
            }
            StandardFilter::Blocked(b) => (
                b.family().name(),
                b.scheme().name(),
                Reduction::MultiplyShift.name(),
                b.seed(),
                Some(b.block_bits()),
            ),
        };
        let bits_set = f.bits_set();
        Info {
            format,
            variant: f.variant(),
            family,
            strategy,
            reduction,
            seed,
            m: f.bits(),
            k: f.hash_count(),
            block_bits,
            bits_set,
            // Every bit set: the estimate is infinite (Guava throws).
            estimated_count: f.estimated_count().is_finite().then(
                || match self {
                    StandardFilter::Classic(_) => {
                        theory::guava_approximate_element_count(
                            bits_set,
                            f.bits(),
                            f.hash_count(),
                        )
                    }
                    // Guava has no blocked filter, and its formula undercounts
                    // one (see `BlockedBloomFilter::approximate_element_count`):
                    // the layout's own estimate, rounded as Guava rounds.
                    StandardFilter::Blocked(_) => {
                        f.estimated_count().round() as i64
                    }
                },
            ),
            expected_fpp: f.expected_fpp(),
            bytes_of_memory: f.bytes_of_memory(),
        }
    }
}

impl Filter for StandardFilter {
    fn variant(&self) -> &'static str {
        self.as_filter().variant()
    }
    fn insert_bytes(&mut self, key: &[u8]) -> bool {
        self.as_filter_mut().insert_bytes(key)
    }
    fn contains_bytes(&self, key: &[u8]) -> bool {
        self.as_filter().contains_bytes(key)
    }
    fn bits(&self) -> u64 {
        self.as_filter().bits()
    }
    fn hash_count(&self) -> u32 {
        self.as_filter().hash_count()
    }
    fn bits_set(&self) -> u64 {
        self.as_filter().bits_set()
    }
    fn estimated_count(&self) -> f64 {
        self.as_filter().estimated_count()
    }
    fn expected_fpp(&self) -> f64 {
        self.as_filter().expected_fpp()
    }
    fn bytes_of_memory(&self) -> usize {
        self.as_filter().bytes_of_memory()
    }
    fn insert_u64_batch(&mut self, keys: &[u64]) -> usize {
        self.as_filter_mut().insert_u64_batch(keys)
    }
    fn contains_u64_batch(&self, keys: &[u64], out: &mut [bool]) {
        self.as_filter().contains_u64_batch(keys, out);
    }
    fn contains_batch(&self, keys: &[&[u8]], out: &mut [bool]) {
        self.as_filter().contains_batch(keys, out);
    }
}

/// A description of a filter: what `bloomlab inspect` prints.
#[derive(Debug, Clone, PartialEq)]
pub struct Info {
    /// The format it was read in.
    pub format: Format,
    /// `standard` or `blocked`.
    pub variant: &'static str,
    /// Hash family name.
    pub family: &'static str,
    /// Index strategy name (`blocked-salted-multiply` for blocked).
    pub strategy: &'static str,
    /// Range reduction name.
    pub reduction: &'static str,
    /// The normalised seed.
    pub seed: u64,
    /// Bits.
    pub m: u64,
    /// Probes per key.
    pub k: u32,
    /// Block size of a blocked filter.
    pub block_bits: Option<u64>,
    /// Bits set.
    pub bits_set: u64,
    /// Estimated number of items: Guava's `approximateElementCount` for
    /// a classic filter, [`Filter::estimated_count`] rounded for a
    /// blocked one; `None` when it is infinite (every bit set, where
    /// Guava's throws).
    pub estimated_count: Option<i64>,
    /// [`Filter::expected_fpp`]: Guava's `expectedFpp`, `(bits set /
    /// m)^k`, for a classic filter, the mean of the blocks' own rates for
    /// a blocked one.
    pub expected_fpp: f64,
    /// Bytes of memory the bits occupy.
    pub bytes_of_memory: usize,
}

impl std::fmt::Display for Info {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "format: {}", self.format)?;
        writeln!(f, "variant: {}", self.variant)?;
        writeln!(f, "hash: {}", self.family)?;
        writeln!(f, "seed: {}", self.seed)?;
        writeln!(f, "strategy: {}", self.strategy)?;
        writeln!(f, "reduction: {}", self.reduction)?;
        writeln!(f, "m: {}", self.m)?;
        writeln!(f, "k: {}", self.k)?;
        if let Some(b) = self.block_bits {
            writeln!(f, "block bits: {b}")?;
        }
        writeln!(f, "bits set: {}", self.bits_set)?;
        writeln!(f, "bytes of memory: {}", self.bytes_of_memory)?;
        match self.estimated_count {
            Some(n) => writeln!(f, "estimated count: {n}")?,
            // As the other variants print an infinite estimate.
            None => writeln!(f, "estimated count: inf")?,
        }
        write!(f, "expected fpp: {:e}", self.expected_fpp)
    }
}

/// A filter and the format it was read in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The filter.
    pub filter: StandardFilter,
    /// The format detected.
    pub format: Format,
}

impl Loaded {
    /// [`StandardFilter::describe`] with the detected format.
    pub fn info(&self) -> Info {
        self.filter.describe(self.format)
    }
}

/// Detects the format and reads the filter: bloomlab's native format
/// (starts with [`MAGIC`]) or Guava's (starts with strategy ordinal 0 or
/// 1).
pub fn read_any(bytes: &[u8]) -> Result<Loaded> {
    // A native file cut inside its magic is a short file, not an unknown
    // format.
    if !bytes.is_empty()
        && bytes.len() < MAGIC.len()
        && MAGIC.starts_with(bytes)
    {
        return Err(Error::Truncated {
            what: "magic",
            offset: 0,
            needed: MAGIC.len() as u64,
            available: bytes.len() as u64,
        });
    }
    if bytes.starts_with(&MAGIC) {
        return Ok(Loaded {
            filter: read_native(bytes)?,
            format: Format::Native,
        });
    }
    match bytes.first() {
        Some(0 | 1) => Ok(Loaded {
            filter: StandardFilter::Classic(guava::read_guava(bytes)?),
            format: Format::Guava,
        }),
        _ => {
            let head: String =
                bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
            Err(Error::UnknownFormat(if head.is_empty() {
                "(empty input)".to_string()
            } else {
                head
            }))
        }
    }
}

/// Writes a filter in bloomlab's native format (`FORMAT.md`).
pub fn write_native<W: Write>(f: &StandardFilter, out: W) -> Result<()> {
    match f {
        StandardFilter::Classic(c) => write_classic(c, out),
        StandardFilter::Blocked(b) => write_blocked(b, out),
    }
}

/// [`write_native`] of a classic filter, borrowed.
fn write_classic<W: Write>(c: &BloomFilter, out: W) -> Result<()> {
    let cfg = c.config();
    let mut w = Writer::new(out);
    w.bytes(&MAGIC)?;
    w.u16(VERSION)?;
    w.u8(VARIANT_STANDARD)?;
    w.u8(0)?;
    w.name(cfg.family.name())?;
    w.name(cfg.strategy.name())?;
    w.name(cfg.reduction.name())?;
    w.u64(cfg.seed as u64)?;
    w.u64(c.bits())?;
    w.u32(c.hash_count())?;
    w.u64(0)?;
    let words = c.bit_array().words();
    w.u64(words.len() as u64)?;
    w.words(words.iter().copied())?;
    w.finish()?;
    Ok(())
}

/// [`write_native`] of a blocked filter, borrowed.
fn write_blocked<W: Write>(b: &BlockedBloomFilter, out: W) -> Result<()> {
    let mut w = Writer::new(out);
    w.bytes(&MAGIC)?;
    w.u16(VERSION)?;
    w.u8(VARIANT_BLOCKED)?;
    w.u8(0)?;
    w.name(b.family().name())?;
    w.name(b.scheme().name())?;
    w.name(Reduction::MultiplyShift.name())?;
    w.u64(b.seed())?;
    w.u64(b.bits())?;
    w.u32(b.hash_count())?;
    w.u64(b.block_bits())?;
    w.u64(b.bits() / 64)?;
    w.words(b.words())?;
    w.finish()?;
    Ok(())
}

/// Bytes to reserve for a file of `words` words: the header is short.
fn file_capacity(words: u64) -> usize {
    usize::try_from(words.saturating_mul(8)).unwrap_or(0).saturating_add(128)
}

impl BloomFilter {
    /// Writes the filter in bloomlab's format (`FORMAT.md`), whatever
    /// its configuration; [`guava::write_guava`] writes Guava's.
    pub fn write<W: Write>(&self, out: W) -> Result<()> {
        write_classic(self, out)
    }

    /// The filter in bloomlab's format, as bytes ([`write`](Self::write)).
    ///
    /// ```
    /// use bloomlab_standard::BloomFilter;
    ///
    /// let mut f = BloomFilter::new(1000, 0.01)?;
    /// f.insert("alice");
    /// let bytes = f.to_bytes()?;
    /// let back = BloomFilter::read(&bytes)?;
    /// assert_eq!(back, f);
    /// assert!(back.contains("alice"));
    /// # Ok::<(), bloomlab_standard::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(file_capacity(self.bits() / 64));
        self.write(&mut out)?;
        Ok(out)
    }

    /// Reads a classic filter from bloomlab's format or Guava's (told
    /// apart by their first bytes, as [`read_any`]). A file holding a
    /// blocked filter is [`Error::WrongLayout`]; a corrupt or truncated
    /// one is an error, never a panic (see [`read_native`]).
    pub fn read(bytes: &[u8]) -> Result<BloomFilter> {
        match read_any(bytes)?.filter {
            StandardFilter::Classic(f) => Ok(f),
            StandardFilter::Blocked(_) => Err(Error::WrongLayout {
                expected: "classic",
                found: "blocked",
                hint: "BlockedBloomFilter::read",
            }),
        }
    }
}

impl BlockedBloomFilter {
    /// Writes the filter in bloomlab's format (`FORMAT.md`).
    pub fn write<W: Write>(&self, out: W) -> Result<()> {
        write_blocked(self, out)
    }

    /// The filter in bloomlab's format, as bytes ([`write`](Self::write)).
    ///
    /// ```
    /// use bloomlab_standard::BlockedBloomFilter;
    ///
    /// let mut f = BlockedBloomFilter::new(1000, 0.01)?;
    /// f.insert(&42u64);
    /// let back = BlockedBloomFilter::read(&f.to_bytes()?)?;
    /// assert_eq!(back, f);
    /// assert!(back.contains(&42u64));
    /// # Ok::<(), bloomlab_standard::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(file_capacity(self.bits() / 64));
        self.write(&mut out)?;
        Ok(out)
    }

    /// Reads a blocked filter from bloomlab's format. A file holding a
    /// classic filter (or Guava's) is [`Error::WrongLayout`]; a corrupt
    /// or truncated one is an error, never a panic (see
    /// [`read_native`]).
    pub fn read(bytes: &[u8]) -> Result<BlockedBloomFilter> {
        match read_any(bytes)?.filter {
            StandardFilter::Blocked(f) => Ok(f),
            StandardFilter::Classic(_) => Err(Error::WrongLayout {
                expected: "blocked",
                found: "classic",
                hint: "BloomFilter::read",
            }),
        }
    }
}

/// Reads a filter in bloomlab's native format. Every length is checked
/// against the input before anything is allocated; a bad magic, version,
/// variant, name or parameter, a truncated input, trailing bytes or a
/// checksum mismatch is an error.
pub fn read_native(bytes: &[u8]) -> Result<StandardFilter> {
    let mut r = Reader::new(bytes);
    let magic = r.take(8, "magic")?;
    if magic != MAGIC {
        let head: String = magic.iter().map(|b| format!("{b:02x}")).collect();
        return Err(Error::UnknownFormat(head));
    }
    let version = r.u16("format version")?;
    if version != VERSION {
        return Err(Error::UnsupportedVersion(version));
    }
    let variant = r.u8("variant")?;
    if variant > VARIANT_BLOCKED {
        return Err(Error::UnknownVariant(variant));
    }
    let flags = r.u8("flags")?;
    if flags != 0 {
        return Err(Error::corrupt("flags", flags, "must be 0 in version 1"));
    }
    let family = Family::from_name(r.name("family")?)?;
    let strategy_name = r.name("strategy")?;
    let reduction = Reduction::from_name(r.name("reduction")?)?;
    let seed = r.u64("seed")?;
    let m = r.u64("m")?;
    let k = r.u32("k")?;
    let block_bits = r.u64("block bits")?;
    let words = r.u64("word count")?;
    // The word count against m first: a damaged count in a whole file
    // would otherwise read as trailing bytes or a truncated file.
    let fits = if variant == VARIANT_STANDARD {
        m.div_ceil(64) == words
    } else {
        words.checked_mul(64) == Some(m)
    };
    if !fits {
        return Err(Error::corrupt("word count", words, "does not match m"));
    }
    // Check the whole length (words + checksum) before allocating.
    let body = words.checked_mul(8).and_then(|b| b.checked_add(8));
    let available = r.remaining() as u64;
    match body {
        Some(need) if need <= available => {
            if need < available {
                return Err(Error::TrailingBytes {
                    expected: r.position() as u64 + need,
                    extra: available - need,
                });
            }
        }
        _ => {
            return Err(Error::Truncated {
                what: "words and checksum",
                offset: r.position() as u64,
                needed: body.unwrap_or(u64::MAX),
                available,
            });
        }
    }
    let end = bytes.len() - 8;
    let stored = {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[end..]);
        u64::from_le_bytes(b)
    };
    let computed = checksum(&bytes[..end]);
    if stored != computed {
        return Err(Error::Checksum { stored, computed });
    }
    let data = r.words(words, "words")?;
    let seed = i128::from(seed);
    match variant {
        VARIANT_STANDARD => {
            let strategy = Strategy::from_name(strategy_name)?;
            if block_bits != 0 {
                return Err(Error::corrupt(
                    "block bits",
                    block_bits,
                    "must be 0 for a standard filter",
                ));
            }
            let config = Config { family, seed, strategy, reduction };
            let bits = BitArray::from_words(m, data)?;
            Ok(StandardFilter::Classic(BloomFilter::from_bit_array(
                config, k, bits,
            )?))
        }
        _ => {
            let scheme = BlockScheme::from_name(strategy_name)
                .filter(|s| s.name() == strategy_name)
                .ok_or_else(|| {
                    Error::corrupt(
                        "strategy",
                        strategy_name,
                        "a blocked filter uses blocked-salted-multiply or parquet-split-block",
                    )
                })?;
            if reduction != Reduction::MultiplyShift {
                return Err(Error::corrupt(
                    "reduction",
                    reduction.name(),
                    "a blocked filter uses multiply-shift",
                ));
            }
            let b = BlockedBloomFilter::from_words_with_scheme(
                family, seed, k, block_bits, scheme, &data,
            )?;
            Ok(StandardFilter::Blocked(b))
        }
    }
}
