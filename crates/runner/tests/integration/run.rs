// `bloomlab run` and `bloomlab report`: outputs, determinism, safety.

use crate::experiment::{FAILING_POINT, all_failing, tiny, write};
use crate::{bloomlab, run_into, run_output};

/// The CSV without the timing columns.
fn without_timings(csv: &str) -> Vec<Vec<String>> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| {
            !matches!(
                header[i],
                "insert_ns_per_op" | "query_ns_per_op" | "timestamp"
            )
        })
        .collect();
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            keep.iter().map(|&i| cells[i].to_string()).collect()
        })
        .collect()
}

#[test]
fn same_results_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    // Enough queries for the parallel query loop, several key kinds.
    let text = tiny("", "key-set = [\"random-u64\", \"item\"]")
        .replace("per-filter = 5000", "per-filter = 140000")
        .replace("trials = 3", "trials = 2");
    let exp = write(dir.path(), "d.toml", &text);
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    run_into(&exp, &a, &["--threads", "1"]);
    run_into(&exp, &b, &["--threads", "2"]);
    let ra = std::fs::read_to_string(a.join("results.csv")).unwrap();
    let rb = std::fs::read_to_string(b.join("results.csv")).unwrap();
    let (ta, tb) = (without_timings(&ra), without_timings(&rb));
    assert_eq!(ta.len(), 2 * 2 * 2 * 2);
    assert_eq!(ta, tb);
}

#[test]
fn csv_header_charts_and_report_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let exp = write(dir.path(), "t.toml", &tiny("", ""));
    let out = dir.path().join("out");
    run_into(&exp, &out, &[]);
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    for col in [
        "experiment",
        "point",
        "trial",
        "variant",
        "family",
        "strategy",
        "reduction",
        "key_set",
        "n",
        "bits_per_element",
        "fpp",
        "m",
        "k",
        "bytes",
        "false_negatives",
        "queries",
        "false_positives",
        "fpr",
        "fpr_lo",
        "fpr_hi",
        "fpr_classical",
        "fpr_classical_discrete",
        "fpr_exact",
        "fpr_blocked",
        "formula",
        "fpr_theory",
        "z",
        "insert_ns_per_op",
        "query_ns_per_op",
        "err",
        "bloomlab_version",
        "seed",
        "timestamp",
    ] {
        assert!(header.contains(&col), "missing column {col}");
    }
    // 2 variants x 2 loads x 3 trials, one header.
    assert_eq!(csv.lines().count(), 1 + 12);
    assert!(!out.join("results.csv.partial").exists());
    let info: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("run.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(info["experiment"], "tiny");
    assert_eq!(info["seed"], 11);
    assert!(info["machine"]["cores"].as_u64().unwrap() >= 1);
    for stem in ["fpr-vs-load", "bits-vs-fpr", "throughput"] {
        let svg =
            std::fs::read_to_string(out.join(format!("charts/{stem}.svg")))
                .unwrap();
        assert!(svg.contains("<svg"), "{stem}");
        let png =
            std::fs::read(out.join(format!("charts/{stem}.png"))).unwrap();
        assert_eq!(&png[..4], b"\x89PNG", "{stem}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<svg"));
    assert!(html.contains("no-false-negatives"));
    assert!(html.contains("Provenance"));

    // `report` rebuilds the charts from the CSV.
    std::fs::remove_dir_all(out.join("charts")).unwrap();
    std::fs::remove_file(out.join("report.html")).unwrap();
    let o = bloomlab().arg("report").arg(&out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.trim_end().ends_with("; 2 of 2 invariants held"), "{err}");
    assert!(out.join("charts/fpr-vs-load.png").exists());
    assert!(out.join("report.html").exists());
}

/// An experiment without invariants: `report` says it declares none
/// (not "0 of 0 held").
#[test]
fn report_of_an_experiment_without_invariants() {
    let dir = tempfile::tempdir().unwrap();
    let text = tiny("", "").replace(
        "[invariants]\nno-false-negatives = true\nfpr-consistent = 5.0\n",
        "",
    );
    assert!(!text.contains("[invariants]"));
    let exp = write(dir.path(), "t.toml", &text);
    let out = dir.path().join("out");
    run_into(&exp, &out, &[]);
    let o = bloomlab().arg("report").arg(&out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.trim_end().ends_with("; the experiment declares no invariants"),
        "{err}"
    );
}

/// `report` on a results file with no rows, or with rows of another
/// experiment than its run.json, fails with one line and leaves the
/// folder's report, charts and run.json as they were.
#[test]
fn report_refuses_empty_or_foreign_results_and_keeps_the_old_report() {
    let ran = crate::run_experiment(&tiny("", ""));
    let (out, csv) = (&ran.out, &ran.csv);
    let header = csv.lines().next().unwrap();
    assert!(header.starts_with("experiment,"), "{header}");
    let foreign: String =
        csv.lines().map(|l| l.replacen("tiny,", "other,", 1) + "\n").collect();
    for (text, needle) in [
        (String::new(), "no rows (empty, or a header alone)"),
        (format!("{header}\n"), "no rows (empty, or a header alone)"),
        (foreign, "a row of experiment `other` beside run.json's `tiny`"),
    ] {
        report_refuses(out, &text, needle);
    }
}

/// Writes `text` as `out`'s results.csv and expects `report` to refuse it
/// with `needle`, leaving the report, run.json and charts as they were.
fn report_refuses(out: &std::path::Path, text: &str, needle: &str) {
    let outputs = || {
        ["report.html", "run.json", "charts/fpr-vs-load.svg"]
            .map(|f| std::fs::read(out.join(f)).unwrap())
    };
    let kept = outputs();
    std::fs::write(out.join("results.csv"), text).unwrap();
    crate::fails_with(&["report", out.to_str().unwrap()], 1, needle);
    assert!(outputs() == kept, "{needle}: the folder changed");
}

#[test]
fn an_unwritable_output_leaves_existing_results_alone() {
    let dir = tempfile::tempdir().unwrap();
    let exp = write(dir.path(), "t.toml", &tiny("", ""));
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("results.csv"), "old results\n").unwrap();
    // The streaming file cannot be created (a folder is in the way; a
    // read-only folder does not stop root, which CI may be).
    std::fs::create_dir(out.join("results.csv.partial")).unwrap();
    let o = run_output(&exp, &out, &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("results.csv.partial"), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("results.csv")).unwrap(),
        "old results\n"
    );
    // An output path below a regular file.
    let file = write(dir.path(), "plain", "x");
    let o = run_output(&exp, &file.join("sub"), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

#[test]
fn report_on_a_folder_without_results_fails() {
    let dir = tempfile::tempdir().unwrap();
    crate::fails_with(
        &["report", dir.path().to_str().unwrap()],
        1,
        "no results here",
    );
}

/// A failed trial is written (its row's `err` says why) and noted on
/// stderr; the run still succeeds if any trial ran, and fails (after
/// writing everything) if none did, so that a script notices.
#[test]
fn failed_trials_are_written_and_an_all_failed_run_fails() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, text: &str| {
        let exp = write(dir.path(), &format!("{name}.toml"), text);
        let out = dir.path().join(name);
        let o = run_output(&exp, &out, &[]);
        let err = String::from_utf8(o.stderr).unwrap();
        let last = err.trim_end().lines().last().unwrap().to_string();
        let table = String::from_utf8(o.stdout).unwrap();
        let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
        let mut rows = csv::Reader::from_reader(csv.as_bytes());
        let at = rows.headers().unwrap().iter().position(|h| h == "err");
        let errs: Vec<String> = rows
            .records()
            .map(|r| r.unwrap()[at.unwrap()].to_string())
            .filter(|e| !e.is_empty())
            .collect();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].contains("more than the maximum"), "{}", errs[0]);
        for f in ["run.json", "report.html"] {
            assert!(out.join(f).exists(), "{f}");
        }
        (o.status.code(), last, table)
    };
    let (code, last, _) = run("some", &(tiny("", "") + FAILING_POINT));
    assert_eq!(code, Some(0), "{last}");
    assert!(
        last.starts_with("note: 1 of 13 trials failed (first: the sizing ")
    );
    let (code, last, table) = run("all", &all_failing());
    assert_eq!(code, Some(1), "{last}");
    // The point built no filter: its m, k and z are dashes, not NaN or 0.
    let row = table.lines().nth(1).unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert!(!row.contains("NaN"), "{row}");
    assert_eq!(cells.iter().filter(|c| **c == "–").count(), 5, "{row}");
    assert!(
        last.starts_with(
            "error: doomed: 1 of 1 trial failed (first: the sizing "
        ) && last.ends_with("; their rows' err column says why"),
        "{last}"
    );
}

/// A run that fails half-way (here: after its trials, while writing its
/// charts) replaces none of the previous run's outputs: results.csv,
/// run.json, report.html and the charts stay together, `report` still
/// works on them, and no temporary file is left behind.
#[test]
fn a_run_failing_while_writing_outputs_keeps_the_previous_run() {
    let dir = tempfile::tempdir().unwrap();
    let exp = write(dir.path(), "t.toml", &tiny("", ""));
    let out = dir.path().join("out");
    crate::run_into(&exp, &out, &[]);
    let files =
        ["results.csv", "run.json", "report.html", "charts/fpr-vs-load.svg"];
    let kept = files.map(|f| std::fs::read(out.join(f)).unwrap());
    // A second run of another design, with a chart the first did not
    // draw, which cannot be written (a folder is in its way).
    let other = tiny("charts = [\"fpr-vs-load\", \"fpr-vs-k\"]", "k = [2, 4]");
    let exp = write(dir.path(), "u.toml", &other);
    let blocked = out.join("charts/fpr-vs-k.png");
    std::fs::create_dir(&blocked).unwrap();
    let o = run_output(&exp, &out, &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("fpr-vs-k.png"), "{err}");
    std::fs::remove_dir(&blocked).unwrap();
    let now = files.map(|f| std::fs::read(out.join(f)).unwrap());
    assert!(now == kept, "a failed run changed the previous outputs");
    for d in [out.clone(), out.join("charts")] {
        for e in std::fs::read_dir(&d).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            assert!(!name.starts_with('.'), "left behind: {name}");
        }
    }
    crate::bloomlab().arg("report").arg(&out).assert().success();
}

/// `csv` with the cells of each named column set to its value in every
/// row, as a hand edit would.
fn with_cells(csv: &str, set: &[(&str, &str)]) -> String {
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    let cols: Vec<&str> = header.split(',').collect();
    let at: Vec<(usize, &str)> = set
        .iter()
        .map(|&(c, v)| (cols.iter().position(|&h| h == c).unwrap(), v))
        .collect();
    let mut text = header.to_string() + "\n";
    for l in lines {
        let mut cells: Vec<&str> = l.split(',').collect();
        for &(i, v) in &at {
            cells[i] = v;
        }
        text += &(cells.join(",") + "\n");
    }
    text
}

/// `report` refuses a results file that lacks a column it reads (here
/// `false_negatives` renamed), instead of reading its cells as empty and
/// declaring `no-false-negatives` held over rows that each count misses.
#[test]
fn report_refuses_results_missing_a_column() {
    let ran = crate::run_experiment(&tiny("", ""));
    let out = &ran.out;
    let text = with_cells(&ran.csv, &[("false_negatives", "7")]).replacen(
        ",false_negatives,",
        ",misses,",
        1,
    );
    let kept = std::fs::read(out.join("report.html")).unwrap();
    std::fs::write(out.join("results.csv"), text).unwrap();
    crate::fails_with(
        &["report", out.to_str().unwrap()],
        1,
        "missing column(s) false_negatives: not a results file",
    );
    assert_eq!(std::fs::read(out.join("report.html")).unwrap(), kept);
}

/// Hand-edited inputs of `report`: counts at `u64::MAX` are summed
/// without overflow (a panic in debug builds, a wrap in release ones),
/// the checks in report.html and run.json follow the edited rows, and a
/// `run.json` whose confidence no run writes is refused instead of
/// quietly drawn at 95%.
#[test]
fn report_survives_edited_counts_and_refuses_a_bad_confidence() {
    let ran = crate::run_experiment(&tiny("", ""));
    let out = &ran.out;
    let max = u64::MAX.to_string();
    let text =
        with_cells(&ran.csv, &[("queries", &max), ("false_negatives", "1")]);
    std::fs::write(out.join("results.csv"), text).unwrap();
    let o =
        bloomlab().arg("report").arg(out).env("RUST_BACKTRACE", "0").output();
    let o = o.unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    // Rebuilt, with the edited misses failing no-false-negatives, as
    // the file says (report, unlike verify, exits 0 on a failed check).
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("1 of 2 invariants held"), "{err}");
    let json = std::fs::read_to_string(out.join("run.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let held = |name: &str| {
        let checks = v["checks"].as_array().unwrap();
        checks.iter().find(|c| c["name"] == name).unwrap()["held"].clone()
    };
    assert_eq!(held("no-false-negatives"), false, "run.json: {json}");

    let path = out.join("run.json");
    let json = std::fs::read_to_string(&path).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["confidence"] = serde_json::json!(5.0);
    std::fs::write(&path, v.to_string()).unwrap();
    let kept = std::fs::read(out.join("report.html")).unwrap();
    crate::fails_with(
        &["report", out.to_str().unwrap()],
        1,
        "confidence 5 is not in (0, 1)",
    );
    assert_eq!(std::fs::read(out.join("report.html")).unwrap(), kept);
}

/// A chart's error bars are the experiment's intervals, and the legend
/// says at what confidence.
#[test]
fn chart_legends_name_the_experiments_confidence() {
    let ran = crate::run_experiment(&tiny("confidence = 0.8", ""));
    let svg = std::fs::read_to_string(ran.out.join("charts/fpr-vs-load.svg"))
        .unwrap();
    assert!(svg.contains("(bars: 80% interval)"), "legend of fpr-vs-load");
    assert!(!svg.contains("95%"), "no other confidence named");
}

/// run.json names the revision bloomlab was built from, even when the
/// run starts inside another git repository.
#[test]
fn provenance_names_bloomlabs_revision_not_the_working_directorys() {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .current_dir(dir.path())
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .output()
    };
    write(dir.path(), "t.toml", &tiny("", ""));
    let repo = git(&["init", "-q"]).is_ok_and(|o| o.status.success())
        && git(&["add", "t.toml"]).is_ok_and(|o| o.status.success())
        && git(&["commit", "-qm", "other"]).is_ok_and(|o| o.status.success());
    let out = dir.path().join("out");
    let o = crate::bloomlab()
        .current_dir(dir.path())
        .args(["run", "--quiet", "t.toml", "--out", "out"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap())
            .unwrap();
    let built = option_env!("BLOOMLAB_GIT_REVISION");
    assert_eq!(info["git_revision"].as_str(), built);
    if repo {
        let head = git(&["rev-parse", "--short=12", "HEAD"]).unwrap();
        let head = String::from_utf8(head.stdout).unwrap();
        assert!(!built.unwrap_or("").starts_with(head.trim()));
    }
}

/// `report` refuses rows no run writes, and changes nothing: a file
/// appended to itself, one cut short, more false positives than queries
/// or more false negatives than members.
#[test]
fn report_refuses_repeated_missing_or_impossible_rows() {
    let ran = crate::run_experiment(&tiny("", ""));
    let (out, csv) = (&ran.out, &ran.csv);
    let body: String = csv.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let mut lines: Vec<&str> = csv.lines().collect();
    lines.pop();
    let cut = lines.join("\n") + "\n";
    let rows = csv.lines().count();
    for (text, needle) in [
        (
            format!("{csv}{body}"),
            &*format!("line {}: point 0 trial 0 again", rows + 1),
        ),
        (
            cut,
            &*format!("{} rows where run.json records {}", rows - 2, rows - 1),
        ),
        (
            with_cells(csv, &[("queries", "5"), ("false_positives", "6")]),
            "line 2: 6 false positives out of 5 queries",
        ),
        (
            with_cells(csv, &[("false_negatives", "501")]),
            "line 2: 501 false negatives among 500 members",
        ),
    ] {
        report_refuses(out, &text, needle);
    }
}

/// Designs that differ only where the label is silent (here the
/// reduction) get labels that tell them apart, in the report and in the
/// charts' series, instead of merging.
#[test]
fn designs_differing_beyond_the_label_are_told_apart() {
    let ran = crate::run_experiment(
        "name = \"apart\"\ndescription = \"d\"\nseed = 1\n\
         charts = [\"fpr-vs-load\"]\n[queries]\nper-filter = 2000\n\
         [[grid]]\nvariant = [\"standard\"]\nstrategy = [\"double\"]\n\
         reduction = [\"modulo\", \"multiply-shift\"]\nn = [2000]\n\
         bits-per-element = [6, 10]\n",
    );
    let html = std::fs::read_to_string(ran.out.join("report.html")).unwrap();
    let svg = std::fs::read_to_string(ran.out.join("charts/fpr-vs-load.svg"))
        .unwrap();
    for r in ["modulo", "multiply-shift"] {
        let label = format!("standard xxh3-64 double reduction={r}");
        assert!(html.contains(&label), "{label} not in report.html");
        assert!(svg.contains(&label), "{label} not a series of the chart");
    }
}

/// report.html shows the charts' time that run.json records, not a 0
/// taken before they were drawn.
#[test]
fn report_shows_the_charts_time_run_json_records() {
    let ran = crate::run_experiment(&tiny("", ""));
    let html = std::fs::read_to_string(ran.out.join("report.html")).unwrap();
    let json = std::fs::read_to_string(ran.out.join("run.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let charts = v["timings"]["report"].as_f64().unwrap();
    assert!(charts > 0.0, "{json}");
    let shown = format!("charts {charts:.2} s");
    assert!(html.contains(&shown), "{shown} not in report.html");
}

/// A run into a folder that holds an earlier run's charts removes the
/// ones it does not draw (other files stay), so charts/ shows this run.
#[test]
fn a_new_run_removes_charts_it_does_not_draw() {
    let ran = crate::run_experiment(&tiny("", ""));
    let charts = ran.out.join("charts");
    let names = || {
        let mut v: Vec<String> = std::fs::read_dir(&charts)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert!(names().len() > 2, "{:?}", names());
    std::fs::write(charts.join("notes.txt"), "mine").unwrap();
    let dir = ran.out.parent().unwrap();
    let exp = write(dir, "one.toml", &tiny("charts = [\"fpr-vs-load\"]", ""));
    crate::run_into(&exp, &ran.out, &[]);
    assert_eq!(names(), ["fpr-vs-load.png", "fpr-vs-load.svg", "notes.txt"]);
}

/// A run or report into a folder another one is writing is refused (the
/// folder is locked while it is written), and works once it is free.
#[cfg(unix)]
#[test]
fn a_folder_being_written_is_not_written_twice() {
    let ran = crate::run_experiment(&tiny("", ""));
    let out = ran.out.to_str().unwrap();
    let dir = ran.out.parent().unwrap();
    let exp = write(dir, "again.toml", &tiny("", ""));
    let exp = exp.to_str().unwrap();
    let held = std::fs::File::open(&ran.out).unwrap();
    held.try_lock().unwrap();
    let needle = "another bloomlab run or report is writing this folder";
    crate::fails_with(&["run", "-q", exp, "--out", out], 1, needle);
    crate::fails_with(&["report", out], 1, needle);
    drop(held);
    crate::run_into(std::path::Path::new(exp), &ran.out, &[]);
    crate::bloomlab().args(["report", out]).assert().success();
}

/// Guava's two presets differ only in the strategy, which a blocked
/// filter does not use: on the blocked variant they are one design, run
/// once, not twice under two labels.
#[test]
fn guavas_presets_on_blocked_filters_are_one_design() {
    let ran = crate::run_experiment(
        "name = \"one\"\ndescription = \"d\"\nseed = 1\n\
         [queries]\nper-filter = 1000\n[[grid]]\n\
         variant = [\"blocked\", \"standard\"]\n\
         preset = [\"guava\", \"guava-mitz32\"]\nn = [500]\n\
         bits-per-element = [10]\n",
    );
    let rows = crate::rows(&ran.csv);
    let designs: std::collections::BTreeSet<(String, String, String)> = rows
        .iter()
        .map(|r| {
            (r["variant"].clone(), r["preset"].clone(), r["strategy"].clone())
        })
        .collect();
    let blocked: Vec<_> =
        designs.iter().filter(|d| d.0 == "blocked").collect();
    assert_eq!(blocked.len(), 1, "{designs:?}");
    assert_eq!(blocked[0].1, "guava");
    // On the classic filter the strategies differ: two designs.
    assert_eq!(designs.len(), 3, "{designs:?}");
}

/// `report --json` prints what `run --json` printed for the same
/// results: the grid points, then the invariants, one object a line.
#[test]
fn report_json_prints_what_run_json_printed() {
    let dir = tempfile::tempdir().unwrap();
    let exp = write(dir.path(), "t.toml", &tiny("", ""));
    let out = dir.path().join("out");
    let ran = run_output(&exp, &out, &["--json"]);
    assert!(ran.status.success());
    let report =
        bloomlab().args(["report", "--json"]).arg(&out).output().unwrap();
    assert!(report.status.success());
    assert!(report.stderr.is_empty(), "no summary line with --json");
    assert_eq!(
        String::from_utf8(report.stdout).unwrap(),
        String::from_utf8(ran.stdout).unwrap()
    );
}
