// murmur3 against Guava 31.1 (`testdata/guava/murmur3.json`) and
// MurmurHash64A against RedisBloom (`testdata/redisbloom/filters.json`).

use bloomlab_hash::{Family, Hasher, murmur3, murmur64a};
use proptest::prelude::*;
use serde_json::Value;

const MURMUR3: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/guava/murmur3.json"
));
const REDISBLOOM: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/redisbloom/filters.json"
));

pub(crate) fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

fn hex128(h: (u64, u64)) -> String {
    hex(&[h.0.to_le_bytes(), h.1.to_le_bytes()].concat())
}

fn hex32(h: u32) -> String {
    hex(&h.to_le_bytes())
}

fn check_128(v: &Value, bytes: &[u8], seed: i32, ctx: &str) {
    let h = murmur3::x64_128(bytes, seed);
    assert_eq!(hex128(h), v["hex"].as_str().unwrap(), "{ctx}: hex");
    assert_eq!(h.0 as i64, v["asLong"].as_i64().unwrap(), "{ctx}: asLong");
    // The registry family gives the same bytes and value.
    let f = Family::Murmur3X64_128;
    let d = Hasher::new(f, i128::from(seed)).unwrap().hash(bytes);
    assert_eq!(f.hex_string(d), v["hex"].as_str().unwrap(), "{ctx}");
    assert_eq!(f.value_string(d), v["asLong"].to_string(), "{ctx}");
}

#[test]
fn guava_murmur3_strings() {
    let v: Value = serde_json::from_str(MURMUR3).unwrap();
    let strings = v["strings"].as_array().unwrap();
    assert_eq!(strings.len(), 32);
    let mut legacy_differs = 0;
    for s in strings {
        let input = s["input"].as_str().unwrap();
        let ctx = format!("{input:?}");
        assert_eq!(input.len() as u64, s["utf8Length"].as_u64().unwrap());
        if let Some(h) = s["utf8Hex"].as_str() {
            assert_eq!(hex(input.as_bytes()), h, "{ctx}");
        }
        check_128(&s["murmur3_128"], input.as_bytes(), 0, &ctx);
        let fixed = murmur3::x86_32(input.as_bytes(), 0);
        for key in ["murmur3_32_fixed", "murmur3_32_ofUtf8Bytes"] {
            assert_eq!(hex32(fixed), s[key]["hex"].as_str().unwrap(), "{ctx}");
            assert_eq!(
                i64::from(fixed as i32),
                s[key]["asInt"].as_i64().unwrap(),
                "{ctx}: {key}"
            );
        }
        assert_eq!(
            hex32(fixed),
            s["murmur3_32_hasherPutStringHex"].as_str().unwrap()
        );
        assert_eq!(murmur3::guava_x86_32_str(input, 0, true), fixed, "{ctx}");
        // The deprecated murmur3_32().hashString fast path, bug for bug.
        let legacy = murmur3::guava_legacy_x86_32_str(input, 0);
        assert_eq!(hex32(legacy), s["murmur3_32"]["hex"].as_str().unwrap());
        assert_eq!(
            i64::from(legacy as i32),
            s["murmur3_32"]["asInt"].as_i64().unwrap(),
            "{ctx}: legacy"
        );
        let differs =
            s["murmur3_32_legacyDiffersFromBytes"].as_bool().unwrap();
        assert_eq!(legacy != fixed, differs, "{ctx}");
        legacy_differs += usize::from(differs);
        let fam = Family::Murmur3X86_32GuavaLegacy;
        let d = Hasher::new(fam, 0).unwrap().hash(input.as_bytes());
        assert_eq!(fam.value_string(d), s["murmur3_32"]["asInt"].to_string());
    }
    // The file has non-BMP strings; make sure the bug was exercised.
    assert!(legacy_differs >= 5, "only {legacy_differs} non-BMP cases");
}

#[test]
fn guava_murmur3_primitives_and_bytes() {
    let v: Value = serde_json::from_str(MURMUR3).unwrap();
    let longs = v["longs_putLong"].as_array().unwrap();
    assert_eq!(longs.len(), 12);
    for l in longs {
        let x = l["input"].as_i64().unwrap();
        let b = x.to_le_bytes();
        check_128(&l["murmur3_128"], &b, 0, &format!("long {x}"));
        assert_eq!(hex32(murmur3::x86_32(&b, 0)), l["murmur3_32_hex"]);
    }
    let ints = v["ints_putInt"].as_array().unwrap();
    assert_eq!(ints.len(), 10);
    for i in ints {
        let x = i["input"].as_i64().unwrap() as i32;
        let b = x.to_le_bytes();
        check_128(&i["murmur3_128"], &b, 0, &format!("int {x}"));
        let h = murmur3::x86_32(&b, 0);
        assert_eq!(
            i64::from(h as i32),
            i["murmur3_32_asInt"].as_i64().unwrap()
        );
    }
    let bytes = v["bytes_putBytes"].as_array().unwrap();
    assert_eq!(bytes.len(), 41);
    for b in bytes {
        let len = b["length"].as_u64().unwrap() as usize;
        // Byte j of the length-L input is (31*j + 7*L + 0x5a) & 0xff.
        let input: Vec<u8> = (0..len)
            .map(|j| ((31 * j + 7 * len + 0x5a) & 0xff) as u8)
            .collect();
        assert_eq!(hex(&input), b["inputHex"].as_str().unwrap());
        check_128(&b["murmur3_128"], &input, 0, &format!("{len} bytes"));
        assert_eq!(hex32(murmur3::x86_32(&input, 0)), b["murmur3_32_hex"]);
    }
}

#[test]
fn guava_murmur3_seeds_are_sign_extended() {
    let v: Value = serde_json::from_str(MURMUR3).unwrap();
    let seeded = v["seeded_strings"].as_array().unwrap();
    assert_eq!(seeded.len(), 20);
    let mut negative = 0;
    for s in seeded {
        let seed = s["seed"].as_i64().unwrap() as i32;
        negative += usize::from(seed < 0);
        let input = s["input"].as_str().unwrap();
        let ctx = format!("seed {seed}, {input:?}");
        check_128(&s["murmur3_128"], input.as_bytes(), seed, &ctx);
        let h = murmur3::x86_32(input.as_bytes(), seed as u32);
        assert_eq!(hex32(h), s["murmur3_32_fixed_hex"], "{ctx}");
        assert_eq!(
            i64::from(h as i32),
            s["murmur3_32_fixed_asInt"].as_i64().unwrap()
        );
    }
    assert!(negative >= 2, "negative seeds are the interesting ones");
}

fn redis_input(v: &Value) -> Vec<u8> {
    match &v["input"] {
        Value::String(s) => s.as_bytes().to_vec(),
        obj => unhex(obj["hex"].as_str().unwrap()),
    }
}

#[test]
fn redisbloom_murmur64a() {
    let v: Value = serde_json::from_str(REDISBLOOM).unwrap();
    let cases = v["murmur64a"].as_array().unwrap();
    assert_eq!(cases.len(), 37);
    for c in cases {
        let bytes = redis_input(c);
        assert_eq!(bytes.len() as u64, c["byteLength"].as_u64().unwrap());
        let a = murmur64a::murmur64a(&bytes, murmur64a::REDISBLOOM_SEED);
        let b = murmur64a::murmur64a(&bytes, a);
        let ctx = format!("{}", c["input"]);
        assert_eq!(a, c["a"].as_u64().unwrap(), "{ctx}: a");
        assert_eq!(b, c["b"].as_u64().unwrap(), "{ctx}: b");
        let fam = Family::Murmur64A;
        let d = fam.hash_raw(&bytes, murmur64a::REDISBLOOM_SEED);
        assert_eq!(fam.hex_string(d), c["aHex"].as_str().unwrap());
    }
}

proptest! {
    // The `murmur3` crate is the reference C port with a zero-extended
    // u32 seed: it must agree with ours wherever Guava's sign extension
    // does not apply (seeds below 2^31).
    #[test]
    fn agrees_with_the_murmur3_crate(
        data in proptest::collection::vec(any::<u8>(), 0..200),
        seed in 0u32..(1 << 31),
    ) {
        let ours = murmur3::x64_128(&data, seed as i32);
        let theirs =
            ::murmur3::murmur3_x64_128(&mut data.as_slice(), seed).unwrap();
        prop_assert_eq!(u128::from(ours.0) | (u128::from(ours.1) << 64), theirs);
        let theirs32 =
            ::murmur3::murmur3_32(&mut data.as_slice(), seed).unwrap();
        prop_assert_eq!(murmur3::x86_32(&data, seed), theirs32);
    }

    // The one-word form is the byte form of the word's 8 LE bytes, for
    // every seed (Guava sign-extends negative ones).
    #[test]
    fn one_word_form_is_the_byte_form(w: u64, seed: i32) {
        prop_assert_eq!(
            murmur3::x64_128_word(w, seed),
            murmur3::x64_128(&w.to_le_bytes(), seed)
        );
    }
}
