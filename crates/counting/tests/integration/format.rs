// The file format: round trips, every rejection rule, and corruption or
// truncation at every byte (an error or a valid filter, never a panic).

use bloomlab_core::framing::checksum;
use bloomlab_counting::{
    Config, CounterWidth, CountingBloomFilter, Error, is_counting, read,
};
use bloomlab_hash::Strategy;

/// Recomputes the trailing checksum, so a test reaches the checks behind
/// it.
fn reseal(bytes: &mut [u8]) {
    let body = bytes.len() - 8;
    let sum = checksum(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
}

fn sample(width: CounterWidth, config: Config) -> CountingBloomFilter {
    let mut f = CountingBloomFilter::builder_counters(37, 3)
        .width(width)
        .config(config)
        .build()
        .unwrap();
    for i in 0..20u64 {
        f.insert(&i);
    }
    f.remove(&3u64).unwrap();
    // A certainly absent key: refused, and counted.
    let absent = (100u64..).find(|k| !f.contains(k)).unwrap();
    assert!(f.remove(&absent).is_err());
    f
}

/// Offsets of the fixed-size fields after the three default names
/// (`xxh3-128`, `enhanced-double`, `multiply-shift`), each after its
/// length byte.
const NAMES: usize = 12 + 9 + 16 + 15;
const SEED: usize = NAMES;
const M: usize = SEED + 8;
const K: usize = M + 8;
const WIDTH: usize = K + 4;
const INSERTS: usize = WIDTH + 1;
const REMOVES: usize = INSERTS + 8;
const WORDS: usize = REMOVES + 4 * 8;

fn default_bytes() -> Vec<u8> {
    sample(CounterWidth::Four, Config::default()).to_bytes().unwrap()
}

#[test]
fn round_trips() {
    for width in CounterWidth::ALL {
        for config in [
            Config::default(),
            Config::guava(Strategy::GuavaMitz64).with_seed(5),
            Config::default().with_seed(u64::MAX as i128),
        ] {
            let f = sample(width, config);
            let bytes = f.to_bytes().unwrap();
            assert_eq!(&bytes[..12], b"BLOOMLAB\x01\x00\x02\x00");
            assert!(is_counting(&bytes));
            let back = read(&bytes).unwrap();
            assert_eq!(back, f);
            assert_eq!(back.stats(), f.stats());
            assert_eq!(back.stats().rejected_removes, 1);
            let mut again = Vec::new();
            back.write(&mut again).unwrap();
            assert_eq!(again, bytes);
        }
    }
}

#[test]
fn layout_of_the_default_filter() {
    let bytes = default_bytes();
    let f = sample(CounterWidth::Four, Config::default());
    let u64_at =
        |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
    assert_eq!(bytes[12], 8);
    assert_eq!(&bytes[13..21], b"xxh3-128");
    assert_eq!(u64_at(SEED), 0);
    assert_eq!(u64_at(M), 37);
    assert_eq!(u32::from_le_bytes(bytes[K..K + 4].try_into().unwrap()), 3);
    assert_eq!(bytes[WIDTH], 4);
    assert_eq!(u64_at(INSERTS), 20);
    assert_eq!(u64_at(REMOVES), 1);
    assert_eq!(u64_at(WORDS), 3); // ceil(37 / 16)
    assert_eq!(bytes.len(), WORDS + 8 + 3 * 8 + 8);
    assert_eq!(u64_at(WORDS + 8), f.words()[0]);
}

fn err(bytes: &[u8]) -> Error {
    read(bytes).unwrap_err()
}

#[test]
fn rejections() {
    let good = default_bytes();
    let set = |at: usize, v: &[u8]| {
        let mut b = good.clone();
        b[at..at + v.len()].copy_from_slice(v);
        reseal(&mut b);
        b
    };
    assert!(matches!(err(b""), Error::Truncated { .. }));
    assert!(matches!(err(b"BLOOMLAB"), Error::Truncated { .. }));
    assert!(matches!(err(&set(0, b"X")), Error::UnknownFormat(_)));
    assert!(matches!(err(&set(8, &[2, 0])), Error::UnsupportedVersion(2)));
    assert!(matches!(err(&set(10, &[0])), Error::WrongVariant(0)));
    assert!(matches!(err(&set(11, &[1])), Error::Corrupt { .. }));
    assert!(matches!(err(&set(13, b"y")), Error::Hash(_)));
    assert!(matches!(
        err(&set(13, &[0xff])),
        Error::Corrupt { field: "family", .. }
    ));
    assert!(matches!(err(&set(WIDTH, &[3])), Error::Corrupt { .. }));
    assert!(matches!(err(&set(WIDTH, &[8])), Error::Corrupt { .. }));
    assert!(matches!(err(&set(M, &[0; 8])), Error::Corrupt { .. }));
    assert!(matches!(err(&set(M, &[100])), Error::Corrupt { .. }));
    assert!(matches!(
        err(&set(K, &[0, 0, 0, 0])),
        Error::InvalidParameter { name: "k", .. }
    ));
    assert!(matches!(
        err(&set(K, &[0, 1, 0, 0])),
        Error::InvalidParameter { name: "k", .. }
    ));
    // More removes than inserts is a state a filter can reach
    // (`more_removes_than_inserts_read_back`), so it is read, not refused.
    assert_eq!(read(&set(REMOVES, &[21])).unwrap().stats().removes, 21);
    // Counter 37..47 of the last word is padding.
    let last = good.len() - 9;
    assert!(matches!(
        err(&set(last, &[0x10])),
        Error::Corrupt { field: "counters", .. }
    ));
    // A forged word count is caught before anything is allocated, as
    // not matching m (not as a truncated file, which it is not); one bit
    // off is too, not read as trailing bytes.
    for words in [u64::MAX, 1 << 40, u64::from(good[WORDS]) ^ 1] {
        assert!(matches!(
            err(&set(WORDS, &words.to_le_bytes())),
            Error::Corrupt { field: "word count", .. }
        ));
    }
    // A file cut inside its counters is truncated.
    assert!(matches!(
        err(&good[..good.len() - 20]),
        Error::Truncated { what: "counters and checksum", .. }
    ));
    // Bytes after the checksum, a bad checksum.
    let mut longer = good.clone();
    longer.push(0);
    assert!(matches!(err(&longer), Error::TrailingBytes { extra: 1, .. }));
    let mut bad = good.clone();
    *bad.last_mut().unwrap() ^= 1;
    assert!(matches!(err(&bad), Error::Checksum { .. }));
    // A standard filter's file is another variant.
    let mut std = bloomlab_standard::BloomFilter::new(10, 0.1).unwrap();
    std.insert("a");
    let bytes = bloomlab_standard::StandardFilter::from(std)
        .to_bytes(bloomlab_standard::Format::Native)
        .unwrap();
    assert!(!is_counting(&bytes));
    assert!(matches!(err(&bytes), Error::WrongVariant(0)));
}

/// Every single-byte change, resealed or not, and every truncation: an
/// error or a valid filter, never a panic. Unsealed changes must all be
/// errors (the checksum covers every byte).
#[test]
fn every_corruption_and_truncation_is_handled() {
    for width in CounterWidth::ALL {
        let good = sample(width, Config::default()).to_bytes().unwrap();
        for at in 0..good.len() {
            for x in [0x01u8, 0x80, 0xff] {
                let mut b = good.clone();
                b[at] ^= x;
                assert!(read(&b).is_err(), "byte {at} ^ {x:#x} unnoticed");
                if at < good.len() - 8 {
                    reseal(&mut b);
                    if let Ok(f) = read(&b) {
                        // A valid filter: it must behave.
                        let _ = f.contains("a");
                        let _ = f.to_standard().unwrap();
                        assert_eq!(read(&f.to_bytes().unwrap()).unwrap(), f);
                    }
                }
            }
        }
        for len in 0..good.len() {
            assert!(read(&good[..len]).is_err(), "truncated to {len}");
        }
    }
}

/// One probe, 2-bit counters, and three inserts of "a": its counter is
/// saturated.
fn saturated_a() -> CountingBloomFilter {
    let mut f = CountingBloomFilter::builder_counters(64, 1)
        .width(CounterWidth::Two)
        .build()
        .unwrap();
    for _ in 0..3 {
        f.insert("a");
    }
    f
}

/// Removes of a key whose counters are saturated always succeed (the
/// decrements are skipped), and `from_words` starts the statistics at
/// zero: either way a filter counts more removes than inserts, and the
/// reader must take back the file its writer wrote.
#[test]
fn more_removes_than_inserts_read_back() {
    let mut f = saturated_a();
    for _ in 0..4 {
        f.remove("a").unwrap();
    }
    assert_eq!((f.stats().inserts, f.stats().removes), (3, 4));
    assert_eq!(read(&f.to_bytes().unwrap()).unwrap(), f);

    // Counters kept elsewhere (as the runner exports a Redis filter).
    let mut g = CountingBloomFilter::new(100, 0.01).unwrap();
    g.insert("b");
    let mut h = CountingBloomFilter::from_words(
        g.config(),
        g.counter_width(),
        g.counters(),
        g.hash_count(),
        g.words().to_vec(),
    )
    .unwrap();
    h.remove("b").unwrap();
    assert_eq!((h.stats().inserts, h.stats().removes), (0, 1));
    assert_eq!(read(&h.to_bytes().unwrap()).unwrap(), h);
}

/// Statistics read from a file at `u64::MAX` stay there: the next remove
/// (successful with a skipped decrement, or refused) must not overflow,
/// which panicked in debug builds and wrapped to 0 in release ones.
#[test]
fn statistics_at_their_maximum_do_not_overflow() {
    let f = saturated_a();
    let mut bytes = f.to_bytes().unwrap();
    // The names are `xxh3-128`, `enhanced-double`, `multiply-shift`, as
    // in the default filter, so the fields are at the offsets above:
    // inserts, removes, rejected removes, saturation events, skipped
    // decrements.
    for field in 0..5 {
        let at = INSERTS + 8 * field;
        bytes[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    }
    reseal(&mut bytes);
    let mut g = read(&bytes).unwrap();
    g.remove("a").unwrap(); // saturated: a skipped decrement
    g.insert("a"); // a lost increment
    let absent = (0u64..).find(|k| !g.contains(k)).unwrap();
    assert!(g.remove(&absent).is_err());
    let s = g.stats();
    assert_eq!(
        [
            s.inserts,
            s.removes,
            s.rejected_removes,
            s.saturation_events,
            s.skipped_decrements
        ],
        [u64::MAX; 5]
    );
}

/// A filter keeping a summary equals itself read back (files hold the
/// counters, not the summary, which is derived from them), and equality
/// still sees a counter's difference.
#[test]
fn a_summary_does_not_change_equality() {
    let mut f = sample(CounterWidth::Four, Config::default());
    f.keep_summary().unwrap();
    let back = read(&f.to_bytes().unwrap()).unwrap();
    assert!(back.summary().is_none() && f.summary().is_some());
    assert_eq!(back, f);
    let mut other = back.clone();
    other.insert("one more");
    assert_ne!(other, f);
}
