//! Byte framing shared by bloomlab's file formats: a bounds-checked
//! little-endian reader, a writer that checksums what it writes, and the
//! checksum (XXH64, seed 0, of every byte before it).
//!
//! Every read checks the length it needs against what is left *before*
//! touching or allocating anything, and reports what it was reading and
//! where, so a truncated or corrupt file gives a precise error.

use std::io::Write;

use xxhash_rust::xxh64::Xxh64;

use crate::{Error, Result};

/// The checksum of a native file: XXH64 with seed 0.
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

    /// The next `n` bytes.
    pub fn take(&mut self, n: u64, what: &'static str) -> Result<&'a [u8]> {
        let available = self.remaining() as u64;
        if n > available {
            return Err(Error::Truncated {
                what,
                offset: self.pos as u64,
                needed: n,
                available,
            });
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
            _ => Err(Error::corrupt(what, format!("{raw:?}"), "not ASCII")),
        }
    }

    /// `count` little-endian `u64` words, after checking that the input
    /// holds them.
    pub fn words(
        &mut self,
        count: u64,
        what: &'static str,
    ) -> Result<Vec<u64>> {
        let needed = count.checked_mul(8).ok_or(Error::Truncated {
            what,
            offset: self.pos as u64,
            needed: u64::MAX,
            available: self.remaining() as u64,
        })?;
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

    /// Writes a little-endian `u64`.
    pub fn u64(&mut self, v: u64) -> Result<()> {
        self.bytes(&v.to_le_bytes())
    }

    /// Writes a name: a length byte, then the bytes (at most 255).
    pub fn name(&mut self, s: &str) -> Result<()> {
        let len = u8::try_from(s.len())
            .map_err(|_| Error::invalid("name", s, "longer than 255 bytes"))?;
        self.u8(len)?;
        self.bytes(s.as_bytes())
    }

    /// Writes words, little-endian, through a bounded buffer.
    pub fn words(&mut self, words: impl Iterator<Item = u64>) -> Result<()> {
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
