//! `report.html`: one self-contained page (SVG charts inlined) with the
//! experiment, its parameters, a summary table, every chart, the
//! invariants and whether they held, and the provenance. Everything is
//! derived from `results.csv` (and `run.json` for the experiment itself),
//! so [`rebuild`] regenerates charts and report from a results folder.

use std::fmt::Write as _;
use std::path::Path;

use crate::charts::{self, ChartKind, Drawn};
use crate::results::{self, Check, Row, Summary};
use crate::sweep::{self, RunInfo};
use crate::{Error, Result};

/// Draws the charts into `dir/charts/` and writes `dir/report.html`.
/// Records the chart stems drawn in `info.charts` when none were
/// declared.
/// Stages them in `staged`: nothing is in place before its commit.
pub fn write_all(
    dir: &Path,
    info: &mut RunInfo,
    rows: &[Row],
    sums: &[Summary],
    staged: &mut sweep::Staged,
) -> Result<Vec<Drawn>> {
    let kinds: Option<Vec<ChartKind>> = info.charts.as_ref().map(|names| {
        names.iter().filter_map(|n| ChartKind::from_name(n).ok()).collect()
    });
    let t0 = std::time::Instant::now();
    let specs = charts::specs(kinds.as_deref(), sums, info.confidence);
    let chart_dir = dir.join("charts");
    let drawn = charts::draw_all(&chart_dir, &specs, staged)?;
    // An earlier run's charts that this one does not draw would sit
    // beside its own as if they belonged to it.
    let ours: Vec<String> = drawn
        .iter()
        .flat_map(|d| [format!("{}.svg", d.stem), format!("{}.png", d.stem)])
        .collect();
    let entries =
        std::fs::read_dir(&chart_dir).map_err(|e| Error::io(&chart_dir, e))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let chart = name.ends_with(".svg") || name.ends_with(".png");
        if chart && !name.starts_with('.') && !ours.contains(&name) {
            staged.remove_at_commit(&entry.path());
        }
    }
    // Measured before the page is made, so that the page can show it.
    info.timings.report = t0.elapsed().as_secs_f64();
    let html = html(info, rows, sums, &drawn);
    staged.write(&dir.join("report.html"), html.as_bytes())?;
    Ok(drawn)
}

/// Rebuilds charts and `report.html` in `dir` from `dir/results.csv` and
/// `dir/run.json`. Returns the summaries and invariant checks.
pub fn rebuild(dir: &Path) -> Result<(Vec<Summary>, Vec<Check>)> {
    let csv = dir.join("results.csv");
    if !csv.is_file() {
        return Err(Error::Format {
            path: csv,
            message: "no results here (expected the output folder of \
                      `bloomlab run`)"
                .into(),
        });
    }
    let _lock = sweep::lock_folder(dir)?;
    let rows = results::read(&csv)?;
    // Checked before anything is written, so that a damaged or foreign
    // results file does not replace a good report.
    if rows.is_empty() {
        return Err(Error::Format {
            path: csv,
            message: "no rows (empty, or a header alone): nothing to \
                      report; run the experiment again with `bloomlab run`"
                .into(),
        });
    }
    let mut info = sweep::read_info(&dir.join("run.json"))?;
    if let Some(r) = rows.iter().find(|r| r.experiment != info.experiment) {
        return Err(Error::Format {
            path: csv,
            message: format!(
                "a row of experiment `{}` beside run.json's `{}`: the \
                 folder mixes two runs; run the experiment again with \
                 `bloomlab run`",
                r.experiment, info.experiment
            ),
        });
    }
    if rows.len() != info.trials {
        return Err(Error::Format {
            path: csv,
            message: format!(
                "{} rows where run.json records {}: the file was cut or \
                 added to; run the experiment again with `bloomlab run`",
                rows.len(),
                info.trials
            ),
        });
    }
    let sums = results::summarise(&rows, info.confidence);
    let checks = results::check(&info.invariants, &sums);
    info.checks = checks.clone();
    let mut staged = sweep::Staged::default();
    write_all(dir, &mut info, &rows, &sums, &mut staged)?;
    // run.json's checks follow the rows, as report.html's do.
    sweep::stage_json(&mut staged, &dir.join("run.json"), &info)?;
    staged.commit()?;
    Ok((sums, checks))
}

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A rate with 3 significant digits.
pub fn rate(x: f64) -> String {
    if !x.is_finite() {
        return "–".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    format!("{x:.3e}")
}

fn num(x: f64, digits: usize) -> String {
    if x.is_finite() { format!("{x:.digits$}") } else { "–".into() }
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,'DejaVu Sans',\
sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;font-size:13px;margin:1em 0}\
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right}\
th{background:#f3f3f3}td.l,th.l{text-align:left}\
.ok{color:#1a7f37;font-weight:bold}.bad{color:#c0392b;font-weight:bold}\
.muted{color:#777}figure{margin:2em 0}figure svg{max-width:100%;height:auto}\
pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:12px}\
.scroll{overflow-x:auto}";

/// The counting filters' churn table: per grid point, the workload and
/// what the filter counted going wrong (nothing when no point is a
/// counting filter).
fn counting_table(h: &mut String, sums: &[Summary]) {
    let counting: Vec<&Summary> =
        sums.iter().filter(|s| s.first.counter_bits.is_some()).collect();
    if counting.is_empty() {
        return;
    }
    h.push_str(
        "<h2>Counting filters under churn</h2>\n<p class=\"muted\">Churn: \
         items deleted and replaced by fresh ones after the first n inserts, \
         as a multiple of n, in rounds of deleting the oldest half of the \
         live items. FN: live items not found afterwards (all filters). \
         Saturated counters, saturation events (increments lost) and skipped \
         decrements: mean per filter. Rejected removes: removes of inserted \
         items the filter refused (all filters; should be 0). FPR against \
         the exact formula for the n live items; a point with a saturated \
         counter is not asserted to match it.</p>\n<div class=\"scroll\">\
         <table>\n<tr><th>#</th><th class=\"l\">design</th><th>n live</th>\
         <th>m/n</th><th>k</th><th>counter bits</th><th>churn</th>\
         <th>filters</th><th>FN</th><th>saturated counters</th><th>% of \
         counters</th><th>saturation events</th><th>skipped decrements</th>\
         <th>rejected removes</th><th>filters with saturation</th><th>FPR</th>\
         <th>theory (live load)</th><th>FPR / theory</th><th>z</th></tr>\n",
    );
    for s in counting {
        let cls = if s.asserted { "" } else { " class=\"muted\"" };
        let _ = writeln!(
            h,
            "<tr{cls}><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}\
             </td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td \
             class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}\
             </td></tr>",
            s.point,
            esc(&s.label),
            s.first.n,
            num(s.bits_per_element(), 2),
            s.k,
            s.first.counter_bits.unwrap_or(0),
            s.first.churn.map_or("–".into(), |c| c.to_string()),
            s.trials,
            if s.false_negatives == 0 { "ok" } else { "bad" },
            s.false_negatives,
            num(s.saturated_counters, 1),
            num(100.0 * s.saturated_counters / s.m, 3),
            num(s.saturation_events, 1),
            num(s.skipped_decrements, 1),
            s.rejected_removes,
            s.saturated_trials,
            rate(s.fpr),
            rate(s.theory),
            num(s.fpr / s.theory, 3),
            num(s.z, 2),
        );
    }
    h.push_str("</table></div>\n");
}

/// The scalable filters' growth table: per grid point, what the filter
/// grew into and its rate against the target (nothing when no point is a
/// scalable filter).
fn scalable_table(h: &mut String, sums: &[Summary]) {
    let scalable: Vec<&Summary> =
        sums.iter().filter(|s| s.target().is_some()).collect();
    if scalable.is_empty() {
        return;
    }
    h.push_str(
        "<h2>Scalable filters growing</h2>\n<p class=\"muted\">Each filter \
         starts at its initial capacity n0 and grows to hold the n items \
         inserted. Target: the filter's error target P; bound: \
         P0/(1−r), the most its compounded error can reach however far it \
         grows. Predicted: 1 − Π(1 − P<sub>i</sub>) from each layer's \
         realised fill. Verdict: <i>under target</i> when the interval's \
         low end is at most P, for designs whose bound is at most P; \
         designs with a looser bound (pybloom-live: 9P) are shown, not held \
         to P.</p>\n<div class=\"scroll\"><table>\n<tr><th>#</th><th \
         class=\"l\">design</th><th>n0</th><th>n</th><th>layers</th>\
         <th>total bits</th><th>bits / item</th><th>k (newest)</th>\
         <th>target P</th><th>bound</th><th>filters</th><th>FN</th>\
         <th>FPR</th><th>interval</th><th>FPR / P</th><th>predicted</th>\
         <th>z</th><th class=\"l\">verdict</th></tr>\n",
    );
    for s in scalable {
        let p = s.target().unwrap_or(f64::NAN);
        let (cls, verdict) = if !s.promises_target() {
            ("muted", "not promised (bound above P)")
        } else if s.lo <= p {
            ("ok", "under target")
        } else {
            ("bad", "OVER TARGET")
        };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}\
             </td><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td>{} – {}\
             </td><td>{}</td><td>{}</td><td>{}</td><td class=\"l {cls}\">\
             {verdict}</td></tr>",
            s.point,
            esc(&s.label),
            s.first.initial_capacity.unwrap_or(0),
            s.first.n,
            num(s.layers, 1),
            num(s.m, 0),
            num(s.bits_per_element(), 2),
            s.k,
            p,
            rate(s.error_bound),
            s.trials,
            if s.false_negatives == 0 { "ok" } else { "bad" },
            s.false_negatives,
            rate(s.fpr),
            rate(s.lo),
            rate(s.hi),
            num(s.fpr / p, 3),
            rate(s.theory),
            num(s.z, 2),
        );
    }
    h.push_str("</table></div>\n");
}

fn html(
    info: &RunInfo,
    rows: &[Row],
    sums: &[Summary],
    drawn: &[Drawn],
) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>bloomlab: {name}</title><style>{STYLE}</style></head><body>\n\
         <h1>bloomlab experiment <code>{name}</code></h1>\n<p>{desc}</p>\n",
        name = esc(&info.experiment),
        desc = esc(&info.description),
    );
    if let Some(a) = &info.analysis {
        let _ = writeln!(h, "<h3>What to look for</h3><p>{}</p>", esc(a));
    }
    if info.quick {
        h.push_str(
            "<p class=\"bad\">Quick run (--quick or verify): fewer trials \
             and queries than the experiment declares.</p>\n",
        );
    }

    // Invariants.
    h.push_str("<h2>Invariants</h2>\n");
    if info.checks.is_empty() {
        h.push_str("<p class=\"muted\">The experiment declares none.</p>\n");
    } else {
        h.push_str(
            "<table><tr><th class=\"l\">invariant</th><th class=\"l\">bound\
             </th><th>held</th><th>points checked</th><th>failed</th>\
             <th class=\"l\">detail</th></tr>\n",
        );
        for c in &info.checks {
            let _ = writeln!(
                h,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td \
                 class=\"{}\">{}</td><td>{}</td><td>{}</td><td class=\"l\">\
                 {}</td></tr>",
                esc(&c.name),
                esc(&c.bound),
                if c.held { "ok" } else { "bad" },
                if c.held { "yes" } else { "NO" },
                c.checked,
                c.failed,
                esc(&c.detail)
            );
        }
        h.push_str("</table>\n");
    }
    let errors = rows.iter().filter(|r| !r.err.is_empty()).count();
    if errors > 0 {
        let _ = writeln!(
            h,
            "<p>{errors} of {} trials failed (rows with <code>err</code>; \
             see the table below).</p>",
            rows.len()
        );
    }

    // Summary.
    h.push_str(
        "<h2>Summary by grid point</h2>\n<p class=\"muted\">FPR is the \
         mean of the per-filter rates; the interval is the Clopper–Pearson \
         interval for one filter, mean ± z·SE for several (SE: model-based \
         under 20 filters, cluster-robust from 20). z compares the mean \
         with the matching formula; z classical with (1−e<sup>−kn/m</sup>)\
         <sup>k</sup>. Rows in grey are not asserted to match (probes from \
         one hash pair where keys whose probes fall on a few bits lift the \
         rate by over 1%, weak or 32-bit hashes).</p>\n\
         <div class=\"scroll\"><table>\n<tr><th>#</th><th class=\"l\">design\
         </th><th class=\"l\">keys</th><th>n</th><th>m</th><th>m/n</th>\
         <th>k</th><th>filters</th><th>queries</th><th>FP</th><th>FN</th>\
         <th>FPR</th><th>interval</th><th class=\"l\">formula</th>\
         <th>theory</th><th>z</th><th>z classical</th><th>insert ns</th>\
         <th>query ns</th><th class=\"l\">err</th></tr>\n",
    );
    for s in sums {
        let cls = if s.asserted { "" } else { " class=\"muted\"" };
        let _ = writeln!(
            h,
            "<tr{cls}><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}\
             </td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} – {}</td>\
             <td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            s.point,
            esc(&s.label),
            esc(&s.first.key_set),
            s.first.n,
            num(s.m, 0),
            num(s.bits_per_element(), 2),
            s.k,
            s.trials,
            s.queries,
            s.false_positives,
            s.false_negatives,
            rate(s.fpr),
            rate(s.lo),
            rate(s.hi),
            esc(&s.formula),
            rate(s.theory),
            num(s.z, 2),
            num(s.z_classical, 1),
            num(s.insert_ns, 1),
            num(s.query_ns, 1),
            esc(&s.error)
        );
    }
    h.push_str("</table></div>\n");
    counting_table(&mut h, sums);
    scalable_table(&mut h, sums);

    // Charts.
    h.push_str("<h2>Charts</h2>\n");
    if drawn.is_empty() {
        h.push_str(
            "<p class=\"muted\">No chart applies to these results.</p>\n",
        );
    }
    for d in drawn {
        let svg = d.svg.find("<svg").map_or(d.svg.as_str(), |i| &d.svg[i..]);
        let _ = writeln!(
            h,
            "<figure id=\"{stem}\">{svg}<figcaption>{title} (<a \
             href=\"charts/{stem}.svg\">SVG</a>, <a \
             href=\"charts/{stem}.png\">PNG</a>)</figcaption></figure>",
            stem = esc(&d.stem),
            title = esc(&d.title),
        );
    }

    // Provenance.
    h.push_str("<h2>Provenance</h2>\n<table>\n");
    let rev = info.git_revision.as_deref().unwrap_or("unknown");
    let provenance = [
        ("bloomlab", format!("{} (git {rev})", info.bloomlab_version)),
        ("command", info.command.clone()),
        ("experiment file", info.path.clone()),
        ("seed", info.seed.to_string()),
        ("confidence", info.confidence.to_string()),
        (
            "machine",
            format!(
                "{} cores, {} {}, {} worker threads",
                info.machine.cores,
                info.machine.os,
                info.machine.arch,
                info.threads
            ),
        ),
        ("started", info.started.clone()),
        ("finished", info.finished.clone()),
        (
            "timings",
            format!(
                "trials {:.1} s, charts {:.2} s",
                info.timings.trials, info.timings.report
            ),
        ),
        ("grid points / trials", format!("{} / {}", info.points, info.trials)),
        ("results", "results.csv (one row per trial), run.json".into()),
    ];
    for (k, v) in provenance {
        let _ = writeln!(
            h,
            "<tr><th class=\"l\">{}</th><td class=\"l\">{}</td></tr>",
            esc(k),
            esc(&v)
        );
    }
    h.push_str("</table>\n<h3>Experiment definition</h3>\n");
    let _ = writeln!(h, "<pre>{}</pre>", esc(&info.source));
    h.push_str(
        "<p class=\"muted\">Rebuild this page from the CSV with <code>\
         bloomlab report DIR</code>.</p>\n</body></html>\n",
    );
    h
}
