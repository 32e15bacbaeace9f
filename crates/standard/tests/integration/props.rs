use bloomlab_hash::{Family, Reduction, Strategy as Ix};
use bloomlab_standard::{
    BlockedBloomFilter, BloomFilter, Builder, Config, Format, StandardFilter,
    read_any,
};
use proptest::prelude::*;

fn config() -> impl Strategy<Value = Config> {
    prop_oneof![
        Just(Config::default()),
        Just(Config::default().with_strategy(Ix::Double)),
        Just(Config::guava(Ix::GuavaMitz64)),
        Just(Config::guava(Ix::GuavaMitz32)),
        Just(Config {
            family: Family::Xxh64,
            seed: 5,
            strategy: Ix::Independent,
            reduction: Reduction::Modulo,
        }),
        Just(Config {
            family: Family::Murmur3X86_32,
            seed: 1,
            strategy: Ix::EnhancedDouble,
            reduction: Reduction::MultiplyShift,
        }),
    ]
}

fn keys() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(prop::collection::vec(any::<u8>(), 0..24), 0..150)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn no_false_negatives(
        c in config(), m in 1u64..5000, k in 1u32..12, keys in keys(),
        block in prop::sample::select(vec![64u64, 256, 512, 2048]),
    ) {
        let mut f = BloomFilter::with_config(c, m, k).unwrap();
        let mut b = Builder::bits(m, k).config(c).block_bits(block)
            .build_blocked().unwrap();
        for key in &keys {
            f.insert_bytes(key);
            b.insert_bytes(key);
        }
        for key in &keys {
            prop_assert!(f.contains_bytes(key));
            prop_assert!(b.contains_bytes(key));
        }
        let mut out = vec![false; keys.len()];
        f.contains_many(&keys, &mut out);
        prop_assert!(out.iter().all(|&x| x));
        b.contains_many(&keys, &mut out);
        prop_assert!(out.iter().all(|&x| x));
    }

    #[test]
    fn union_contains_both(
        c in config(), m in 64u64..4000, k in 1u32..9,
        a in keys(), b in keys(),
    ) {
        let mut fa = BloomFilter::with_config(c, m, k).unwrap();
        let mut fb = fa.clone();
        let mut ba = BlockedBloomFilter::with_config(
            c.family, c.seed, m, k, 512).unwrap();
        let mut bb = ba.clone();
        for key in &a { fa.insert_bytes(key); ba.insert_bytes(key); }
        for key in &b { fb.insert_bytes(key); bb.insert_bytes(key); }
        fa.union(&fb).unwrap();
        ba.union(&bb).unwrap();
        for key in a.iter().chain(&b) {
            prop_assert!(fa.contains_bytes(key));
            prop_assert!(ba.contains_bytes(key));
        }
    }

    #[test]
    fn serialization_round_trips(
        c in config(), m in 1u64..3000, k in 1u32..9, keys in keys(),
        blocked in any::<bool>(),
    ) {
        let f: StandardFilter = if blocked {
            let mut b = BlockedBloomFilter::with_config(
                c.family, c.seed, m, k, 256).unwrap();
            for key in &keys { b.insert_bytes(key); }
            b.into()
        } else {
            let mut f = BloomFilter::with_config(c, m, k).unwrap();
            for key in &keys { f.insert_bytes(key); }
            f.into()
        };
        for format in [Format::Native, Format::Guava] {
            if let Ok(bytes) = f.to_bytes(format) {
                let back = read_any(&bytes).unwrap();
                prop_assert_eq!(back.format, format);
                prop_assert_eq!(&back.filter, &f);
            }
        }
    }

    #[test]
    fn corrupt_or_truncated_input_never_panics(
        blocked in any::<bool>(), guava in any::<bool>(), split in any::<bool>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let f: StandardFilter = if blocked && split {
            let mut b = BlockedBloomFilter::split_block(40, 0.01).unwrap();
            b.insert("x");
            b.into()
        } else if blocked {
            BlockedBloomFilter::with_bits(1024, 4).unwrap().into()
        } else {
            let mut g = bloomlab_standard::guava::create(
                60, 0.01, Ix::GuavaMitz64).unwrap();
            g.insert("x");
            g.into()
        };
        let format = if guava && !blocked { Format::Guava } else { Format::Native };
        let mut bytes = f.to_bytes(format).unwrap();
        for (i, v) in edits {
            let i = i.index(bytes.len());
            bytes[i] = v;
        }
        let _ = read_any(&bytes);
        let n = cut.index(bytes.len());
        prop_assert!(read_any(&bytes[..n]).is_err());
    }
}
