// The counting variant under churn: it runs, its columns are filled (and
// empty for other variants), live items are never lost.

use std::collections::HashMap;

use crate::{Ran, bloomlab, rows, run_experiment};

/// A tiny churn experiment: counting filters at 2, 4 and 8 bits, one
/// overloaded load so 2-bit counters saturate, plus a standard filter.
fn churn_experiment() -> String {
    "name = \"tiny-churn\"\n\
     description = \"Counting filters under churn, tiny.\"\n\
     seed = 5\n\
     charts = [\"counting-churn\"]\n\n\
     [queries]\nper-filter = 20000\n\n\
     [invariants]\nno-false-negatives = true\nfpr-consistent = 5.0\n\n\
     [[grid]]\nvariant = [\"counting\"]\ncounter-bits = [2, 4, 8]\n\
     churn = [0.0, 0.5, 2.0]\nn = [2000]\nbits-per-element = [10, 3]\n\
     k = [7]\ntrials = 2\n\n\
     [[grid]]\nvariant = [\"standard\"]\nn = [2000]\n\
     bits-per-element = [10]\n"
        .to_string()
}

fn num(r: &HashMap<String, String>, col: &str) -> u64 {
    r[col].parse().unwrap_or_else(|_| panic!("{col} = {:?}", r[col]))
}

#[test]
fn counting_runs_under_churn_without_false_negatives() {
    let Ran { out, csv, .. } = &run_experiment(&churn_experiment());
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    for col in [
        "counter_bits",
        "churn",
        "removed",
        "saturated_counters",
        "saturation_events",
        "skipped_decrements",
        "rejected_removes",
    ] {
        assert!(header.contains(&col), "missing column {col}");
    }
    let rows = rows(csv);
    // 3 widths x 3 churns x 2 loads x 2 trials, and one standard filter.
    assert_eq!(rows.len(), 3 * 3 * 2 * 2 + 1);
    let mut saturated_2bit = 0;
    for r in &rows {
        assert_eq!(r["err"], "", "{r:?}");
        if r["variant"] == "standard" {
            for col in ["counter_bits", "churn", "saturated_counters"] {
                assert_eq!(r[col], "", "{col} is for counting filters");
            }
            continue;
        }
        assert_eq!(r["variant"], "counting");
        // Live items are never lost, whatever the width and churn.
        assert_eq!(num(r, "false_negatives"), 0, "{r:?}");
        assert_eq!(num(r, "rejected_removes"), 0, "{r:?}");
        let churn: f64 = r["churn"].parse().unwrap();
        assert_eq!(num(r, "removed"), (churn * 2000.0).round() as u64);
        let saturated = num(r, "saturated_counters");
        match num(r, "counter_bits") {
            2 => saturated_2bit += saturated,
            8 => assert_eq!(saturated, 0, "{r:?}"),
            4 => {}
            w => panic!("counter_bits = {w}"),
        }
        // A saturated filter is not held to the live-load formula.
        if saturated > 0 {
            assert_eq!(r["formula_asserted"], "false");
        }
        if num(r, "skipped_decrements") > 0 {
            assert!(saturated > 0);
        }
    }
    assert!(saturated_2bit > 0, "2-bit counters should saturate here");

    let info: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("run.json")).unwrap(),
    )
    .unwrap();
    for c in info["checks"].as_array().unwrap() {
        assert_eq!(c["held"], true, "{c}");
    }
    for stem in [
        "counting-churn-fpr",
        "counting-churn-saturation-2bit",
        "counting-churn-saturation-4bit",
        "counting-churn-saturation-8bit",
    ] {
        for ext in ["svg", "png"] {
            let p = out.join("charts").join(format!("{stem}.{ext}"));
            assert!(p.metadata().unwrap().len() > 1000, "{}", p.display());
        }
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Counting filters under churn"));
    assert!(html.contains("id=\"counting-churn-fpr\""));

    // The report rebuilds from the CSV.
    let o = bloomlab().arg("report").arg(out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn shipped_counting_churn_experiment_verifies() {
    let exp = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../experiments/counting-churn.toml"
    );
    let o = bloomlab().args(["verify", "-q", exp]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
