//! Byte framing shared by bloomlab's file formats: a bounds-checked
//! little-endian reader, a writer that checksums what it writes, and the
//! checksum (XXH64, seed 0, of every byte before it). Names are a length
//! byte plus ASCII.
//!
//! Every read checks the length it needs against what is left *before*
//! touching or allocating anything, and reports what it was reading and
//! where, so a truncated or corrupt file gives a precise error.
//!
//! ```
//! use bloomlab_core::framing::{Reader, Writer, checksum};
//!
//! let mut w = Writer::new(Vec::new());
//! w.name("xxh64")?;
//! w.words([1, 2])?;
//! let bytes = w.finish()?;
//! let (body, sum) = bytes.split_at(bytes.len() - 8);
//! assert_eq!(checksum(body).to_le_bytes(), sum);
//!
//! let mut r = Reader::new(body);
//! assert_eq!(r.name("family")?, "xxh64");
//! assert_eq!(r.words(2, "words")?, [1, 2]);
//! assert!(r.u8("more").is_err());
//! # Ok::<(), bloomlab_core::framing::Error>(())
//! ```

use std::io::Write;

use xxhash_rust::xxh64::Xxh64;

/// What went wrong reading or writing framed bytes. The filter crates
/// map these into their own variants; `bloomlab-scalable` shows them as
/// they are, so the messages are those its files have always had.
// Not `non_exhaustive`: the filter crates match every variant, and a new
// one should fail their build rather than fall into a catch-all.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input ended before the field being read.
    #[error(
        "truncated input: {what} needs {needed} bytes at offset {offset}, \
         only {available} remain"
    )]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Where it starts.
        offset: u64,
        /// Bytes it needs.
        needed: u64,
        /// Bytes left in the input.
        available: u64,
    },
    /// A field holds an impossible value (a name that is not ASCII).
    #[error("corrupt filter: {what} = {value}: {reason}")]
    Corrupt {
        /// The field.
        what: &'static str,
        /// The value read, printed.
        value: String,
        /// Why it is impossible.
        reason: &'static str,
    },
    /// A value cannot be written (a name longer than 255 bytes).
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: String,
        /// What the value must satisfy.
        reason: &'static str,
    },
    /// Writing failed.
    // The message includes the inner error's, so it is not also
    // `source()`: a reporter walking the chain would say it twice.
    #[error("I/O error: {0}")]
    Io(std::io::Error),
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Io(e)
    }
}

/// The checksum of a bloomlab file: XXH64 with seed 0.
pub fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh64::xxh64(bytes, 0)
}

/// A cursor over a byte slice whose reads fail instead of panicking.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }

    /// The offset of the next byte.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn truncated(&self, what: &'static str, needed: u64) -> Error {
        Error::Truncated {
            what,
            offset: self.pos as u64,
            needed,
            available: self.remaining() as u64,
        }
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: u64, what: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() as u64 {
            return Err(self.truncated(what, n));
        }
        let n = n as usize;
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(
        &mut self,
        what: &'static str,
    ) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N as u64, what)?);
        Ok(out)
    }

    /// One byte.
    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    /// A little-endian `u16`.
    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    /// A little-endian `u32`.
    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    /// A little-endian `i32` (two's complement).
    pub fn i32(&mut self, what: &'static str) -> Result<i32> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }

    /// A little-endian `u64`.
    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// A name: one length byte, then that many ASCII bytes.
    pub fn name(&mut self, what: &'static str) -> Result<&'a str> {
        let len = self.u8(what)?;
        let raw = self.take(u64::from(len), what)?;
        match std::str::from_utf8(raw) {
            Ok(s) if s.is_ascii() => Ok(s),
            _ => Err(Error::Corrupt {
                what,
                value: format!("{raw:?}"),
                reason: "not ASCII",
            }),
        }
    }

    /// `count` little-endian `u64` words, after checking that the input
    /// holds them.
    pub fn words(
        &mut self,
        count: u64,
        what: &'static str,
    ) -> Result<Vec<u64>> {
        // A count whose byte length overflows needs more than any input.
        let needed = count
            .checked_mul(8)
            .ok_or_else(|| self.truncated(what, u64::MAX))?;
        let raw = self.take(needed, what)?;
        Ok(raw
            .chunks_exact(8)
            .map(|c| {
                let mut b = [0u8; 8];
                b.copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect())
    }
}

/// A writer that keeps the running checksum of everything written.
pub struct Writer<W: Write> {
    out: W,
    hash: Xxh64,
    written: u64,
}

impl<W: Write> std::fmt::Debug for Writer<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").field("written", &self.written).finish()
    }
}

impl<W: Write> Writer<W> {
    /// Wraps `out`.
    pub fn new(out: W) -> Writer<W> {
        Writer { out, hash: Xxh64::new(0), written: 0 }
    }

    /// Writes bytes.
    pub fn bytes(&mut self, b: &[u8]) -> Result<()> {
        self.out.write_all(b)?;
        self.hash.update(b);
        self.written += b.len() as u64;
        Ok(())
    }

    /// Writes a `u8`.
    pub fn u8(&mut self, v: u8) -> Result<()> {
        self.bytes(&[v])
    }

    /// Writes a little-endian `u16`.
    pub fn u16(&mut self, v: u16) -> Result<()> {
        self.bytes(&v.to_le_bytes())
    }

    /// Writes a little-endian `u32`.
    pub fn u32(&mut self, v: u32) -> Result<()> {
        self.bytes(&v.to_le_bytes())
    }

    /// Writes a little-endian `i32` (two's complement).
    pub fn i32(&mut self, v: i32) -> Result<()> {
        self.bytes(&v.to_le_bytes())
    }

    /// Writes a little-endian `u64`.
    pub fn u64(&mut self, v: u64) -> Result<()> {
        self.bytes(&v.to_le_bytes())
    }

    /// Writes a name: a length byte, then the bytes (at most 255).
    pub fn name(&mut self, s: &str) -> Result<()> {
        let len =
            u8::try_from(s.len()).map_err(|_| Error::InvalidParameter {
                name: "name",
                value: s.to_string(),
                reason: "longer than 255 bytes",
            })?;
        self.u8(len)?;
        self.bytes(s.as_bytes())
    }

    /// Writes words, little-endian, through a bounded buffer. An iterator
    /// rather than a slice, so storage that is not one slice (blocked
    /// filters' lines) is written without first being copied into one.
    pub fn words(
        &mut self,
        words: impl IntoIterator<Item = u64>,
    ) -> Result<()> {
        let mut buf = Vec::with_capacity(8 * 4096);
        for w in words {
            buf.extend_from_slice(&w.to_le_bytes());
            if buf.len() == buf.capacity() {
                self.bytes(&buf)?;
                buf.clear();
            }
        }
        self.bytes(&buf)
    }

    /// Writes the checksum of everything so far and returns the output.
    pub fn finish(mut self) -> Result<W> {
        let sum = self.hash.digest();
        self.out.write_all(&sum.to_le_bytes())?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::{Error, Reader, Writer, checksum};

    #[test]
    fn round_trip_is_little_endian() {
        let mut w = Writer::new(Vec::new());
        w.u8(0xab).unwrap();
        w.u16(0x0102).unwrap();
        w.u32(0x0304_0506).unwrap();
        w.i32(-2).unwrap();
        w.u64(0x0708_090a_0b0c_0d0e).unwrap();
        w.name("murmur3").unwrap();
        w.words([u64::MAX, 1]).unwrap();
        let bytes = w.finish().unwrap();
        let body = &bytes[..bytes.len() - 8];
        assert_eq!(
            body[..15],
            [
                0xab, 2, 1, 6, 5, 4, 3, 0xfe, 0xff, 0xff, 0xff, 0x0e, 0x0d,
                0x0c, 0x0b
            ]
        );

        let mut r = Reader::new(body);
        assert_eq!(r.u8("a").unwrap(), 0xab);
        assert_eq!(r.u16("b").unwrap(), 0x0102);
        assert_eq!(r.u32("c").unwrap(), 0x0304_0506);
        assert_eq!(r.i32("d").unwrap(), -2);
        assert_eq!(r.u64("e").unwrap(), 0x0708_090a_0b0c_0d0e);
        assert_eq!(r.name("f").unwrap(), "murmur3");
        assert_eq!(r.words(2, "g").unwrap(), [u64::MAX, 1]);
        assert_eq!(r.remaining(), 0);
        assert_eq!(r.position(), body.len());
    }

    #[test]
    fn writer_checksum_is_checksum_of_the_bytes_written() {
        // More words than one buffer holds, so the running hash sees
        // several updates.
        let words = (0..10_000u64).map(|i| i.wrapping_mul(0x9e37_79b9));
        let mut w = Writer::new(Vec::new());
        w.name("xxh64").unwrap();
        w.words(words).unwrap();
        let bytes = w.finish().unwrap();
        assert_eq!(bytes.len(), 1 + 5 + 8 * 10_000 + 8);
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        assert_eq!(sum, checksum(body).to_le_bytes());

        let empty = Writer::new(Vec::new()).finish().unwrap();
        assert_eq!(empty, checksum(&[]).to_le_bytes());
    }

    #[test]
    fn read_past_the_end_says_what_where_and_how_much() {
        let mut r = Reader::new(&[1, 2, 3, 4, 5]);
        r.u16("version").unwrap();
        let e = r.u64("seed").unwrap_err();
        assert!(matches!(
            e,
            Error::Truncated {
                what: "seed",
                offset: 2,
                needed: 8,
                available: 3
            }
        ));
        assert_eq!(
            e.to_string(),
            "truncated input: seed needs 8 bytes at offset 2, only 3 remain"
        );
        // A failed read consumes nothing.
        assert_eq!(r.position(), 2);
        assert_eq!(r.take(3, "rest").unwrap(), [3, 4, 5]);
        // A name whose length byte promises more than is left.
        let mut r = Reader::new(&[9, b'a']);
        assert!(matches!(
            r.name("family"),
            Err(Error::Truncated { what: "family", offset: 1, needed: 9, .. })
        ));
    }

    #[test]
    fn impossible_word_counts_fail_before_allocating() {
        let mut r = Reader::new(&[0; 16]);
        r.u32("k").unwrap();
        // 8 × count overflows u64: reported as needing u64::MAX bytes.
        for count in [u64::MAX, u64::MAX / 8 + 1] {
            assert!(matches!(
                r.words(count, "words"),
                Err(Error::Truncated {
                    what: "words",
                    offset: 4,
                    needed: u64::MAX,
                    available: 12
                })
            ));
        }
        // Representable but more than is left (an allocation of this
        // size would abort the test).
        assert!(matches!(
            r.words(u64::MAX / 8, "words"),
            Err(Error::Truncated { needed, available: 12, .. })
                if needed == u64::MAX / 8 * 8
        ));
        assert!(matches!(
            r.words(2, "words"),
            Err(Error::Truncated { needed: 16, available: 12, .. })
        ));
        assert_eq!(r.position(), 4);
        assert_eq!(r.words(0, "words").unwrap(), [0u64; 0]);
        assert_eq!(r.words(1, "words").unwrap(), [0]);
    }

    #[test]
    fn names_are_ascii_and_at_most_255_bytes() {
        let mut r = Reader::new(&[2, b'a', 0xc3]);
        let e = r.name("strategy").unwrap_err();
        assert_eq!(
            e.to_string(),
            "corrupt filter: strategy = [97, 195]: not ASCII"
        );
        // Valid UTF-8 ("é"), still not ASCII.
        let mut r = Reader::new(&[2, 0xc3, 0xa9]);
        assert!(matches!(
            r.name("family"),
            Err(Error::Corrupt { what: "family", reason: "not ASCII", .. })
        ));

        let mut w = Writer::new(Vec::new());
        w.name(&"a".repeat(255)).unwrap();
        let e = w.name(&"a".repeat(256)).unwrap_err();
        assert!(matches!(
            e,
            Error::InvalidParameter { name: "name", ref value, .. }
                if value.len() == 256
        ));
        assert!(e.to_string().ends_with(": longer than 255 bytes"));
        // Nothing of the refused name was written.
        let bytes = w.finish().unwrap();
        assert_eq!(bytes.len(), 1 + 255 + 8);
    }

    #[test]
    fn write_failures_are_io_errors() {
        let mut buf = [0u8; 4];
        let mut w = Writer::new(&mut buf[..]);
        w.u32(7).unwrap();
        let e = w.u8(1).unwrap_err();
        let Error::Io(inner) = &e else {
            panic!("not an I/O error: {e}");
        };
        // The I/O error's message once: in this one, not again as a
        // source that a reporter walking the chain would print.
        assert_eq!(e.to_string(), format!("I/O error: {inner}"));
        assert!(std::error::Error::source(&e).is_none());
    }
}
