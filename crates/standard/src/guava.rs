//! Guava interop: Guava's `BloomFilter`, bit for bit and byte for byte.
//!
//! Guava 31's filter is murmur3 x64_128 (seed 0) with the
//! `MURMUR128_MITZ_64` strategy (the default; `MURMUR128_MITZ_32` for old
//! filters), reduced by `% m`, sized by Guava's `optimalNumOfBits` and
//! `optimalNumOfHashFunctions` with the bit count rounded up to whole
//! 64-bit words, `k ≤ 255`. [`create`] builds it; [`write_guava`] and
//! [`read_guava`] are `writeTo` and `readFrom`:
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 1 | strategy ordinal: 0 = MITZ_32, 1 = MITZ_64 |
//! | 1 | 1 | `k`, unsigned (1..=255) |
//! | 2 | 4 | word count `W`, big-endian `int` (m = 64·W) |
//! | 6 | 8·W | the words, each a big-endian `long` |
//!
//! Filters of more than 2^31 bits work (up to Guava's limit of 2^31 − 1
//! words); note that MITZ_32 never sets a bit at or above 2^31, which is
//! Guava's behaviour too.
//!
//! Keys are funnelled as Guava's funnels do ([`bloomlab_hash::Funnel`]):
//! `&str` as `stringFunnel(UTF_8)`, `i64` as `longFunnel()`, `i32` as
//! `integerFunnel()`, `[u8]` as `byteArrayFunnel()`. [`GuavaFunnel`]
//! names them and parses items from text.
//!
//! ```
//! use bloomlab_standard::guava;
//! use bloomlab_hash::Strategy;
//!
//! // BloomFilter.create(Funnels.stringFunnel(UTF_8), 10, 0.5)
//! let mut f = guava::create(10, 0.5, Strategy::GuavaMitz64)?;
//! for i in 0..10 {
//!     f.insert(format!("x{i}").as_str());
//! }
//! let bytes = guava::to_guava_bytes(&f)?;
//! assert_eq!(bytes, [0x01, 0x01, 0, 0, 0, 1,
//!     0x04, 0x10, 0x08, 0x01, 0x0d, 0x02, 0x80, 0x10]);
//! let back = guava::read_guava(&bytes)?;
//! assert_eq!(back, f);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{Read, Write};

use bloomlab_core::BitArray;
use bloomlab_core::sizing::{GUAVA_MAX_HASH_FUNCTIONS, GuavaSizing};
use bloomlab_hash::{Family, Reduction, Strategy};

use crate::{BloomFilter, Config, Error, Result};

/// Length of Guava's header: ordinal, `k`, word count.
pub const HEADER_LEN: usize = 6;

/// Guava's default false-positive rate, `BloomFilter.create(funnel, n)`.
pub const DEFAULT_FPP: f64 = 0.03;

/// Guava's filter for `n` expected insertions at rate `p`:
/// `BloomFilter.create(funnel, n, p, strategy)`. `n = 0` becomes 1, as in
/// Guava; `strategy` must be [`Strategy::GuavaMitz64`] (Guava's default)
/// or [`Strategy::GuavaMitz32`].
pub fn create(n: i64, p: f64, strategy: Strategy) -> Result<BloomFilter> {
    check_strategy(strategy)?;
    let s = GuavaSizing::new(n, p)?;
    BloomFilter::with_config(
        Config::guava(strategy),
        s.bit_size,
        s.hash_functions,
    )
}

/// `BloomFilter.create(funnel, n)`: rate 3%, MITZ_64.
pub fn create_default(n: i64) -> Result<BloomFilter> {
    create(n, DEFAULT_FPP, Strategy::GuavaMitz64)
}

fn check_strategy(strategy: Strategy) -> Result<()> {
    match strategy {
        Strategy::GuavaMitz32 | Strategy::GuavaMitz64 => Ok(()),
        other => Err(Error::NotGuavaCompatible {
            reason: format!(
                "strategy {other}; Guava has guava-mitz32 and guava-mitz64"
            ),
        }),
    }
}

/// Guava's ordinal of a strategy: 0 for MITZ_32, 1 for MITZ_64.
pub fn strategy_ordinal(strategy: Strategy) -> Option<u8> {
    match strategy {
        Strategy::GuavaMitz32 => Some(0),
        Strategy::GuavaMitz64 => Some(1),
        _ => None,
    }
}

/// The strategy of a Guava ordinal.
pub fn strategy_of_ordinal(ordinal: i8) -> Result<Strategy> {
    match ordinal {
        0 => Ok(Strategy::GuavaMitz32),
        1 => Ok(Strategy::GuavaMitz64),
        other => Err(Error::UnknownGuavaStrategy(other)),
    }
}

/// Whether Guava could hold this filter (family, seed, strategy,
/// reduction, `m` a whole number of words below 2^31, `k ≤ 255`); returns
/// the header `(ordinal, k, words)`.
pub fn guava_header(f: &BloomFilter) -> Result<(u8, u8, i32)> {
    let c = f.config();
    let no = |reason: String| Err(Error::NotGuavaCompatible { reason });
    if c.family != Family::Murmur3X64_128 {
        return no(format!(
            "family {} (Guava uses murmur3-x64-128)",
            c.family
        ));
    }
    if c.seed != 0 {
        return no(format!("seed {} (Guava uses 0)", c.seed));
    }
    if c.reduction != Reduction::Modulo {
        return no(format!("reduction {} (Guava uses modulo)", c.reduction));
    }
    let Some(ordinal) = strategy_ordinal(c.strategy) else {
        return no(format!("strategy {}", c.strategy));
    };
    let Ok(k) = u8::try_from(f.hash_count()) else {
        return no(format!("k = {} (at most 255)", f.hash_count()));
    };
    if !f.bits().is_multiple_of(64) {
        return no(format!("m = {} is not a multiple of 64", f.bits()));
    }
    let Ok(words) = i32::try_from(f.bits() / 64) else {
        return no(format!("m = {} needs more than 2^31 - 1 words", f.bits()));
    };
    Ok((ordinal, k, words))
}

/// Writes the filter as Guava's `writeTo` does.
pub fn write_guava<W: Write>(f: &BloomFilter, mut out: W) -> Result<()> {
    let (ordinal, k, words) = guava_header(f)?;
    let mut header = [0u8; HEADER_LEN];
    header[0] = ordinal;
    header[1] = k;
    header[2..].copy_from_slice(&words.to_be_bytes());
    out.write_all(&header)?;
    let mut buf = Vec::with_capacity(8 * 4096);
    for chunk in f.bit_array().words().chunks(4096) {
        buf.clear();
        for w in chunk {
            buf.extend_from_slice(&w.to_be_bytes());
        }
        out.write_all(&buf)?;
    }
    Ok(())
}

/// The filter in Guava's `writeTo` format.
pub fn to_guava_bytes(f: &BloomFilter) -> Result<Vec<u8>> {
    let (_, _, words) = guava_header(f)?;
    let mut out = Vec::with_capacity(HEADER_LEN + 8 * words as usize);
    write_guava(f, &mut out)?;
    Ok(out)
}

/// The parsed header: strategy, `k`, word count.
fn parse_header(h: [u8; HEADER_LEN]) -> Result<(Strategy, u32, u64)> {
    let strategy = strategy_of_ordinal(h[0] as i8)?;
    let k = u32::from(h[1]);
    if k == 0 || k > GUAVA_MAX_HASH_FUNCTIONS {
        return Err(Error::corrupt(
            "k",
            k,
            "Guava needs 1 to 255 hash functions",
        ));
    }
    let words = i32::from_be_bytes([h[2], h[3], h[4], h[5]]);
    if words <= 0 {
        return Err(Error::corrupt("word count", words, "must be positive"));
    }
    Ok((strategy, k, words as u64))
}

/// Reads a filter written by Guava's `writeTo` (or [`write_guava`]). The
/// input must be exactly one filter: a short input, an unknown strategy,
/// `k = 0`, a word count that is not positive or disagrees with the
/// input's length, or bytes after the filter are errors; nothing is
/// allocated before the length is checked.
pub fn read_guava(bytes: &[u8]) -> Result<BloomFilter> {
    let Some((head, body)) = bytes.split_first_chunk::<HEADER_LEN>() else {
        return Err(Error::Truncated {
            what: "Guava header",
            offset: 0,
            needed: HEADER_LEN as u64,
            available: bytes.len() as u64,
        });
    };
    let (strategy, k, words) = parse_header(*head)?;
    let needed = words * 8;
    let available = body.len() as u64;
    if available < needed {
        return Err(Error::Truncated {
            what: "Guava words",
            offset: HEADER_LEN as u64,
            needed,
            available,
        });
    }
    if available > needed {
        return Err(Error::TrailingBytes {
            expected: HEADER_LEN as u64 + needed,
            extra: available - needed,
        });
    }
    let data: Vec<u64> = body
        .chunks_exact(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            u64::from_be_bytes(b)
        })
        .collect();
    let bits = BitArray::from_words(words * 64, data)?;
    BloomFilter::from_bit_array(Config::guava(strategy), k, bits)
}

/// Reads one filter from a stream, as Guava's `readFrom` does; the
/// stream may go on after it. Memory grows with the bytes actually read,
/// so a header claiming a huge filter on a short stream fails early.
pub fn read_guava_from<R: Read>(mut input: R) -> Result<BloomFilter> {
    let mut head = [0u8; HEADER_LEN];
    read_exact(&mut input, &mut head, "Guava header", 0)?;
    let (strategy, k, words) = parse_header(head)?;
    let mut data: Vec<u64> = Vec::new();
    let mut buf = vec![0u8; 8 * 8192];
    while (data.len() as u64) < words {
        let n = (words - data.len() as u64).min(8192) as usize;
        let offset = HEADER_LEN as u64 + 8 * data.len() as u64;
        // A short stream is reported against the whole array the header
        // claims, not the chunk being read.
        read_exact(&mut input, &mut buf[..8 * n], "Guava words", offset)
            .map_err(|e| match e {
                Error::Truncated { available, .. } => Error::Truncated {
                    what: "Guava words",
                    offset: HEADER_LEN as u64,
                    needed: words.saturating_mul(8),
                    available: 8 * data.len() as u64 + available,
                },
                other => other,
            })?;
        data.extend(buf[..8 * n].chunks_exact(8).map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            u64::from_be_bytes(b)
        }));
    }
    let bits = BitArray::from_words(words * 64, data)?;
    BloomFilter::from_bit_array(Config::guava(strategy), k, bits)
}

fn read_exact<R: Read>(
    input: &mut R,
    buf: &mut [u8],
    what: &'static str,
    offset: u64,
) -> Result<()> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => {
                return Err(Error::Truncated {
                    what,
                    offset,
                    needed: buf.len() as u64,
                    available: got as u64,
                });
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Guava's funnels, by name, for tools that read items as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GuavaFunnel {
    /// `Funnels.stringFunnel(UTF_8)`: the item's UTF-8 bytes.
    Utf8,
    /// `Funnels.longFunnel()`: a decimal `long`, 8 bytes little-endian.
    Long,
    /// `Funnels.integerFunnel()`: a decimal `int`, 4 bytes little-endian.
    Int,
    /// `Funnels.byteArrayFunnel()`: hex digits, the bytes as they are.
    Bytes,
}

impl GuavaFunnel {
    /// Every funnel.
    pub const ALL: [GuavaFunnel; 4] = [
        GuavaFunnel::Utf8,
        GuavaFunnel::Long,
        GuavaFunnel::Int,
        GuavaFunnel::Bytes,
    ];

    /// The name: `utf8`, `long`, `int` or `bytes`.
    pub const fn name(self) -> &'static str {
        match self {
            GuavaFunnel::Utf8 => "utf8",
            GuavaFunnel::Long => "long",
            GuavaFunnel::Int => "int",
            GuavaFunnel::Bytes => "bytes",
        }
    }

    /// Looks a funnel up by name.
    pub fn from_name(name: &str) -> Result<GuavaFunnel> {
        let wanted = name.trim().to_ascii_lowercase();
        GuavaFunnel::ALL.into_iter().find(|f| f.name() == wanted).ok_or_else(
            || {
                Error::invalid(
                    "funnel",
                    name,
                    "known funnels: utf8, long, int, bytes",
                )
            },
        )
    }

    /// The bytes Guava's funnel would feed the hash for this item, given
    /// as text (decimal for `long` and `int`, hex for `bytes`).
    pub fn item_bytes(self, item: &str) -> Result<Vec<u8>> {
        let bad = |reason: String| Error::BadItem {
            funnel: self.name(),
            item: item.to_string(),
            reason,
        };
        match self {
            GuavaFunnel::Utf8 => Ok(item.as_bytes().to_vec()),
            GuavaFunnel::Long => item
                .trim()
                .parse::<i64>()
                .map(|v| v.to_le_bytes().to_vec())
                .map_err(|e| bad(e.to_string())),
            GuavaFunnel::Int => item
                .trim()
                .parse::<i32>()
                .map(|v| v.to_le_bytes().to_vec())
                .map_err(|e| bad(e.to_string())),
            GuavaFunnel::Bytes => {
                decode_hex(item.trim()).ok_or_else(|| bad("not hex".into()))
            }
        }
    }
}

impl std::fmt::Display for GuavaFunnel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for GuavaFunnel {
    type Err = Error;
    fn from_str(s: &str) -> Result<GuavaFunnel> {
        GuavaFunnel::from_name(s)
    }
}

/// Decodes hex digits (either case); `None` for an odd length or a
/// non-hex character.
pub fn decode_hex(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    b.chunks_exact(2).map(|p| Some(digit(p[0])? << 4 | digit(p[1])?)).collect()
}
