// Every case of testdata/hutool/filters.json, bit for bit.
//
// For each BitMapBloomFilter and BitSetBloomFilter case: every add result,
// every contains answer, the bit indices of the first items, every set
// bit of every filter, and the BitSet's getFalsePositiveProbability to
// the last bit; plus the bitMapSizing rows.

use bloomlab_partitioned::{
    HutoolBitMap, HutoolBitSet, HutoolFilterClass, bitmap_int_map_length,
    bitmap_size_per_filter,
};
use serde_json::Value;

const FILTERS_JSON: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/hutool/filters.json"
));

fn data() -> Value {
    serde_json::from_str(FILTERS_JSON).unwrap()
}

fn cases(kind: &str) -> Vec<Value> {
    data()["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == kind)
        .cloned()
        .collect()
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect()
}

fn check_probes(case: &Value, contains: impl Fn(&str) -> bool) -> usize {
    let mut n = 0;
    for p in case["probes"].as_array().unwrap() {
        let item = p["item"].as_str().unwrap();
        let want = p["contains"].as_bool().unwrap();
        assert_eq!(
            contains(item),
            want,
            "{}: contains({item:?})",
            case["name"]
        );
        n += 1;
    }
    n
}

/// Builds the filter a BitMap case's constructor describes.
fn bitmap_of(case: &Value) -> HutoolBitMap {
    let m = case["m"].as_i64().unwrap() as i32;
    let filters: Vec<(HutoolFilterClass, i64)> = case["filters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let class =
                HutoolFilterClass::from_name(f["class"].as_str().unwrap())
                    .unwrap();
            (class, f["size"].as_i64().unwrap())
        })
        .collect();
    let ctor = case["constructor"].as_str().unwrap();
    let f = if ctor.contains(',') {
        HutoolBitMap::with_filters(m, &filters).unwrap()
    } else {
        HutoolBitMap::new(m).unwrap()
    };
    assert_eq!(f.filters(), filters.as_slice(), "{}", case["name"]);
    assert_eq!(f.constructor(), ctor);
    f
}

#[test]
fn bitmap_cases() {
    let cases = cases("BitMapBloomFilter");
    assert_eq!(cases.len(), 3);
    let mut checks = 0;
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let mut f = bitmap_of(case);
        let items = strs(&case["items"]);
        let adds: Vec<bool> = case["addResults"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_bool().unwrap())
            .collect();
        assert_eq!(items.len(), adds.len());
        for (item, &want) in items.iter().zip(&adds) {
            assert_eq!(f.add(item), want, "{name}: add({item:?})");
            checks += 1;
        }
        for e in case["itemBitIndices"].as_array().unwrap() {
            let item = e["item"].as_str().unwrap();
            let want = u64s(&e["bitIndexPerFilter"]);
            assert_eq!(f.bit_indices(item), want, "{name}: {item:?}");
            checks += 1;
        }
        let per_filter = case["setBitIndicesPerFilter"].as_array().unwrap();
        assert_eq!(per_filter.len(), f.filters().len());
        for (i, want) in per_filter.iter().enumerate() {
            // Either a bare list or {class, size, setBitIndices}.
            let want = match want {
                Value::Array(_) => u64s(want),
                _ => {
                    let class = want["class"].as_str().unwrap();
                    assert_eq!(f.filters()[i].0.java_name(), class);
                    u64s(&want["setBitIndices"])
                }
            };
            assert_eq!(f.set_bits(i), want, "{name}: filter {i}");
            checks += 1;
        }
        checks += check_probes(case, |s| f.contains(s));
    }
    // 200 + 304 + 150 adds, 60 index rows, 15 filters, 300 probes.
    assert_eq!(checks, 654 + 60 + 15 + 300);
}

#[test]
fn bitset_cases() {
    let cases = cases("BitSetBloomFilter");
    assert_eq!(cases.len(), 3);
    let mut checks = 0;
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let int = |k: &str| case[k].as_i64().unwrap() as i32;
        let mut f = HutoolBitSet::new(int("c"), int("n"), int("k")).unwrap();
        assert_eq!(f.bit_set_size(), int("bitSetSize"));
        assert_eq!(f.constructor(), case["constructor"].as_str().unwrap());
        // getFalsePositiveProbability to the last bit.
        let want = case["falsePositiveProbability"].as_f64().unwrap();
        assert_eq!(
            f.false_positive_probability().to_bits(),
            want.to_bits(),
            "{name}: {} vs {want}",
            f.false_positive_probability()
        );
        let items = strs(&case["items"]);
        for (item, want) in
            items.iter().zip(case["addResults"].as_array().unwrap())
        {
            assert_eq!(
                f.add(item),
                want.as_bool().unwrap(),
                "{name}: add({item:?})"
            );
            checks += 1;
        }
        for e in case["itemPositions"].as_array().unwrap() {
            let item = e["item"].as_str().unwrap();
            let want: Vec<u32> =
                u64s(&e["positions"]).into_iter().map(|p| p as u32).collect();
            assert_eq!(f.positions(item), want, "{name}: {item:?}");
            checks += 1;
        }
        assert_eq!(f.set_bits(), u64s(&case["setBitIndices"]), "{name}");
        checks += check_probes(case, |s| f.contains(s));
    }
    assert_eq!(checks, 500 + 401 + 150 + 60 + 300);
}

#[test]
fn bitmap_sizing_rows() {
    let rows = data()["bitMapSizing"]["rows"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 12);
    for row in rows {
        let m = row["m"].as_i64().unwrap() as i32;
        assert_eq!(
            bitmap_size_per_filter(m),
            row["sizePerFilter"].as_i64().unwrap()
        );
        assert_eq!(
            i64::from(bitmap_int_map_length(m)),
            row["intMapLength"].as_i64().unwrap()
        );
        let add_x = row["addX"].as_str().unwrap();
        if add_x.starts_with("ArithmeticException") {
            // hutool divides by zero on the first add; bloomlab refuses
            // the filter up front.
            let err = HutoolBitMap::new(m).unwrap_err();
            assert!(err.to_string().contains("ArithmeticException"), "{err}");
        } else {
            assert_eq!(add_x, "ok");
            let filters =
                bloomlab_partitioned::bitmap_default_filters(m).unwrap();
            assert_eq!(filters[0].1, row["sizePerFilter"].as_i64().unwrap());
            // Build and add for the rows up to 25 MiB of memory.
            if m <= 26 {
                let mut f = HutoolBitMap::new(m).unwrap();
                assert!(f.add("x"));
                assert!(f.contains("x"));
            }
        }
    }
}
