//! `Serialize` and `Deserialize` (feature `serde`): the filter as the
//! bytes of its bloomlab file (`FORMAT.md`: counters, configuration and
//! statistics), read back through the same checked reader as a file
//! (`bloomlab_core::serde_file`).

use crate::CountingBloomFilter;

bloomlab_core::serde_via_file!(CountingBloomFilter, "a counting Bloom filter");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Builder, CounterWidth};

    #[test]
    fn counters_and_statistics_round_trip_through_json() {
        let mut f =
            Builder::rate(200, 0.01).width(CounterWidth::Two).build().unwrap();
        for i in 0..600u64 {
            f.insert(&(i % 150));
        }
        assert!(f.remove(&3u64).is_ok());
        assert!(f.remove(&1000u64).is_err());
        let json = serde_json::to_string(&f).unwrap_or_default();
        let back: CountingBloomFilter =
            serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.to_bytes().unwrap(), f.to_bytes().unwrap());
        assert_eq!(back.stats(), f.stats());
        assert!(back.stats().saturation_events > 0);
    }

    #[test]
    fn a_corrupt_filter_is_an_error() {
        let f = CountingBloomFilter::new(100, 0.01).unwrap();
        let mut bytes = f.to_bytes().unwrap();
        let at = bytes.len() - 10;
        bytes[at] ^= 2;
        let json = serde_json::to_string(&bytes).unwrap_or_default();
        let err = serde_json::from_str::<CountingBloomFilter>(&json).err();
        assert!(err.is_some_and(|e| e.to_string().contains("checksum")));
        let standard = bloomlab_standard::BloomFilter::new(100, 0.01).unwrap();
        let json = serde_json::to_string(&standard.to_bytes().unwrap());
        let json = json.unwrap_or_default();
        assert!(serde_json::from_str::<CountingBloomFilter>(&json).is_err());
    }
}
