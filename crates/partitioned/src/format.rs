//! bloomlab's own file format for partitioned filters and hutool's
//! presets (`FORMAT.md`), and what `bloomlab inspect` shows.

use std::io::Write;

use bloomlab_core::framing::{Reader, Writer, checksum};
use bloomlab_core::{BitArray, Filter};
use bloomlab_hash::{Family, Reduction, Strategy};

use crate::partitioned::MAX_SLICES;
use crate::{
    Config, Error, HutoolBitMap, HutoolBitSet, HutoolFilterClass, Layout,
    PartitionedBloomFilter, Result, SliceReduction, SliceSpec,
};

/// The first 8 bytes of a bloomlab file (shared by every variant).
pub const MAGIC: [u8; 8] = *b"BLOOMLAB";

/// The format version this build writes and reads.
pub const VERSION: u16 = 1;

/// The variant byte of a partitioned filter (0 = standard, 1 = blocked,
/// 2 = counting, 3 = partitioned, 4 = scalable).
pub const VARIANT_PARTITIONED: u8 = 3;

const PRESET_NONE: u8 = 0;
const PRESET_HUTOOL_BITMAP: u8 = 1;
const PRESET_HUTOOL_BITSET: u8 = 2;

const LAYOUT_STRATEGY: u8 = 0;
const LAYOUT_SLICES: u8 = 1;

/// One of this crate's filters, borrowed: what [`write_file`] writes,
/// so that each type saves itself without a copy.
#[derive(Clone, Copy)]
enum Borrowed<'a> {
    General(&'a PartitionedBloomFilter),
    BitMap(&'a HutoolBitMap),
    BitSet(&'a HutoolBitSet),
}

/// Writes the file of `f` to `out` and returns it.
fn write_file<W: Write>(f: Borrowed<'_>, out: W) -> Result<W> {
    let mut w = Writer::new(out);
    w.bytes(&MAGIC)?;
    w.u16(VERSION)?;
    w.u8(VARIANT_PARTITIONED)?;
    w.u8(0)?;
    let bits = match f {
        Borrowed::General(f) => {
            w.u8(PRESET_NONE)?;
            write_layout(&mut w, &f.layout())?;
            f.bit_array()
        }
        Borrowed::BitMap(f) => {
            w.u8(PRESET_HUTOOL_BITMAP)?;
            w.i32(f.m())?;
            w.u32(f.filters().len() as u32)?;
            for &(class, size) in f.filters() {
                w.name(class.java_name())?;
                w.u64(size as u64)?;
            }
            f.as_partitioned().bit_array()
        }
        Borrowed::BitSet(f) => {
            w.u8(PRESET_HUTOOL_BITSET)?;
            w.i32(f.c())?;
            w.i32(f.n())?;
            w.i32(f.k())?;
            f.bit_array()
        }
    };
    w.u64(bits.bit_len())?;
    w.u64(bits.words().len() as u64)?;
    w.words(bits.words().iter().copied())?;
    Ok(w.finish()?)
}

/// The name a file's filter goes by in [`Error::WrongPreset`].
fn kind(f: &AnyPartitioned) -> &'static str {
    f.preset().unwrap_or("general partitioned")
}

/// Saving and reading each filter type by itself: the file of
/// [`AnyPartitioned`] holding it.
macro_rules! file_methods {
    ($ty:ty, $variant:ident, $borrowed:ident, $name:literal) => {
        impl $ty {
            /// The filter's file (`FORMAT.md`), as
            /// [`AnyPartitioned::to_bytes`] writes it.
            pub fn to_bytes(&self) -> Result<Vec<u8>> {
                write_file(Borrowed::$borrowed(self), Vec::new())
            }

            /// Reads a file holding this type of filter (see
            /// [`AnyPartitioned::read`]); a file of another of this
            /// crate's filters is [`Error::WrongPreset`].
            pub fn read(bytes: &[u8]) -> Result<Self> {
                match AnyPartitioned::read(bytes)? {
                    AnyPartitioned::$variant(f) => Ok(f),
                    other => Err(Error::WrongPreset {
                        expected: $name,
                        found: kind(&other),
                    }),
                }
            }
        }
    };
}

file_methods!(PartitionedBloomFilter, General, General, "general partitioned");
file_methods!(HutoolBitMap, HutoolBitMap, BitMap, "hutool-bitmap");
file_methods!(HutoolBitSet, HutoolBitSet, BitSet, "hutool-bitset");

/// Any filter of this crate: what a file holds and what the CLI handles.
///
/// ```
/// use bloomlab_partitioned::{AnyPartitioned, HutoolBitSet};
///
/// let mut f = HutoolBitSet::new(1000, 500, 8)?;
/// f.add("a");
/// let bytes = AnyPartitioned::from(f).to_bytes()?;
/// let back = AnyPartitioned::read(&bytes)?;
/// assert_eq!(back.preset(), Some("hutool-bitset"));
/// assert!(back.as_filter().contains_bytes(b"a"));
/// # Ok::<(), bloomlab_partitioned::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnyPartitioned {
    /// A general partitioned filter.
    General(PartitionedBloomFilter),
    /// hutool's `BitMapBloomFilter`.
    HutoolBitMap(HutoolBitMap),
    /// hutool's `BitSetBloomFilter`.
    HutoolBitSet(HutoolBitSet),
}

impl From<PartitionedBloomFilter> for AnyPartitioned {
    fn from(f: PartitionedBloomFilter) -> AnyPartitioned {
        AnyPartitioned::General(f)
    }
}

impl From<HutoolBitMap> for AnyPartitioned {
    fn from(f: HutoolBitMap) -> AnyPartitioned {
        AnyPartitioned::HutoolBitMap(f)
    }
}

impl From<HutoolBitSet> for AnyPartitioned {
    fn from(f: HutoolBitSet) -> AnyPartitioned {
        AnyPartitioned::HutoolBitSet(f)
    }
}

impl AnyPartitioned {
    /// The filter through the runner's trait.
    pub fn as_filter(&self) -> &dyn Filter {
        match self {
            AnyPartitioned::General(f) => f,
            AnyPartitioned::HutoolBitMap(f) => f,
            AnyPartitioned::HutoolBitSet(f) => f,
        }
    }

    /// The filter through the runner's trait, mutably.
    pub fn as_filter_mut(&mut self) -> &mut dyn Filter {
        match self {
            AnyPartitioned::General(f) => f,
            AnyPartitioned::HutoolBitMap(f) => f,
            AnyPartitioned::HutoolBitSet(f) => f,
        }
    }

    /// The preset's name (`hutool-bitmap`, `hutool-bitset`), if any.
    pub fn preset(&self) -> Option<&'static str> {
        match self {
            AnyPartitioned::General(_) => None,
            AnyPartitioned::HutoolBitMap(_) => Some("hutool-bitmap"),
            AnyPartitioned::HutoolBitSet(_) => Some("hutool-bitset"),
        }
    }

    /// The file bytes (`FORMAT.md`).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.write_to(Vec::new())
    }

    /// Writes the file to `out` and returns it.
    pub fn write_to<W: Write>(&self, out: W) -> Result<W> {
        write_file(self.borrowed(), out)
    }

    fn borrowed(&self) -> Borrowed<'_> {
        match self {
            AnyPartitioned::General(f) => Borrowed::General(f),
            AnyPartitioned::HutoolBitMap(f) => Borrowed::BitMap(f),
            AnyPartitioned::HutoolBitSet(f) => Borrowed::BitSet(f),
        }
    }

    /// Reads a file. Never panics, and allocates nothing the input does
    /// not hold: every corruption is an [`Error`] (or, for a change the
    /// checksum cannot see, a valid filter).
    pub fn read(bytes: &[u8]) -> Result<AnyPartitioned> {
        let mut r = Reader::new(bytes);
        let magic = r.take(8, "magic")?;
        if magic != MAGIC {
            return Err(Error::UnknownFormat(hex(magic)));
        }
        let version = r.u16("version")?;
        if version != VERSION {
            return Err(Error::UnsupportedVersion(version));
        }
        let variant = r.u8("variant")?;
        if variant != VARIANT_PARTITIONED {
            return Err(Error::WrongVariant(variant));
        }
        let flags = r.u8("flags")?;
        if flags != 0 {
            return Err(Error::corrupt("flags", flags, "must be 0"));
        }
        let preset = read_preset(&mut r)?;
        let total = r.u64("bits")?;
        if total != preset.bits() {
            // The header before it gives the size (slices, or k · s, or
            // hutool's c · k); say what it gives.
            return Err(Error::Corrupt {
                what: "bits",
                value: format!("{total} (the layout gives {})", preset.bits()),
                reason: "does not match the layout stored before it",
            });
        }
        let count = r.u64("word count")?;
        if count != total.div_ceil(64) {
            return Err(Error::corrupt("word count", count, "must be ⌈m/64⌉"));
        }
        // The words and the checksum must be in the input before a single
        // word is allocated.
        let needed = count.checked_mul(8).and_then(|b| b.checked_add(8));
        if needed.is_none_or(|n| n > r.remaining() as u64) {
            return Err(Error::Truncated {
                what: "words and checksum",
                offset: r.position() as u64,
                needed: needed.unwrap_or(u64::MAX),
                available: r.remaining() as u64,
            });
        }
        let words = r.words(count, "words")?;
        let body = r.position();
        let stored = r.u64("checksum")?;
        if r.remaining() != 0 {
            return Err(Error::TrailingBytes {
                expected: r.position() as u64,
                extra: r.remaining() as u64,
            });
        }
        let computed = checksum(&bytes[..body]);
        if stored != computed {
            return Err(Error::Checksum { stored, computed });
        }
        let bits = BitArray::from_words(total, words)?;
        preset.build(bits)
    }

    /// What `bloomlab inspect` prints.
    pub fn info(&self) -> Info {
        let f = self.as_filter();
        // (hash, seed, strategy, reduction, constructor)
        let (hash, seed, strategy, reduction, constructor) = match self {
            AnyPartitioned::General(p) => match p.layout() {
                Layout::Strategy { config, .. } => (
                    config.family.name().to_string(),
                    Some(config.seed),
                    config.strategy.to_string(),
                    Some(config.reduction.to_string()),
                    None,
                ),
                Layout::Slices(specs) => {
                    let seed = specs.first().map(|s| s.seed);
                    let shared = specs.iter().all(|s| Some(s.seed) == seed);
                    (
                        specs
                            .iter()
                            .map(|s| s.family.name())
                            .collect::<Vec<_>>()
                            .join(","),
                        seed.filter(|_| shared),
                        "one hash per slice".to_string(),
                        None,
                        None,
                    )
                }
            },
            AnyPartitioned::HutoolBitMap(b) => (
                b.filters()
                    .iter()
                    .map(|(c, _)| c.hash().name())
                    .collect::<Vec<_>>()
                    .join(","),
                None,
                "one hash per filter, |F rem size|".to_string(),
                None,
                Some(b.constructor()),
            ),
            AnyPartitioned::HutoolBitSet(b) => (
                "hutool-rs,js,elf,bkdr,ap,djb,sdbm,pjw".to_string(),
                None,
                "hash i, |h rem size| (int)".to_string(),
                None,
                Some(b.constructor()),
            ),
        };
        Info {
            format: "native",
            variant: f.variant(),
            preset: self.preset(),
            constructor,
            hash,
            seed,
            strategy,
            reduction,
            m: f.bits(),
            k: f.hash_count(),
            bits_set: f.bits_set(),
            bytes_of_memory: f.bytes_of_memory(),
            estimated_count: f.estimated_count(),
            expected_fpp: f.expected_fpp(),
        }
    }
}

/// What `bloomlab inspect` shows about a partitioned filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Info {
    /// Always `native`.
    pub format: &'static str,
    /// Always `partitioned`.
    pub variant: &'static str,
    /// `hutool-bitmap`, `hutool-bitset` or none.
    pub preset: Option<&'static str>,
    /// For a preset, the Java constructor call it reproduces.
    pub constructor: Option<String>,
    /// Hash family (or families, comma separated).
    pub hash: String,
    /// The hash seed (for slices, the one they share); none for hutool's
    /// seedless presets.
    pub seed: Option<u64>,
    /// Index strategy (for slices and presets, how each hash is used).
    pub strategy: String,
    /// Range reduction of an index strategy.
    pub reduction: Option<String>,
    /// Total bits.
    pub m: u64,
    /// Probes per key.
    pub k: u32,
    /// Bits set.
    pub bits_set: u64,
    /// Bytes the bits take in memory (whole words).
    pub bytes_of_memory: usize,
    /// Keys inserted, estimated from the fill.
    pub estimated_count: f64,
    /// False-positive probability implied by the fill.
    pub expected_fpp: f64,
}

impl std::fmt::Display for Info {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "format: {}", self.format)?;
        writeln!(f, "variant: {}", self.variant)?;
        if let Some(p) = self.preset {
            match &self.constructor {
                Some(c) => writeln!(f, "preset: {p} ({c})")?,
                None => writeln!(f, "preset: {p}")?,
            }
        }
        writeln!(f, "hash: {}", self.hash)?;
        if let Some(seed) = self.seed {
            writeln!(f, "seed: {seed}")?;
        }
        writeln!(f, "strategy: {}", self.strategy)?;
        if let Some(r) = &self.reduction {
            writeln!(f, "reduction: {r}")?;
        }
        writeln!(f, "m: {}", self.m)?;
        writeln!(f, "k: {}", self.k)?;
        writeln!(f, "bits set: {}", self.bits_set)?;
        writeln!(f, "bytes of memory: {}", self.bytes_of_memory)?;
        writeln!(f, "estimated count: {:.1}", self.estimated_count)?;
        write!(f, "expected fpp: {:e}", self.expected_fpp)
    }
}

/// The parameters read before the bits.
enum Preset {
    General(Layout),
    BitMap(i32, Vec<SliceSpec>),
    BitSet(i32, i32, i32),
}

impl Preset {
    /// The bits the parameters call for (`u64::MAX` when they overflow,
    /// which never equals a stored total that passes the word check).
    fn bits(&self) -> u64 {
        let sum = |specs: &[SliceSpec]| {
            specs.iter().try_fold(0u64, |a, s| a.checked_add(s.bits))
        };
        let total = match self {
            Preset::General(Layout::Strategy { k, slice_bits, .. }) => {
                slice_bits.checked_mul(u64::from(*k))
            }
            Preset::General(Layout::Slices(specs)) => sum(specs),
            Preset::BitMap(_, specs) => sum(specs),
            Preset::BitSet(c, _, k) => {
                c.checked_mul(*k).and_then(|s| u64::try_from(s).ok())
            }
        };
        total.unwrap_or(u64::MAX)
    }

    fn build(self, bits: BitArray) -> Result<AnyPartitioned> {
        Ok(match self {
            Preset::General(layout) => AnyPartitioned::General(
                PartitionedBloomFilter::from_parts(layout, bits)?,
            ),
            Preset::BitMap(m, specs) => {
                let inner = PartitionedBloomFilter::from_parts(
                    Layout::Slices(specs),
                    bits,
                )?;
                AnyPartitioned::HutoolBitMap(HutoolBitMap::from_parts(
                    m, inner,
                )?)
            }
            Preset::BitSet(c, n, k) => AnyPartitioned::HutoolBitSet(
                HutoolBitSet::from_parts(c, n, k, bits)?,
            ),
        })
    }
}

fn write_layout<W: Write>(w: &mut Writer<W>, layout: &Layout) -> Result<()> {
    match layout {
        Layout::Strategy { config, k, slice_bits } => {
            w.u8(LAYOUT_STRATEGY)?;
            w.name(config.family.name())?;
            w.name(config.strategy.name())?;
            w.name(config.reduction.name())?;
            w.u64(config.seed)?;
            w.u32(*k)?;
            w.u64(*slice_bits)?;
        }
        Layout::Slices(specs) => {
            w.u8(LAYOUT_SLICES)?;
            w.u32(specs.len() as u32)?;
            for s in specs {
                w.name(s.family.name())?;
                w.name(s.reduction.name())?;
                w.u64(s.seed)?;
                w.u64(s.bits)?;
            }
        }
    }
    Ok(())
}

fn read_count(r: &mut Reader<'_>, what: &'static str) -> Result<u32> {
    let k = r.u32(what)?;
    if k == 0 || k > MAX_SLICES {
        return Err(Error::corrupt(what, k, "must be in 1..=4096"));
    }
    Ok(k)
}

fn read_preset(r: &mut Reader<'_>) -> Result<Preset> {
    let preset = r.u8("preset")?;
    match preset {
        PRESET_NONE => {
            let layout = r.u8("layout")?;
            match layout {
                LAYOUT_STRATEGY => {
                    let family = Family::from_name(r.name("family")?)?;
                    let strategy = Strategy::from_name(r.name("strategy")?)?;
                    let reduction =
                        Reduction::from_name(r.name("reduction")?)?;
                    let seed = r.u64("seed")?;
                    let k = read_count(r, "k")?;
                    let slice_bits = r.u64("slice bits")?;
                    let config = Config { family, seed, strategy, reduction };
                    Ok(Preset::General(Layout::Strategy {
                        config,
                        k,
                        slice_bits,
                    }))
                }
                LAYOUT_SLICES => {
                    let k = read_count(r, "k")?;
                    // Each record takes at least 18 bytes of input, so
                    // the vector grows only as far as the input goes.
                    let mut specs = Vec::new();
                    for _ in 0..k {
                        let family = Family::from_name(r.name("family")?)?;
                        let reduction =
                            SliceReduction::from_name(r.name("reduction")?)?;
                        let seed = r.u64("seed")?;
                        let bits = r.u64("slice bits")?;
                        specs.push(SliceSpec {
                            family,
                            seed,
                            reduction,
                            bits,
                        });
                    }
                    Ok(Preset::General(Layout::Slices(specs)))
                }
                other => {
                    Err(Error::corrupt("layout", other, "must be 0 or 1"))
                }
            }
        }
        PRESET_HUTOOL_BITMAP => {
            let m = r.i32("m")?;
            let k = read_count(r, "filter count")?;
            let mut specs = Vec::new();
            for _ in 0..k {
                let class = HutoolFilterClass::from_name(r.name("filter")?)?;
                let size = r.u64("filter size")?;
                specs.push(class.slice(size));
            }
            Ok(Preset::BitMap(m, specs))
        }
        PRESET_HUTOOL_BITSET => {
            let c = r.i32("c")?;
            let n = r.i32("n")?;
            let k = r.i32("k")?;
            Ok(Preset::BitSet(c, n, k))
        }
        other => Err(Error::corrupt("preset", other, "must be 0, 1 or 2")),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
