//! `results.csv`: one row per trial; per-point summaries and invariant
//! checks derived from the rows (so `bloomlab report` can rebuild them).
//!
//! Columns (header always written; empty cell = not applicable):
//! parameters (`experiment` … `block_bits`), the built filter (`m`, `k`,
//! `bytes`, `bits_set`), counts (`false_negatives`, `queries`,
//! `false_positives`), the empirical rate with its Clopper–Pearson
//! interval (`fpr`, `fpr_lo`, `fpr_hi`), the filter's own `(X/m)^k`
//! (`expected_fpp`), every applicable formula (`fpr_classical`,
//! `fpr_classical_discrete`, `fpr_exact`, `fpr_blocked`,
//! `fpr_partitioned`), the matching one (`formula`, `fpr_theory`,
//! `formula_asserted`), the model standard error of one filter's rate
//! (`se_filter`) and its z-score (`z`), timings (`insert_ns_per_op`,
//! `query_ns_per_op`, per core), `err`, provenance
//! (`bloomlab_version`, `seed`, `trial_seed`, `hash_seed`, `timestamp`),
//! and last the counting filter's columns, empty for other variants:
//! `counter_bits`, `churn` (parameters), `removed` (items deleted and as
//! many fresh ones inserted by the churn workload), `saturated_counters`
//! (at the end), `saturation_events`, `skipped_decrements` and
//! `rejected_removes` (the filter's own counts). For a counting filter,
//! `n` is the live load, `false_negatives` counts live items not found
//! after the churn, and the formulas are for the `n` live items; a trial
//! where a counter saturated is not asserted to match them
//! (`formula_asserted` false).
//!
//! After them come the scalable filter's columns, empty for other
//! variants: `initial_capacity` (n0), `growth` (s), `tightening` (r),
//! `layer_layout` (parameters, a preset's own values; `standard`,
//! `partitioned` or `blocked`), `layers`,
//! `total_bits` (= `m`), `total_bits_per_element` (`total_bits / n`),
//! `compounded_error` (`1 − Π(1 − P_i)` from each layer's realised fill,
//! the matching formula `compounded`), `error_bound` (`P0/(1 − r)`) and
//! `skipped_adds` (inserts skipped because a layer already reported the
//! item present). For a scalable filter `n` is the number of items
//! inserted, `fpp` its target error `P`, and the classical formulas are
//! left empty (they describe one fixed-size filter).
//!
//! Files written before the counting or scalable columns existed still
//! read (the missing cells are empty).

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use bloomlab_core::stats;
use serde::{Deserialize, Serialize};

use crate::experiment::{Invariants, Plan, Point, Sizing};
use crate::trial::Outcome;
use crate::variants;
use crate::{Error, Result};

/// One results row: one trial (one filter).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Experiment name.
    pub experiment: String,
    /// Grid point index.
    pub point: usize,
    /// Trial index within the point.
    pub trial: u32,
    /// Variant.
    pub variant: String,
    /// Preset (empty: none).
    pub preset: String,
    /// Hash family.
    pub family: String,
    /// Index strategy (the blocked layout's own scheme for `blocked`;
    /// `split-block` for scalable filters with blocked layers).
    pub strategy: String,
    /// Range reduction.
    pub reduction: String,
    /// Key set.
    pub key_set: String,
    /// Keys inserted.
    pub n: u64,
    /// Requested bits per element (empty when sized by `fpp`).
    pub bits_per_element: Option<f64>,
    /// Requested false-positive rate (empty when sized by bits).
    pub fpp: Option<f64>,
    /// `optimal` or the requested k.
    pub k_choice: String,
    /// Block size (blocked only).
    pub block_bits: Option<u64>,
    /// Bits of the built filter.
    pub m: Option<u64>,
    /// Probes per key.
    pub k: Option<u32>,
    /// Heap bytes.
    pub bytes: Option<u64>,
    /// Bits set after inserting.
    pub bits_set: Option<u64>,
    /// Members not found.
    pub false_negatives: Option<u64>,
    /// Non-member queries.
    pub queries: Option<u64>,
    /// Non-members found.
    pub false_positives: Option<u64>,
    /// `false_positives / queries`.
    pub fpr: Option<f64>,
    /// Clopper–Pearson lower bound.
    pub fpr_lo: Option<f64>,
    /// Clopper–Pearson upper bound.
    pub fpr_hi: Option<f64>,
    /// The filter's own `(bits set / m)^k`.
    pub expected_fpp: Option<f64>,
    /// `(1 − e^{−kn/m})^k`.
    pub fpr_classical: Option<f64>,
    /// `(1 − (1 − 1/m)^{kn})^k`.
    pub fpr_classical_discrete: Option<f64>,
    /// Exact standard-filter rate.
    pub fpr_exact: Option<f64>,
    /// Blocked rate (blocked only).
    pub fpr_blocked: Option<f64>,
    /// Partitioned rate (partitioned only).
    pub fpr_partitioned: Option<f64>,
    /// Name of the matching formula.
    pub formula: String,
    /// Its value.
    pub fpr_theory: Option<f64>,
    /// Whether `fpr-consistent` applies to this construction.
    pub formula_asserted: Option<bool>,
    /// Model standard error of this filter's empirical rate:
    /// `sqrt(p(1−p)/N + (p·k·sd(X)/E[X])²)`, `p` the matching formula.
    pub se_filter: Option<f64>,
    /// `(fpr − fpr_theory) / se_filter`.
    pub z: Option<f64>,
    /// Nanoseconds per insert (key generation included).
    pub insert_ns_per_op: Option<f64>,
    /// Nanoseconds per non-member query per core (key generation
    /// included).
    pub query_ns_per_op: Option<f64>,
    /// Why the trial failed (empty: it did not).
    pub err: String,
    /// bloomlab version and git revision.
    pub bloomlab_version: String,
    /// Experiment seed.
    pub seed: u64,
    /// This trial's seed.
    pub trial_seed: u64,
    /// The filter's hash seed.
    pub hash_seed: String,
    /// When the trial finished (UTC, RFC 3339).
    pub timestamp: String,
    /// Bits per counter (counting only).
    #[serde(default)]
    pub counter_bits: Option<u32>,
    /// Requested churn: items replaced as a fraction of `n` (counting
    /// only).
    #[serde(default)]
    pub churn: Option<f64>,
    /// Items the churn workload deleted (and replaced with as many fresh
    /// ones).
    #[serde(default)]
    pub removed: Option<u64>,
    /// Counters at their maximum after the workload.
    #[serde(default)]
    pub saturated_counters: Option<u64>,
    /// Increments lost to saturated counters.
    #[serde(default)]
    pub saturation_events: Option<u64>,
    /// Decrements skipped on saturated counters.
    #[serde(default)]
    pub skipped_decrements: Option<u64>,
    /// Removes of inserted items the filter refused.
    #[serde(default)]
    pub rejected_removes: Option<u64>,
    /// The first layer's capacity n0 (scalable only).
    #[serde(default)]
    pub initial_capacity: Option<u64>,
    /// Growth factor s (scalable only).
    #[serde(default)]
    pub growth: Option<u64>,
    /// Tightening ratio r (scalable only).
    #[serde(default)]
    pub tightening: Option<f64>,
    /// Layer layout, `standard`, `partitioned` or `blocked` (split blocks
    /// of 512 bits, one cache line per key and layer) (scalable only).
    #[serde(default)]
    pub layer_layout: String,
    /// Layers after the inserts.
    #[serde(default)]
    pub layers: Option<u64>,
    /// Bits of all layers (the same as `m`).
    #[serde(default)]
    pub total_bits: Option<u64>,
    /// `total_bits / n`: memory per item inserted.
    #[serde(default)]
    pub total_bits_per_element: Option<f64>,
    /// `1 − Π(1 − P_i)` from each layer's realised fill: the filter's
    /// predicted rate (also `fpr_theory`).
    #[serde(default)]
    pub compounded_error: Option<f64>,
    /// `P0/(1 − r)`: the bound on the compounded error.
    #[serde(default)]
    pub error_bound: Option<f64>,
    /// Inserts skipped because a layer already reported the item present.
    #[serde(default)]
    pub skipped_adds: Option<u64>,
}

/// Columns that change from run to run of the same seed.
pub const TIMING_COLUMNS: [&str; 3] =
    ["insert_ns_per_op", "query_ns_per_op", "timestamp"];

impl Row {
    /// The row of trial `trial` of `point`.
    pub fn new(
        plan: &Plan,
        point: &Point,
        trial: u32,
        outcome: std::result::Result<Outcome, String>,
        version: &str,
    ) -> Row {
        let (bpe, fpp) = match point.sizing {
            Sizing::BitsPerElement(c) => (Some(c), None),
            Sizing::Fpp(p) => (None, Some(p)),
        };
        let mut row = Row {
            experiment: plan.name.clone(),
            point: point.index,
            trial,
            variant: point.variant.name().to_string(),
            preset: point
                .preset
                .map(|p| p.name())
                .or_else(|| {
                    point.scalable.and_then(|s| s.preset).map(|p| p.name())
                })
                .unwrap_or("")
                .to_string(),
            family: point.family.name().to_string(),
            strategy: variants::strategy_label(point).to_string(),
            reduction: point.reduction.name().to_string(),
            key_set: point.key_set.name(),
            n: point.n,
            bits_per_element: bpe,
            fpp,
            k_choice: point.k.to_string(),
            block_bits: (point.block_bits > 0).then_some(point.block_bits),
            m: None,
            k: None,
            bytes: None,
            bits_set: None,
            false_negatives: None,
            queries: None,
            false_positives: None,
            fpr: None,
            fpr_lo: None,
            fpr_hi: None,
            expected_fpp: None,
            fpr_classical: None,
            fpr_classical_discrete: None,
            fpr_exact: None,
            fpr_blocked: None,
            fpr_partitioned: None,
            formula: String::new(),
            fpr_theory: None,
            formula_asserted: None,
            se_filter: None,
            z: None,
            insert_ns_per_op: None,
            query_ns_per_op: None,
            err: String::new(),
            bloomlab_version: version.to_string(),
            seed: plan.seed,
            trial_seed: crate::trial::trial_seed(
                plan.seed,
                point.index,
                trial,
            ),
            hash_seed: String::new(),
            timestamp: crate::provenance::timestamp_now(),
            counter_bits: (point.counter_bits > 0)
                .then_some(point.counter_bits),
            churn: (point.variant == variants::Variant::Counting)
                .then_some(point.churn),
            removed: None,
            saturated_counters: None,
            saturation_events: None,
            skipped_decrements: None,
            rejected_removes: None,
            initial_capacity: point.scalable.map(|s| s.initial_capacity),
            growth: point.scalable.map(|s| s.growth),
            tightening: point.scalable.map(|s| s.tightening),
            layer_layout: point
                .scalable
                .map_or("", |s| s.layout.name())
                .to_string(),
            layers: None,
            total_bits: None,
            total_bits_per_element: None,
            compounded_error: None,
            error_bound: None,
            skipped_adds: None,
        };
        let o = match outcome {
            Ok(o) => o,
            Err(e) => {
                row.err = one_line(&e);
                return row;
            }
        };
        row.hash_seed = o.hash_seed.to_string();
        row.m = Some(o.m);
        row.k = Some(o.k);
        row.bytes = Some(o.bytes);
        row.bits_set = Some(o.bits_set);
        row.false_negatives = Some(o.false_negatives);
        row.queries = Some(o.queries);
        row.false_positives = Some(o.false_positives);
        let fpr = o.false_positives as f64 / o.queries as f64;
        row.fpr = Some(fpr);
        if let Ok(cp) = bloomlab_core::stats::clopper_pearson(
            o.false_positives,
            o.queries,
            plan.confidence,
        ) {
            row.fpr_lo = Some(cp.lo);
            row.fpr_hi = Some(cp.hi);
        }
        row.expected_fpp = Some(o.expected_fpp);
        row.insert_ns_per_op = Some(round_sig(o.insert_ns));
        row.query_ns_per_op = Some(round_sig(o.query_ns));
        if let Some(c) = o.counting {
            row.counter_bits = Some(c.counter_bits);
            row.removed = Some(c.removed);
            row.saturated_counters = Some(c.saturated_counters);
            row.saturation_events = Some(c.saturation_events);
            row.skipped_decrements = Some(c.skipped_decrements);
            row.rejected_removes = Some(c.rejected_removes);
        }
        if let Some(g) = o.scalable {
            row.layers = Some(g.layers);
            row.total_bits = Some(g.total_bits);
            row.total_bits_per_element =
                Some(g.total_bits as f64 / point.n as f64);
            row.compounded_error = Some(g.compounded_error);
            row.error_bound = Some(g.error_bound);
            row.skipped_adds = Some(g.skipped);
            // The prediction from the realised fill: given the bits, the
            // only noise left is the queries'.
            let p = g.compounded_error;
            row.formula = "compounded".to_string();
            row.fpr_theory = Some(p);
            row.formula_asserted =
                Some(variants::scalable_asserted(point, &g));
            let se = (p * (1.0 - p) / o.queries as f64).sqrt();
            row.se_filter = Some(se);
            row.z = (se > 0.0).then(|| stats::z_score(fpr, p, se));
            return row;
        }
        // A counter that saturated stays set after its keys left: the
        // formula for the live load no longer describes the filter.
        let saturated = o.counting.is_some_and(|c| c.saturated_counters > 0);
        match variants::theory(point, o.m, o.k) {
            Ok(t) => {
                row.fpr_classical = Some(t.classical);
                row.fpr_classical_discrete = Some(t.classical_discrete);
                row.fpr_exact = t.exact;
                row.fpr_blocked = t.blocked;
                row.fpr_partitioned = t.partitioned;
                row.formula = t.formula.to_string();
                row.fpr_theory = Some(t.matching);
                row.formula_asserted = Some(t.asserted && !saturated);
                let p = t.matching;
                let var = p * (1.0 - p) / o.queries as f64
                    + (p * t.filter_rel_sd).powi(2);
                let se = var.sqrt();
                row.se_filter = Some(se);
                row.z = (se > 0.0).then(|| stats::z_score(fpr, p, se));
            }
            Err(e) => row.err = format!("theory: {}", one_line(&e)),
        }
        row
    }

    /// `m / n`, the real bits per element.
    pub fn load_bits(&self) -> Option<f64> {
        self.m.map(|m| m as f64 / self.n as f64)
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Rounds timings to 4 significant digits (they are noisy anyway).
fn round_sig(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let mag = 10f64.powi(3 - x.abs().log10().floor() as i32);
    (x * mag).round() / mag
}

/// Streams rows to `DIR/results.csv.partial` in trial order, flushing
/// each row, and renames it to `DIR/results.csv` when done: an aborted
/// sweep leaves its data, a failed one never replaces earlier results.
pub struct CsvSink {
    writer: csv::Writer<File>,
    partial: PathBuf,
    target: PathBuf,
    pending: BTreeMap<usize, Row>,
    next: usize,
    rows: Vec<Row>,
}

impl CsvSink {
    /// Opens the partial file (failing here means the directory is not
    /// writable; nothing has been touched).
    pub fn create(dir: &Path) -> Result<CsvSink> {
        let partial = dir.join("results.csv.partial");
        let file =
            File::create(&partial).map_err(|e| Error::io(&partial, e))?;
        // The header is written by hand so that it is there even when no
        // row follows.
        let mut writer =
            csv::WriterBuilder::new().has_headers(false).from_writer(file);
        writer.write_record(header()).map_err(|e| csv_err(&partial, e))?;
        writer.flush().map_err(|e| Error::io(&partial, e))?;
        Ok(CsvSink {
            writer,
            partial,
            target: dir.join("results.csv"),
            pending: BTreeMap::new(),
            next: 0,
            rows: Vec::new(),
        })
    }

    /// Accepts the row of task `index` (tasks are numbered in plan
    /// order); writes every row now in order.
    pub fn push(&mut self, index: usize, row: Row) -> Result<()> {
        self.pending.insert(index, row);
        while let Some(row) = self.pending.remove(&self.next) {
            self.writer
                .serialize(&row)
                .map_err(|e| csv_err(&self.partial, e))?;
            self.writer.flush().map_err(|e| Error::io(&self.partial, e))?;
            self.rows.push(row);
            self.next += 1;
        }
        Ok(())
    }

    /// Closes the partial file and stages its rename to `results.csv`
    /// (done with the other outputs); returns the rows.
    pub fn finish(
        mut self,
        staged: &mut crate::sweep::Staged,
    ) -> Result<Vec<Row>> {
        self.writer.flush().map_err(|e| Error::io(&self.partial, e))?;
        drop(self.writer);
        staged.add_kept(&self.partial, &self.target);
        Ok(self.rows)
    }
}

fn csv_err(path: &Path, e: csv::Error) -> Error {
    Error::Format { path: path.to_path_buf(), message: e.to_string() }
}

/// The CSV header, in column order.
pub fn header() -> Vec<&'static str> {
    vec![
        "experiment",
        "point",
        "trial",
        "variant",
        "preset",
        "family",
        "strategy",
        "reduction",
        "key_set",
        "n",
        "bits_per_element",
        "fpp",
        "k_choice",
        "block_bits",
        "m",
        "k",
        "bytes",
        "bits_set",
        "false_negatives",
        "queries",
        "false_positives",
        "fpr",
        "fpr_lo",
        "fpr_hi",
        "expected_fpp",
        "fpr_classical",
        "fpr_classical_discrete",
        "fpr_exact",
        "fpr_blocked",
        "fpr_partitioned",
        "formula",
        "fpr_theory",
        "formula_asserted",
        "se_filter",
        "z",
        "insert_ns_per_op",
        "query_ns_per_op",
        "err",
        "bloomlab_version",
        "seed",
        "trial_seed",
        "hash_seed",
        "timestamp",
        "counter_bits",
        "churn",
        "removed",
        "saturated_counters",
        "saturation_events",
        "skipped_decrements",
        "rejected_removes",
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
    ]
}

/// The first column added after the original ones (`counter_bits`): files
/// written before it lack it and the columns after it, which read as
/// empty. Every column before it is required.
const FIRST_LATER_COLUMN: &str = "counter_bits";

/// Reads `results.csv`.
pub fn read(path: &Path) -> Result<Vec<Row>> {
    let mut reader =
        csv::Reader::from_path(path).map_err(|e| csv_err(path, e))?;
    let present = reader.headers().map_err(|e| csv_err(path, e))?.clone();
    let mut rows = Vec::new();
    for r in reader.deserialize() {
        rows.push(r.map_err(|e| csv_err(path, e))?);
    }
    // A missing column deserializes as empty cells: a renamed
    // `false_negatives` column would let `no-false-negatives` hold. (A
    // file without rows is the caller's to refuse.)
    let missing: Vec<&str> = header()
        .into_iter()
        .take_while(|&c| c != FIRST_LATER_COLUMN)
        .filter(|&c| !present.iter().any(|h| h == c))
        .collect();
    if !rows.is_empty() && !missing.is_empty() {
        return Err(Error::Format {
            path: path.to_path_buf(),
            message: format!(
                "missing column(s) {}: not a results file of `bloomlab \
                 run`; run the experiment again",
                missing.join(", ")
            ),
        });
    }
    check_rows(path, &rows)?;
    Ok(rows)
}

/// Refuses rows no run writes: a (point, trial) pair twice (a file
/// appended to itself or two runs mixed), or counts that cannot be (more
/// false positives than queries, more false negatives than members).
/// Other edits are the user's to make; `report` recomputes from them.
fn check_rows(path: &Path, rows: &[Row]) -> Result<()> {
    let bad = |i: usize, message: String| Error::Format {
        path: path.to_path_buf(),
        // Line 1 is the header.
        message: format!(
            "line {}: {message}; run the experiment again with `bloomlab run`",
            i + 2
        ),
    };
    let mut seen = std::collections::HashSet::new();
    for (i, r) in rows.iter().enumerate() {
        if !seen.insert((r.point, r.trial)) {
            return Err(bad(
                i,
                format!(
                    "point {} trial {} again: the file repeats rows or \
                     mixes runs",
                    r.point, r.trial
                ),
            ));
        }
        if let (Some(fp), Some(q)) = (r.false_positives, r.queries)
            && fp > q
        {
            return Err(bad(
                i,
                format!("{fp} false positives out of {q} queries"),
            ));
        }
        if let Some(fn_) = r.false_negatives
            && fn_ > r.n
        {
            return Err(bad(
                i,
                format!("{fn_} false negatives among {} members", r.n),
            ));
        }
    }
    Ok(())
}

/// A grid point's trials, summarised.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Grid point index.
    pub point: usize,
    /// The first row of the point (its parameters).
    #[serde(skip)]
    pub first: Row,
    /// A short label of the design.
    pub label: String,
    /// Trials that ran.
    pub trials: usize,
    /// Trials that failed (`err`).
    pub errors: usize,
    /// The first error, if any.
    pub error: String,
    /// Non-member queries in all.
    pub queries: u64,
    /// False positives in all.
    pub false_positives: u64,
    /// Members not found, in all.
    pub false_negatives: u64,
    /// Mean of the per-filter empirical rates.
    pub fpr: f64,
    /// Standard error of that mean.
    pub se: f64,
    /// `cluster` (sd of per-filter rates / √filters, ≥ 20 filters),
    /// `model` (from the per-filter model SEs, fewer filters) or `binomial`
    /// (one filter: its Clopper–Pearson interval is used).
    pub se_method: &'static str,
    /// Interval low end (mean − z·SE, or Clopper–Pearson for one filter).
    pub lo: f64,
    /// Interval high end.
    pub hi: f64,
    /// Matching formula.
    pub formula: String,
    /// Its mean value over the trials.
    pub theory: f64,
    /// Whether `fpr-consistent` applies.
    pub asserted: bool,
    /// The point's score against its formula (`judged_z`): the normal
    /// `(fpr − theory) / se`, or the exact binomial test's score of the
    /// pooled count where that is nearer 0.
    pub z: f64,
    /// The classical `(1 − e^{−kn/m})^k`, mean over trials.
    pub classical: f64,
    /// As `z`, against the classical formula.
    pub z_classical: f64,
    /// `(1 − (1 − 1/m)^{kn})^k`, mean over trials.
    pub classical_discrete: f64,
    /// The exact standard-filter rate, mean over trials (NaN if none).
    pub exact: f64,
    /// Mean `m`.
    pub m: f64,
    /// `k` of the first trial.
    pub k: u32,
    /// Mean bytes.
    pub bytes: f64,
    /// Mean insert ns/op.
    pub insert_ns: f64,
    /// Mean query ns/op (per core).
    pub query_ns: f64,
    /// Mean saturated counters at the end (counting; NaN elsewhere).
    pub saturated_counters: f64,
    /// Mean saturation events (counting; NaN elsewhere).
    pub saturation_events: f64,
    /// Mean skipped decrements (counting; NaN elsewhere).
    pub skipped_decrements: f64,
    /// Refused removes of inserted items, in all (counting; 0 elsewhere).
    pub rejected_removes: u64,
    /// Trials in which some counter saturated.
    pub saturated_trials: usize,
    /// Mean layers (scalable; NaN elsewhere).
    pub layers: f64,
    /// Mean error bound `P0/(1 − r)` (scalable; NaN elsewhere).
    pub error_bound: f64,
}

impl Summary {
    /// The scalable filter's target error `P` (its `fpp`), for scalable
    /// points.
    pub fn target(&self) -> Option<f64> {
        (self.first.variant == "scalable").then_some(self.first.fpp).flatten()
    }

    /// Whether this scalable point's design promises its target: its
    /// error bound is at most `P` (pybloom-live's `9P` does not).
    pub fn promises_target(&self) -> bool {
        self.target().is_some_and(|p| self.error_bound <= p * (1.0 + 1e-9))
    }
}

impl Summary {
    /// `m / n`.
    pub fn bits_per_element(&self) -> f64 {
        self.m / self.first.n as f64
    }
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (s, c) = xs.fold((0.0, 0usize), |(s, c), x| (s + x, c + 1));
    if c == 0 { f64::NAN } else { s / c as f64 }
}

/// A short label of a row's design for tables and legends.
pub fn label(r: &Row) -> String {
    let mut s = r.variant.clone();
    if r.variant == "scalable" {
        let name = if r.preset.is_empty() { "bloomlab" } else { &r.preset };
        s.push_str(&format!(
            " {name} n0={} s={} r={} {}",
            r.initial_capacity.unwrap_or(0),
            r.growth.unwrap_or(0),
            r.tightening.unwrap_or(f64::NAN),
            r.layer_layout
        ));
    } else if !r.preset.is_empty() {
        s.push_str(&format!(" {}", r.preset));
    } else if let Some(b) = r.counter_bits {
        s.push_str(&format!("-{b}bit {} {}", r.family, r.strategy));
    } else if r.variant == "blocked" {
        s.push_str(&format!("-{} {}", r.block_bits.unwrap_or(512), r.family));
    } else {
        s.push_str(&format!(" {} {}", r.family, r.strategy));
    }
    s
}

/// The sum of `counts`, saturating: a hand-edited `results.csv` can hold
/// any count, and its totals must not overflow.
fn total(counts: impl Iterator<Item = u64>) -> u64 {
    counts.fold(0, u64::saturating_add)
}

/// Summarises rows by grid point (in point order).
pub fn summarise(rows: &[Row], confidence: f64) -> Vec<Summary> {
    let z_conf = stats::z_for_confidence(confidence).unwrap_or(1.96);
    let mut by_point: BTreeMap<usize, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by_point.entry(r.point).or_default().push(r);
    }
    let mut out = Vec::new();
    for (point, rs) in by_point {
        let ok: Vec<&Row> = rs
            .iter()
            .copied()
            .filter(|r| r.err.is_empty() && r.fpr.is_some())
            .collect();
        let errors = rs.len() - ok.len();
        let error = rs
            .iter()
            .find(|r| !r.err.is_empty())
            .map(|r| r.err.clone())
            .unwrap_or_default();
        let fprs: Vec<f64> = ok.iter().filter_map(|r| r.fpr).collect();
        let t = fprs.len();
        let theory = mean(ok.iter().filter_map(|r| r.fpr_theory));
        let (fpr, se, se_method, lo, hi) = if t == 0 {
            (f64::NAN, f64::NAN, "none", f64::NAN, f64::NAN)
        } else if t == 1 {
            let r = ok[0];
            let se = r.se_filter.unwrap_or(f64::NAN);
            (
                fprs[0],
                se,
                "binomial",
                r.fpr_lo.unwrap_or(f64::NAN),
                r.fpr_hi.unwrap_or(f64::NAN),
            )
        } else {
            let (m, cluster) = stats::mean_and_standard_error(&fprs);
            let (se, how) = if t >= 20 {
                (cluster, "cluster")
            } else {
                let v: f64 =
                    ok.iter().filter_map(|r| r.se_filter).map(|s| s * s).sum();
                (v.sqrt() / t as f64, "model")
            };
            (m, se, how, (m - z_conf * se).max(0.0), m + z_conf * se)
        };
        let classical = mean(ok.iter().filter_map(|r| r.fpr_classical));
        let queries = total(ok.iter().filter_map(|r| r.queries));
        let false_positives =
            total(ok.iter().filter_map(|r| r.false_positives));
        let z = judged_z(
            (fpr, theory, se),
            (false_positives, queries),
            pooled(&ok, |r| r.fpr_theory),
        );
        let z_classical = judged_z(
            (fpr, classical, se),
            (false_positives, queries),
            pooled(&ok, |r| r.fpr_classical),
        );
        // Every group has at least one row.
        let first = rs[0].clone();
        out.push(Summary {
            point,
            label: label(&first),
            trials: t,
            errors,
            error,
            queries,
            false_positives,
            false_negatives: total(
                ok.iter().filter_map(|r| r.false_negatives),
            ),
            fpr,
            se,
            se_method,
            lo,
            hi,
            formula: ok.first().map(|r| r.formula.clone()).unwrap_or_default(),
            theory,
            asserted: ok.iter().all(|r| r.formula_asserted == Some(true))
                && t > 0,
            z,
            classical,
            z_classical,
            classical_discrete: mean(
                ok.iter().filter_map(|r| r.fpr_classical_discrete),
            ),
            exact: mean(ok.iter().filter_map(|r| r.fpr_exact)),
            m: mean(ok.iter().filter_map(|r| r.m.map(|m| m as f64))),
            k: ok.first().and_then(|r| r.k).unwrap_or(0),
            bytes: mean(ok.iter().filter_map(|r| r.bytes.map(|b| b as f64))),
            insert_ns: mean(ok.iter().filter_map(|r| r.insert_ns_per_op)),
            query_ns: mean(ok.iter().filter_map(|r| r.query_ns_per_op)),
            saturated_counters: mean(
                ok.iter()
                    .filter_map(|r| r.saturated_counters.map(|v| v as f64)),
            ),
            saturation_events: mean(
                ok.iter()
                    .filter_map(|r| r.saturation_events.map(|v| v as f64)),
            ),
            skipped_decrements: mean(
                ok.iter()
                    .filter_map(|r| r.skipped_decrements.map(|v| v as f64)),
            ),
            rejected_removes: total(
                ok.iter().filter_map(|r| r.rejected_removes),
            ),
            saturated_trials: ok
                .iter()
                .filter(|r| r.saturated_counters.is_some_and(|v| v > 0))
                .count(),
            layers: mean(ok.iter().filter_map(|r| r.layers.map(|v| v as f64))),
            error_bound: mean(ok.iter().filter_map(|r| r.error_bound)),
            first,
        });
    }
    disambiguate(&mut out);
    out
}

/// What sets a design apart beyond its [`label`] (the load, `n`, bits
/// per key, `p` and `k`, and the key set are charted apart), by name.
fn design_parts(r: &Row) -> [(&'static str, String); 11] {
    let opt = |v: Option<String>| v.unwrap_or_default();
    [
        ("preset", r.preset.clone()),
        ("hash", r.family.clone()),
        ("strategy", r.strategy.clone()),
        ("reduction", r.reduction.clone()),
        ("block-bits", opt(r.block_bits.map(|b| b.to_string()))),
        ("counter-bits", opt(r.counter_bits.map(|b| b.to_string()))),
        ("churn", opt(r.churn.map(|c| c.to_string()))),
        ("n0", opt(r.initial_capacity.map(|c| c.to_string()))),
        ("s", opt(r.growth.map(|g| g.to_string()))),
        ("r", opt(r.tightening.map(|t| t.to_string()))),
        ("layout", r.layer_layout.clone()),
    ]
}

/// Where points of different designs share a label, appends to each the
/// parts that tell them apart (`reduction=modulo`), so that the report's
/// rows and the charts' series do not merge them. Labels that are unique
/// stay as they are.
fn disambiguate(sums: &mut [Summary]) {
    let mut by_label: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, s) in sums.iter().enumerate() {
        by_label.entry(s.label.clone()).or_default().push(i);
    }
    for idx in by_label.into_values() {
        let parts: Vec<_> =
            idx.iter().map(|&i| design_parts(&sums[i].first)).collect();
        let differs: Vec<usize> = (0..parts[0].len())
            .filter(|&j| parts.iter().any(|p| p[j].1 != parts[0][j].1))
            .collect();
        for (&i, p) in idx.iter().zip(&parts) {
            for &j in &differs {
                let (name, value) = &p[j];
                let value = if value.is_empty() { "none" } else { value };
                sums[i].label.push_str(&format!(" {name}={value}"));
            }
        }
    }
}

/// A formula's rate over the rows, each row weighted by its queries (the
/// rate the pooled count of false positives estimates); NaN without
/// queries.
fn pooled(rows: &[&Row], rate: impl Fn(&Row) -> Option<f64>) -> f64 {
    let (sum, queries) = rows
        .iter()
        .filter_map(|r| Some((rate(r)?, r.queries?)))
        .fold((0.0, 0u64), |(s, n), (p, q)| {
            (s + p * q as f64, n.saturating_add(q))
        });
    if queries == 0 { f64::NAN } else { sum / queries as f64 }
}

/// The score the invariants judge a point's rate by, against a formula:
/// of the normal score `(fpr − theory)/se`, which counts the spread
/// between filters but treats a count as normal, and the exact binomial
/// test's score of the pooled count against the pooled formula
/// ([`stats::binomial_z`]), exact for a count but blind to that spread,
/// the one nearer 0. Under the formula `P(|nearer| > c)` is at most the
/// smaller of their two tails, so the check is no likelier to fail than
/// the better-calibrated of them: the normal score where many false
/// positives are expected, the exact one where few are, and the normal
/// score overstates a rare count (two false positives where 0.13 are
/// expected score 5.1 against the exact 2.4). A zero `se` (20 filters
/// with equal rates) leaves the exact score alone, instead of ±∞.
fn judged_z(
    (fpr, theory, se): (f64, f64, f64),
    (false_positives, queries): (u64, u64),
    pooled_theory: f64,
) -> f64 {
    let normal = if fpr == theory { 0.0 } else { (fpr - theory) / se };
    let exact = stats::binomial_z(false_positives, queries, pooled_theory)
        .unwrap_or(f64::NAN);
    match (normal.is_nan() || se == 0.0, exact.is_nan()) {
        (true, true) => normal,
        (true, false) => exact,
        (false, true) => normal,
        (false, false) => {
            if exact.abs() < normal.abs() {
                exact
            } else {
                normal
            }
        }
    }
}

/// Whether one declared invariant held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// The invariant's name as the experiment writes it.
    pub name: String,
    /// Its bound, printed.
    pub bound: String,
    /// Whether it held at every point it applies to.
    pub held: bool,
    /// Points it applied to.
    pub checked: usize,
    /// Points where it failed.
    pub failed: usize,
    /// One line: the worst case, or why it did not apply.
    pub detail: String,
}

/// Checks the declared invariants against the summaries.
pub fn check(inv: &Invariants, sums: &[Summary]) -> Vec<Check> {
    let mut out = Vec::new();
    if inv.no_false_negatives {
        // A point whose every trial failed queried no member.
        let applies: Vec<&Summary> =
            sums.iter().filter(|s| s.trials > 0).collect();
        let bad: Vec<&&Summary> =
            applies.iter().filter(|s| s.false_negatives > 0).collect();
        let total = total(applies.iter().map(|s| s.false_negatives));
        out.push(Check {
            name: "no-false-negatives".into(),
            bound: "0".into(),
            // With no point run, `trials-ran` fails the run instead.
            held: bad.is_empty(),
            checked: applies.len(),
            failed: bad.len(),
            detail: match bad.first() {
                None if applies.is_empty() => "no point ran".into(),
                None => "no member was ever missed".into(),
                Some(s) => format!(
                    "{total} false negatives; first at point {} ({})",
                    s.point, s.label
                ),
            },
        });
    }
    if let Some(bound) = inv.fpr_consistent {
        // A point whose score is not finite fails: ±∞ is a rate its
        // formula cannot produce.
        let applies: Vec<&Summary> = sums
            .iter()
            .filter(|s| {
                s.asserted && s.fpr.is_finite() && s.theory.is_finite()
            })
            .collect();
        out.push(z_check(
            "fpr-consistent",
            format!("|z| <= {bound}"),
            &applies,
            |s| s.z.abs() <= bound,
            |s| s.z,
            "vs its matching formula",
        ));
    }
    if let Some(bound) = inv.fpr_at_most {
        let applies: Vec<&Summary> =
            sums.iter().filter(|s| s.fpr.is_finite()).collect();
        let bad: Vec<&&Summary> =
            applies.iter().filter(|s| s.fpr > bound).collect();
        let worst = applies
            .iter()
            .max_by(|a, b| a.fpr.total_cmp(&b.fpr))
            .map(|s| {
                format!(
                    "highest FPR {:.4e} at point {} ({})",
                    s.fpr, s.point, s.label
                )
            })
            .unwrap_or_else(|| "no point measured".into());
        out.push(Check {
            name: "fpr-at-most".into(),
            bound: format!("{bound}"),
            held: bad.is_empty() && !applies.is_empty(),
            checked: applies.len(),
            failed: bad.len(),
            detail: worst,
        });
    }
    if let Some(bound) = inv.classical_rejected {
        let applies: Vec<&Summary> =
            sums.iter().filter(|s| s.z_classical.is_finite()).collect();
        let mut c = z_check(
            "classical-rejected",
            format!("|z_classical| >= {bound}"),
            &applies,
            |s| s.z_classical.abs() >= bound,
            |s| -s.z_classical.abs(),
            "vs the classical formula",
        );
        c.detail = applies
            .iter()
            .min_by(|a, b| a.z_classical.abs().total_cmp(&b.z_classical.abs()))
            .map(|s| {
                format!(
                    "smallest |z| vs classical {:.2} at point {} ({})",
                    s.z_classical.abs(),
                    s.point,
                    s.label
                )
            })
            .unwrap_or_else(|| "no point measured".into());
        out.push(c);
    }
    if inv.fpr_under_target {
        let applies: Vec<&Summary> = sums
            .iter()
            .filter(|s| s.promises_target() && s.lo.is_finite())
            .filter(|s| {
                inv.fpr_under_target_presets.is_none_or(|mask| {
                    variants::ScalablePreset::from_name(
                        if s.first.preset.is_empty() {
                            "none"
                        } else {
                            &s.first.preset
                        },
                    )
                    .is_ok_and(|p| mask[variants::scalable_preset_index(p)])
                })
            })
            .collect();
        let target = |s: &Summary| s.target().unwrap_or(f64::NAN);
        let bad = applies.iter().filter(|s| s.lo > target(s)).count();
        let worst = applies
            .iter()
            .max_by(|a, b| (a.fpr / target(a)).total_cmp(&(b.fpr / target(b))))
            .map(|s| {
                format!(
                    "highest FPR / target {:.3} ({:.4e} vs {}, interval \
                     {:.4e} – {:.4e}) at point {} ({}, n = {})",
                    s.fpr / target(s),
                    s.fpr,
                    target(s),
                    s.lo,
                    s.hi,
                    s.point,
                    s.label,
                    s.first.n
                )
            })
            .unwrap_or_else(|| {
                "no scalable point that promises its target was measured"
                    .into()
            });
        out.push(Check {
            name: "fpr-under-target".into(),
            bound: "interval low end <= target P".into(),
            held: bad == 0 && !applies.is_empty(),
            checked: applies.len(),
            failed: bad,
            detail: worst,
        });
    }
    // A failed trial inserted and queried nothing, so the invariants
    // above say nothing of it. Some failures are expected (a sweep over
    // families and strategies keeps the combinations the library refuses
    // as rows with an `err`), but a run in which every trial failed
    // measured nothing, and must not pass.
    let ran: usize = sums.iter().map(|s| s.trials).sum();
    if let (0, Some(s)) = (ran, sums.iter().find(|s| s.errors > 0)) {
        let errors: usize = sums.iter().map(|s| s.errors).sum();
        out.push(Check {
            name: "trials-ran".into(),
            bound: "at least one trial".into(),
            held: false,
            checked: sums.len(),
            failed: sums.len(),
            detail: format!(
                "all {errors} trials failed; first at point {} ({}): {}",
                s.point,
                s.label,
                if s.error.is_empty() { "no rate measured" } else { &s.error }
            ),
        });
    }
    out
}

fn z_check(
    name: &str,
    bound: String,
    applies: &[&Summary],
    ok: impl Fn(&Summary) -> bool,
    key: impl Fn(&Summary) -> f64,
    what: &str,
) -> Check {
    let failed = applies.iter().filter(|s| !ok(s)).count();
    let worst =
        applies.iter().max_by(|a, b| key(a).abs().total_cmp(&key(b).abs()));
    Check {
        name: name.into(),
        bound,
        held: failed == 0 && !applies.is_empty(),
        checked: applies.len(),
        failed,
        detail: match worst {
            None => "no point where it applies was measured".into(),
            Some(s) => format!(
                "largest |z| {what}: {:.2} at point {} ({}, n = {}, m = {}, \
                 k = {})",
                key(s).abs(),
                s.point,
                s.label,
                s.first.n,
                s.m,
                s.k
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row with every column filled.
    fn sample_row() -> Row {
        Row {
            experiment: "e".into(),
            point: 0,
            trial: 0,
            variant: "standard".into(),
            preset: String::new(),
            family: "xxh3-64".into(),
            strategy: "double".into(),
            reduction: "modulo".into(),
            key_set: "item".into(),
            n: 1,
            bits_per_element: Some(8.0),
            fpp: None,
            k_choice: "optimal".into(),
            block_bits: None,
            m: None,
            k: None,
            bytes: None,
            bits_set: None,
            false_negatives: None,
            queries: None,
            false_positives: None,
            fpr: None,
            fpr_lo: None,
            fpr_hi: None,
            expected_fpp: None,
            fpr_classical: None,
            fpr_classical_discrete: None,
            fpr_exact: None,
            fpr_blocked: None,
            fpr_partitioned: None,
            formula: String::new(),
            fpr_theory: None,
            formula_asserted: None,
            se_filter: None,
            z: None,
            insert_ns_per_op: None,
            query_ns_per_op: None,
            err: String::new(),
            bloomlab_version: "v".into(),
            seed: 1,
            trial_seed: 2,
            hash_seed: "3".into(),
            timestamp: "t".into(),
            counter_bits: Some(4),
            churn: Some(0.5),
            removed: Some(1),
            saturated_counters: Some(0),
            saturation_events: Some(0),
            skipped_decrements: Some(0),
            rejected_removes: Some(0),
            initial_capacity: Some(1000),
            growth: Some(2),
            tightening: Some(0.5),
            layer_layout: "standard".into(),
            layers: Some(3),
            total_bits: Some(100),
            total_bits_per_element: Some(10.0),
            compounded_error: Some(0.01),
            error_bound: Some(0.01),
            skipped_adds: Some(0),
        }
    }

    #[test]
    fn header_matches_the_row_fields() {
        let row = sample_row();
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(&row).unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        let first = text.lines().next().unwrap();
        assert_eq!(first, header().join(","));
        // Reads back, and a file from before the counting columns too.
        let back: Vec<Row> = csv::Reader::from_reader(text.as_bytes())
            .deserialize()
            .collect::<std::result::Result<_, _>>()
            .unwrap();
        assert_eq!(back, vec![row.clone()]);
        let n_old =
            header().iter().position(|&c| c == "timestamp").unwrap() + 1;
        let old: String = text
            .lines()
            .map(|l| {
                l.split(',').take(n_old).collect::<Vec<_>>().join(",") + "\n"
            })
            .collect();
        let back: Vec<Row> = csv::Reader::from_reader(old.as_bytes())
            .deserialize()
            .collect::<std::result::Result<_, _>>()
            .unwrap();
        assert_eq!(back[0].counter_bits, None);
        assert_eq!(back[0].layers, None);
        assert_eq!(back[0].layer_layout, "");
        assert_eq!(back[0].n, 1);
        // And one from before the scalable columns.
        let n_counting =
            header().iter().position(|&c| c == "rejected_removes").unwrap()
                + 1;
        let counting: String = text
            .lines()
            .map(|l| {
                l.split(',').take(n_counting).collect::<Vec<_>>().join(",")
                    + "\n"
            })
            .collect();
        let back: Vec<Row> = csv::Reader::from_reader(counting.as_bytes())
            .deserialize()
            .collect::<std::result::Result<_, _>>()
            .unwrap();
        assert_eq!(back[0].counter_bits, Some(4));
        assert_eq!(back[0].error_bound, None);
    }

    /// Trial `trial` of point `point`: `false_positives` in `queries`
    /// against the formula's `theory`, with the normal model's
    /// `se_filter` of one filter.
    fn measured(
        point: usize,
        trial: u32,
        (false_positives, queries): (u64, u64),
        theory: f64,
    ) -> Row {
        let fpr = false_positives as f64 / queries as f64;
        Row {
            point,
            trial,
            queries: Some(queries),
            false_positives: Some(false_positives),
            false_negatives: Some(0),
            fpr: Some(fpr),
            fpr_theory: Some(theory),
            fpr_classical: Some(theory),
            formula_asserted: Some(true),
            se_filter: Some((theory * (1.0 - theory) / queries as f64).sqrt()),
            err: String::new(),
            ..sample_row()
        }
    }

    fn consistent(bound: f64) -> Invariants {
        Invariants { fpr_consistent: Some(bound), ..Invariants::default() }
    }

    /// Two false positives where 0.134 are expected: the normal score is
    /// 5.1, but one filter in 120 shows two or more, so `fpr-consistent`
    /// at 4 holds (it failed, spuriously, with the normal score alone).
    #[test]
    fn a_rare_count_is_judged_by_the_exact_binomial_tail() {
        let p = 0.134 / 2_000.0;
        let rows = [measured(0, 0, (2, 2_000), p)];
        let sums = summarise(&rows, 0.95);
        // P(X ≥ 2) = 0.0082115 (closed form), two-sided 0.016423:
        // z = Φ^{-1}(1 − 0.0082115) = 2.3994.
        assert!((sums[0].z - 2.3994).abs() < 1e-3, "{}", sums[0].z);
        let c = check(&consistent(4.0), &sums);
        assert!(c[0].held, "{c:?}");
        // Where many false positives are expected the normal score,
        // which also counts the spread between filters, is the nearer
        // one and is kept: 10^6 queries at 1%, 10,400 found.
        let mut wide = measured(1, 0, (10_400, 1_000_000), 0.01);
        wide.se_filter = Some(2.0 * wide.se_filter.unwrap_or(f64::NAN));
        let sums = summarise(&[wide], 0.95);
        let normal = 0.0004 / (2.0 * (0.01f64 * 0.99 / 1e6).sqrt());
        assert!((sums[0].z - normal).abs() < 1e-9, "{} {normal}", sums[0].z);
    }

    /// Twenty filters with equal rates have a cluster SE of 0: a point
    /// whose 20 filters all found no false positive where about 4,600
    /// each were expected scores −∞ (or near it) and fails, instead of
    /// being left out as "not finite".
    #[test]
    fn a_point_with_a_zero_standard_error_is_still_judged() {
        let mut rows = vec![measured(0, 0, (5, 100_000), 5e-5)];
        rows.extend((0..20).map(|t| measured(1, t, (0, 20_000_000), 2.3e-4)));
        let sums = summarise(&rows, 0.95);
        assert_eq!(sums[1].se, 0.0);
        assert!(sums[1].z < -100.0, "{}", sums[1].z);
        let c = check(&consistent(4.0), &sums);
        assert!(!c[0].held && c[0].failed == 1 && c[0].checked == 2, "{c:?}");
        // Twenty equal rates that agree with the formula pass.
        let rows: Vec<Row> =
            (0..20).map(|t| measured(0, t, (0, 20_000), 1e-6)).collect();
        let sums = summarise(&rows, 0.95);
        assert!(sums[0].z.abs() < 1.0, "{}", sums[0].z);
        assert!(check(&consistent(4.0), &sums)[0].held);
    }

    /// no-false-negatives checks the points that ran: one whose every
    /// trial failed queried no member and is not counted as checked
    /// (`trials-ran` fails a run where none ran).
    #[test]
    fn no_false_negatives_counts_only_points_that_ran() {
        let failed = Row {
            point: 1,
            err: "the sizing needs 997 hash functions".into(),
            ..measured(1, 0, (1, 1_000), 1e-3)
        };
        let inv =
            Invariants { no_false_negatives: true, ..Invariants::default() };
        let sums = summarise(
            &[measured(0, 0, (1, 1_000), 1e-3), failed.clone()],
            0.95,
        );
        let c = &check(&inv, &sums)[0];
        assert!(c.held && c.checked == 1 && c.failed == 0, "{c:?}");
        let c = &check(&inv, &summarise(&[failed], 0.95))[0];
        assert!(c.checked == 0, "{c:?}");
        assert_eq!(c.detail, "no point ran");
    }
}
