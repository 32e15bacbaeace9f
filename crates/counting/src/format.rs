//! bloomlab's own file format for counting filters (`FORMAT.md`), and
//! what `bloomlab inspect` shows.

use std::io::Write;

use bloomlab_core::framing::{Reader, Writer, checksum};
use bloomlab_hash::{Family, Reduction, Strategy};
use bloomlab_standard::Config;

use crate::filter::Stats;
use crate::{CounterWidth, CountingBloomFilter, Error, Result};

/// The first 8 bytes of a bloomlab file (shared by every variant).
pub const MAGIC: [u8; 8] = *b"BLOOMLAB";

/// The format version this build writes and reads.
pub const VERSION: u16 = 1;

/// The variant byte of a counting filter (0 = standard, 1 = blocked,
/// 2 = counting, 3 = partitioned, 4 = scalable).
pub const VARIANT_COUNTING: u8 = 2;

/// Whether `bytes` starts like a counting filter's file (magic and variant
/// byte): how a reader of any bloomlab file picks this crate.
///
/// ```
/// use bloomlab_counting::{CountingBloomFilter, is_counting};
///
/// let f = CountingBloomFilter::new(10, 0.1)?;
/// assert!(is_counting(&f.to_bytes()?));
/// assert!(!is_counting(b"BLOOMLAB\x01\x00\x00\x00"));
/// # Ok::<(), bloomlab_counting::Error>(())
/// ```
pub fn is_counting(bytes: &[u8]) -> bool {
    bytes.len() > 10
        && bytes.starts_with(&MAGIC)
        && bytes[10] == VARIANT_COUNTING
}

/// Reads a counting filter in bloomlab's format
/// ([`CountingBloomFilter::read`]).
pub fn read(bytes: &[u8]) -> Result<CountingBloomFilter> {
    CountingBloomFilter::read(bytes)
}

impl CountingBloomFilter {
    /// Writes the filter in bloomlab's format (`FORMAT.md`).
    pub fn write<W: Write>(&self, out: W) -> Result<()> {
        let cfg = self.config();
        let s = self.stats();
        let mut w = Writer::new(out);
        w.bytes(&MAGIC)?;
        w.u16(VERSION)?;
        w.u8(VARIANT_COUNTING)?;
        w.u8(0)?;
        w.name(cfg.family.name())?;
        w.name(cfg.strategy.name())?;
        w.name(cfg.reduction.name())?;
        w.u64(cfg.seed as u64)?;
        w.u64(self.counters())?;
        w.u32(self.hash_count())?;
        w.u8(self.counter_width().bits() as u8)?;
        for v in [
            s.inserts,
            s.removes,
            s.rejected_removes,
            s.saturation_events,
            s.skipped_decrements,
        ] {
            w.u64(v)?;
        }
        w.u64(self.words().len() as u64)?;
        w.words(self.words().iter().copied())?;
        w.finish()?;
        Ok(())
    }

    /// The filter in bloomlab's format, as bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(self.bytes_of_memory() + 128);
        self.write(&mut out)?;
        Ok(out)
    }

    /// Reads a filter written by [`write`](Self::write). Every length is
    /// checked against the input before anything is allocated; a wrong
    /// magic, version, variant or name, an impossible parameter, a
    /// truncated input, trailing bytes, a checksum mismatch or non-zero
    /// padding is an error, never a panic.
    pub fn read(bytes: &[u8]) -> Result<CountingBloomFilter> {
        let mut r = Reader::new(bytes);
        let magic = r.take(8, "magic")?;
        if magic != MAGIC {
            let head: String =
                magic.iter().map(|b| format!("{b:02x}")).collect();
            return Err(Error::UnknownFormat(head));
        }
        let version = r.u16("format version")?;
        if version != VERSION {
            return Err(Error::UnsupportedVersion(version));
        }
        let variant = r.u8("variant")?;
        if variant != VARIANT_COUNTING {
            return Err(Error::WrongVariant(variant));
        }
        let flags = r.u8("flags")?;
        if flags != 0 {
            return Err(Error::corrupt(
                "flags",
                flags,
                "must be 0 in version 1",
            ));
        }
        let family = r.name("family")?;
        let strategy = r.name("strategy")?;
        let reduction = r.name("reduction")?;
        let seed = r.u64("seed")?;
        let m = r.u64("m")?;
        let k = r.u32("k")?;
        let width = r.u8("counter bits")?;
        let inserts = r.u64("inserts")?;
        let removes = r.u64("removes")?;
        let rejected = r.u64("rejected removes")?;
        let events = r.u64("saturation events")?;
        let skipped = r.u64("skipped decrements")?;
        let words = r.u64("word count")?;
        // The word count against m and the width first: a damaged count
        // in a whole file would otherwise read as trailing bytes or a
        // truncated file.
        let width =
            CounterWidth::from_bits(u32::from(width)).map_err(|_| {
                Error::corrupt("counter bits", width, "not 2, 4 or 8")
            })?;
        if m == 0 {
            return Err(Error::corrupt("m", m, "must be at least 1"));
        }
        if width.words_for(m) != Some(words) {
            return Err(Error::corrupt(
                "word count",
                words,
                "does not match m and the counter width",
            ));
        }
        // The whole length (words + checksum) before allocating anything.
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
                    what: "counters and checksum",
                    offset: r.position() as u64,
                    needed: body.unwrap_or(u64::MAX),
                    available,
                });
            }
        }
        let end = bytes.len() - 8;
        let mut sum = [0u8; 8];
        sum.copy_from_slice(&bytes[end..]);
        let stored = u64::from_le_bytes(sum);
        let computed = checksum(&bytes[..end]);
        if stored != computed {
            return Err(Error::Checksum { stored, computed });
        }
        // Behind a valid checksum: parameters no filter can have.
        let family = Family::from_name(family)?;
        let strategy = Strategy::from_name(strategy)?;
        let reduction = Reduction::from_name(reduction)?;
        // No check of `removes` against `inserts`: a filter legitimately
        // has more removes than inserts (removes of a key whose counters
        // are saturated always succeed; a filter made by `from_words`
        // starts its statistics at zero), and a reader must read every
        // file the writer writes.
        let data = r.words(words, "counters")?;
        let config =
            Config { family, seed: i128::from(seed), strategy, reduction };
        let stats = Stats::new(inserts, removes, rejected, events, skipped);
        CountingBloomFilter::from_parts(config, width, m, k, data, stats)
    }

    /// What `bloomlab inspect` prints.
    pub fn info(&self) -> Info {
        let cfg = self.config();
        Info {
            format: "native",
            variant: "counting",
            family: cfg.family.name(),
            strategy: cfg.strategy.name(),
            reduction: cfg.reduction.name(),
            seed: cfg.seed as u64,
            m: self.counters(),
            k: self.hash_count(),
            counter_bits: self.counter_width().bits(),
            bits_set: self.nonzero_counters(),
            saturated_counters: self.saturated_counters(),
            stats: self.stats(),
            estimated_count: self.estimated_count(),
            expected_fpp: self.expected_fpp(),
            bytes_of_memory: self.bytes_of_memory(),
        }
    }
}

/// A description of a counting filter: what `bloomlab inspect` prints
/// (the keys of `bloomlab_standard::Info`, plus the counters' own).
#[derive(Debug, Clone, PartialEq)]
pub struct Info {
    /// Always `native`.
    pub format: &'static str,
    /// Always `counting`.
    pub variant: &'static str,
    /// Hash family name.
    pub family: &'static str,
    /// Index strategy name.
    pub strategy: &'static str,
    /// Range reduction name.
    pub reduction: &'static str,
    /// The seed as the family uses it.
    pub seed: u64,
    /// Counters.
    pub m: u64,
    /// Probes per key.
    pub k: u32,
    /// Bits per counter.
    pub counter_bits: u32,
    /// Non-zero counters (the bits of the equivalent standard filter).
    pub bits_set: u64,
    /// Counters at their maximum.
    pub saturated_counters: u64,
    /// Inserts, removes, rejected removes, lost increments, skipped
    /// decrements.
    pub stats: Stats,
    /// Live keys estimated from the fill.
    pub estimated_count: f64,
    /// `(bits set / m)^k`.
    pub expected_fpp: f64,
    /// Bytes of memory the counters occupy.
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
        writeln!(f, "counter bits: {}", self.counter_bits)?;
        writeln!(f, "bits set: {}", self.bits_set)?;
        writeln!(f, "saturated counters: {}", self.saturated_counters)?;
        writeln!(f, "inserts: {}", self.stats.inserts)?;
        writeln!(f, "removes: {}", self.stats.removes)?;
        writeln!(f, "rejected removes: {}", self.stats.rejected_removes)?;
        writeln!(f, "saturation events: {}", self.stats.saturation_events)?;
        writeln!(f, "skipped decrements: {}", self.stats.skipped_decrements)?;
        writeln!(f, "bytes of memory: {}", self.bytes_of_memory)?;
        writeln!(f, "estimated count: {:.1}", self.estimated_count)?;
        write!(f, "expected fpp: {:e}", self.expected_fpp)
    }
}
