//! [`Words`]: the 64-bit words (or 64-byte lines) of a filter's bits or
//! counters, in huge pages when the array is large.
//!
//! A filter larger than the CPU caches pays for each probe twice: the
//! cache miss, and, with 4 KiB pages, a TLB miss and a page walk (a 48 MB
//! counting filter spans 12,000 pages; the TLB holds about 2,000). On
//! Linux an array of [`HUGE_PAGE_MIN_BYTES`] or more is an anonymous
//! mapping advised `MADV_HUGEPAGE`, so the kernel backs it with 2 MiB
//! pages where it can (transparent huge pages in `always` or `madvise`
//! mode). Measured at n = 1e7 (a 48 MB 4-bit counting filter), queries
//! took about 8% less time in `benches/benches/counting.rs` (members 82
//! to 75 ns a key) and about 20% less in a plain loop; a plain loop over
//! a 12.5 MB split-block filter (one 32-byte block a key, as
//! `BlockedBloomFilter` keeps its lines here) queried in 14–18 ns a key
//! against 17–25 with small pages (2026-11-24, alternated in one
//! process on a noisy host). Elsewhere, below
//! the threshold, or if the mapping is refused, the words are a `Vec`.
//! Either way the contents, and everything computed from them, are the
//! same.

use std::hash::{Hash, Hasher};

use bytemuck::Pod;
use std::ops::{Deref, DerefMut};

/// Arrays at least this large are placed in huge pages (on Linux): two
/// huge pages, below which the TLB already covers the array.
pub const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// A fixed-length array of `u64` words (or of another plain-data element
/// `T`, such as a blocked filter's 64-byte lines), zeroed at creation,
/// that derefs to `[T]`.
///
/// ```
/// use bloomlab_core::Words;
///
/// let mut w: Words = Words::zeroed(3).unwrap();
/// w[1] = 7;
/// assert_eq!(&w[..], &[0, 7, 0]);
/// assert_eq!(w.into_vec(), vec![0, 7, 0]);
/// ```
pub struct Words<T: Pod = u64> {
    inner: Inner<T>,
}

enum Inner<T> {
    Heap(Vec<T>),
    /// A page-aligned anonymous mapping of whole elements.
    #[cfg(target_os = "linux")]
    Huge(memmap2::MmapMut),
}

impl<T: Pod> Words<T> {
    /// `len` zeroed elements; `None` if the memory cannot be had.
    pub fn zeroed(len: usize) -> Option<Words<T>> {
        #[cfg(target_os = "linux")]
        if let Some(map) = huge_map::<T>(len) {
            // An anonymous mapping is zero-filled.
            return Some(Words { inner: Inner::Huge(map) });
        }
        let mut v = Vec::new();
        v.try_reserve_exact(len).ok()?;
        v.resize(len, T::zeroed());
        Some(Words { inner: Inner::Heap(v) })
    }

    /// The elements of `v` (copied into huge pages if it is large
    /// enough).
    pub fn from_vec(v: Vec<T>) -> Words<T> {
        #[cfg(target_os = "linux")]
        if let Some(mut map) = huge_map::<T>(v.len()) {
            map.copy_from_slice(bytemuck::cast_slice(&v));
            return Words { inner: Inner::Huge(map) };
        }
        Words { inner: Inner::Heap(v) }
    }

    /// The elements as a `Vec`.
    pub fn into_vec(self) -> Vec<T> {
        match self.inner {
            Inner::Heap(v) => v,
            #[cfg(target_os = "linux")]
            Inner::Huge(_) => self.to_vec(),
        }
    }

    /// Whether the words are in a mapping advised for huge pages (the
    /// kernel decides whether it actually uses them).
    pub fn is_huge_page_mapping(&self) -> bool {
        match self.inner {
            Inner::Heap(_) => false,
            #[cfg(target_os = "linux")]
            Inner::Huge(_) => true,
        }
    }
}

/// An anonymous mapping of `len` elements advised for huge pages, if
/// `len` is large enough and the kernel agrees.
#[cfg(target_os = "linux")]
fn huge_map<T: Pod>(len: usize) -> Option<memmap2::MmapMut> {
    let bytes = len.checked_mul(size_of::<T>())?;
    if bytes < HUGE_PAGE_MIN_BYTES {
        return None;
    }
    let map = memmap2::MmapMut::map_anon(bytes).ok()?;
    // Advice the kernel may decline (THP `never`): the mapping still
    // works, with small pages.
    let _ = map.advise(memmap2::Advice::HugePage);
    // A mapping is page-aligned (and `T`'s alignment, at most 64 here,
    // divides a page), so this holds; checked once here so that `deref`
    // may rely on it.
    bytemuck::try_cast_slice::<u8, T>(&map).ok()?;
    Some(map)
}

impl<T: Pod> Deref for Words<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match &self.inner {
            Inner::Heap(v) => v,
            // Cannot fail: checked in `huge_map`.
            #[cfg(target_os = "linux")]
            Inner::Huge(m) => bytemuck::cast_slice(m),
        }
    }
}

impl<T: Pod> DerefMut for Words<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.inner {
            Inner::Heap(v) => v,
            #[cfg(target_os = "linux")]
            Inner::Huge(m) => bytemuck::cast_slice_mut(m),
        }
    }
}

impl<T: Pod> Clone for Words<T> {
    fn clone(&self) -> Words<T> {
        match &self.inner {
            Inner::Heap(v) => Words { inner: Inner::Heap(v.clone()) },
            #[cfg(target_os = "linux")]
            Inner::Huge(_) => Words::from_vec(self.to_vec()),
        }
    }
}

impl<T: Pod + PartialEq> PartialEq for Words<T> {
    fn eq(&self, other: &Words<T>) -> bool {
        self[..] == other[..]
    }
}

impl<T: Pod + Eq> Eq for Words<T> {}

impl<T: Pod + Hash> Hash for Words<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self[..].hash(state);
    }
}

/// A summary, not the elements: a filter's `Debug` (and so `dbg!` or a
/// failed `assert_eq!` of two filters) would otherwise print megabytes.
impl<T: Pod> std::fmt::Debug for Words<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let nonzero = self
            .iter()
            .filter(|x| bytemuck::bytes_of(*x).iter().any(|&b| b != 0))
            .count();
        f.debug_struct("Words")
            .field("len", &self.len())
            .field("nonzero", &nonzero)
            .field("huge_page_mapping", &self.is_huge_page_mapping())
            .finish()
    }
}

impl<'a, T: Pod> IntoIterator for &'a Words<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Pod> From<Vec<T>> for Words<T> {
    fn from(v: Vec<T>) -> Words<T> {
        Words::from_vec(v)
    }
}

#[cfg(test)]
mod tests {
    use super::{HUGE_PAGE_MIN_BYTES, Words};

    #[test]
    fn small_and_large_arrays_hold_the_same_words() {
        for len in [0, 1, 100, HUGE_PAGE_MIN_BYTES / 8 + 3] {
            let mut w: Words = Words::zeroed(len).unwrap();
            assert_eq!(w.len(), len);
            assert!(w.iter().all(|&x| x == 0));
            for (i, x) in w.iter_mut().enumerate() {
                *x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            }
            let v = w.to_vec();
            assert_eq!(w.clone(), w);
            assert_eq!(Words::from_vec(v.clone())[..], v[..]);
            assert_eq!(w.into_vec(), v);
        }
        #[cfg(target_os = "linux")]
        {
            let big: Words = Words::zeroed(HUGE_PAGE_MIN_BYTES / 8).unwrap();
            assert!(big.is_huge_page_mapping());
            assert!(big.clone().is_huge_page_mapping());
            assert!(!Words::<u64>::zeroed(8).unwrap().is_huge_page_mapping());
        }
    }

    #[test]
    fn debug_is_a_summary_not_the_elements() {
        let mut w: Words = Words::zeroed(100_000).unwrap();
        w[7] = 1;
        w[99_999] = u64::MAX;
        assert_eq!(
            format!("{w:?}"),
            "Words { len: 100000, nonzero: 2, huge_page_mapping: false }"
        );
    }

    /// A 64-byte line, as a blocked filter keeps its words.
    #[derive(
        Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable,
    )]
    #[repr(C, align(64))]
    struct Line([u64; 8]);

    #[test]
    fn aligned_elements_in_either_storage() {
        for len in [0, 5, HUGE_PAGE_MIN_BYTES / 64 + 1] {
            let mut w: Words<Line> = Words::zeroed(len).unwrap();
            assert_eq!(w.len(), len);
            assert_eq!(w.as_ptr().align_offset(64), 0);
            for (i, l) in w.iter_mut().enumerate() {
                l.0[i % 8] = i as u64 + 1;
            }
            let v = w.to_vec();
            assert_eq!(w.clone(), w);
            assert_eq!(Words::from_vec(v.clone())[..], v[..]);
            #[cfg(target_os = "linux")]
            assert_eq!(w.is_huge_page_mapping(), len > 5);
        }
    }
}
