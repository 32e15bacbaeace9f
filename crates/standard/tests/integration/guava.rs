use bloomlab_hash::Strategy;
use bloomlab_standard::guava::{self, decode_hex};
use bloomlab_standard::{BloomFilter, Format, read_any};
use serde_json::Value;

const FILTERS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/guava/filters.json"
));

pub(crate) fn cases(json: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(json).unwrap();
    v["cases"].as_array().unwrap().clone()
}

/// The bytes Guava's funnel feeds the hash for a JSON item.
pub(crate) fn key(funnel: &str, item: &Value) -> Vec<u8> {
    match funnel {
        "stringFunnel(UTF_8)" => item.as_str().unwrap().as_bytes().to_vec(),
        "longFunnel" => item.as_i64().unwrap().to_le_bytes().to_vec(),
        "integerFunnel" => {
            let v = i32::try_from(item.as_i64().unwrap()).unwrap();
            v.to_le_bytes().to_vec()
        }
        "byteArrayFunnel" => decode_hex(item.as_str().unwrap()).unwrap(),
        other => panic!("unknown funnel {other}"),
    }
}

pub(crate) fn strategy(case: &Value) -> Strategy {
    match case["strategy"].as_str().unwrap() {
        "MURMUR128_MITZ_32" => Strategy::GuavaMitz32,
        "MURMUR128_MITZ_64" => Strategy::GuavaMitz64,
        other => panic!("unknown strategy {other}"),
    }
}

pub(crate) fn create(case: &Value) -> BloomFilter {
    let f = guava::create(
        case["expectedInsertions"].as_i64().unwrap(),
        case["fpp"].as_f64().unwrap(),
        strategy(case),
    )
    .unwrap();
    let name = case["name"].as_str().unwrap();
    assert_eq!(f.bits(), case["bitSize"].as_u64().unwrap(), "{name}");
    assert_eq!(
        i64::from(f.hash_count()),
        case["numHashFunctions"].as_i64().unwrap(),
        "{name}"
    );
    f
}

/// Puts `items`, checking each put result.
fn put_all(f: &mut BloomFilter, case: &Value, items: &str, results: &str) {
    let funnel = case["funnel"].as_str().unwrap();
    let name = case["name"].as_str().unwrap();
    let items = case[items].as_array().unwrap();
    let results = case[results].as_array().unwrap();
    assert_eq!(items.len(), results.len());
    for (i, (item, want)) in items.iter().zip(results).enumerate() {
        let got = f.insert_bytes(&key(funnel, item));
        assert_eq!(got, want.as_bool().unwrap(), "{name}: put #{i} {item}");
    }
}

/// bitCount, expectedFpp (to the bit), approximateElementCount and the
/// serialized bytes of `state` (the case itself, `filterB` or `union`).
fn check_state(f: &BloomFilter, state: &Value, name: &str) {
    assert_eq!(
        f.bit_count(),
        state["bitCount"].as_u64().unwrap(),
        "{name}: bitCount"
    );
    let bits =
        u64::from_str_radix(state["expectedFppBits"].as_str().unwrap(), 16)
            .unwrap();
    assert_eq!(
        f.expected_fpp().to_bits(),
        bits,
        "{name}: expectedFpp {} vs {}",
        f.expected_fpp(),
        state["expectedFpp"]
    );
    assert_eq!(
        f.approximate_element_count(),
        state["approximateElementCount"].as_i64().unwrap(),
        "{name}: approximateElementCount"
    );
    let hex = state["serializedHex"].as_str().unwrap();
    let want = decode_hex(hex).unwrap();
    let got = guava::to_guava_bytes(f).unwrap();
    assert_eq!(
        got.len() as u64,
        state["serializedLength"].as_u64().unwrap(),
        "{name}"
    );
    assert!(got == want, "{name}: serialized bytes differ");
}

fn check_probes(f: &BloomFilter, case: &Value) {
    let funnel = case["funnel"].as_str().unwrap();
    let name = case["name"].as_str().unwrap();
    for p in case["probes"].as_array().unwrap() {
        let k = key(funnel, &p["item"]);
        let want = p["mightContain"].as_bool().unwrap();
        assert_eq!(f.contains_bytes(&k), want, "{name}: {}", p["item"]);
        if p["member"].as_bool().unwrap() {
            assert!(want, "{name}: Guava has no false negatives");
        }
    }
    // The batch path gives the same answers.
    let keys: Vec<Vec<u8>> = case["probes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| key(funnel, &p["item"]))
        .collect();
    let mut out = vec![false; keys.len()];
    f.contains_many(&keys, &mut out);
    for (p, got) in case["probes"].as_array().unwrap().iter().zip(out) {
        assert_eq!(got, p["mightContain"].as_bool().unwrap(), "{name} batch");
    }
}

#[test]
fn every_case_bit_for_bit() {
    let cases = cases(FILTERS);
    assert_eq!(cases.len(), 15);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let funnel = case["funnel"].as_str().unwrap();
        let mut f = create(case);

        // Bit indices of single items, from a fresh filter.
        if let Some(list) = case["itemBitIndices"].as_array() {
            for entry in list {
                let mut one = create(case);
                one.insert_bytes(&key(funnel, &entry["item"]));
                let got: Vec<u64> = one.bit_array().ones().collect();
                let want: Vec<u64> = entry["bitIndices"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap())
                    .collect();
                assert_eq!(got, want, "{name}: {}", entry["item"]);
            }
        }

        put_all(&mut f, case, "items", "putResults");
        check_state(&f, case, name);

        // Reading Guava's bytes back gives the same filter.
        let bytes =
            decode_hex(case["serializedHex"].as_str().unwrap()).unwrap();
        let back = guava::read_guava(&bytes).unwrap();
        assert_eq!(back, f, "{name}: read back");
        let loaded = read_any(&bytes).unwrap();
        assert_eq!(loaded.format, Format::Guava);

        if name == "union_putAll_mitz64" {
            let mut b = create(case);
            put_all(&mut b, case, "itemsB", "putResultsB");
            check_state(&b, &case["filterB"], "filterB");
            let mut u = f.clone();
            u.union(&b).unwrap();
            check_state(&u, &case["union"], "union");
            // equalsFilterWithAllItemsPut
            let mut all = create(case);
            for list in ["items", "itemsB"] {
                for item in case[list].as_array().unwrap() {
                    all.insert_bytes(&key(funnel, item));
                }
            }
            assert_eq!(all, u);
            check_probes(&u, case);
            let bytes =
                decode_hex(case["union"]["serializedHex"].as_str().unwrap())
                    .unwrap();
            check_probes(&guava::read_guava(&bytes).unwrap(), case);
        } else {
            check_probes(&f, case);
            check_probes(&back, case);
        }
    }
}

#[test]
fn typed_funnels_match_byte_keys() {
    // The typed API gives the same bits as the byte keys above.
    let mut a = guava::create(100, 0.01, Strategy::GuavaMitz64).unwrap();
    let mut b = a.clone();
    a.insert("héllo");
    a.insert(&-5i64);
    a.insert(&7i32);
    a.insert(&[1u8, 2, 3][..]);
    b.insert_bytes("héllo".as_bytes());
    b.insert_bytes(&(-5i64).to_le_bytes());
    b.insert_bytes(&7i32.to_le_bytes());
    b.insert_bytes(&[1, 2, 3]);
    assert_eq!(a, b);
    let f = guava::GuavaFunnel::from_name("long").unwrap();
    assert_eq!(f.item_bytes("-5").unwrap(), (-5i64).to_le_bytes());
    assert!(guava::GuavaFunnel::Int.item_bytes("99999999999").is_err());
    assert_eq!(
        guava::GuavaFunnel::Bytes.item_bytes("0aFF").unwrap(),
        [10, 255]
    );
    assert!(guava::GuavaFunnel::Bytes.item_bytes("0aF").is_err());
}

#[test]
fn default_fpp_preset() {
    let f = guava::create_default(1000).unwrap();
    assert_eq!((f.bits(), f.hash_count()), (7360, 5));
    assert!(guava::create(10, 0.01, Strategy::Double).is_err());
}
