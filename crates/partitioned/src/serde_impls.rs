//! `Serialize` and `Deserialize` (feature `serde`): each filter as the
//! bytes of its bloomlab file (`FORMAT.md`), read back through the same
//! checked reader as a file (`bloomlab_core::serde_file`); the hashing
//! settings as their fields, a [`SliceReduction`] by name.

use bloomlab_core::serde_via_file;

use crate::{
    AnyPartitioned, HutoolBitMap, HutoolBitSet, PartitionedBloomFilter,
    SliceReduction,
};

bloomlab_hash::serde_by_name!(
    SliceReduction,
    SliceReduction::name,
    SliceReduction::from_name,
    "\"modulo\", \"multiply-shift\" or \"java-abs-remainder\""
);

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

    #[test]
    fn hutool_style_slices_read_from_toml() {
        use crate::{Config, SliceSpec};
        use bloomlab_hash::{Family, HutoolHash};

        #[derive(Deserialize, Serialize)]
        struct File {
            slices: Vec<SliceSpec>,
        }
        let f: File = toml::from_str(
            "[[slices]]\nfamily = \"hutool-rs\"\nbits = 1000\n\
             reduction = \"java-abs-remainder\"\n\
             [[slices]]\nfamily = \"xxh3-64\"\nbits = 64\nseed = 9\n",
        )
        .unwrap();
        let rs = SliceSpec::new(Family::Hutool(HutoolHash::Rs), 1000)
            .reduction(SliceReduction::JavaAbsRemainder);
        let xxh = SliceSpec::new(Family::Xxh3_64, 64).seed(9);
        assert_eq!(f.slices, [rs, xxh]);
        let text = toml::to_string(&f).unwrap();
        assert_eq!(toml::from_str::<File>(&text).unwrap().slices, f.slices);

        let c: Config = toml::from_str("reduction = \"modulo\"").unwrap();
        assert_eq!(c.reduction, bloomlab_hash::Reduction::Modulo);
        assert_eq!(c.family, Config::default().family);
    }

    #[test]
    fn a_slice_without_its_size_or_with_a_bad_reduction_is_refused() {
        use crate::SliceSpec;

        let msg = |text: &str| {
            toml::from_str::<SliceSpec>(text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        let e = msg("family = \"xxh3-64\"");
        assert!(e.contains("missing field `bits`"), "{e}");
        let e = msg("family = \"xxh3-64\"\nbits = 8\nreduction = \"abs\"");
        assert!(e.contains("java-abs-remainder"), "{e}");
    }
}
