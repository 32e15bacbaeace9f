//! Funnels: how typed values become the bytes a filter hashes.
//!
//! bloomlab never uses `std::hash::Hash`, whose output may change between
//! Rust versions and platforms. A key reaches a filter as bytes, and
//! [`Funnel`] produces them exactly as Guava's funnels do, so a filter
//! built here and one built by Guava agree bit for bit:
//!
//! | Rust type | Guava funnel | bytes |
//! |---|---|---|
//! | `str`, `String` | `stringFunnel(UTF_8)` | UTF-8 |
//! | `i64`, `u64` | `longFunnel()` | 8, little-endian |
//! | `i32`, `u32` | `integerFunnel()` | 4, little-endian |
//! | `[u8]`, `Vec<u8>`, `[u8; N]` | `byteArrayFunnel()` | as they are |
//! | [`Utf16Le`] | `unencodedCharsFunnel()` | each UTF-16 unit, 2 bytes LE |
//!
//! Java-string hash families (hutool's, `String.hashCode`) work on UTF-16
//! code units instead of bytes; [`with_java_units`] gives the view of a
//! byte key that they hash.
//!
//! ```
//! use bloomlab_hash::Funnel;
//!
//! assert_eq!(1u64.with_bytes(|b| b.to_vec()), [1, 0, 0, 0, 0, 0, 0, 0]);
//! assert_eq!((-2i32).with_bytes(|b| b.to_vec()), [0xfe, 0xff, 0xff, 0xff]);
//! assert_eq!("é".with_bytes(|b| b.to_vec()), [0xc3, 0xa9]);
//! ```

/// A value that can be fed to a filter as bytes, the way Guava's funnel
/// for the same Java type would write it.
pub trait Funnel {
    /// Calls `f` with this value's bytes. No allocation for integers,
    /// strings and byte slices.
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R;

    /// The value's bytes as one little-endian `u64`, when they are
    /// exactly eight (`u64`, `i64`, `[u8; 8]`); `None` otherwise (the
    /// default). Filters pass such a key to their probe loops in a
    /// register, without writing its bytes to memory and checking their
    /// length. `Some(w)` must mean that [`Funnel::with_bytes`] gives
    /// `w.to_le_bytes()`.
    ///
    /// ```
    /// use bloomlab_hash::Funnel;
    ///
    /// assert_eq!((-1i64).as_le_word(), Some(u64::MAX));
    /// assert_eq!([1u8, 0, 0, 0, 0, 0, 0, 0].as_le_word(), Some(1));
    /// assert_eq!(7u32.as_le_word(), None); // four bytes
    /// assert_eq!("8 bytes!".as_le_word(), None); // not a fixed size
    /// ```
    #[inline]
    fn as_le_word(&self) -> Option<u64> {
        None
    }
}

impl Funnel for str {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.as_bytes())
    }
}

impl Funnel for String {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.as_bytes())
    }
}

impl Funnel for [u8] {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self)
    }
}

impl Funnel for Vec<u8> {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self)
    }
}

impl<const N: usize> Funnel for [u8; N] {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self)
    }

    #[inline]
    fn as_le_word(&self) -> Option<u64> {
        // `N` is a constant: the `try_into` is resolved at compile time.
        let bytes: &[u8; 8] = self.as_slice().try_into().ok()?;
        Some(u64::from_le_bytes(*bytes))
    }
}

macro_rules! le_funnel {
    ($($t:ty),*) => {$(
        impl Funnel for $t {
            #[inline]
            fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
                f(&self.to_le_bytes())
            }
        }
    )*};
}
le_funnel!(u32, i32);

impl Funnel for u64 {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(&self.to_le_bytes())
    }

    #[inline]
    fn as_le_word(&self) -> Option<u64> {
        Some(*self)
    }
}

impl Funnel for i64 {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(&self.to_le_bytes())
    }

    #[inline]
    fn as_le_word(&self) -> Option<u64> {
        // The same eight bytes, read back as unsigned.
        Some(u64::from_le_bytes(self.to_le_bytes()))
    }
}

impl<T: Funnel + ?Sized> Funnel for &T {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        (**self).with_bytes(f)
    }

    #[inline]
    fn as_le_word(&self) -> Option<u64> {
        (**self).as_le_word()
    }
}

/// A string funnelled as Guava's `Funnels.unencodedCharsFunnel()` does:
/// each UTF-16 code unit as two bytes, little-endian.
#[derive(Debug, Clone, Copy)]
pub struct Utf16Le<'a>(pub &'a str);

impl Funnel for Utf16Le<'_> {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        let bytes: Vec<u8> =
            self.0.encode_utf16().flat_map(u16::to_le_bytes).collect();
        f(&bytes)
    }
}

/// Units decoded on the stack up to this length; longer keys allocate.
const STACK_UNITS: usize = 128;

/// Calls `f` with the UTF-16 code units of the Java `String` a byte key
/// stands for: its UTF-8 decoding when the bytes are valid UTF-8 (what a
/// Java service would have hashed), otherwise one unit per byte (ISO
/// 8859-1, Java's `new String(bytes, ISO_8859_1)`), so every byte string
/// has a defined value.
pub fn with_java_units<R>(key: &[u8], f: impl FnOnce(&[u16]) -> R) -> R {
    // A UTF-8 string has at most as many UTF-16 units as bytes, and the
    // Latin-1 view exactly as many, so short keys never allocate.
    if key.len() <= STACK_UNITS {
        let mut buf = [0u16; STACK_UNITS];
        let n = fill_units(key, &mut buf);
        f(&buf[..n])
    } else {
        let mut units = vec![0u16; key.len()];
        let n = fill_units(key, &mut units);
        f(&units[..n])
    }
}

/// Writes the Java-string units of `key` into `out` (at least as long as
/// `key`) and returns how many there are.
fn fill_units(key: &[u8], out: &mut [u16]) -> usize {
    let mut n = 0;
    match std::str::from_utf8(key) {
        Ok(s) => {
            for (slot, u) in out.iter_mut().zip(s.encode_utf16()) {
                *slot = u;
                n += 1;
            }
        }
        Err(_) => {
            for (slot, &b) in out.iter_mut().zip(key) {
                *slot = u16::from(b);
                n += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_units_of_utf8_and_latin1() {
        let units = |k: &[u8]| with_java_units(k, |u| u.to_vec());
        assert_eq!(units(b"ab"), [0x61, 0x62]);
        assert_eq!(units("🦀".as_bytes()), [0xd83e, 0xdd80]);
        assert_eq!(units(&[0xff, 0x41]), [0xff, 0x41]);
        let long = "x".repeat(300);
        assert_eq!(units(long.as_bytes()).len(), 300);
    }

    /// `as_le_word` is `with_bytes` read as a little-endian word, for the
    /// types of exactly eight bytes, through references too; `None` for
    /// the others, eight bytes long or not.
    #[test]
    fn le_word_is_the_bytes() {
        fn check<T: Funnel + ?Sized>(key: &T, is_word: bool) {
            let bytes = key.with_bytes(|b| b.to_vec());
            let want = <[u8; 8]>::try_from(bytes.as_slice())
                .ok()
                .map(u64::from_le_bytes)
                .filter(|_| is_word);
            assert_eq!(key.as_le_word(), want);
            assert_eq!((&key).as_le_word(), want);
            assert_eq!(is_word, want.is_some());
        }
        for v in [0u64, 1, 0x0102_0304_0506_0708, u64::MAX] {
            check(&v, true);
            check(&(v as i64), true);
            check(&v.to_le_bytes(), true);
            check(&v.to_le_bytes().to_vec(), false);
            check(&v.to_le_bytes()[..], false);
            check(&(v as u32), false);
            check(&(v as i32), false);
        }
        check(&[0u8; 7], false);
        check(&[0u8; 9], false);
        check("12345678", false);
        check(&String::from("12345678"), false);
        check(&Utf16Le("abcd"), false);
        assert_eq!((-2i64).as_le_word(), Some(u64::MAX - 1));
    }

    #[test]
    fn utf16le_is_unencoded_chars() {
        let b = Utf16Le("a🦀").with_bytes(|b| b.to_vec());
        assert_eq!(b, [0x61, 0, 0x3e, 0xd8, 0x80, 0xdd]);
    }
}
