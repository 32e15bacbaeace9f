//! serde support for the filters (feature `serde`): a filter serializes
//! as the bytes of its bloomlab file, so a filter inside a serde document
//! (JSON, bincode, postcard, ...) is the same bytes as on disk, and
//! deserializing goes through the same reader as a file does: every
//! length checked before allocating, the checksum verified, a corrupt
//! filter an error of the document's format, never a panic.
//!
//! The filter crates implement `Serialize` and `Deserialize` with
//! [`serialize`] and [`deserialize`]; applications need nothing from this
//! module.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use bloomlab_core::serde_file;
//!
//! // A "filter" whose file is its bytes, and whose reader refuses
//! // anything but three bytes.
//! struct Tiny([u8; 3]);
//! impl serde::Serialize for Tiny {
//!     fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
//!         serde_file::serialize(Ok::<_, String>(self.0.to_vec()), s)
//!     }
//! }
//! impl<'de> serde::Deserialize<'de> for Tiny {
//!     fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Tiny, D::Error> {
//!         serde_file::deserialize(d, "a tiny file", |b: &[u8]| {
//!             <[u8; 3]>::try_from(b).map(Tiny).map_err(|_| "not 3 bytes")
//!         })
//!     }
//! }
//!
//! let json = serde_json::to_string(&Tiny([1, 2, 3]))?;
//! assert_eq!(json, "[1,2,3]");
//! assert_eq!(serde_json::from_str::<Tiny>(&json)?.0, [1, 2, 3]);
//! let err = serde_json::from_str::<Tiny>("[1,2]").err().map(|e| e.to_string());
//! assert!(err.is_some_and(|e| e.starts_with("not 3 bytes")));
//! # Ok(())
//! # }
//! ```

use std::fmt::{self, Display};

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserializer, Serializer};

#[doc(hidden)]
pub use serde as __serde;

/// Implements `Serialize` and `Deserialize` for a filter type with a
/// `to_bytes(&self) -> Result<Vec<u8>, E>` and a
/// `read(&[u8]) -> Result<Self, E>` (`E: Display`), through
/// [`serialize`] and [`deserialize`]; `$expecting` names the filter in a
/// format's "invalid type" message. For the filter crates' own use.
#[doc(hidden)]
#[macro_export]
macro_rules! serde_via_file {
    ($ty:ty, $expecting:literal) => {
        impl $crate::serde_file::__serde::Serialize for $ty {
            fn serialize<S>(
                &self,
                s: S,
            ) -> ::core::result::Result<S::Ok, S::Error>
            where
                S: $crate::serde_file::__serde::Serializer,
            {
                $crate::serde_file::serialize(self.to_bytes(), s)
            }
        }

        impl<'de> $crate::serde_file::__serde::Deserialize<'de> for $ty {
            fn deserialize<D>(d: D) -> ::core::result::Result<Self, D::Error>
            where
                D: $crate::serde_file::__serde::Deserializer<'de>,
            {
                $crate::serde_file::deserialize(d, $expecting, <$ty>::read)
            }
        }
    };
}

/// Bytes a sequence is given before any element arrives: a document's
/// length hint is not trusted further than this, the rest grows with
/// the elements actually read.
const SEQ_PREALLOCATE: usize = 1 << 16;

/// Serializes a filter's file bytes (`file`, the result of its
/// `to_bytes`) as a byte string; an error making them becomes the
/// serializer's error.
pub fn serialize<S, E>(
    file: Result<Vec<u8>, E>,
    serializer: S,
) -> Result<S::Ok, S::Error>
where
    S: Serializer,
    E: Display,
{
    match file {
        Ok(bytes) => serializer.serialize_bytes(&bytes),
        Err(e) => Err(serde::ser::Error::custom(e)),
    }
}

/// Deserializes a filter from a byte string (or, from formats without
/// one such as JSON, a sequence of byte values) with `read`, the filter's
/// own file reader; `expecting` names the filter for the format's
/// "invalid type" message. `read`'s error becomes the deserializer's.
pub fn deserialize<'de, D, T, E, F>(
    deserializer: D,
    expecting: &'static str,
    read: F,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    E: Display,
    F: FnOnce(&[u8]) -> Result<T, E>,
{
    deserializer.deserialize_bytes(FileVisitor { expecting, read })
}

/// Reads a filter from whichever form of bytes the format gives.
struct FileVisitor<F> {
    expecting: &'static str,
    read: F,
}

impl<F> FileVisitor<F> {
    fn finish<T, E: Display, X: de::Error>(self, bytes: &[u8]) -> Result<T, X>
    where
        F: FnOnce(&[u8]) -> Result<T, E>,
    {
        (self.read)(bytes).map_err(X::custom)
    }
}

impl<'de, T, E, F> Visitor<'de> for FileVisitor<F>
where
    E: Display,
    F: FnOnce(&[u8]) -> Result<T, E>,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (the bytes of its bloomlab file)", self.expecting)
    }

    fn visit_bytes<X: de::Error>(self, v: &[u8]) -> Result<T, X> {
        self.finish(v)
    }

    fn visit_byte_buf<X: de::Error>(self, v: Vec<u8>) -> Result<T, X> {
        self.finish(&v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let hint = seq.size_hint().unwrap_or(0).min(SEQ_PREALLOCATE);
        let mut bytes = Vec::with_capacity(hint);
        while let Some(b) = seq.next_element::<u8>()? {
            bytes.push(b);
        }
        self.finish(&bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that accepts exactly `b"ok"`.
    fn read_ok(b: &[u8]) -> Result<&'static str, String> {
        if b == b"ok" {
            Ok("read")
        } else {
            Err(format!("bad file of {} bytes", b.len()))
        }
    }

    struct Ok2;
    impl<'de> serde::Deserialize<'de> for Ok2 {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ok2, D::Error> {
            deserialize(d, "a test file", read_ok).map(|_| Ok2)
        }
    }

    #[test]
    fn a_sequence_of_bytes_goes_to_the_reader() {
        assert!(serde_json::from_str::<Ok2>("[111, 107]").is_ok());
        let err = serde_json::from_str::<Ok2>("[1, 2, 3]").err();
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.starts_with("bad file of 3 bytes"), "{msg}");
    }

    #[test]
    fn a_byte_string_goes_to_the_reader() {
        // What binary formats (bincode, postcard, CBOR) hand over.
        use serde::de::value::{BytesDeserializer, Error};
        let ok =
            deserialize(BytesDeserializer::<Error>::new(b"ok"), "x", read_ok);
        assert_eq!(ok.ok(), Some("read"));
        let bad =
            deserialize(BytesDeserializer::<Error>::new(b"no!"), "x", read_ok);
        let msg = bad.err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(msg, "bad file of 3 bytes");
    }

    #[test]
    fn a_value_of_another_type_names_what_was_expected() {
        let err = serde_json::from_str::<Ok2>("42").err();
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            msg.contains("a test file (the bytes of its bloomlab file)"),
            "{msg}"
        );
    }

    #[test]
    fn a_byte_out_of_range_is_an_error() {
        assert!(serde_json::from_str::<Ok2>("[111, 1070]").is_err());
    }

    #[test]
    fn a_failed_file_is_the_serializers_error() {
        let err = serialize(
            Err::<Vec<u8>, _>("disk full"),
            serde_json::value::Serializer,
        )
        .err()
        .map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("disk full"));
    }
}
