use bloomlab_core::Filter;
use bloomlab_hash::{Family, Reduction, Strategy};
use bloomlab_standard::{
    BlockedBloomFilter, BloomFilter, Builder, Config, Error, Format,
    StandardFilter, read_any,
};

#[test]
fn sizing_is_guavas() {
    let f = BloomFilter::new(1_000_000, 0.01).unwrap();
    assert_eq!((f.bits(), f.hash_count()), (9_585_088, 7));
    let f = BloomFilter::new(0, 0.03).unwrap();
    assert_eq!((f.bits(), f.hash_count()), (64, 5));
    let f = BloomFilter::with_bits(1000, 3).unwrap();
    assert_eq!((f.bits(), f.hash_count()), (1000, 3));
    let b = BlockedBloomFilter::new(1_000_000, 0.01).unwrap();
    assert_eq!(b.bits(), 9_585_088u64.div_ceil(512) * 512);
}

#[test]
fn bad_parameters_are_typed_errors() {
    assert!(matches!(BloomFilter::new(10, 0.0), Err(Error::Core(_))));
    assert!(matches!(BloomFilter::new(10, 1.0), Err(Error::Core(_))));
    assert!(matches!(BloomFilter::new(10, f64::NAN), Err(Error::Core(_))));
    assert!(matches!(
        BloomFilter::with_bits(0, 3),
        Err(Error::InvalidParameter { name: "m", .. })
    ));
    assert!(matches!(
        BloomFilter::with_bits(10, 0),
        Err(Error::InvalidParameter { name: "k", .. })
    ));
    assert!(matches!(
        Builder::bits(100, 3).strategy(Strategy::GuavaMitz64).build(),
        Err(Error::Hash(_))
    ));
    assert!(matches!(
        Builder::bits(100, 3).family(Family::Fnv1a64).seed(3).build(),
        Err(Error::Hash(_))
    ));
    assert!(Builder::bits(1000, 3).block_bits(100).build_blocked().is_err());
    assert!(Builder::bits(1000, 3).block_bits(32).build_blocked().is_err());
    assert!(Builder::bits(1000, 65).build_blocked().is_err());
    assert!(BloomFilter::with_bits(u64::MAX, 3).is_err());
    assert!(BlockedBloomFilter::with_bits(u64::MAX, 3).is_err());
}

#[test]
fn union_and_intersection_check_compatibility() {
    let mut a = BloomFilter::new(1000, 0.01).unwrap();
    let mut b = a.clone();
    for i in 0..100u64 {
        a.insert(&i);
        b.insert(&(i + 50));
    }
    let mut u = a.clone();
    u.union(&b).unwrap();
    assert!((0..150u64).all(|i| u.contains(&i)));
    let mut x = a.clone();
    x.intersect(&b).unwrap();
    assert!((50..100u64).all(|i| x.contains(&i)));
    assert!(x.bit_count() <= a.bit_count().min(b.bit_count()));

    let other = |c: Config| BloomFilter::with_config(c, a.bits(), 7).unwrap();
    for (what, f) in [
        ("m", BloomFilter::with_bits(a.bits() + 64, 7).unwrap()),
        ("k", BloomFilter::with_bits(a.bits(), 6).unwrap()),
        ("family", other(Config::default().with_family(Family::Xxh64))),
        ("seed", other(Config::default().with_seed(1))),
        ("strategy", other(Config::default().with_strategy(Strategy::Double))),
        (
            "reduction",
            other(Config::default().with_reduction(Reduction::Modulo)),
        ),
    ] {
        match a.union(&f) {
            Err(Error::Incompatible { what: w, .. }) => assert_eq!(w, what),
            other => panic!("{what}: {other:?}"),
        }
        assert!(a.intersect(&f).is_err());
    }

    let mut p = BlockedBloomFilter::new(1000, 0.01).unwrap();
    let mut q = p.clone();
    p.insert("p");
    q.insert("q");
    p.union(&q).unwrap();
    assert!(p.contains("p") && p.contains("q"));
    let r = Builder::rate(1000, 0.01).block_bits(256).build_blocked().unwrap();
    assert!(p.union(&r).is_err());
}

#[test]
fn counts_clear_and_trait() {
    let mut f = BloomFilter::new(10_000, 0.01).unwrap();
    let keys: Vec<u64> = (0..5000).collect();
    assert_eq!(f.insert_many(&keys), 5000);
    let est = f.approximate_element_count();
    assert!((4900..5100).contains(&est), "{est}");
    assert!(f.expected_fpp() < 0.01);
    let dynf: &dyn Filter = &f;
    assert_eq!(dynf.variant(), "standard");
    assert!((dynf.estimated_count() - est as f64).abs() <= 0.5);
    assert_eq!(dynf.bytes_of_memory() as u64, f.bits() / 8);
    let mut out = vec![false; 10];
    dynf.contains_u64_batch(&keys[..10], &mut out);
    assert!(out.iter().all(|&x| x));
    f.clear();
    assert_eq!(f.bit_count(), 0);
    assert!(!f.contains(&1u64));
}

#[test]
fn blocked_bits_stay_in_one_block() {
    for block_bits in [64u64, 128, 256, 512, 1024, 4096] {
        let mut f = Builder::bits(1 << 16, 8)
            .block_bits(block_bits)
            .build_blocked()
            .unwrap();
        for i in 0..200u64 {
            let pos = f.positions(&i);
            let block = pos[0] / block_bits;
            assert!(pos.iter().all(|p| p / block_bits == block));
            f.insert(&i);
            assert!(f.contains(&i));
        }
        let mut g = f.clone();
        g.clear();
        let keys: Vec<u64> = (0..200).collect();
        g.insert_many(&keys);
        assert_eq!(f, g);
        let mut out = vec![false; 200];
        g.contains_many(&keys, &mut out);
        assert!(out.iter().all(|&x| x));
    }
}

#[test]
fn describe_shows_what_inspect_needs() {
    let mut f = BloomFilter::new(1000, 0.01).unwrap();
    f.insert("a");
    let bytes = StandardFilter::from(f).to_bytes(Format::Native).unwrap();
    let info = read_any(&bytes).unwrap().info();
    assert_eq!(info.format, Format::Native);
    assert_eq!(info.variant, "standard");
    assert_eq!(info.family, "xxh3-128");
    assert_eq!(info.strategy, "enhanced-double");
    assert_eq!(info.k, 7);
    assert_eq!(info.estimated_count, Some(1));
    let text = info.to_string();
    for key in ["format: native", "hash: xxh3-128", "m: 9600", "bits set: 7"] {
        assert!(text.contains(key), "{text}");
    }
    let g = bloomlab_standard::guava::create_default(100).unwrap();
    let bytes = StandardFilter::from(g).to_bytes(Format::Guava).unwrap();
    let info = read_any(&bytes).unwrap().info();
    assert_eq!(info.format, Format::Guava);
    assert_eq!(info.strategy, "guava-mitz64");
    let b = BlockedBloomFilter::new(1000, 0.01).unwrap();
    let s = StandardFilter::from(b);
    assert!(s.to_bytes(Format::Guava).is_err());
    let info = s.describe(Format::Native);
    assert_eq!((info.variant, info.block_bits), ("blocked", Some(512)));
    // A blocked filter's count is its layout's estimate, within 3.29 of
    // its sds (99.9% normal; sd 22.4 by `estimate_count_blocked_sd`) of
    // the 5000 keys, not Guava's classic formula, 11 sds low at B = 64.
    let mut b =
        Builder::rate(5000, 0.01).block_bits(64).build_blocked().unwrap();
    b.insert_many(&(0..5000u64).collect::<Vec<_>>());
    let info = StandardFilter::from(b.clone()).describe(Format::Native);
    let count = Filter::estimated_count(&b).round() as i64;
    assert_eq!(info.estimated_count, Some(count));
    assert!((5000 - count).abs() <= 74, "{info}");
    assert!(b.approximate_element_count() < 5000 - 74);
    assert_eq!(info.expected_fpp, b.expected_fpp());
    // Every bit set: the estimate is infinite (Guava's throws), shown as
    // the other variants show it, not as i64::MAX.
    let mut full = BloomFilter::with_bits(64, 1).unwrap();
    full.insert_many(&(0..10_000u64).collect::<Vec<_>>());
    assert_eq!(full.bit_count(), 64);
    let info = StandardFilter::from(full).describe(Format::Native);
    assert_eq!(info.estimated_count, None);
    assert!(info.to_string().contains("\nestimated count: inf\n"), "{info}");
}

#[test]
fn each_filter_saves_and_reads_itself() {
    let mut f = BloomFilter::new(1000, 0.01).unwrap();
    let mut b = BlockedBloomFilter::new(1000, 0.01).unwrap();
    for i in 0..300u64 {
        f.insert(&i);
        b.insert(&i);
    }
    // The same bytes as through StandardFilter, without giving f up.
    let bytes = f.to_bytes().unwrap();
    let via_enum = StandardFilter::from(f.clone()).to_bytes(Format::Native);
    assert_eq!(bytes, via_enum.unwrap());
    assert_eq!(BloomFilter::read(&bytes).unwrap(), f);
    let mut written = Vec::new();
    b.write(&mut written).unwrap();
    assert_eq!(written, b.to_bytes().unwrap());
    assert_eq!(BlockedBloomFilter::read(&written).unwrap(), b);

    // Guava's bytes are a classic filter.
    let mut g = bloomlab_standard::guava::create_default(100).unwrap();
    g.insert("x");
    let guava = StandardFilter::from(g.clone()).to_bytes(Format::Guava);
    assert_eq!(BloomFilter::read(&guava.unwrap()).unwrap(), g);

    // The other layout's file names the reader to use.
    let err = BlockedBloomFilter::read(&bytes).unwrap_err();
    assert!(matches!(err, Error::WrongLayout { found: "classic", .. }));
    assert!(err.to_string().contains("read it with BloomFilter::read"));
    let err = BloomFilter::read(&written).unwrap_err();
    assert!(err.to_string().contains("BlockedBloomFilter::read"), "{err}");

    // Corrupt input is an error.
    let mut bad = bytes.clone();
    bad[30] ^= 0x40;
    assert!(BloomFilter::read(&bad).is_err());
    assert!(BloomFilter::read(&bytes[..bytes.len() - 1]).is_err());
    assert!(matches!(BloomFilter::read(&[]), Err(Error::UnknownFormat(_))));
}

#[test]
fn debug_output_is_short_whatever_the_size() {
    // 1.2 MB of bits or lines: Debug shows parameters and a summary of
    // the storage, not the words.
    let mut f = BloomFilter::new(1_000_000, 0.01).unwrap();
    let mut b = BlockedBloomFilter::new(1_000_000, 0.01).unwrap();
    f.insert(&1u64);
    b.insert(&1u64);
    let (fd, bd) = (format!("{f:?}"), format!("{b:?}"));
    assert!(fd.len() < 1000 && fd.contains("ones: 7"), "{fd}");
    assert!(bd.len() < 1000 && bd.contains("nonzero: 1"), "{bd}");
}

#[test]
fn extend_sets_the_bits_of_inserting_one_key_at_a_time() {
    // 5,000 keys: several batches and a short last one; the 1e7-key
    // classic filter (12 MB) takes insert_many's prefetching path.
    let keys: Vec<u64> =
        (0..5000u64).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    for n in [10_000u64, 10_000_000] {
        let mut one = BloomFilter::new(n, 0.01).unwrap();
        keys.iter().for_each(|k| one.add(k));
        let mut ext = BloomFilter::new(n, 0.01).unwrap();
        ext.extend(keys.iter().copied());
        assert_eq!(ext, one, "n = {n}");
    }
    let mut one = BlockedBloomFilter::new(10_000, 0.01).unwrap();
    keys.iter().for_each(|k| one.add(k));
    let mut ext = BlockedBloomFilter::new(10_000, 0.01).unwrap();
    ext.extend(&keys);
    assert_eq!(ext, one);
}
