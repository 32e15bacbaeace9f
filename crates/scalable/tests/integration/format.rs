//! bloomlab's own format: round trips and bad input.

use bloomlab_core::Filter;
use bloomlab_scalable::{Config, Error, Layout, ScalableBloomFilter};

fn grown() -> Vec<ScalableBloomFilter> {
    let mut out = vec![
        ScalableBloomFilter::new(100, 0.01).unwrap(),
        // The previous default: standard layers, r = 0.5, s = 2.
        ScalableBloomFilter::with_config(
            Config::new(100, 0.01)
                .layout(Layout::Standard)
                .tightening(0.5)
                .growth(2),
        )
        .unwrap(),
        ScalableBloomFilter::almeida(50, 0.001).unwrap(),
        ScalableBloomFilter::pybloom_live(50, 0.01, 2).unwrap(),
        ScalableBloomFilter::redisbloom().unwrap(),
        ScalableBloomFilter::redisbloom_reserve(0.1, 64, None, true).unwrap(),
    ];
    for f in &mut out {
        for i in 0..1000u32 {
            let _ = f.add(&i.to_le_bytes());
        }
        // Some re-adds, counted as skipped.
        for i in 0..10u32 {
            let _ = f.add(&i.to_le_bytes());
        }
    }
    out
}

#[test]
fn round_trip() {
    for f in grown() {
        let bytes = f.to_bytes().unwrap();
        assert_eq!(&bytes[..8], b"BLOOMLAB");
        assert_eq!(bytes[10], 4, "variant byte");
        let g = ScalableBloomFilter::read(&bytes).unwrap();
        assert_eq!(g, f);
        assert_eq!(g.to_bytes().unwrap(), bytes);
        assert_eq!(g.skipped(), f.skipped());
        for i in 0..2000u32 {
            let k = i.to_le_bytes();
            assert_eq!(g.contains(&k), f.contains(&k));
        }
        assert_eq!(g.variant(), "scalable");
        if f.is_redisbloom() {
            assert_eq!(
                g.redis_scandump().unwrap(),
                f.redis_scandump().unwrap()
            );
        }
    }
}

#[test]
fn a_read_filter_keeps_growing_identically() {
    for mut f in grown() {
        let mut g = ScalableBloomFilter::read(&f.to_bytes().unwrap()).unwrap();
        for i in 1000..5000u32 {
            let k = i.to_le_bytes();
            assert_eq!(
                f.add(&k).map_err(|e| e.to_string()),
                g.add(&k).map_err(|e| e.to_string())
            );
        }
        assert_eq!(f, g);
    }
}

#[test]
fn bad_input_is_an_error() {
    let f = &grown()[0];
    let bytes = f.to_bytes().unwrap();
    // Every truncation.
    for cut in [0, 5, 8, 20, 60, bytes.len() / 2, bytes.len() - 1] {
        assert!(ScalableBloomFilter::read(&bytes[..cut]).is_err(), "{cut}");
    }
    // Every single-byte change is caught (checksum or a field check).
    for pos in (0..bytes.len()).step_by(7) {
        let mut b = bytes.clone();
        b[pos] ^= 0x5a;
        assert!(ScalableBloomFilter::read(&b).is_err(), "byte {pos}");
    }
    // Trailing bytes.
    let mut b = bytes.clone();
    b.push(0);
    assert!(ScalableBloomFilter::read(&b).is_err());
    assert!(matches!(
        ScalableBloomFilter::read(b"not a filter at all"),
        Err(Error::Corrupt { .. })
    ));
}

/// What is wrong is named, as the other variants' readers name it: a
/// short file is truncated (what it lacks and where), a long one has
/// bytes after the checksum, a newer one its version.
#[test]
fn bad_input_names_what_is_wrong() {
    let bytes = grown()[0].to_bytes().unwrap();
    let message = |b: &[u8]| match ScalableBloomFilter::read(b) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{} bytes read", b.len()),
    };
    for cut in [0, 5, 11, 12, 40, bytes.len() / 2, bytes.len() - 1] {
        let m = message(&bytes[..cut]);
        assert!(m.contains("truncated input"), "{cut}: {m}");
    }
    let mut long = bytes.clone();
    long.extend_from_slice(&[0, 0]);
    assert!(message(&long).contains("2 bytes after the checksum"));
    let mut newer = bytes.clone();
    newer[8] = 2;
    let m = message(&newer);
    assert!(m.contains("version") && m.contains("2"), "{m}");
    let mut flipped = bytes.clone();
    let last = flipped.len() - 9;
    flipped[last] ^= 1;
    assert!(message(&flipped).contains("checksum"));
}

/// A file cut anywhere reads as truncated, naming the field it lacks:
/// cut inside a layer record it was reported as a corrupt layer count
/// (`1 layers in 54 bytes`), and a layer's item count was named "layer
/// count".
#[test]
fn every_cut_reads_as_truncated() {
    for f in grown() {
        let bytes = f.to_bytes().unwrap();
        for cut in 0..bytes.len() {
            let e = ScalableBloomFilter::read(&bytes[..cut]);
            let Err(Error::Format(e)) = &e else {
                panic!("{} of {}: {e:?}", cut, bytes.len());
            };
            assert!(e.to_string().starts_with("truncated input"), "{e}");
        }
    }
    let bytes = grown()[0].to_bytes().unwrap();
    let (first, _) = offsets(&bytes);
    let item_count = first + 44;
    let m = ScalableBloomFilter::read(&bytes[..item_count + 3])
        .unwrap_err()
        .to_string();
    assert_eq!(
        m,
        format!(
            "truncated input: layer item count needs 8 bytes at offset \
             {item_count}, only 3 remain"
        )
    );
}

/// A forged file claiming a huge layer count or word count, with a valid
/// checksum, is refused before allocating.
#[test]
fn forged_lengths_are_refused() {
    use bloomlab_core::framing::checksum;
    let f = ScalableBloomFilter::new(10, 0.01).unwrap();
    let bytes = f.to_bytes().unwrap();
    // The layer count sits right before the first layer record: find it
    // as the u32 1 following items (0) and skipped (0).
    let body = &bytes[..bytes.len() - 8];
    let pat = [0u8; 16];
    let pos = body
        .windows(20)
        .position(|w| w[..16] == pat && w[16..] == [1, 0, 0, 0])
        .unwrap()
        + 16;
    for forged in [u32::MAX, 1 << 20, 2] {
        let mut b = body.to_vec();
        b[pos..pos + 4].copy_from_slice(&forged.to_le_bytes());
        b.extend_from_slice(&checksum(&b).to_le_bytes());
        // A whole file (its checksum matches): the count is wrong, the
        // file not truncated.
        let e = ScalableBloomFilter::read(&b).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "corrupt layer count: {forged} layers, but the file ends \
                 after 1 and its checksum"
            )
        );
    }
    // Word count: the last u64 before the words.
    let words = f.layers()[0].bit_array().words().len();
    let wpos = body.len() - 8 * words - 8;
    let mut b = body.to_vec();
    b[wpos..wpos + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    b.extend_from_slice(&checksum(&b).to_le_bytes());
    assert!(ScalableBloomFilter::read(&b).is_err());
}

/// Where the first layer record starts, and the offset of `n0` (the
/// fixed fields after the two names, as FORMAT.md lists them).
fn offsets(bytes: &[u8]) -> (usize, usize) {
    let family = 12 + 1 + usize::from(bytes[12]);
    let reduction = family + 8 + 2;
    let n0 = reduction + 1 + usize::from(bytes[reduction]) + 2;
    // n0, P, P0, r, s; chain flags; redis options and growth; items,
    // skipped; layer count.
    (n0 + 5 * 8 + 1 + 4 + 4 + 8 + 8 + 4, n0)
}

/// Recomputes a file's trailing checksum, as a forger would.
pub(crate) fn reseal(bytes: &mut [u8]) {
    let body = bytes.len() - 8;
    let sum = bloomlab_core::framing::checksum(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
}

/// `body` with its checksum appended, as a forger would.
fn sealed(mut body: Vec<u8>) -> Vec<u8> {
    body.extend_from_slice(&[0; 8]);
    reseal(&mut body);
    body
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// A chain whose capacities or errors were changed (checksum recomputed)
/// is refused: the next layer is sized from the last one's, so a forged
/// capacity of 2^40 in a file of a few hundred bytes would otherwise
/// make the next insert that grows the chain allocate terabytes.
#[test]
fn forged_chains_are_refused() {
    let mut f = ScalableBloomFilter::new(10, 0.01).unwrap();
    for i in 0..100u32 {
        f.add(&i.to_le_bytes()).unwrap();
    }
    assert!(f.layers().len() >= 3);
    let bytes = f.to_bytes().unwrap();
    let body = &bytes[..bytes.len() - 8];
    let (first, n0) = offsets(&bytes);
    // Unchanged, the offsets are right: the file reads back.
    assert_eq!(
        u64::from_le_bytes(body[first..first + 8].try_into().unwrap()),
        10
    );
    assert!(ScalableBloomFilter::read(&sealed(body.to_vec())).is_ok());
    let second = first + 68 + 8 * f.layers()[0].bit_array().words().len();
    let refused = |b: Vec<u8>, what: &str| {
        let e = ScalableBloomFilter::read(&sealed(b));
        let Err(Error::Corrupt { reason, .. }) = &e else {
            panic!("{what}: {e:?}");
        };
        assert!(reason.contains("layer"), "{what}: {reason}");
    };
    // The last layer's capacity (the one growth starts from).
    let mut b = body.to_vec();
    put_u64(&mut b, second, 1 << 40);
    refused(b, "layer 1's capacity");
    // A layer's error, which sizes the next layer's bits.
    let mut b = body.to_vec();
    put_u64(&mut b, first + 8, 1e-300f64.to_bits());
    refused(b, "layer 0's error");
    // n0 and layer 0's capacity together: the chain agrees with the
    // config, but the layer's bits are not what that capacity needs.
    let mut b = body.to_vec();
    put_u64(&mut b, n0, 1 << 30);
    put_u64(&mut b, first, 1 << 30);
    refused(b, "n0 and layer 0's capacity");
    // A RedisBloom-sized layer's k (four billion probes a query).
    let mut r = ScalableBloomFilter::redisbloom().unwrap();
    for i in 0..500u32 {
        r.add(&i.to_le_bytes()).unwrap();
    }
    let rb = r.to_bytes().unwrap();
    let rbody = &rb[..rb.len() - 8];
    let (rfirst, _) = offsets(&rb);
    assert!(ScalableBloomFilter::read(&sealed(rbody.to_vec())).is_ok());
    let mut b = rbody.to_vec();
    b[rfirst + 24..rfirst + 28].copy_from_slice(&u32::MAX.to_le_bytes());
    refused(b, "a RedisBloom layer's k");
    // A growth factor past RedisBloom's limit: one insert could grow a
    // layer of 2^40 times the last one.
    let mut b = body.to_vec();
    put_u64(&mut b, n0 + 32, 1 << 40);
    let e = ScalableBloomFilter::read(&sealed(b));
    assert!(
        matches!(&e, Err(Error::InvalidParameter { name: "s", .. })),
        "{e:?}"
    );
}

/// A layer's bits per entry are what its sizing gives, under every
/// sizing: NaN, a negative or another value was accepted unless the
/// sizing was RedisBloom's.
#[test]
fn forged_bits_per_entry_are_refused() {
    for f in grown() {
        let bytes = f.to_bytes().unwrap();
        let body = &bytes[..bytes.len() - 8];
        let (first, _) = offsets(&bytes);
        let bpe = f.layers()[0].bits_per_entry();
        let stored = f64::from_bits(u64::from_le_bytes(
            body[first + 16..first + 24].try_into().unwrap(),
        ));
        assert_eq!(stored.to_bits(), bpe.to_bits());
        for forged in [f64::NAN, -bpe, f64::INFINITY, 2.0 * bpe, 0.0] {
            let mut b = body.to_vec();
            put_u64(&mut b, first + 16, forged.to_bits());
            let e = ScalableBloomFilter::read(&sealed(b));
            let Err(Error::Corrupt { what: "layer", reason }) = &e else {
                panic!("{:?}, bpe {forged}: {e:?}", f.config().sizing);
            };
            assert!(reason.contains("bits per entry"), "{reason}");
        }
    }
}

/// The RedisBloom header fields are the ones the filter's config has
/// (options 5 scaling, 13 non-scaling; growth `s`, or 2 for a
/// non-scaling filter): any other value was read and then exported in
/// a dump that RedisBloom (options 0: 32-bit MurmurHash2) and this
/// crate's importer take for another filter.
#[test]
fn redis_header_fields_must_match_the_config() {
    for f in grown() {
        let bytes = f.to_bytes().unwrap();
        let body = &bytes[..bytes.len() - 8];
        let (first, _) = offsets(&bytes);
        let (options, growth) = (first - 28, first - 24);
        let at =
            |o: usize| u32::from_le_bytes(body[o..o + 4].try_into().unwrap());
        let scaling = f.config().scaling;
        assert_eq!(at(options), if scaling { 5 } else { 13 });
        let refused = |o: usize, v: u32, what: &str| {
            let mut b = body.to_vec();
            b[o..o + 4].copy_from_slice(&v.to_le_bytes());
            let e = ScalableBloomFilter::read(&sealed(b));
            assert!(
                matches!(&e, Err(Error::Corrupt { what: w, .. }) if *w == what),
                "{what} {v}: {e:?}"
            );
        };
        for v in [0, 1, 4, 0xff, u32::MAX, if scaling { 13 } else { 5 }] {
            refused(options, v, "redis options");
        }
        let s = f.config().growth as u32;
        for v in [s + 1, u32::MAX, if scaling { 0 } else { 9 }] {
            refused(growth, v, "redis growth");
        }
        if f.is_redisbloom() {
            let dump = f.redis_scandump().unwrap();
            assert!(ScalableBloomFilter::from_redis_scandump(&dump).is_ok());
        }
    }
}

/// Another variant's file, or a Guava file, is named with the reader
/// that takes it, as the counting and partitioned readers name theirs.
#[test]
fn other_formats_name_their_reader() {
    let mut bytes = grown()[0].to_bytes().unwrap();
    for (variant, holds, reader) in [
        (
            0,
            "a standard filter (variant 0)",
            "bloomlab_standard::BloomFilter::read",
        ),
        (
            1,
            "a blocked filter (variant 1)",
            "bloomlab_standard::BlockedBloomFilter::read",
        ),
        (
            2,
            "a counting filter (variant 2)",
            "bloomlab_counting::CountingBloomFilter::read",
        ),
        (
            3,
            "a partitioned filter (variant 3)",
            "bloomlab_partitioned::AnyPartitioned::read",
        ),
    ] {
        // The variant byte is read before anything that follows it.
        bytes[10] = variant;
        let e = ScalableBloomFilter::read(&bytes).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "the file holds {holds}, not a scalable filter (variant 4): \
                 read it with {reader}"
            )
        );
    }
    bytes[10] = 9;
    let e = ScalableBloomFilter::read(&bytes);
    assert!(matches!(e, Err(Error::Corrupt { what: "variant", .. })), "{e:?}");
    // Guava's own bytes (testdata/guava, Guava 31's writeTo).
    let guava: serde_json::Value =
        serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/guava/filters.json"
        )))
        .unwrap();
    let hex = guava["cases"][0]["serializedHex"].as_str().unwrap();
    let guava: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let e = ScalableBloomFilter::read(&guava);
    let Err(Error::WrongVariant { holds, reader }) = e else {
        panic!("{e:?}");
    };
    assert!(holds.contains("Guava"), "{holds}");
    assert_eq!(reader, "bloomlab_standard::BloomFilter::read");
    // Cut short, it is no Guava filter: not a bloomlab file either.
    let e = ScalableBloomFilter::read(&guava[..guava.len() - 1]);
    assert!(matches!(e, Err(Error::Corrupt { what: "magic", .. })), "{e:?}");
}

/// `s` is at most RedisBloom's limit, 32768, wherever a config is made.
#[test]
fn growth_is_at_most_redisblooms_limit() {
    use bloomlab_scalable::MAX_GROWTH;
    assert_eq!(MAX_GROWTH, 32768);
    let c = Config::new(10, 0.01);
    assert!(ScalableBloomFilter::with_config(c.growth(MAX_GROWTH)).is_ok());
    let e = ScalableBloomFilter::with_config(c.growth(MAX_GROWTH + 1));
    let Err(e) = e else { panic!("growth 32769 accepted") };
    assert!(e.to_string().contains("at most 32768"), "{e}");
}

/// Counts read from a file at `u64::MAX` stay there: the next add, of a
/// key present (skipped) or new (counted in a new layer, as the last is
/// full), must not overflow, which panicked in debug builds and wrapped
/// to 0 in release ones.
#[test]
fn counts_at_their_maximum_do_not_overflow() {
    let mut f = ScalableBloomFilter::new(10, 0.01).unwrap();
    f.add(b"present").unwrap();
    let bytes = f.to_bytes().unwrap();
    let mut b = bytes[..bytes.len() - 8].to_vec();
    let (first, _) = offsets(&bytes);
    // items, skipped (before the layer count), then layer 0's count.
    put_u64(&mut b, first - 20, u64::MAX);
    put_u64(&mut b, first - 12, u64::MAX);
    put_u64(&mut b, first + 44, u64::MAX);
    let mut g = ScalableBloomFilter::read(&sealed(b)).unwrap();
    assert_eq!((g.len(), g.skipped()), (u64::MAX, u64::MAX));
    assert!(!g.add(b"present").unwrap());
    let new = (0u64..).find(|k| !g.contains(&k.to_le_bytes())).unwrap();
    assert!(g.add(&new.to_le_bytes()).unwrap());
    assert_eq!(g.layers().len(), 2);
    assert_eq!((g.len(), g.skipped()), (u64::MAX, u64::MAX));
}

/// A RedisBloom dump holds the layers, not the count of skipped adds: the
/// restored filter has the same layers and bits, and `skipped` 0.
#[test]
fn a_redis_dump_restores_the_layers_but_not_the_skipped_count() {
    let mut f = ScalableBloomFilter::redisbloom().unwrap();
    for i in 0..1000u64 {
        let _ = f.add(&i);
    }
    assert!(f.info().skipped > 0, "some adds were false positives");
    let g =
        ScalableBloomFilter::from_redis_scandump(&f.redis_scandump().unwrap())
            .unwrap();
    assert_eq!(g.layers(), f.layers());
    assert_eq!(g.info().skipped, 0);
    assert_ne!(g, f);
}
