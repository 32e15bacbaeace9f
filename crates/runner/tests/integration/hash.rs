// `bloomlab hash`: reference values, input order, errors.

use crate::{fails_with, json_lines};

#[test]
fn hutool_elf_prints_hutools_value() {
    // HashUtil.elfHash("hello") in hutool 5.8.34 (testdata/hutool/hashes.json).
    let rows = json_lines(&[
        "hash",
        "--family",
        "hutool-elf",
        "--text",
        "hello",
        "--json",
    ]);
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r["family"], "hutool-elf");
    assert_eq!(r["input"], "hello");
    assert_eq!(r["value"], "7258927");
    assert_eq!(r["hex"], "006ec32f");
}

#[test]
fn guava_murmur3_values_and_signed_seed() {
    // Hashing.murmur3_128().hashString("hello", UTF_8): asLong and bytes.
    let r = &json_lines(&[
        "hash",
        "--family",
        "murmur3-x64-128",
        "--text",
        "hello",
        "--json",
    ])[0];
    assert_eq!(r["value"], "-3758069500696749310");
    assert_eq!(r["hex"], "029bbd41b3a7d8cb191dae486a901e5b");
    // Seeds are Java ints: -1 and 4294967295 are the same 32 bits.
    let a = &json_lines(&[
        "hash",
        "--family",
        "murmur3-x64-128",
        "--seed",
        "-1",
        "--text",
        "x",
        "--json",
    ])[0];
    let b = &json_lines(&[
        "hash",
        "--family",
        "murmur3-x64-128",
        "--seed",
        "4294967295",
        "--text",
        "x",
        "--json",
    ])[0];
    assert_eq!(a["hex"], b["hex"]);
    // Each row shows the seed as given, and the bits the family takes.
    assert_eq!(
        (&a["seed"], &a["seed_bits"]),
        (&(-1).into(), &4294967295u64.into())
    );
    assert_eq!(b["seed"], 4294967295u64);
}

#[test]
fn inputs_keep_their_order_and_kinds() {
    let rows = json_lines(&[
        "hash", "--family", "xxh64", "--text", "a", "--u64", "1", "--hex",
        "00ff", "--text", "b", "--json",
    ]);
    let inputs: Vec<_> =
        rows.iter().map(|r| r["input"].as_str().unwrap()).collect();
    assert_eq!(inputs, ["a", "1", "00ff", "b"]);
    // --u64 is Guava's longFunnel: the same bytes as --hex of 8 LE bytes.
    let u =
        &json_lines(&["hash", "--family", "xxh64", "--u64", "1", "--json"])[0];
    let h = &json_lines(&[
        "hash",
        "--family",
        "xxh64",
        "--hex",
        "0100000000000000",
        "--json",
    ])[0];
    assert_eq!(u["value"], h["value"]);
}

#[test]
fn bad_hash_input_is_one_clear_line() {
    fails_with(
        &["hash", "--family", "md5", "--text", "x"],
        1,
        "unknown hash family",
    );
    fails_with(
        &["hash", "--family", "hutool-elf", "--seed", "3", "--text", "x"],
        1,
        "takes no seed",
    );
    fails_with(
        &["hash", "--family", "xxh64", "--hex", "abc"],
        1,
        "odd number",
    );
    fails_with(
        &["hash", "--family", "xxh64", "--u64", "1e3"],
        1,
        "not an integer",
    );
    // No input at all is a usage error (clap, exit 2).
    fails_with(&["hash", "--family", "xxh64"], 2, "required");
}

/// `--hex` takes hex digits only: a sign is not one (`+1+2` used to hash
/// as the bytes 01 02).
#[test]
fn hex_input_with_signs_is_refused() {
    fails_with(
        &["hash", "--family", "xxh64", "--hex", "+1+2"],
        1,
        "--hex \"+1+2\": not a hex byte at 0",
    );
}
