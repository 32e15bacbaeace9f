// The scalable variant: it runs, grows, fills its columns (empty for
// other variants) and stays at or under its target.

use std::collections::HashMap;

use bloomlab_core::stats::clopper_pearson;
use bloomlab_scalable::{BLOCK_BITS, Config, Layout};

use crate::experiment::{bad, write};
use crate::{Ran, bloomlab, rows, run_experiment};

/// A tiny growth experiment: bloomlab's settings and Almeida's growing
/// 100 → 20,000, pybloom-live shown, and a standard filter.
fn growth_experiment() -> String {
    "name = \"tiny-growth\"\n\
     description = \"Scalable filters growing, tiny.\"\n\
     seed = 9\n\
     charts = [\"scalable-growth\"]\n\n\
     [queries]\nper-filter = 50000\n\n\
     [invariants]\nno-false-negatives = true\nfpr-consistent = 5.0\n\
     fpr-under-target = true\n\n\
     [[grid]]\nvariant = [\"scalable\"]\n\
     scalable-preset = [\"none\", \"almeida\", \"pybloom-live\"]\n\
     initial-capacity = [100]\nn = [100, 2000, 20000]\nfpp = [0.01]\n\n\
     [[grid]]\nvariant = [\"standard\"]\nn = [2000]\n\
     bits-per-element = [10]\n"
        .to_string()
}

fn f(r: &HashMap<String, String>, col: &str) -> f64 {
    r[col].parse().unwrap_or_else(|_| panic!("{col} = {:?}", r[col]))
}

#[test]
fn scalable_grows_and_stays_under_its_target() {
    let Ran { out, csv, .. } = &run_experiment(&growth_experiment());
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let scalable_cols = [
        "initial_capacity",
        "growth",
        "tightening",
        "layer_layout",
        "layers",
        "total_bits",
        "total_bits_per_element",
        "compounded_error",
        "error_bound",
        "skipped_adds",
    ];
    for col in scalable_cols {
        assert!(header.contains(&col), "missing column {col}");
    }
    // Appended after the counting columns.
    let last_counting =
        header.iter().position(|&c| c == "rejected_removes").unwrap();
    assert_eq!(header[last_counting + 1], "initial_capacity");
    assert_eq!(*header.last().unwrap(), "skipped_adds");

    let rows = rows(csv);
    assert_eq!(rows.len(), 3 * 3 + 1);
    for r in &rows {
        assert_eq!(r["err"], "", "{r:?}");
        if r["variant"] == "standard" {
            for col in scalable_cols {
                assert_eq!(r[col], "", "{col} is for scalable filters");
            }
            continue;
        }
        assert_eq!(r["variant"], "scalable");
        assert_eq!(f(r, "false_negatives"), 0.0, "{r:?}");
        assert_eq!(r["formula"], "compounded");
        assert_eq!(r["fpr_theory"], r["compounded_error"]);
        assert_eq!(r["m"], r["total_bits"]);
        let n = f(r, "n");
        let layers = f(r, "layers");
        // 100 items fit the first layer; 2,000 and 20,000 need more.
        if n <= 100.0 {
            assert_eq!(layers, 1.0, "{r:?}");
        } else {
            assert!(layers > 1.0, "{r:?}");
        }
        let bpe = f(r, "total_bits_per_element");
        assert!((bpe - f(r, "total_bits") / n).abs() < 1e-9 * bpe.max(1.0));
        let bound = f(r, "error_bound");
        if r["preset"] == "pybloom-live" {
            assert!((bound - 0.09).abs() < 1e-9, "{r:?}");
        } else {
            assert!((bound - 0.01).abs() < 1e-12, "{r:?}");
            // At or under the target, within the interval.
            assert!(f(r, "fpr_lo") <= 0.01, "{r:?}");
            assert!(f(r, "compounded_error") <= 0.01, "{r:?}");
        }
    }

    let info: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("run.json")).unwrap(),
    )
    .unwrap();
    let checks = info["checks"].as_array().unwrap();
    assert!(checks.iter().any(|c| c["name"] == "fpr-under-target"));
    for c in checks {
        assert_eq!(c["held"], true, "{c}");
    }
    for stem in ["scalable-growth-fpr", "scalable-growth-memory"] {
        for ext in ["svg", "png"] {
            let p = out.join("charts").join(format!("{stem}.{ext}"));
            assert!(p.metadata().unwrap().len() > 1000, "{}", p.display());
        }
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Scalable filters growing"));
    assert!(html.contains("id=\"scalable-growth-fpr\""));

    // The report rebuilds from the CSV.
    let o = bloomlab().arg("report").arg(out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn an_over_target_point_fails_the_invariant() {
    // A pybloom-live filter exceeds P, but its bound (9P) does not promise
    // P: restricted to it, the invariant has nothing to check and fails
    // (an invariant that checked nothing did not hold).
    let text = growth_experiment().replace(
        "fpr-under-target = true",
        "fpr-under-target = [\"pybloom-live\"]",
    );
    let dir = tempfile::tempdir().unwrap();
    let exp = write(dir.path(), "s.toml", &text);
    let o = bloomlab().args(["verify", "-q"]).arg(&exp).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn shipped_scalable_growth_experiment_verifies() {
    let exp = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../experiments/scalable-growth.toml"
    );
    let o = bloomlab().args(["verify", "-q", exp]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// bloomlab's settings with each layer layout, growing 100 → 20,000.
fn layouts_experiment() -> String {
    "name = \"tiny-layouts\"\n\
     description = \"Scalable layer layouts side by side, tiny.\"\n\
     seed = 17\n\
     charts = [\"scalable-growth\"]\n\n\
     [queries]\nper-filter = 200000\n\n\
     [invariants]\nno-false-negatives = true\nfpr-under-target = true\n\n\
     [[grid]]\nvariant = [\"scalable\"]\n\
     layer-layout = [\"standard\", \"partitioned\", \"blocked\"]\n\
     initial-capacity = [100]\nn = [2000, 20000]\nfpp = [0.01]\n"
        .to_string()
}

#[test]
fn every_layer_layout_runs_and_blocked_layers_meet_their_theory() {
    let Ran { out, csv, .. } = &run_experiment(&layouts_experiment());
    let rows = rows(csv);
    // The layout is the innermost axis.
    let layouts: Vec<&str> =
        rows.iter().map(|r| r["layer_layout"].as_str()).collect();
    assert_eq!(layouts, ["standard", "partitioned", "blocked"].repeat(2));
    for r in &rows {
        assert_eq!(r["err"], "", "{r:?}");
        assert_eq!(f(r, "false_negatives"), 0.0, "{r:?}");
        assert_eq!(r["formula"], "compounded");
        assert_eq!(r["fpr_theory"], r["compounded_error"]);
        let strategy = if r["layer_layout"] == "blocked" {
            "split-block"
        } else {
            "enhanced-double"
        };
        assert_eq!(r["strategy"], strategy, "{r:?}");
    }
    for r in rows.iter().filter(|r| r["layer_layout"] == "blocked") {
        // The library's blocked layers for these settings: whole 512-bit
        // blocks, the newest layer's k.
        let layers = f(r, "layers") as usize;
        let specs = Config::new(100, 0.01)
            .tightening(0.5)
            .growth(2)
            .layout(Layout::Blocked)
            .layer_specs(layers - 1)
            .unwrap();
        assert!(specs.iter().all(|s| s.bits % BLOCK_BITS == 0));
        let bits: u64 = specs.iter().map(|s| s.bits).sum();
        assert_eq!(f(r, "total_bits"), bits as f64, "{r:?}");
        assert_eq!(f(r, "k"), f64::from(specs[layers - 1].k), "{r:?}");
        // The theory is the library's rate of these bits (the mean over
        // blocks of Π_j fill_j^c_j, compounded over the layers): given
        // the bits, each query is an independent trial at exactly that
        // rate, so its 99.9% Clopper–Pearson interval must hold it.
        let theory = f(r, "fpr_theory");
        let (fp, q) = (f(r, "false_positives"), f(r, "queries"));
        let ci = clopper_pearson(fp as u64, q as u64, 0.999).unwrap();
        assert!(
            ci.lo <= theory && theory <= ci.hi,
            "{fp}/{q} [{}, {}] vs {theory}: {r:?}",
            ci.lo,
            ci.hi
        );
        // And the design keeps its promise.
        assert!(theory <= f(r, "error_bound"), "{r:?}");
        assert!(f(r, "fpr_lo") <= 0.01, "{r:?}");
    }
    let info: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("run.json")).unwrap(),
    )
    .unwrap();
    for c in info["checks"].as_array().unwrap() {
        assert_eq!(c["held"], true, "{c}");
    }
}

#[test]
fn blocked_combinations_that_cannot_work_fail_in_one_line() {
    let grid = |extra: &str| {
        format!(
            "name = \"b\"\ndescription = \"b\"\nseed = 1\n\
             [queries]\nper-filter = 1000\n\
             [[grid]]\nvariant = [\"scalable\"]\nn = [1000]\n\
             layer-layout = [\"blocked\"]\n{extra}\n"
        )
    };
    // Layer 0 at P(1 − r) = 5e-20 would need 65 probes.
    bad(
        &grid("fpp = [1e-19]"),
        "[[grid]] #1: layer-layout `blocked` cannot hold n = 1000 items",
    );
    bad(&grid("fpp = [1e-19]"), "raise fpp, tightening or growth");
    // Every preset fixes another layout: nothing would be blocked.
    bad(
        &grid("fpp = [0.01]\nscalable-preset = [\"redisbloom\"]"),
        "[[grid]] #1: layer-layout `blocked` applies to no point",
    );
    bad(
        &grid("fpp = [0.01]\nscalable-preset = [\"almeida\"]"),
        "add \"none\" to scalable-preset",
    );
}
