use bloomlab_hash::{Family, Reduction, Strategy};
use bloomlab_standard::guava::{self, read_guava, read_guava_from};
use bloomlab_standard::{
    AtomicBloomFilter, BlockedBloomFilter, BloomFilter, Builder, Error,
    Format, MAGIC, StandardFilter, read_any, read_native,
};

/// One small filter of each layout and configuration family, filled.
pub(crate) fn samples() -> Vec<StandardFilter> {
    let mut out: Vec<StandardFilter> = Vec::new();
    let mut g = guava::create(50, 0.05, Strategy::GuavaMitz32).unwrap();
    let mut c = Builder::bits(300, 4)
        .family(Family::Murmur64A)
        .seed(77)
        .strategy(Strategy::RedisBloom)
        .reduction(Reduction::Modulo)
        .build()
        .unwrap();
    let mut b =
        Builder::bits(1024, 5).block_bits(128).build_blocked().unwrap();
    let a = AtomicBloomFilter::new(40, 0.1).unwrap();
    let mut split = BlockedBloomFilter::split_block(60, 0.01).unwrap();
    for i in 0..30u64 {
        g.insert(&i);
        c.insert(&i);
        b.insert(&i);
        a.insert(&i);
        split.insert(&i);
    }
    out.push(g.into());
    out.push(c.into());
    out.push(b.into());
    out.push(a.into());
    out.push(split.into());
    out
}

#[test]
fn round_trips_in_both_formats() {
    for f in samples() {
        let native = f.to_bytes(Format::Native).unwrap();
        assert!(native.starts_with(&MAGIC));
        let back = read_any(&native).unwrap();
        assert_eq!(back.format, Format::Native);
        assert_eq!(back.filter, f);
        assert_eq!(read_native(&native).unwrap(), f);
        if let Ok(bytes) = f.to_bytes(Format::Guava) {
            let back = read_any(&bytes).unwrap();
            assert_eq!(back.format, Format::Guava);
            assert_eq!(back.filter, f);
            let StandardFilter::Classic(c) = &f else { panic!() };
            assert_eq!(&read_guava_from(&bytes[..]).unwrap(), c);
        }
    }
    // A large blocked filter round-trips too (many write buffers).
    let mut big = BlockedBloomFilter::new(100_000, 0.01).unwrap();
    big.insert_many(&(0..100_000u64).collect::<Vec<_>>());
    let s = StandardFilter::from(big);
    assert_eq!(
        read_any(&s.to_bytes(Format::Native).unwrap()).unwrap().filter,
        s
    );
}

#[test]
fn guava_bad_input_is_a_typed_error() {
    let mut f = guava::create(100, 0.01, Strategy::GuavaMitz64).unwrap();
    f.insert("x");
    let good = guava::to_guava_bytes(&f).unwrap();
    // Truncated anywhere.
    for len in 0..good.len() {
        assert!(
            matches!(read_guava(&good[..len]), Err(Error::Truncated { .. })),
            "{len}"
        );
        assert!(read_guava_from(&good[..len]).is_err());
    }
    // Trailing garbage.
    let mut long = good.clone();
    long.push(0);
    assert!(matches!(read_guava(&long), Err(Error::TrailingBytes { .. })));
    // The stream reader stops after the filter, as Guava's readFrom does.
    assert_eq!(read_guava_from(&long[..]).unwrap(), f);
    // Unknown strategy ordinal.
    for ord in [2u8, 0x7f, 0xff] {
        let mut b = good.clone();
        b[0] = ord;
        assert!(matches!(read_guava(&b), Err(Error::UnknownGuavaStrategy(_))));
    }
    // k = 0.
    let mut b = good.clone();
    b[1] = 0;
    assert!(matches!(read_guava(&b), Err(Error::Corrupt { field: "k", .. })));
    // Zero, negative and absurd word counts: no allocation, an error.
    for words in [0i32, -1, i32::MIN, i32::MAX] {
        let mut b = good.clone();
        b[2..6].copy_from_slice(&words.to_be_bytes());
        assert!(read_guava(&b).is_err(), "{words}");
        assert!(read_guava_from(&b[..]).is_err(), "{words}");
    }
    // A stream shorter than its header claims is measured against the
    // whole array, not the chunk the reader was filling.
    let mut b = good.clone();
    b[2..6].copy_from_slice(&i32::MAX.to_be_bytes());
    let have = b.len() as u64 - 6;
    assert!(matches!(
        read_guava_from(&b[..]),
        Err(Error::Truncated { needed, available, offset: 6, .. })
            if needed == 8 * i32::MAX as u64 && available == have
    ));
    // Not Guava-compatible filters cannot be written.
    let fast = BloomFilter::new(100, 0.01).unwrap();
    assert!(matches!(
        guava::to_guava_bytes(&fast),
        Err(Error::NotGuavaCompatible { .. })
    ));
    let odd = BloomFilter::with_config(
        bloomlab_standard::Config::guava(Strategy::GuavaMitz64),
        100,
        3,
    )
    .unwrap();
    assert!(guava::to_guava_bytes(&odd).is_err());
}

#[test]
fn native_bad_input_is_a_typed_error() {
    assert!(matches!(read_any(&[]), Err(Error::UnknownFormat(_))));
    assert!(matches!(read_any(b"hello"), Err(Error::UnknownFormat(_))));
    for f in samples() {
        let good = f.to_bytes(Format::Native).unwrap();
        for len in 0..good.len() {
            assert!(read_any(&good[..len]).is_err(), "{len}");
        }
        let mut long = good.clone();
        long.push(0);
        assert!(matches!(read_any(&long), Err(Error::TrailingBytes { .. })));
        let mut b = good.clone();
        b[8] = 2;
        assert!(matches!(read_any(&b), Err(Error::UnsupportedVersion(2))));
        let mut b = good.clone();
        b[10] = 9;
        assert!(matches!(read_any(&b), Err(Error::UnknownVariant(9))));
        // Another crate's variant is named, with the crate that reads it.
        b[10] = 3;
        let e = read_any(&b).err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(
            e,
            "the file holds a partitioned filter (variant 3), not a standard \
             or blocked one: read it with bloomlab-partitioned"
        );
        let mut b = good.clone();
        let last = b.len() - 9;
        b[last] ^= 1;
        assert!(matches!(read_any(&b), Err(Error::Checksum { .. })));
        // The word count is the u64 just before the words it counts.
        let words_at = (0..good.len() - 16)
            .rev()
            .find(|&o| {
                let w = u64::from_le_bytes(good[o..o + 8].try_into().unwrap());
                w.checked_mul(8) == Some((good.len() - 16 - o) as u64)
            })
            .unwrap();
        // One bit off: a count that does not match m, not trailing
        // bytes or a truncated file.
        for bit in [1u8, 0x10] {
            let mut b = good.clone();
            b[words_at] ^= bit;
            assert!(
                matches!(
                    read_any(&b),
                    Err(Error::Corrupt { field: "word count", .. })
                ),
                "{:?}",
                read_any(&b)
            );
        }
        assert!(matches!(
            read_any(&good[..good.len() - 12]),
            Err(Error::Truncated { what: "words and checksum", .. })
        ));
        // Cut inside the magic: short, not an unknown format.
        assert!(matches!(
            read_any(&good[..5]),
            Err(Error::Truncated {
                what: "magic",
                needed: 8,
                available: 5,
                ..
            })
        ));
    }
}

/// Every single-byte change (three values per position) and every
/// truncation of each sample, in both formats, a native file also with
/// its checksum recomputed (so that the change reaches the checks behind
/// it): an error or a valid filter, never a panic; a filter accepted
/// answers queries, and writes and reads back as itself.
#[test]
fn every_byte_corruption_is_handled() {
    let mut past_the_checksum = 0;
    for f in samples() {
        for format in [Format::Native, Format::Guava] {
            let Ok(good) = f.to_bytes(format) else { continue };
            for i in 0..good.len() {
                for x in [0x01u8, 0x80, 0xff] {
                    let mut b = good.clone();
                    b[i] ^= x;
                    let mut tries = vec![b.clone()];
                    if format == Format::Native && i < good.len() - 8 {
                        reseal(&mut b);
                        tries.push(b);
                    }
                    for b in tries {
                        let Ok(l) = read_any(&b) else { continue };
                        past_the_checksum +=
                            usize::from(format == Format::Native);
                        let _ = l.filter.contains_bytes(b"probe");
                        let _ = l.info().to_string();
                        let again = l.filter.to_bytes(l.format).unwrap();
                        assert_eq!(read_any(&again).unwrap(), l, "byte {i}");
                    }
                }
            }
            for cut in 0..good.len() {
                assert!(read_any(&good[..cut]).is_err(), "cut at {cut}");
            }
        }
    }
    // The resealed changes that only touch bits or seeds are valid
    // filters: the loop above did reach the reader's checks.
    assert!(past_the_checksum > 100, "{past_the_checksum}");
}

/// Recomputes a native file's trailing checksum (XXH64 of the rest).
fn reseal(bytes: &mut [u8]) {
    let body = bytes.len() - 8;
    let sum = bloomlab_core::framing::checksum(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
}
