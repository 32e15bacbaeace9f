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
    for forged in [u32::MAX, 1 << 20] {
        let mut b = body.to_vec();
        b[pos..pos + 4].copy_from_slice(&forged.to_le_bytes());
        b.extend_from_slice(&checksum(&b).to_le_bytes());
        assert!(ScalableBloomFilter::read(&b).is_err());
    }
    // Word count: the last u64 before the words.
    let words = f.layers()[0].bit_array().words().len();
    let wpos = body.len() - 8 * words - 8;
    let mut b = body.to_vec();
    b[wpos..wpos + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    b.extend_from_slice(&checksum(&b).to_le_bytes());
    assert!(ScalableBloomFilter::read(&b).is_err());
}
