// Guava's sizing, against every row of `testdata/guava/sizing.json`
// (produced by Guava 31.1 itself; see testdata/README.md).

use bloomlab_core::Error;
use bloomlab_core::sizing::{
    GuavaSizing, guava_optimal_num_of_bits,
    guava_optimal_num_of_hash_functions, optimal,
};
use serde_json::Value;

const SIZING: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/guava/sizing.json"
));

fn rows() -> Vec<Value> {
    let v: Value = serde_json::from_str(SIZING).unwrap();
    let mut rows = v["grid"].as_array().unwrap().clone();
    rows.extend(v["edges"].as_array().unwrap().iter().cloned());
    rows
}

#[test]
fn every_row_matches_guava() {
    let rows = rows();
    assert_eq!(rows.len(), 56 + 13);
    let mut errors = 0;
    for row in &rows {
        let n = row["n"].as_i64().unwrap();
        let p = row["p"].as_f64().unwrap();
        let ctx = format!("n = {n}, p = {p}");
        // The package-private helpers are reported for max(n, 1).
        let n1 = n.max(1);
        let bits = guava_optimal_num_of_bits(n1, p);
        assert_eq!(bits, row["optimalNumOfBits"].as_i64().unwrap(), "{ctx}");
        assert_eq!(
            i64::from(guava_optimal_num_of_hash_functions(n1, bits)),
            row["optimalNumOfHashFunctions"].as_i64().unwrap(),
            "{ctx}"
        );
        let got = GuavaSizing::new(n, p);
        match row["bitSizeSource"].as_str().unwrap() {
            "created" | "formula" => {
                let s = got.unwrap_or_else(|e| panic!("{ctx}: {e}"));
                assert_eq!(
                    s.words,
                    row["words"].as_u64().unwrap(),
                    "{ctx}: words"
                );
                assert_eq!(
                    s.bit_size,
                    row["bitSize"].as_u64().unwrap(),
                    "{ctx}: bitSize"
                );
                assert_eq!(
                    u64::from(s.hash_functions),
                    row["numHashFunctions"].as_u64().unwrap(),
                    "{ctx}: k"
                );
            }
            "error" => {
                errors += 1;
                let msg = row["error"].as_str().unwrap();
                let e = got.expect_err(&ctx);
                // Each Guava failure maps to its own typed error.
                if msg.contains("data length is zero") {
                    assert!(matches!(e, Error::ZeroBits { .. }), "{ctx}");
                } else if msg.contains("must be <= 255") {
                    assert!(
                        matches!(e, Error::TooManyHashFunctions { .. }),
                        "{ctx}: {e}"
                    );
                } else {
                    assert!(
                        matches!(e, Error::TooLarge { .. }),
                        "{ctx}: {msg} vs {e}"
                    );
                }
            }
            other => panic!("unknown bitSizeSource {other}"),
        }
    }
    // The file records Guava throwing for these rows; make sure we saw
    // them (so a parsing slip cannot skip the error cases).
    assert!(errors >= 6, "only {errors} error rows checked");
}

#[test]
fn bloomlab_sizing_rejects_what_guava_accepts_silently() {
    // Guava treats n = 0 as 1; bloomlab's own entry point says so instead.
    assert!(GuavaSizing::new(0, 0.03).is_ok());
    assert!(matches!(
        optimal(0, 0.03),
        Err(Error::InvalidParameter { name: "n", .. })
    ));
    assert!(matches!(
        optimal(10, 1.5),
        Err(Error::InvalidParameter { name: "p", .. })
    ));
    assert_eq!(optimal(1_000_000, 0.03).unwrap().bit_size, 7_298_496);
}
