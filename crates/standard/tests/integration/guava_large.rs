use std::io::Write;

use bloomlab_standard::guava;

use crate::guava::{cases, create, key};

const LARGE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/guava/filters_large.json"
));

/// Counts what is written and keeps the first bytes: checks a 300 MB
/// serialization without holding it.
struct Sink {
    len: u64,
    head: Vec<u8>,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.head.len() < 6 {
            let n = (6 - self.head.len()).min(buf.len());
            self.head.extend_from_slice(&buf[..n]);
        }
        self.len += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Two filters of 2,396,264,640 bits (> 2^31, 300 MB each, one at a
/// time): every set bit, the header, the length of the serialization and
/// every probe, after putting the 500 items.
#[test]
fn filters_over_2_pow_31_bits() {
    for case in cases(LARGE) {
        let name = case["name"].as_str().unwrap();
        let funnel = case["funnel"].as_str().unwrap();
        let mut f = create(&case);
        assert!(f.bits() > 1 << 31);
        let items = case["items"].as_array().unwrap();
        let results = case["putResults"].as_array().unwrap();
        for (item, want) in items.iter().zip(results) {
            let got = f.insert_bytes(&key(funnel, item));
            assert_eq!(got, want.as_bool().unwrap(), "{name}: {item}");
        }
        let want: Vec<u64> = case["setBitIndices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        // Set bits from the positions of the items (cheap in debug
        // builds), then confirmed against the array's own count.
        let mut got: Vec<u64> = items
            .iter()
            .flat_map(|i| f.positions(&key(funnel, i)[..]))
            .collect();
        got.sort_unstable();
        got.dedup();
        assert_eq!(got, want, "{name}: set bits");
        assert!(got.iter().all(|&i| f.bit_array().get(i)));
        assert_eq!(f.bit_count(), case["bitCount"].as_u64().unwrap());
        assert_eq!(
            got.iter().filter(|&&i| i >= 1 << 31).count() as u64,
            case["setBitsAtOrAbove2pow31"].as_u64().unwrap()
        );
        let bits =
            u64::from_str_radix(case["expectedFppBits"].as_str().unwrap(), 16)
                .unwrap();
        assert_eq!(f.expected_fpp().to_bits(), bits, "{name}");
        assert_eq!(
            f.approximate_element_count(),
            case["approximateElementCount"].as_i64().unwrap()
        );
        for p in case["probes"].as_array().unwrap() {
            let k = key(funnel, &p["item"]);
            assert_eq!(
                f.contains_bytes(&k),
                p["mightContain"].as_bool().unwrap(),
                "{name}: {}",
                p["item"]
            );
        }
        let mut sink = Sink { len: 0, head: Vec::new() };
        guava::write_guava(&f, &mut sink).unwrap();
        let head: String =
            sink.head.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(head, case["serializedHeaderHex"].as_str().unwrap());
        assert_eq!(sink.len, case["serializedLength"].as_u64().unwrap());
    }
}
