//! `Serialize` and `Deserialize` (feature `serde`): the filter as the
//! bytes of its bloomlab file (`FORMAT.md`: counters, configuration and
//! statistics), read back through the same checked reader as a file
//! (`bloomlab_core::serde_file`); a [`CounterWidth`] as its bits.

use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error};

use crate::{CounterWidth, CountingBloomFilter};

bloomlab_core::serde_via_file!(CountingBloomFilter, "a counting Bloom filter");

/// As its bits, as `build --counter-bits` and experiments take it.
impl Serialize for CounterWidth {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.bits())
    }
}

impl<'de> Deserialize<'de> for CounterWidth {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bits = u32::deserialize(d)?;
        CounterWidth::from_bits(bits).map_err(D::Error::custom)
    }
}

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

    #[test]
    fn a_counter_width_is_its_bits() {
        for w in CounterWidth::ALL {
            let json = serde_json::to_string(&w).unwrap_or_default();
            assert_eq!(json, w.bits().to_string());
            assert_eq!(
                serde_json::from_str::<CounterWidth>(&json).ok(),
                Some(w)
            );
        }
        let e = serde_json::from_str::<CounterWidth>("3")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("must be 2, 4 or 8"), "{e}");
    }

    #[test]
    fn a_service_can_keep_its_counting_settings_in_toml() {
        use bloomlab_standard::Config;

        #[derive(Deserialize)]
        struct Settings {
            counter_bits: CounterWidth,
            hashing: Config,
        }
        let s: Settings = toml::from_str(
            "counter_bits = 8\n[hashing]\nfamily = \"murmur3-x64-128\"\n",
        )
        .unwrap();
        let f = Builder::rate(100, 0.01)
            .width(s.counter_bits)
            .config(s.hashing)
            .build()
            .unwrap();
        assert_eq!(f.counter_width(), CounterWidth::Eight);
        assert_eq!(f.config().family, bloomlab_hash::Family::Murmur3X64_128);
    }
}
