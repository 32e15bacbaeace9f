//! Bit storage in Guava's layout: bit `i` is bit `i & 63` (least
//! significant first) of 64-bit word `i >> 6`.
//!
//! [`BitArray`] is the plain array every single-threaded filter uses;
//! [`AtomicBitArray`] sets bits through `&self` with a lock-free
//! `fetch_or`, like Guava's `LockFreeBitArray`, so many threads can fill
//! one filter. Both keep their length in bits, which need not be a
//! multiple of 64; the unused high bits of the last word are always zero.
//!
//! ```
//! use bloomlab_core::BitArray;
//!
//! let mut a = BitArray::new(100)?;
//! assert!(a.set(3));   // newly set
//! assert!(!a.set(3));  // already set
//! assert!(a.get(3) && !a.get(4));
//! assert_eq!(a.count_ones(), 1);
//! assert_eq!(a.words()[0], 1 << 3);
//! # Ok::<(), bloomlab_core::Error>(())
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

use crate::{Error, Result, Words};

/// Number of 64-bit words needed for `bits` bits, with the checks every
/// constructor shares: at least one bit, and an allocation this platform
/// can make.
fn words_for(bits: u64) -> Result<usize> {
    if bits == 0 {
        return Err(Error::invalid(
            "m",
            0,
            "a bit array needs at least 1 bit",
        ));
    }
    let words = bits.div_ceil(64);
    // Keep the byte size representable as isize, Rust's allocation limit.
    let max = (isize::MAX as u64) / 8;
    if words > max {
        return Err(Error::TooLarge { bits, words, max });
    }
    usize::try_from(words).map_err(|_| Error::TooLarge { bits, words, max })
}

/// `words` zeroed words, or an error when the allocator refuses: a huge
/// request must fail with an error, not abort the process.
fn zeroed<T: Clone>(bits: u64, words: usize, zero: T) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(words).map_err(|_| Error::AllocationFailed {
        bits,
        bytes: (words as u64).saturating_mul(8),
    })?;
    v.resize(words, zero);
    Ok(v)
}

/// Checks that `words` is exactly the storage of a `bits`-bit array.
fn check_words(bits: u64, words: &[u64]) -> Result<()> {
    let need = words_for(bits)?;
    if words.len() != need {
        return Err(Error::SizeMismatch {
            left: bits,
            right: (words.len() as u64).saturating_mul(64),
        });
    }
    let tail = bits % 64;
    if tail != 0
        && let Some(last) = words.last()
        && last >> tail != 0
    {
        return Err(Error::invalid(
            "words",
            format!("{last:#018x}"),
            "bits beyond the array's length are set",
        ));
    }
    Ok(())
}

/// A fixed-size array of bits stored in 64-bit words.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BitArray {
    words: Words,
    bits: u64,
}

impl std::fmt::Debug for BitArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BitArray")
            .field("bits", &self.bits)
            .field("ones", &self.count_ones())
            .finish()
    }
}

/// Sets bit `i` of `words` (Guava's layout: bit `i & 63` of word
/// `i >> 6`). An `i` past the words sets nothing, where indexing would
/// panic: callers whose positions are in range by construction pay only
/// the slice's bounds test.
#[inline(always)]
pub fn set_in(words: &mut [u64], i: u64) {
    if let Some(w) = words.get_mut((i >> 6) as usize) {
        *w |= 1u64 << (i & 63);
    }
}

/// Sets bit `i` of `words` and returns its old value, `0` or `1`, or
/// `None` (setting nothing) for an `i` past the words: the slice form of
/// [`BitArray::try_set_old`], which says why the answer is an `Option`.
#[inline(always)]
pub fn try_set_old_in(words: &mut [u64], i: u64) -> Option<u64> {
    let w = words.get_mut((i >> 6) as usize)?;
    let old = *w;
    *w = old | 1u64 << (i & 63);
    Some((old >> (i & 63)) & 1)
}

impl BitArray {
    /// An all-zero array of `bits` bits. Errors when `bits` is 0 or the
    /// array could not be allocated on this platform.
    pub fn new(bits: u64) -> Result<BitArray> {
        let words = words_for(bits)?;
        let words = Words::zeroed(words).ok_or(Error::AllocationFailed {
            bits,
            bytes: (words as u64).saturating_mul(8),
        })?;
        Ok(BitArray { words, bits })
    }

    /// An array from its words (as [`BitArray::words`] returns them).
    /// Errors unless `words` has exactly `ceil(bits / 64)` entries and no
    /// bit at or beyond `bits` is set.
    pub fn from_words(bits: u64, words: Vec<u64>) -> Result<BitArray> {
        check_words(bits, &words)?;
        Ok(BitArray { words: Words::from_vec(words), bits })
    }

    /// Length in bits.
    #[inline]
    pub fn bit_len(&self) -> u64 {
        self.bits
    }

    /// The words, bit `i` being bit `i & 63` of word `i >> 6`.
    #[inline]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The words, to set or clear bits in place (bit `i` being bit
    /// `i & 63` of word `i >> 6`), for loops that take a slice, such as
    /// [`set_in`] and [`try_set_old_in`]. Bits at or beyond
    /// [`bit_len`](Self::bit_len) must stay clear: counts such as
    /// [`count_ones`](Self::count_ones) read whole words.
    ///
    /// ```
    /// use bloomlab_core::{BitArray, bits};
    ///
    /// let mut a = BitArray::new(100)?;
    /// bits::set_in(a.words_mut(), 70);
    /// assert_eq!(bits::try_set_old_in(a.words_mut(), 70), Some(1));
    /// assert!(a.get(70));
    /// assert_eq!(a.count_ones(), 1);
    /// # Ok::<(), bloomlab_core::Error>(())
    /// ```
    #[inline]
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// Consumes the array, returning its words.
    pub fn into_words(self) -> Vec<u64> {
        self.words.into_vec()
    }

    /// Whether bit `i` is set. `i` must be below [`BitArray::bit_len`];
    /// index strategies guarantee that by construction.
    #[inline]
    pub fn get(&self, i: u64) -> bool {
        debug_assert!(i < self.bits);
        (self.words[(i >> 6) as usize] >> (i & 63)) & 1 == 1
    }

    /// Sets bit `i`; returns whether it changed (was 0). `i` must be below
    /// [`BitArray::bit_len`].
    #[inline]
    pub fn set(&mut self, i: u64) -> bool {
        debug_assert!(i < self.bits);
        let w = &mut self.words[(i >> 6) as usize];
        let mask = 1u64 << (i & 63);
        let changed = *w & mask == 0;
        *w |= mask;
        changed
    }

    /// Sets bit `i`; returns the bits of its word that changed: `0` if it
    /// was already set, else a word with only that bit set. Or-ing the
    /// results of several calls tells whether any changed, with two
    /// instructions a call instead of a flag and a branch-free `or` of
    /// booleans (a hot-loop form of [`BitArray::set`]).
    #[inline]
    pub fn set_diff(&mut self, i: u64) -> u64 {
        debug_assert!(i < self.bits);
        let w = &mut self.words[(i >> 6) as usize];
        let old = *w;
        *w = old | 1u64 << (i & 63);
        *w ^ old
    }

    /// Sets bit `i`; returns its old value, `0` or `1`. `i` must be below
    /// [`BitArray::bit_len`] (a debug build asserts it); in a release
    /// build an `i` past the words gives `None` and sets nothing, where
    /// [`BitArray::set`] would panic. And-ing the results of several calls tells
    /// whether every bit was already set (whether an insert changed
    /// nothing), one register kept across the calls.
    ///
    /// The `None` arm is how a caller keeps that register: with an
    /// out-of-bounds panic instead, the compiler moved each `(old >> i) & 1`
    /// past the later bounds tests, so that every old word and shift
    /// stayed live to the end and spilled to the stack (a classic
    /// filter's insert that uses the answer, k = 7 at n = 1e6: 18.2–18.7
    /// ns a key against 20.0–20.3 with [`BitArray::set_diff`], one-off
    /// loop alternated three times, 2026-11-27).
    ///
    /// ```
    /// let mut b = bloomlab_core::BitArray::new(100)?;
    /// assert_eq!(b.try_set_old(7), Some(0));
    /// assert_eq!(b.try_set_old(7), Some(1));
    /// assert_eq!(b.count_ones(), 1);
    /// # Ok::<(), bloomlab_core::Error>(())
    /// ```
    #[inline]
    pub fn try_set_old(&mut self, i: u64) -> Option<u64> {
        debug_assert!(i < self.bits);
        try_set_old_in(&mut self.words, i)
    }

    /// Clears bit `i`; returns whether it changed (was 1).
    #[inline]
    pub fn unset(&mut self, i: u64) -> bool {
        debug_assert!(i < self.bits);
        let w = &mut self.words[(i >> 6) as usize];
        let mask = 1u64 << (i & 63);
        let changed = *w & mask != 0;
        *w &= !mask;
        changed
    }

    /// Clears bit `i` if `clear`, without a branch on it: for loops where
    /// `clear` is data that a branch would often mispredict (a counting
    /// filter's summary, cleared where a counter falls to zero).
    #[inline]
    pub fn unset_if(&mut self, i: u64, clear: bool) {
        debug_assert!(i < self.bits);
        let w = &mut self.words[(i >> 6) as usize];
        *w &= !(u64::from(clear) << (i & 63));
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Fraction of bits set, in [0, 1].
    pub fn fill(&self) -> f64 {
        self.count_ones() as f64 / self.bits as f64
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    /// `self |= other`. Errors when the lengths differ.
    pub fn union_with(&mut self, other: &BitArray) -> Result<()> {
        self.same_len(other.bits)?;
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a |= b;
        }
        Ok(())
    }

    /// `self &= other`. Errors when the lengths differ.
    pub fn intersect_with(&mut self, other: &BitArray) -> Result<()> {
        self.same_len(other.bits)?;
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a &= b;
        }
        Ok(())
    }

    /// Indices of the set bits, ascending.
    pub fn ones(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let base = (wi as u64) << 6;
            let mut rest = w;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let tz = u64::from(rest.trailing_zeros());
                rest &= rest - 1;
                Some(base + tz)
            })
        })
    }

    /// Bytes of heap memory the bits occupy.
    pub fn bytes_of_memory(&self) -> usize {
        self.words.len() * 8
    }

    fn same_len(&self, other: u64) -> Result<()> {
        if self.bits != other {
            return Err(Error::SizeMismatch { left: self.bits, right: other });
        }
        Ok(())
    }
}

/// A bit array whose bits are set through `&self` by many threads at once,
/// without locks (each set is one atomic `fetch_or`), like Guava's
/// `LockFreeBitArray`.
///
/// Setting bits commutes, so any interleaving of inserts ends in the same
/// bits as a sequential build. Reads use relaxed ordering: a reader
/// running concurrently with writers may miss a bit set a moment ago, but
/// once the writers are joined (which synchronises), every bit is visible.
///
/// ```
/// use bloomlab_core::AtomicBitArray;
///
/// let a = AtomicBitArray::new(1 << 16)?;
/// std::thread::scope(|s| {
///     s.spawn(|| for i in (0..1 << 16).step_by(2) { a.set(i); });
///     s.spawn(|| for i in (1..1 << 16).step_by(2) { a.set(i); });
/// });
/// assert_eq!(a.count_ones(), 1 << 16);
/// # Ok::<(), bloomlab_core::Error>(())
/// ```
pub struct AtomicBitArray {
    words: Vec<AtomicU64>,
    bits: u64,
}

impl std::fmt::Debug for AtomicBitArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicBitArray")
            .field("bits", &self.bits)
            .field("ones", &self.count_ones())
            .finish()
    }
}

impl Clone for AtomicBitArray {
    fn clone(&self) -> Self {
        AtomicBitArray::from(self.to_bit_array())
    }
}

impl From<BitArray> for AtomicBitArray {
    fn from(a: BitArray) -> Self {
        AtomicBitArray {
            words: a.words.iter().map(|&w| AtomicU64::new(w)).collect(),
            bits: a.bits,
        }
    }
}

impl AtomicBitArray {
    /// Starts loading the word of bit `i` into the L2 cache, for a batch
    /// that asks for many words before reading any (see
    /// [`crate::prefetch_l2`]); changes nothing, and does nothing if `i`
    /// is out of range.
    #[inline(always)]
    pub fn prefetch(&self, i: u64) {
        crate::prefetch_l2(&self.words, (i >> 6) as usize);
    }

    /// An all-zero array of `bits` bits (see [`BitArray::new`]).
    pub fn new(bits: u64) -> Result<AtomicBitArray> {
        let words = words_for(bits)?;
        let zeros = zeroed(bits, words, 0u64)?;
        Ok(AtomicBitArray {
            words: zeros.into_iter().map(AtomicU64::new).collect(),
            bits,
        })
    }

    /// Length in bits.
    #[inline]
    pub fn bit_len(&self) -> u64 {
        self.bits
    }

    /// Whether bit `i` is set (`i` below [`AtomicBitArray::bit_len`]).
    #[inline]
    pub fn get(&self, i: u64) -> bool {
        debug_assert!(i < self.bits);
        let w = self.words[(i >> 6) as usize].load(Ordering::Relaxed);
        (w >> (i & 63)) & 1 == 1
    }

    /// Sets bit `i` atomically; returns whether this call changed it.
    #[inline]
    pub fn set(&self, i: u64) -> bool {
        debug_assert!(i < self.bits);
        let mask = 1u64 << (i & 63);
        // Skip the read-modify-write when the bit is already set: on a
        // filling filter most probes hit set bits, and a plain load does
        // not take the cache line exclusively.
        let w = &self.words[(i >> 6) as usize];
        if w.load(Ordering::Relaxed) & mask != 0 {
            return false;
        }
        w.fetch_or(mask, Ordering::Relaxed) & mask == 0
    }

    /// Number of set bits (a snapshot if writers are running).
    pub fn count_ones(&self) -> u64 {
        self.words
            .iter()
            .map(|w| u64::from(w.load(Ordering::Relaxed).count_ones()))
            .sum()
    }

    /// Fraction of bits set.
    pub fn fill(&self) -> f64 {
        self.count_ones() as f64 / self.bits as f64
    }

    /// A plain copy of the current bits.
    pub fn to_bit_array(&self) -> BitArray {
        BitArray {
            words: Words::from_vec(
                self.words.iter().map(|w| w.load(Ordering::Relaxed)).collect(),
            ),
            bits: self.bits,
        }
    }

    /// Sets every bit that is set in `other` (through `&self`). Errors
    /// when the lengths differ.
    pub fn union_with(&self, other: &BitArray) -> Result<()> {
        if self.bits != other.bit_len() {
            return Err(Error::SizeMismatch {
                left: self.bits,
                right: other.bit_len(),
            });
        }
        for (a, &b) in self.words.iter().zip(other.words()) {
            a.fetch_or(b, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Clears every bit that is clear in `other` (through `&self`).
    /// Errors when the lengths differ.
    pub fn intersect_with(&self, other: &BitArray) -> Result<()> {
        if self.bits != other.bit_len() {
            return Err(Error::SizeMismatch {
                left: self.bits,
                right: other.bit_len(),
            });
        }
        for (a, &b) in self.words.iter().zip(other.words()) {
            a.fetch_and(b, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Clears every bit (needs `&mut self`: not a concurrent operation).
    pub fn clear(&mut self) {
        for w in &mut self.words {
            *w.get_mut() = 0;
        }
    }

    /// Bytes of heap memory the bits occupy.
    pub fn bytes_of_memory(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_guavas() {
        let mut a = BitArray::new(130).unwrap();
        for i in [0, 63, 64, 129] {
            assert!(a.set(i));
        }
        assert_eq!(a.words(), &[1 | 1 << 63, 1, 1 << 1]);
        assert_eq!(a.ones().collect::<Vec<_>>(), vec![0, 63, 64, 129]);
        assert!(a.unset(63));
        assert!(!a.get(63));
        assert_eq!(a.count_ones(), 3);
        // `unset_if` clears only when told, and only its bit.
        a.unset_if(64, false);
        assert!(a.get(64));
        a.unset_if(64, true);
        a.unset_if(63, true);
        assert_eq!(a.words(), &[1, 0, 1 << 1]);
    }

    #[test]
    fn from_words_rejects_bad_shapes() {
        assert!(BitArray::from_words(64, vec![1]).is_ok());
        assert!(BitArray::from_words(64, vec![1, 0]).is_err());
        assert!(BitArray::from_words(65, vec![1]).is_err());
        // Bit 10 lies beyond a 10-bit array.
        assert!(BitArray::from_words(10, vec![1 << 10]).is_err());
        assert!(BitArray::from_words(0, vec![]).is_err());
        assert!(BitArray::new(0).is_err());
        // 2^58 words: within isize, beyond any allocator here. It must be
        // an error, not an abort.
        assert!(matches!(
            BitArray::new(u64::MAX),
            Err(Error::AllocationFailed { .. })
        ));
        assert!(matches!(
            AtomicBitArray::new(u64::MAX),
            Err(Error::AllocationFailed { .. })
        ));
    }

    #[test]
    fn union_and_intersection() {
        let mut a = BitArray::new(200).unwrap();
        let mut b = BitArray::new(200).unwrap();
        a.set(1);
        a.set(150);
        b.set(150);
        b.set(199);
        let mut u = a.clone();
        u.union_with(&b).unwrap();
        assert_eq!(u.ones().collect::<Vec<_>>(), vec![1, 150, 199]);
        a.intersect_with(&b).unwrap();
        assert_eq!(a.ones().collect::<Vec<_>>(), vec![150]);
        let c = BitArray::new(201).unwrap();
        assert_eq!(
            a.union_with(&c),
            Err(Error::SizeMismatch { left: 200, right: 201 })
        );
    }

    #[test]
    fn atomic_matches_sequential() {
        let a = AtomicBitArray::new(1000).unwrap();
        let mut b = BitArray::new(1000).unwrap();
        for i in (0..1000).step_by(7) {
            assert_eq!(a.set(i), b.set(i));
            assert!(!a.set(i));
        }
        assert_eq!(a.to_bit_array(), b);
        assert_eq!(a.count_ones(), b.count_ones());
        let mut other = BitArray::new(1000).unwrap();
        other.set(0);
        other.set(999);
        a.union_with(&other).unwrap();
        assert!(a.get(999));
        a.intersect_with(&other).unwrap();
        assert_eq!(a.to_bit_array(), other);
        let short = BitArray::new(999).unwrap();
        assert!(a.union_with(&short).is_err());
        assert!(a.intersect_with(&short).is_err());
    }
}
