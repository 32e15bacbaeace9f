//! serde support for the registry types (feature `serde`): a [`Family`],
//! [`Strategy`] or [`Reduction`] serializes as its registry name, the
//! name `bloomlab list`, the CLI and experiment files use, and
//! deserializes through the same case-insensitive lookup, so a service's
//! configuration file can say `family = "murmur3-x64-128"`.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use bloomlab_hash::{Family, Reduction, Strategy};
//!
//! assert_eq!(serde_json::to_string(&Family::Xxh3_128)?, r#""xxh3-128""#);
//! let s: Strategy = serde_json::from_str(r#""Guava-Mitz64""#)?;
//! assert_eq!(s, Strategy::GuavaMitz64);
//! let err = serde_json::from_str::<Reduction>(r#""modulus""#).err();
//! assert!(err.is_some_and(|e| e.to_string().contains("modulo, multiply-shift")));
//! # Ok(())
//! # }
//! ```

use crate::{Family, Reduction, Strategy};

#[doc(hidden)]
pub use serde as __serde;

/// Implements `Serialize` (as `$name(self)`, a `&str`) and `Deserialize`
/// (a string through `$parse`, whose error's `Display` becomes the
/// format's error) for a type known by name. For bloomlab's own crates.
#[doc(hidden)]
#[macro_export]
macro_rules! serde_by_name {
    ($ty:ty, $name:expr, $parse:expr, $expecting:literal) => {
        impl $crate::serde_name::__serde::Serialize for $ty {
            fn serialize<S>(
                &self,
                s: S,
            ) -> ::core::result::Result<S::Ok, S::Error>
            where
                S: $crate::serde_name::__serde::Serializer,
            {
                s.serialize_str($name(*self))
            }
        }

        impl<'de> $crate::serde_name::__serde::Deserialize<'de> for $ty {
            fn deserialize<D>(d: D) -> ::core::result::Result<Self, D::Error>
            where
                D: $crate::serde_name::__serde::Deserializer<'de>,
            {
                struct Name;
                impl $crate::serde_name::__serde::de::Visitor<'_> for Name {
                    type Value = $ty;
                    fn expecting(
                        &self,
                        f: &mut ::core::fmt::Formatter<'_>,
                    ) -> ::core::fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_str<E>(
                        self,
                        v: &str,
                    ) -> ::core::result::Result<$ty, E>
                    where
                        E: $crate::serde_name::__serde::de::Error,
                    {
                        $parse(v).map_err(E::custom)
                    }
                }
                d.deserialize_str(Name)
            }
        }
    };
}

serde_by_name!(
    Family,
    Family::name,
    Family::from_name,
    "a hash family's name, such as \"xxh3-128\""
);
serde_by_name!(
    Strategy,
    Strategy::name,
    Strategy::from_name,
    "an index strategy's name, such as \"enhanced-double\""
);
serde_by_name!(
    Reduction,
    Reduction::name,
    Reduction::from_name,
    "\"modulo\" or \"multiply-shift\""
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_round_trips() {
        for f in Family::all() {
            let json = serde_json::to_string(&f).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", f.name()));
            assert_eq!(serde_json::from_str::<Family>(&json).ok(), Some(f));
        }
        for s in Strategy::all() {
            let json = serde_json::to_string(&s).unwrap_or_default();
            assert_eq!(serde_json::from_str::<Strategy>(&json).ok(), Some(s));
        }
        for r in Reduction::all() {
            let json = serde_json::to_string(&r).unwrap_or_default();
            assert_eq!(serde_json::from_str::<Reduction>(&json).ok(), Some(r));
        }
    }

    #[test]
    fn a_wrong_name_or_type_says_what_is_wanted() {
        let e = serde_json::from_str::<Family>("\"xxh4\"")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("xxh4") && e.contains("xxh3-128"), "{e}");
        let e = serde_json::from_str::<Family>("7")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("a hash family's name"), "{e}");
    }
}
