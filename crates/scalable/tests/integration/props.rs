//! Property tests: no false negatives, round trips, counting.

use bloomlab_scalable::{Config, Error, Layout, ScalableBloomFilter};
use proptest::prelude::*;

fn config() -> impl Strategy<Value = Config> {
    (
        1u64..200,
        prop_oneof![Just(0.3), Just(0.01), Just(0.001)],
        prop_oneof![Just(0.5), Just(0.85), Just(0.9)],
        1u64..5,
        prop_oneof![
            Just(Layout::Standard),
            Just(Layout::Partitioned),
            Just(Layout::Blocked)
        ],
        any::<bool>(),
    )
        .prop_map(|(n0, p, r, s, layout, half)| {
            Config::new(n0, p)
                .tightening(r)
                .growth(s)
                .layout(layout)
                .full_at_half_fill(half)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn no_false_negatives_and_round_trip(
        c in config(),
        keys in prop::collection::vec(
            prop::collection::vec(any::<u8>(), 0..24), 0..400),
    ) {
        let mut f = ScalableBloomFilter::with_config(c).unwrap();
        let mut added = 0u64;
        let mut skipped = 0u64;
        let mut kept = keys.len();
        for (i, k) in keys.iter().enumerate() {
            match f.add(k) {
                Ok(true) => added += 1,
                Ok(false) => skipped += 1,
                // A blocked layer needing more than 64 probes (s = 1
                // halving the error every layer) is refused; the filter
                // is unchanged.
                Err(Error::CannotGrow(_)) if c.layout == Layout::Blocked => {
                    prop_assert!(f.layers().last().unwrap().k() > 56);
                    kept = i;
                    break;
                }
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            }
            prop_assert!(f.contains(k));
        }
        let keys = &keys[..kept];
        prop_assert_eq!(f.len(), added);
        prop_assert_eq!(f.skipped(), skipped);
        let counts: u64 = f.layers().iter().map(|l| l.count()).sum();
        prop_assert_eq!(counts, added);
        // Only the newest layer can be below capacity (lazy growth).
        for l in &f.layers()[..f.layers().len() - 1] {
            prop_assert!(l.count() <= l.capacity());
        }
        for k in keys {
            prop_assert!(f.contains(k));
        }
        let g = ScalableBloomFilter::read(&f.to_bytes().unwrap()).unwrap();
        prop_assert_eq!(&g, &f);
    }

    #[test]
    fn redisbloom_dump_round_trip(
        p in prop_oneof![Just(0.5), Just(0.05), Just(0.001)],
        n0 in 1u64..100,
        x in 1u32..5,
        keys in prop::collection::vec(any::<u64>(), 0..600),
    ) {
        let mut f = ScalableBloomFilter::redisbloom_reserve(
            p, n0, Some(x), false).unwrap();
        for k in &keys {
            f.add(&k.to_le_bytes()).unwrap();
        }
        let dump = f.redis_scandump().unwrap();
        let g = ScalableBloomFilter::from_redis_scandump(&dump).unwrap();
        prop_assert_eq!(g.redis_scandump().unwrap(), dump);
        for k in &keys {
            prop_assert!(g.contains(&k.to_le_bytes()));
        }
    }

    #[test]
    fn corrupt_bytes_never_panic(
        flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        cut in any::<usize>(),
    ) {
        let mut f = ScalableBloomFilter::new(20, 0.01).unwrap();
        for i in 0..100u32 {
            f.add(&i.to_le_bytes()).unwrap();
        }
        let mut b = f.to_bytes().unwrap();
        for (pos, x) in flips {
            let n = b.len();
            b[pos % n] ^= x | 1;
        }
        let _ = ScalableBloomFilter::read(&b);
        let _ = ScalableBloomFilter::read(&b[..cut % b.len()]);
        // With the checksum recomputed, the change reaches the reader's
        // checks: an accepted filter reads back as itself and grows (or
        // says why it cannot) without a panic.
        crate::format::reseal(&mut b);
        if let Ok(mut g) = ScalableBloomFilter::read(&b) {
            let again = ScalableBloomFilter::read(&g.to_bytes().unwrap());
            prop_assert_eq!(again.as_ref().ok(), Some(&g));
            for i in 1000..1200u32 {
                if g.add(&i.to_le_bytes()).is_err() {
                    break;
                }
            }
        }
        // And a dump header with random damage.
        let mut g = ScalableBloomFilter::redisbloom().unwrap();
        for i in 0..300u32 {
            g.add(&i.to_le_bytes()).unwrap();
        }
        let mut dump = g.redis_scandump().unwrap();
        let h = &mut dump[0].1;
        let n = h.len();
        h[cut % n] ^= 0xff;
        let _ = ScalableBloomFilter::from_redis_scandump(&dump);
    }
}
