//! `Serialize` and `Deserialize` (feature `serde`): each filter as the
//! bytes of its bloomlab file (`FORMAT.md`), read back through the same
//! checked reader as a file (`bloomlab_core::serde_file`).

use bloomlab_core::serde_via_file;

use crate::{
    AnyPartitioned, HutoolBitMap, HutoolBitSet, PartitionedBloomFilter,
};

serde_via_file!(PartitionedBloomFilter, "a partitioned Bloom filter");
serde_via_file!(HutoolBitMap, "a hutool BitMapBloomFilter");
serde_via_file!(HutoolBitSet, "a hutool BitSetBloomFilter");
serde_via_file!(AnyPartitioned, "a partitioned or hutool Bloom filter");

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    fn round_trip<T>(value: &T) -> T
    where
        T: Serialize + for<'de> Deserialize<'de>,
    {
        let json = serde_json::to_vec(value).unwrap_or_default();
        serde_json::from_slice(&json).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_filter_round_trips_through_json() {
        let mut general = PartitionedBloomFilter::new(300, 0.01).unwrap();
        let mut bitmap = HutoolBitMap::new(5).unwrap();
        let mut bitset = HutoolBitSet::new(1000, 300, 8).unwrap();
        for i in 0..100u64 {
            general.insert(&i);
            bitmap.add(&i.to_string());
            bitset.add(&i.to_string());
        }
        assert_eq!(round_trip(&general), general);
        assert_eq!(round_trip(&bitmap), bitmap);
        assert_eq!(round_trip(&bitset), bitset);
        let any = AnyPartitioned::from(bitset.clone());
        assert_eq!(round_trip(&any), any);
        let json = serde_json::to_vec(&general).unwrap_or_default();
        let bytes: Vec<u8> = serde_json::from_slice(&json).unwrap_or_default();
        assert_eq!(bytes, general.to_bytes().unwrap());
    }

    #[test]
    fn a_corrupt_or_misplaced_filter_is_an_error() {
        let f = HutoolBitSet::new(1000, 300, 8).unwrap();
        let mut bytes = f.to_bytes().unwrap();
        let json = serde_json::to_string(&bytes).unwrap_or_default();
        let err = serde_json::from_str::<PartitionedBloomFilter>(&json).err();
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            msg.starts_with("the file holds a hutool-bitset filter"),
            "{msg}"
        );
        let last = bytes.len() - 9;
        bytes[last] ^= 4;
        let json = serde_json::to_string(&bytes).unwrap_or_default();
        assert!(serde_json::from_str::<HutoolBitSet>(&json).is_err());
        assert!(serde_json::from_str::<AnyPartitioned>("[66, 76]").is_err());
    }
}
