//! `Serialize` and `Deserialize` (feature `serde`): the filter as the
//! bytes of its bloomlab file (`FORMAT.md`: configuration, counts and
//! every layer), read back through the same checked reader as a file
//! (`bloomlab_core::serde_file`).

use crate::ScalableBloomFilter;

bloomlab_core::serde_via_file!(ScalableBloomFilter, "a scalable Bloom filter");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;

    #[test]
    fn a_grown_filter_round_trips_through_json() {
        let mut f =
            ScalableBloomFilter::with_config(Config::new(100, 0.01)).unwrap();
        for i in 0..1000u32 {
            assert!(f.add(&i.to_le_bytes()).is_ok());
        }
        assert!(f.layers().len() > 1);
        let json = serde_json::to_string(&f).unwrap_or_default();
        let back: ScalableBloomFilter =
            serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.to_bytes().unwrap(), f.to_bytes().unwrap());
        assert_eq!(back.len(), f.len());
        assert!((0..1000u32).all(|i| back.contains(&i.to_le_bytes())));
    }

    #[test]
    fn a_corrupt_filter_is_an_error() {
        let f = ScalableBloomFilter::with_config(Config::new(100, 0.01));
        let mut bytes = f.and_then(|f| f.to_bytes()).unwrap_or_default();
        assert!(!bytes.is_empty());
        bytes[20] ^= 1;
        let json = serde_json::to_string(&bytes).unwrap_or_default();
        let err = serde_json::from_str::<ScalableBloomFilter>(&json).err();
        assert!(err.is_some_and(|e| e.to_string().contains("checksum")));
    }
}
