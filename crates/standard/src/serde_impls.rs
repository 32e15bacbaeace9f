//! `Serialize` and `Deserialize` (feature `serde`): each filter as the
//! bytes of its bloomlab file (`FORMAT.md`), read back through the same
//! checked reader as a file (`bloomlab_core::serde_file`).

use bloomlab_core::serde_file;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{
    AtomicBloomFilter, BlockedBloomFilter, BloomFilter, StandardFilter,
    read_any,
};

bloomlab_core::serde_via_file!(BloomFilter, "a classic Bloom filter");
bloomlab_core::serde_via_file!(BlockedBloomFilter, "a blocked Bloom filter");

// A snapshot of the bits, as `AtomicBloomFilter::to_bytes` takes it:
// inserts racing with the serialization may or may not be in it.
bloomlab_core::serde_via_file!(AtomicBloomFilter, "a classic Bloom filter");

/// Either layout in bloomlab's format; deserializes Guava's bytes too.
impl Serialize for StandardFilter {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            StandardFilter::Classic(f) => f.serialize(s),
            StandardFilter::Blocked(f) => f.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for StandardFilter {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde_file::deserialize(d, "a standard or blocked Bloom filter", |b| {
            read_any(b).map(|loaded| loaded.filter)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Builder, guava};
    use bloomlab_hash::Strategy;

    /// A value's JSON and the value read back from it.
    fn round_trip<T>(value: &T) -> T
    where
        T: Serialize + for<'de> Deserialize<'de>,
    {
        let json = serde_json::to_vec(value).unwrap_or_default();
        serde_json::from_slice(&json).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_layout_round_trips_through_json() {
        let mut classic = BloomFilter::new(500, 0.01).unwrap();
        let mut blocked = BlockedBloomFilter::new(500, 0.01).unwrap();
        let mut split = Builder::bits(4096, 8)
            .block_scheme(crate::BlockScheme::ParquetSplit)
            .build_blocked()
            .unwrap();
        for i in 0..200u64 {
            classic.insert(&i);
            blocked.insert(&i);
            split.insert(&i);
        }
        assert_eq!(round_trip(&classic), classic);
        assert_eq!(round_trip(&blocked), blocked);
        assert_eq!(round_trip(&split), split);
        let atomic = AtomicBloomFilter::from(classic.clone());
        assert_eq!(round_trip(&atomic).into_bloom_filter(), classic);
        let any = StandardFilter::from(blocked.clone());
        assert_eq!(round_trip(&any), any);
    }

    #[test]
    fn the_serialized_bytes_are_the_file() {
        let mut f = BloomFilter::new(100, 0.01).unwrap();
        f.insert("a");
        let json = serde_json::to_value(&f).unwrap_or_default();
        let bytes: Vec<u8> = serde_json::from_value(json).unwrap_or_default();
        assert_eq!(bytes, f.to_bytes().unwrap());
    }

    #[test]
    fn a_byte_string_deserializes_as_binary_formats_give_it() {
        use serde::de::value::{BytesDeserializer, Error};
        let mut f = BlockedBloomFilter::new(100, 0.01).unwrap();
        f.insert("a");
        let bytes = f.to_bytes().unwrap();
        let d = BytesDeserializer::<Error>::new(&bytes);
        assert_eq!(BlockedBloomFilter::deserialize(d).ok(), Some(f));
        let d = BytesDeserializer::<Error>::new(&bytes[..bytes.len() - 1]);
        assert!(BlockedBloomFilter::deserialize(d).is_err());
    }

    #[test]
    fn guava_bytes_deserialize_as_a_classic_filter() {
        let mut g = guava::create(100, 0.03, Strategy::GuavaMitz64).unwrap();
        g.insert("x");
        let json = serde_json::to_string(&guava::to_guava_bytes(&g).unwrap())
            .unwrap_or_default();
        let back: BloomFilter = serde_json::from_str(&json).unwrap();
        assert_eq!(back, g);
        let any: StandardFilter = serde_json::from_str(&json).unwrap();
        assert_eq!(any, StandardFilter::Classic(g));
    }

    #[test]
    fn a_corrupt_or_misplaced_filter_is_an_error_not_a_panic() {
        let f = BloomFilter::new(100, 0.01).unwrap();
        let mut bytes = f.to_bytes().unwrap();
        // The layout that is not the reader's.
        let json = serde_json::to_string(&bytes).unwrap_or_default();
        let err = serde_json::from_str::<BlockedBloomFilter>(&json).err();
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("holds a classic filter"), "{msg}");
        // A flipped payload bit fails the checksum.
        let at = bytes.len() - 12;
        bytes[at] ^= 1;
        let json = serde_json::to_string(&bytes).unwrap_or_default();
        let err = serde_json::from_str::<BloomFilter>(&json).err();
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.starts_with("checksum mismatch"), "{msg}");
        // Truncated, and not bytes at all.
        bytes.truncate(20);
        let json = serde_json::to_string(&bytes).unwrap_or_default();
        assert!(serde_json::from_str::<BloomFilter>(&json).is_err());
        assert!(serde_json::from_str::<BloomFilter>("{\"m\": 3}").is_err());
    }
}
