// Keys that are one little-endian word take the kernels' one-word loops;
// they must do exactly what the same eight bytes given as a slice do.

use bloomlab_counting::{CounterWidth, CountingBloomFilter};

use crate::standard::configs;

/// Inserts, removes (accepted and refused) and queries of `u64`, `i64`
/// and `[u8; 8]` keys leave the same counters and statistics, and give
/// the same answers and errors, as `insert_bytes` / `remove_bytes` /
/// `contains_bytes` of their bytes: every kind of configuration, every
/// width (2-bit counters saturate here), `k` from 1 to one past the
/// kernels'.
#[test]
fn word_keys_match_byte_keys() {
    let keys: Vec<u64> = (0..120u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i)
        .collect();
    let widths = [CounterWidth::Two, CounterWidth::Four, CounterWidth::Eight];
    for config in configs() {
        for width in widths {
            for k in [1, 3, 7, 16, 17] {
                let empty =
                    CountingBloomFilter::with_config(config, width, 1009, k)
                        .unwrap();
                let (mut w, mut b) = (empty.clone(), empty.clone());
                let what = format!("{config:?} {width} k={k}");
                for (i, key) in keys[..80].iter().enumerate() {
                    let want = b.insert_bytes(&key.to_le_bytes());
                    let got = match i % 3 {
                        0 => w.insert(key),
                        1 => w.insert(&(*key as i64)),
                        _ => w.insert(&key.to_le_bytes()),
                    };
                    assert_eq!(got, want, "{what}");
                }
                assert_eq!(w, b, "{what}");
                // Every other member, then keys never inserted (refused,
                // or accepted as false positives).
                let mut refused = 0;
                for key in keys.iter().step_by(2) {
                    let want = b.remove_bytes(&key.to_le_bytes());
                    let got = w.remove(key);
                    assert_eq!(format!("{got:?}"), format!("{want:?}"));
                    refused += usize::from(want.is_err());
                }
                assert!(refused > 0, "{what}");
                assert_eq!(w, b, "{what}");
                assert_eq!(w.stats(), b.stats(), "{what}");
                for key in &keys {
                    let want = b.contains_bytes(&key.to_le_bytes());
                    assert_eq!(w.contains(key), want, "{what}");
                    assert_eq!(w.contains(&(*key as i64)), want, "{what}");
                }
            }
        }
    }
}
