// Property tests: no false negatives, round trip, corruption never panics.

use bloomlab_partitioned::{
    AnyPartitioned, Config, HutoolBitMap, HutoolBitSet, HutoolFilterClass,
    PartitionedBloomFilter,
};
use proptest::prelude::*;

use crate::format::reseal;

fn strategy_config() -> impl Strategy<Value = Config> {
    use bloomlab_hash::{Family, Reduction, Strategy as S};
    prop_oneof![
        Just(Config::default()),
        Just(Config {
            family: Family::Murmur3X64_128,
            seed: 0,
            strategy: S::GuavaMitz64,
            reduction: Reduction::Modulo,
        }),
        Just(Config {
            family: Family::Xxh64,
            seed: 3,
            strategy: S::Independent,
            reduction: Reduction::MultiplyShift,
        }),
        Just(Config {
            family: Family::Hutool(bloomlab_hash::HutoolHash::Fnv),
            seed: 0,
            strategy: S::Double,
            reduction: Reduction::Modulo,
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn no_false_negatives(
        config in strategy_config(),
        k in 1u32..10,
        s in 1u64..2000,
        keys in prop::collection::vec(any::<Vec<u8>>(), 0..200),
    ) {
        let mut f = PartitionedBloomFilter::with_config(config, k, s).unwrap();
        for key in &keys {
            f.insert(key);
        }
        for key in &keys {
            prop_assert!(f.contains(key));
        }
    }

    #[test]
    fn hutool_presets_have_no_false_negatives(
        words in prop::collection::vec(".{0,12}", 0..100),
        class in 0usize..10,
        c in 1i32..200,
        k in 1i32..12,
    ) {
        let cls = HutoolFilterClass::ALL[class];
        let mut bm = HutoolBitMap::with_filters(5, &[(cls, 4096)]).unwrap();
        let mut bs = HutoolBitSet::new(c, 10, k).unwrap();
        for w in &words {
            bm.add(w);
            bs.add(w);
        }
        for w in &words {
            prop_assert!(bm.contains(w) && bs.contains(w));
        }
    }

    #[test]
    fn round_trip(
        config in strategy_config(),
        k in 1u32..8,
        s in 1u64..500,
        keys in prop::collection::vec(any::<u64>(), 0..100),
    ) {
        let mut f = PartitionedBloomFilter::with_config(config, k, s).unwrap();
        f.insert_many(&keys);
        let any = AnyPartitioned::from(f);
        let bytes = any.to_bytes().unwrap();
        prop_assert_eq!(AnyPartitioned::read(&bytes).unwrap(), any);
    }

    #[test]
    fn corruption_never_panics(
        which in 0usize..3,
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
        seal in any::<bool>(),
    ) {
        let any: AnyPartitioned = match which {
            0 => PartitionedBloomFilter::new(50, 0.1).unwrap().into(),
            1 => HutoolBitMap::with_filters(
                5, &[(HutoolFilterClass::Js, 64), (HutoolFilterClass::Pjw, 32)],
            ).unwrap().into(),
            _ => HutoolBitSet::new(40, 10, 3).unwrap().into(),
        };
        let mut bytes = any.to_bytes().unwrap();
        for (at, v) in edits {
            let i = at.index(bytes.len());
            bytes[i] = v;
        }
        if seal {
            reseal(&mut bytes);
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
        }
        // Either an error or a valid filter; never a panic.
        if let Ok(f) = AnyPartitioned::read(&bytes) {
            let f = f.as_filter();
            prop_assert!(f.bits() > 0);
            let _ = f.contains_bytes(b"probe");
        }
    }
}
