// hutool edge cases: where bloomlab returns a typed error and where it
// reproduces hutool's behaviour (the README's table, case by case).

use bloomlab_core::Filter;
use bloomlab_hash::hutool::java_units;
use bloomlab_partitioned::{
    Error, HutoolBitMap, HutoolBitSet, HutoolFilterClass, bitmap_index_fits,
    bitmap_int_map_length, bitmap_size_per_filter, hutool_bitmap,
    hutool_bitmap_with, hutool_bitset,
};
use serde_json::Value;

const HASHES_JSON: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/hutool/hashes.json"
));

fn is_hutool_error(e: &Error, hutool_says: &str) -> bool {
    matches!(e, Error::Hutool { hutool, .. } if hutool.contains(hutool_says))
}

#[test]
fn bitmap_m_below_5_is_an_error() {
    // hutool: size 0, ArithmeticException on the first add/contains.
    for m in [0, 1, 4, -1, -4] {
        let e = hutool_bitmap(m).unwrap_err();
        assert!(is_hutool_error(&e, "ArithmeticException"), "{m}: {e}");
        assert_eq!(bitmap_size_per_filter(m), 0);
    }
    // m <= -5: hutool's IntMap constructor throws.
    for m in [-5, -100, i32::MIN] {
        let e = hutool_bitmap(m).unwrap_err();
        assert!(is_hutool_error(&e, "NegativeArraySize"), "{m}: {e}");
    }
}

#[test]
fn bitmap_m_whose_int_map_length_overflows_is_an_error() {
    // trunc(m/5) * 262144 ints: 8191 MiB is the last that fits an int.
    assert_eq!(bitmap_int_map_length(40_959), 8191 * 262_144);
    assert!(bitmap_int_map_length(40_960) < 0);
    assert_eq!(bitmap_int_map_length(5 * 16_384), 0);
    for m in [40_960, 5 * 16_384, i32::MAX] {
        let e = hutool_bitmap(m).unwrap_err();
        assert!(matches!(e, Error::Hutool { .. }), "{m}: {e}");
    }
    // 40959 passes the check (its 40 GiB allocation may then fail with a
    // typed error, never an abort); not allocated here.
    assert!(bloomlab_partitioned::bitmap_default_filters(40_959).is_ok());
}

#[test]
fn custom_filters_ignore_m_unless_hutool_throws_on_it() {
    let f = [(HutoolFilterClass::Fnv, 1024)];
    // m < 5 is fine with explicit filters: hutool builds (and drops) the
    // size-0 defaults without touching them.
    assert!(hutool_bitmap_with(0, &f).is_ok());
    assert!(hutool_bitmap_with(-4, &f).is_ok());
    // ... but m <= -5 makes its first constructor throw.
    let e = hutool_bitmap_with(-5, &f).unwrap_err();
    assert!(is_hutool_error(&e, "NegativeArraySize"), "{e}");
    assert!(hutool_bitmap_with(40_960, &f).is_err());
}

#[test]
fn custom_filter_sizes_are_checked() {
    use HutoolFilterClass::*;
    let err = |size: i64| hutool_bitmap_with(5, &[(Rs, 64), (Elf, size)]);
    assert!(is_hutool_error(&err(0).unwrap_err(), "ArithmeticException"));
    assert!(is_hutool_error(&err(-64).unwrap_err(), "NegativeArraySize"));
    let e = err(100).unwrap_err();
    assert!(is_hutool_error(&e, "ArrayIndexOutOfBounds"), "{e}");
    assert!(err(32 * (i64::from(i32::MAX) + 1)).is_err());
    assert!(err(96).is_ok());
    // An empty list: hutool's filter contains everything; refused.
    assert!(hutool_bitmap_with(5, &[]).is_err());
}

#[test]
fn sizes_not_a_multiple_of_32_throw_exactly_where_hashes_json_says() {
    // bloomlab refuses such sizes; bit_index and bitmap_index_fits still
    // say which strings hutool would have thrown on.
    let data: Value = serde_json::from_str(HASHES_JSON).unwrap();
    let mut throws = 0;
    let mut checked = 0;
    for s in data["strings"].as_array().unwrap() {
        let units = java_units(s["input"].as_str().unwrap());
        for size in [1_048_576_i64, 1_000_003, 100] {
            let per_class = &s["filters"][size.to_string()];
            for class in HutoolFilterClass::ALL {
                let want = &per_class[class.java_name()];
                let idx = class.bit_index(&units, size).unwrap();
                assert_eq!(idx, want["bitIndex"].as_i64().unwrap());
                let ok = want["addResult"] == "ok";
                assert_eq!(bitmap_index_fits(idx, size), ok, "{class} {size}");
                throws += usize::from(!ok);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 83 * 3 * 10);
    assert!(throws > 0, "the vectors hold AIOOBE cases");
}

#[test]
fn bitset_k_zero_negative_c_and_overflow_are_errors() {
    // k = 0: hutool contains every string and adds nothing.
    let e = hutool_bitset(1000, 100, 0).unwrap_err();
    assert!(is_hutool_error(&e, "contains every string"), "{e}");
    assert!(hutool_bitset(1000, 100, -1).is_err());
    let e = hutool_bitset(0, 100, 3).unwrap_err();
    assert!(is_hutool_error(&e, "ArithmeticException"), "{e}");
    assert!(hutool_bitset(-8, 100, 3).is_err());
    // c·k wraps in Java: 2^30 · 4 = 2^32 → 0, (2^30 + 1) · 4 → 4 bits.
    for (c, k) in [(1 << 30, 4), ((1 << 30) + 1, 4), (i32::MAX, 2)] {
        let e = hutool_bitset(c, 1, k).unwrap_err();
        assert!(matches!(e, Error::Hutool { .. }), "{e}");
    }
    // The largest product that fits is accepted (not allocated here).
    assert_eq!(i32::MAX / 8 * 8, 2_147_483_640);
}

#[test]
fn bitset_k_above_8_uses_bit_0() {
    // Faithful: probes 8.. hash to the constant 0.
    let mut f = HutoolBitSet::new(100, 50, 12).unwrap();
    let p = f.positions("anything");
    assert_eq!(p.len(), 12);
    assert!(p[8..].iter().all(|&x| x == 0));
    assert!(f.add("anything"));
    assert!(f.set_bits().contains(&0));
    // After one add, bit 0 is set for good: the extra probes never reject.
    assert_eq!(f.hash_count(), 12);
}

#[test]
fn bitset_add_is_false_for_a_false_positive() {
    // hutool's add returns false when contains is (falsely) true; that is
    // also "no bit changed". A 1-bit-per-probe filter makes one quickly.
    let mut f = HutoolBitSet::new(1, 10, 1).unwrap();
    assert!(f.add("a"));
    assert!(!f.add("b"));
    assert!(f.contains("zzz"));
}

#[test]
fn non_bmp_and_bytes_reach_hutool_as_java_strings() {
    let mut f = HutoolBitMap::new(5).unwrap();
    // An emoji is two UTF-16 units; bytes are decoded as UTF-8.
    assert!(f.add("😀 emoji"));
    assert!(f.contains_units(&java_units("😀 emoji")));
    assert!(Filter::contains_bytes(&f, "😀 emoji".as_bytes()));
    // A lone surrogate: only reachable through units.
    let lone = [0xd800_u16, 0x41];
    assert!(f.add_units(&lone));
    assert!(f.contains_units(&lone));
    // Invalid UTF-8 is read as Latin-1: [0xff, 0x41] is "ÿA".
    assert!(Filter::insert_bytes(&mut f, &[0xff, 0x41]));
    assert!(f.contains("ÿA"));
}
