//! bloomlab's own file format for scalable filters (variant 4); see
//! `FORMAT.md`.

use bloomlab_core::BitArray;
use bloomlab_core::framing::{Reader, Writer, checksum};
use bloomlab_hash::{Family, Hasher, Reduction};

use crate::config::{
    BLOCK_BITS, Config, Layout, Pairing, Probe, Shape, Sizing,
};
use crate::parts::LayerSpec;
use crate::scalable::{Layer, ScalableBloomFilter};
use crate::{Error, Result};

const MAGIC: &[u8; 8] = b"BLOOMLAB";
const VERSION: u16 = 1;
/// The variant byte of a scalable filter.
pub const VARIANT: u8 = 4;
/// Bytes of a layer record before its words.
const LAYER_RECORD: u64 = 8 + 8 + 8 + 4 + 8 + 8 + 8 + 8;

fn code<T: PartialEq + Copy>(all: &[T], v: T) -> u8 {
    all.iter().position(|&x| x == v).unwrap_or(0) as u8
}

fn decode<T: Copy>(all: &[T], b: u8, what: &'static str) -> Result<T> {
    all.get(b as usize)
        .copied()
        .ok_or_else(|| Error::corrupt(what, format!("unknown code {b}")))
}

/// The error for a bloomlab file of variant `variant` (not 4): the other
/// crates' variants are named with their reader (numbers from their
/// `FORMAT.md`s).
fn other_variant(variant: u8) -> Error {
    let (holds, reader) = match variant {
        0 => (
            "a standard filter (variant 0)",
            "bloomlab_standard::BloomFilter::read",
        ),
        1 => (
            "a blocked filter (variant 1)",
            "bloomlab_standard::BlockedBloomFilter::read",
        ),
        2 => (
            "a counting filter (variant 2)",
            "bloomlab_counting::CountingBloomFilter::read",
        ),
        3 => (
            "a partitioned filter (variant 3)",
            "bloomlab_partitioned::AnyPartitioned::read",
        ),
        _ => {
            return Error::corrupt(
                "variant",
                format!("{variant}: no bloomlab variant, 4 is scalable"),
            );
        }
    };
    Error::WrongVariant { holds, reader }
}

/// Whether `bytes` is exactly one filter in Guava's format (`writeTo`:
/// strategy ordinal 0 or 1, `k ≥ 1`, a big-endian word count `W > 0`,
/// `W` words and nothing else), so that only such a file is called one.
fn is_guava(bytes: &[u8]) -> bool {
    let Some(([ordinal, k, w @ ..], words)) = bytes.split_first_chunk::<6>()
    else {
        return false;
    };
    let w = i32::from_be_bytes(*w);
    *ordinal <= 1
        && *k >= 1
        && w > 0
        && u64::try_from(w).ok().and_then(|w| w.checked_mul(8))
            == Some(words.len() as u64)
}

const LAYOUTS: [Layout; 3] =
    [Layout::Standard, Layout::Partitioned, Layout::Blocked];
const SIZINGS: [Sizing; 3] =
    [Sizing::RedisBloom, Sizing::HalfFill, Sizing::Pybloom];
const PAIRINGS: [Pairing; 2] = [Pairing::Chained, Pairing::Single];
const PROBES: [Probe; 3] =
    [Probe::Double, Probe::EnhancedDouble, Probe::MixedDouble];

impl ScalableBloomFilter {
    /// Writes the filter in bloomlab's own format.
    pub fn write_to<W: std::io::Write>(&self, out: W) -> Result<W> {
        let c = &self.config;
        let mut w = Writer::new(out);
        w.bytes(MAGIC)?;
        w.u16(VERSION)?;
        w.u8(VARIANT)?;
        w.u8(0)?;
        w.name(c.family.name())?;
        w.u64(c.seed)?;
        w.u8(code(&PAIRINGS, c.pairing))?;
        w.u8(code(&PROBES, c.probe))?;
        w.name(c.reduction.name())?;
        w.u8(code(&LAYOUTS, c.layout))?;
        w.u8(code(&SIZINGS, c.sizing))?;
        w.u64(c.initial_capacity)?;
        w.u64(c.error.to_bits())?;
        w.u64(c.first_error.to_bits())?;
        w.u64(c.tightening.to_bits())?;
        w.u64(c.growth)?;
        w.u8(u8::from(c.scaling) | u8::from(c.full_at_half_fill) << 1)?;
        w.u32(self.redis_options)?;
        w.u32(self.redis_growth)?;
        w.u64(self.items)?;
        w.u64(self.skipped)?;
        w.u32(self.layers.len() as u32)?;
        for l in &self.layers {
            w.u64(l.capacity)?;
            w.u64(l.error.to_bits())?;
            w.u64(l.bpe.to_bits())?;
            w.u32(l.k)?;
            w.u64(l.modulus)?;
            w.u64(l.bits())?;
            w.u64(l.count)?;
            w.u64(l.array.words().len() as u64)?;
            w.words(l.array.words().iter().copied())?;
        }
        Ok(w.finish()?)
    }

    /// The filter in bloomlab's own format.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.write_to(Vec::new())
    }

    /// Reads a filter written by [`ScalableBloomFilter::to_bytes`].
    /// Corrupt or truncated input is an error; every length is checked
    /// against the input before anything is allocated. Another bloomlab
    /// variant's file, or a Guava file, is [`Error::WrongVariant`],
    /// naming the reader that takes it.
    pub fn read(bytes: &[u8]) -> Result<Self> {
        // Read in order, every length checked before it is used, the
        // checksum last: a short file says what it lacks, a long one how
        // much is extra, a newer one its version.
        let mut r = Reader::new(bytes);
        if r.take(8, "magic")? != MAGIC {
            if is_guava(bytes) {
                return Err(Error::WrongVariant {
                    holds: "a Guava filter (Guava's BloomFilter.writeTo)",
                    reader: "bloomlab_standard::BloomFilter::read",
                });
            }
            return Err(Error::corrupt("magic", "not a bloomlab file"));
        }
        let version = r.u16("version")?;
        if version != VERSION {
            return Err(Error::corrupt(
                "version",
                format!("{version}: this build reads version {VERSION}"),
            ));
        }
        let variant = r.u8("variant")?;
        if variant != VARIANT {
            return Err(other_variant(variant));
        }
        if r.u8("flags")? != 0 {
            return Err(Error::corrupt("flags", "non-zero"));
        }
        let family = Family::from_name(r.name("family")?)?;
        let seed = r.u64("seed")?;
        let pairing = decode(&PAIRINGS, r.u8("pairing")?, "pairing")?;
        let probe = decode(&PROBES, r.u8("probe")?, "probe")?;
        let reduction = Reduction::from_name(r.name("reduction")?)?;
        let layout = decode(&LAYOUTS, r.u8("layout")?, "layout")?;
        let sizing = decode(&SIZINGS, r.u8("sizing")?, "sizing")?;
        let initial_capacity = r.u64("initial capacity")?;
        let error = f64::from_bits(r.u64("error")?);
        let first_error = f64::from_bits(r.u64("first error")?);
        let tightening = f64::from_bits(r.u64("tightening")?);
        let growth = r.u64("growth")?;
        let flags = r.u8("scaling flags")?;
        if flags & !3 != 0 {
            return Err(Error::corrupt("scaling flags", format!("{flags}")));
        }
        let config = Config {
            initial_capacity,
            error,
            first_error,
            tightening,
            growth,
            scaling: flags & 1 != 0,
            full_at_half_fill: flags & 2 != 0,
            layout,
            sizing,
            family,
            seed,
            pairing,
            probe,
            reduction,
        };
        config.validate()?;
        let redis_options = r.u32("redis options")?;
        // Exactly what the constructors write for this config: options 5
        // or 13; growth `s`, or 2 for a non-scaling filter (`NONSCALING`).
        // Anything else would be exported in a dump that RedisBloom, and
        // this crate's importer, take for another filter (options 0:
        // 32-bit MurmurHash2).
        let want_options = if config.scaling { 5 } else { 13 };
        if redis_options != want_options {
            return Err(Error::corrupt(
                "redis options",
                format!(
                    "{redis_options:#x}: a {}scaling filter has \
                     {want_options:#x}",
                    if config.scaling { "" } else { "non-" }
                ),
            ));
        }
        let redis_growth = r.u32("redis growth")?;
        if u64::from(redis_growth) != growth
            && (config.scaling || redis_growth != 2)
        {
            return Err(Error::corrupt(
                "redis growth",
                if config.scaling {
                    format!("{redis_growth}: the filter grows by {growth}")
                } else {
                    format!(
                        "{redis_growth}: a non-scaling filter with s = \
                         {growth} has {growth} or 2"
                    )
                },
            ));
        }
        let items = r.u64("items")?;
        let skipped = r.u64("skipped")?;
        let n = u64::from(r.u32("layer count")?);
        if n == 0 {
            return Err(Error::corrupt("layer count", "0 layers"));
        }
        if !config.scaling && n != 1 {
            return Err(Error::corrupt(
                "layer count",
                format!("a non-scaling filter has one layer, not {n}"),
            ));
        }
        // A count larger than the file holds is not refused here: a file
        // cut short would then read as a corrupt count, not as truncated.
        // The layers are read until the input runs out (each record
        // checked before its words are allocated, the list never longer
        // than the bytes can hold); a whole file (below) tells a wrong
        // count apart.
        let fit = r.remaining() as u64 / LAYER_RECORD;
        let mut layers = Vec::with_capacity(n.min(fit) as usize);
        let mut prev = None;
        for i in 0..n as usize {
            // Nothing but a checksum of every byte before it left: the
            // file is whole and ends after `i` layers.
            if r.remaining() == 8
                && bytes[r.position()..]
                    == checksum(&bytes[..r.position()]).to_le_bytes()
            {
                return Err(Error::corrupt(
                    "layer count",
                    format!(
                        "{n} layers, but the file ends after {i} and its \
                         checksum"
                    ),
                ));
            }
            let capacity = r.u64("layer capacity")?;
            let lerror = f64::from_bits(r.u64("layer error")?);
            let bpe = f64::from_bits(r.u64("layer bpe")?);
            let k = r.u32("layer k")?;
            let modulus = r.u64("layer modulus")?;
            let bits = r.u64("layer bits")?;
            let count = r.u64("layer item count")?;
            let nwords = r.u64("layer word count")?;
            let consistent = k > 0
                && modulus > 0
                && capacity > 0
                && match layout {
                    Layout::Standard => modulus == bits,
                    Layout::Blocked => {
                        k <= crate::config::MAX_BLOCKED_K
                            && modulus.checked_mul(BLOCK_BITS) == Some(bits)
                    }
                    Layout::Partitioned => {
                        modulus.checked_mul(u64::from(k)) == Some(bits)
                    }
                }
                && nwords == bits.div_ceil(64);
            if !consistent {
                return Err(Error::corrupt(
                    "layer",
                    format!(
                        "k {k}, modulus {modulus}, bits {bits}, \
                         {nwords} words"
                    ),
                ));
            }
            let shape = Shape { bits, modulus, k, bpe };
            LayerSpec::check_stored(
                &config, i, prev, capacity, lerror, &shape,
            )
            .map_err(|why| Error::corrupt("layer", why))?;
            prev = Some((capacity, lerror));
            let words = r.words(nwords, "layer words")?;
            let array = BitArray::from_words(bits, words)?;
            let mut layer =
                Layer::new(capacity, lerror, Shape { bits: 64, ..shape })?;
            layer.ones = array.count_ones();
            layer.array = array;
            layer.count = count;
            layers.push(layer);
        }
        let body = r.position();
        let stored = r.u64("checksum")?;
        if r.remaining() != 0 {
            return Err(Error::corrupt(
                "end",
                format!("{} bytes after the checksum", r.remaining()),
            ));
        }
        if checksum(&bytes[..body]) != stored {
            return Err(Error::corrupt("checksum", "mismatch"));
        }
        let sum = layers.iter().try_fold(0u64, |a, l| a.checked_add(l.count));
        if sum != Some(items) {
            return Err(Error::corrupt("items", "layer counts disagree"));
        }
        let hasher = Hasher::new(family, i128::from(seed))?;
        Ok(ScalableBloomFilter {
            config,
            hasher,
            layers,
            items,
            skipped,
            redis_options,
            redis_growth,
        })
    }
}
