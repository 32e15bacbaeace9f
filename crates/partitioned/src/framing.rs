//! Byte framing for the file format (`FORMAT.md`): a bounds-checked
//! little-endian reader and a writer that checksums what it writes.
//!
//! The conventions are `bloomlab-standard`'s (`crates/standard/src/
//! framing.rs`): little-endian integers, names as a length byte plus
//! ASCII, XXH64 (seed 0) of every byte before the checksum. Every read
//! checks the length it needs against what is left *before* touching or
//! allocating anything.

use std::io::Write;

use xxhash_rust::xxh64::Xxh64;

use crate::{Error, Result};

/// The checksum of a file: XXH64 with seed 0.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh64::xxh64(bytes, 0)
}

/// A cursor over a byte slice whose reads fail instead of panicking.
#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }

    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
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
    pub(crate) fn take(
        &mut self,
        n: u64,
        what: &'static str,
    ) -> Result<&'a [u8]> {
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

    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn i32(&mut self, what: &'static str) -> Result<i32> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// A name: one length byte, then that many ASCII bytes.
    pub(crate) fn name(&mut self, what: &'static str) -> Result<&'a str> {
        let len = self.u8(what)?;
        let raw = self.take(u64::from(len), what)?;
        match std::str::from_utf8(raw) {
            Ok(s) if s.is_ascii() => Ok(s),
            _ => Err(Error::corrupt(what, format!("{raw:?}"), "not ASCII")),
        }
    }

    /// `count` little-endian `u64` words, after checking that the input
    /// holds them.
    pub(crate) fn words(
        &mut self,
        count: u64,
        what: &'static str,
    ) -> Result<Vec<u64>> {
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
pub(crate) struct Writer<W: Write> {
    out: W,
    hash: Xxh64,
}

impl<W: Write> Writer<W> {
    pub(crate) fn new(out: W) -> Writer<W> {
        Writer { out, hash: Xxh64::new(0) }
    }

    pub(crate) fn bytes(&mut self, b: &[u8]) -> Result<()> {
        self.out.write_all(b)?;
        self.hash.update(b);
        Ok(())
    }

    pub(crate) fn u8(&mut self, v: u8) -> Result<()> {
        self.bytes(&[v])
    }

    pub(crate) fn u16(&mut self, v: u16) -> Result<()> {
        self.bytes(&v.to_le_bytes())
    }

    pub(crate) fn u32(&mut self, v: u32) -> Result<()> {
        self.bytes(&v.to_le_bytes())
    }

    pub(crate) fn i32(&mut self, v: i32) -> Result<()> {
        self.bytes(&v.to_le_bytes())
    }

    pub(crate) fn u64(&mut self, v: u64) -> Result<()> {
        self.bytes(&v.to_le_bytes())
    }

    /// A name: a length byte, then the bytes (at most 255).
    pub(crate) fn name(&mut self, s: &str) -> Result<()> {
        let len = u8::try_from(s.len())
            .map_err(|_| Error::invalid("name", s, "longer than 255 bytes"))?;
        self.u8(len)?;
        self.bytes(s.as_bytes())
    }

    /// Words, little-endian, through a bounded buffer.
    pub(crate) fn words(&mut self, words: &[u64]) -> Result<()> {
        for chunk in words.chunks(4096) {
            let buf: Vec<u8> =
                chunk.iter().flat_map(|w| w.to_le_bytes()).collect();
            self.bytes(&buf)?;
        }
        Ok(())
    }

    /// Writes the checksum of everything so far and returns the output.
    pub(crate) fn finish(mut self) -> Result<W> {
        let sum = self.hash.digest();
        self.out.write_all(&sum.to_le_bytes())?;
        Ok(self.out)
    }
}
