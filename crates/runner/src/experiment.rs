//! Experiment definitions: the TOML schema (`experiments/FORMAT.md`) and
//! its validation into a [`Plan`] before any work starts.
//!
//! ```
//! use bloomlab_runner::experiment::Plan;
//!
//! let toml = r#"
//! name = "tiny"
//! description = "Two loads of the standard filter."
//! seed = 7
//!
//! [[grid]]
//! variant = ["standard"]
//! n = [1000]
//! bits-per-element = [8, 10]
//! trials = 3
//!
//! [queries]
//! per-filter = 10000
//!
//! [invariants]
//! no-false-negatives = true
//! fpr-consistent = 4.0
//! "#;
//! let plan = Plan::from_toml(toml, "tiny.toml".as_ref())?;
//! assert_eq!(plan.points.len(), 2);
//! assert_eq!(plan.points[1].trials, 3);
//! # Ok::<(), bloomlab_runner::Error>(())
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use bloomlab_hash::{Family, Reduction, Strategy};
use serde::Deserialize;

use crate::keys::KeySet;
use crate::variants::{
    self, LayerLayout, Preset, ScalablePreset, ScalableSettings, Variant,
};
use crate::{Error, Result};

/// The experiment file as written (see `experiments/FORMAT.md`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Definition {
    /// Name, `^[-a-z0-9]+$`; the default output folder.
    pub name: String,
    /// One paragraph: what the experiment asks.
    pub description: String,
    /// Free text: what to look for in the results.
    #[serde(default)]
    pub analysis: Option<String>,
    /// The seed every filter and key set is derived from.
    pub seed: u64,
    /// Confidence of the reported intervals (default 0.95).
    #[serde(default)]
    pub confidence: Option<f64>,
    /// The grids; the plan is the concatenation of their products.
    #[serde(default)]
    pub grid: Vec<GridDef>,
    /// Non-member queries per filter (a grid may override it).
    pub queries: QueriesDef,
    /// What must hold.
    #[serde(default)]
    pub invariants: InvariantsDef,
    /// Charts to draw (default: every chart the results support).
    #[serde(default)]
    pub charts: Option<Vec<String>>,
    /// How `--quick` and `verify` shrink the run.
    #[serde(default)]
    pub quick: Option<QuickDef>,
}

/// One `[[grid]]` table: every list is an axis of a Cartesian product.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct GridDef {
    /// Filter variants (`standard`, `atomic`, `blocked`, ...).
    pub variant: Vec<String>,
    /// Presets (`guava`, `guava-mitz32`); override family, strategy and
    /// reduction.
    #[serde(default)]
    pub preset: Option<Vec<String>>,
    /// Hash families (default `xxh3-64`).
    #[serde(default)]
    pub family: Option<Vec<String>>,
    /// Index strategies (default `enhanced-double`).
    #[serde(default)]
    pub strategy: Option<Vec<String>>,
    /// Range reductions (default `multiply-shift`).
    #[serde(default)]
    pub reduction: Option<Vec<String>>,
    /// Numbers of inserted keys.
    pub n: Vec<u64>,
    /// Bits per element `m/n` (exclusive with `fpp`).
    #[serde(default)]
    pub bits_per_element: Option<Vec<f64>>,
    /// Target false-positive rates, sized as Guava sizes them (exclusive
    /// with `bits-per-element`).
    #[serde(default)]
    pub fpp: Option<Vec<f64>>,
    /// `"optimal"` (default) or a list of probe counts.
    #[serde(default)]
    pub k: Option<KDef>,
    /// Key sets (default `random-u64`).
    #[serde(default)]
    pub key_set: Option<Vec<String>>,
    /// Block sizes of the blocked variant (default 512).
    #[serde(default)]
    pub block_bits: Option<Vec<u64>>,
    /// Bits per counter of the counting variant: 2, 4 or 8 (default 4).
    #[serde(default)]
    pub counter_bits: Option<Vec<u32>>,
    /// Churn of the counting variant: items replaced (deleted, and as
    /// many fresh ones inserted) as a fraction of `n` (default 0).
    #[serde(default)]
    pub churn: Option<Vec<f64>>,
    /// Settings of the scalable variant: `none` (bloomlab's, shaped by
    /// the axes below), `redisbloom`, `almeida`, `almeida-fast` or
    /// `pybloom-live` (default `none`).
    #[serde(default)]
    pub scalable_preset: Option<Vec<String>>,
    /// Scalable: the first layer's capacity n0 (default 1,000).
    #[serde(default)]
    pub initial_capacity: Option<Vec<u64>>,
    /// Scalable: growth factor s of the layers' capacities (default 2).
    #[serde(default)]
    pub growth: Option<Vec<u64>>,
    /// Scalable: tightening ratio r of the layers' errors (default 0.5).
    #[serde(default)]
    pub tightening: Option<Vec<f64>>,
    /// Scalable: layer layout, `standard` (default), `partitioned` (`k`
    /// slices) or `blocked` (split blocks of 512 bits, one cache line per
    /// key and layer; sized by half fill, at most 64 probes per layer).
    /// Presets fix their own.
    #[serde(default)]
    pub layer_layout: Option<Vec<String>>,
    /// Independently seeded filters per grid point (default 1).
    #[serde(default)]
    pub trials: Option<u32>,
    /// Overrides the experiment's `[queries]` for this grid.
    #[serde(default)]
    pub queries: Option<QueriesDef>,
}

/// `k = "optimal"` or `k = [3, 5, 7]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    untagged,
    expecting = "k must be \"optimal\" or a list of k values, such as \
                 [3, 5, 7] (k = [7] for one)"
)]
pub enum KDef {
    /// `"optimal"`.
    Named(String),
    /// Explicit values.
    Values(Vec<u32>),
}

/// The `[queries]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct QueriesDef {
    /// A fixed number of non-member queries per filter.
    #[serde(default)]
    pub per_filter: Option<u64>,
    /// Adaptive: query until the Clopper–Pearson interval's relative
    /// half-width is below this.
    #[serde(default)]
    pub target_relative_half_width: Option<f64>,
    /// Adaptive: queries in the first round (default 10,000).
    #[serde(default)]
    pub min: Option<u64>,
    /// Adaptive: the cap (required with a target).
    #[serde(default)]
    pub max: Option<u64>,
}

/// The `[invariants]` table.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct InvariantsDef {
    /// Every inserted key is found, in every trial.
    #[serde(default)]
    pub no_false_negatives: Option<bool>,
    /// Every grid point whose formula is asserted has `|z| ≤` this
    /// against its matching formula.
    #[serde(default)]
    pub fpr_consistent: Option<f64>,
    /// Every grid point's mean empirical FPR is at most this.
    #[serde(default)]
    pub fpr_at_most: Option<f64>,
    /// Every grid point has `|z| ≥` this against the classical formula
    /// (it is rejected).
    #[serde(default)]
    pub classical_rejected: Option<f64>,
    /// Every scalable point whose design promises its target (error bound
    /// `P0/(1 − r) ≤ P`) measures at or under the target: the low end of
    /// its interval is at most `P`. `true`, or the list of scalable
    /// presets it applies to (`"none"`: bloomlab's settings).
    #[serde(default)]
    pub fpr_under_target: Option<UnderTargetDef>,
}

/// `fpr-under-target = true` or `fpr-under-target = ["none", "almeida"]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    untagged,
    expecting = "fpr-under-target must be true, false or a list of \
                 scalable presets, such as [\"none\", \"almeida\"]"
)]
pub enum UnderTargetDef {
    /// Every design that promises its target (or none, with `false`).
    All(bool),
    /// Only these scalable presets.
    Presets(Vec<String>),
}

/// The `[quick]` table: scale factors for `--quick` and `verify`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct QuickDef {
    /// Factor on trials (default 0.25; at least one trial is kept).
    #[serde(default)]
    pub trials: Option<f64>,
    /// Factor on queries (default 0.1; at least 1,000 are kept).
    #[serde(default)]
    pub queries: Option<f64>,
    /// Factor on n (default 1).
    #[serde(default)]
    pub n: Option<f64>,
}

/// How a grid point is sized.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sizing {
    /// `m = ceil(c·n)` bits.
    BitsPerElement(f64),
    /// Guava's sizing for `(n, p)`.
    Fpp(f64),
}

/// The number of probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KChoice {
    /// `round(m/n · ln 2)` (or Guava's k when sized by `fpp`).
    Optimal,
    /// As given.
    Fixed(u32),
}

impl fmt::Display for KChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KChoice::Optimal => f.write_str("optimal"),
            KChoice::Fixed(k) => write!(f, "{k}"),
        }
    }
}

/// The query budget of a filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Queries {
    /// Exactly this many non-member queries.
    Fixed(u64),
    /// Rounds of `min`, `2·min`, `4·min`, ... queries until the
    /// Clopper–Pearson relative half-width is below `target` or `max`
    /// queries were made.
    Adaptive {
        /// Relative half-width to reach.
        target: f64,
        /// First round.
        min: u64,
        /// Cap.
        max: u64,
    },
}

impl Queries {
    /// The most queries a filter can take.
    pub fn cap(&self) -> u64 {
        match *self {
            Queries::Fixed(q) => q,
            Queries::Adaptive { max, .. } => max,
        }
    }
}

/// One point of the grid: a fully resolved filter design.
#[derive(Debug, Clone)]
pub struct Point {
    /// Position in the plan (0-based), part of every seed.
    pub index: usize,
    /// The variant.
    pub variant: Variant,
    /// The preset, if any.
    pub preset: Option<Preset>,
    /// Hash family.
    pub family: Family,
    /// Index strategy (ignored by the blocked layout).
    pub strategy: Strategy,
    /// Range reduction (ignored by the blocked layout).
    pub reduction: Reduction,
    /// Keys.
    pub key_set: KeySet,
    /// Keys inserted.
    pub n: u64,
    /// Sizing.
    pub sizing: Sizing,
    /// Probes.
    pub k: KChoice,
    /// Block size of the blocked variant (0 elsewhere).
    pub block_bits: u64,
    /// Bits per counter of the counting variant (0 elsewhere).
    pub counter_bits: u32,
    /// Items replaced after the initial inserts, as a fraction of `n`
    /// (counting only; 0 elsewhere). See [`Point::churned`].
    pub churn: f64,
    /// The scalable filter's settings (scalable only; `None` elsewhere).
    /// Sized by `fpp`, its target error is `P`; `n` items are inserted
    /// into a filter that starts at `initial_capacity`.
    pub scalable: Option<ScalableSettings>,
    /// Independently seeded filters.
    pub trials: u32,
    /// Non-member queries per filter.
    pub queries: Queries,
}

/// Largest `churn` accepted (items replaced, as a multiple of `n`).
pub const MAX_CHURN: f64 = 1000.0;

/// Most grid points a plan may have (all grids together). The product is
/// checked before it is enumerated: a grid of many long axes must be
/// refused at once, not looped over for hours.
pub const MAX_POINTS: usize = 100_000;

/// Most filters (points × trials) a plan may build: each is a task and a
/// row held in memory until the run ends.
pub const MAX_TRIALS: u64 = 1_000_000;

/// Most keys a point may insert (2^40, as `initial-capacity`).
pub const MAX_N: u64 = 1 << 40;

/// Most bits (counting: counter bits) one filter may have, 2^40 (128
/// GiB): a larger one is refused with the plan, before any allocation.
pub const MAX_FILTER_BITS: u64 = 1 << 40;

impl Point {
    /// How many items the churn workload deletes (and as many fresh ones
    /// it inserts): `round(churn · n)`.
    pub fn churned(&self) -> u64 {
        (self.churn * self.n as f64).round() as u64
    }

    /// Every key index the trial inserts: `n` plus the churned ones.
    /// Non-members start there.
    pub fn inserted_total(&self) -> u64 {
        self.n.saturating_add(self.churned())
    }
}

/// The invariants a run must uphold.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, serde::Serialize, Deserialize,
)]
pub struct Invariants {
    /// No false negatives anywhere.
    pub no_false_negatives: bool,
    /// Max `|z|` against the matching formula.
    pub fpr_consistent: Option<f64>,
    /// Max mean empirical FPR.
    pub fpr_at_most: Option<f64>,
    /// Min `|z|` against the classical formula.
    pub classical_rejected: Option<f64>,
    /// Scalable filters that promise their target measure at or under it.
    #[serde(default)]
    pub fpr_under_target: bool,
    /// Which scalable settings `fpr_under_target` applies to, indexed by
    /// [`variants::scalable_preset_index`] (`None`: every one).
    #[serde(default)]
    pub fpr_under_target_presets: Option<[bool; 5]>,
}

/// A validated experiment: every name resolved, every number checked.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Name (`^[-a-z0-9]+$`).
    pub name: String,
    /// Description.
    pub description: String,
    /// Analysis notes.
    pub analysis: Option<String>,
    /// Seed.
    pub seed: u64,
    /// Confidence of intervals.
    pub confidence: f64,
    /// Grid points in order.
    pub points: Vec<Point>,
    /// Invariants.
    pub invariants: Invariants,
    /// Charts to draw (`None`: every applicable chart).
    pub charts: Option<Vec<crate::charts::ChartKind>>,
    /// The file it came from.
    pub path: PathBuf,
    /// The TOML text.
    pub source: String,
    /// Whether `--quick` shrank it.
    pub quick: bool,
    quick_def: Option<QuickDef>,
}

/// Default `[queries] min` of adaptive budgets.
pub const DEFAULT_ADAPTIVE_MIN: u64 = 10_000;

impl Plan {
    /// Reads and validates an experiment file. Relative key-file paths
    /// are resolved against the file's directory.
    pub fn load(path: &Path) -> Result<Plan> {
        let source =
            std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Plan::from_toml(&source, path)
    }

    /// Validates TOML text as if read from `path`.
    pub fn from_toml(source: &str, path: &Path) -> Result<Plan> {
        let shown = path.display().to_string();
        let def: Definition = toml::from_str(source).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|s| line_column(source, s.start))
                .unwrap_or((1, 1));
            Error::Syntax {
                path: shown.clone(),
                line,
                column,
                message: with_hint(e.message().trim().replace('\n', " ")),
            }
        })?;
        let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        validate(def, source, path, &base)
            .map_err(|message| Error::Invalid { path: shown, message })
    }

    /// Shrinks the plan for `--quick` and `verify`: trials, queries and
    /// optionally n scaled by the experiment's `[quick]` factors.
    pub fn quick(mut self) -> Plan {
        let q = self.quick_def.clone();
        let tf = q.as_ref().and_then(|q| q.trials).unwrap_or(0.25);
        let qf = q.as_ref().and_then(|q| q.queries).unwrap_or(0.1);
        let nf = q.as_ref().and_then(|q| q.n).unwrap_or(1.0);
        let scale = |x: u64, f: f64, min: u64| -> u64 {
            ((x as f64 * f).ceil() as u64).max(min.min(x))
        };
        for p in &mut self.points {
            p.trials = scale(u64::from(p.trials), tf, 1) as u32;
            p.n = scale(p.n, nf, 1);
            p.queries = match p.queries {
                Queries::Fixed(x) => Queries::Fixed(scale(x, qf, 1000)),
                Queries::Adaptive { target, min, max } => Queries::Adaptive {
                    target,
                    min: scale(min, qf, 1000),
                    max: scale(max, qf, 1000),
                },
            };
        }
        self.quick = true;
        self
    }

    /// Total number of trials (filters) in the plan.
    pub fn total_trials(&self) -> u64 {
        self.points.iter().map(|p| u64::from(p.trials)).sum()
    }
}

/// A parse error's message, with what to write for the fields a new
/// experiment most often leaves out (serde names only the field).
fn with_hint(message: String) -> String {
    let hint = match message.as_str() {
        "missing field `queries`" => {
            "; add a `[queries]` table: `per-filter = N` non-member \
             queries per filter, or an adaptive budget \
             (experiments/FORMAT.md)"
        }
        m if m.starts_with("missing field") => " (experiments/FORMAT.md)",
        _ => "",
    };
    message + hint
}

/// 1-based line and column of a byte offset.
fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit_once('\n')
        .map_or(before, |(_, tail)| tail)
        .chars()
        .count()
        + 1;
    (line, column)
}

/// Whether `name` matches `^[-a-z0-9]+$`.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b == b'-' || b.is_ascii_lowercase() || b.is_ascii_digit())
}

fn validate(
    def: Definition,
    source: &str,
    path: &Path,
    base: &Path,
) -> std::result::Result<Plan, String> {
    if !valid_name(&def.name) {
        return Err(format!(
            "name `{}` must match ^[-a-z0-9]+$ (it names the output folder)",
            def.name
        ));
    }
    let confidence = def.confidence.unwrap_or(0.95);
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(format!("confidence = {confidence} must be in (0, 1)"));
    }
    let default_queries = queries(&def.queries, "[queries]")?;
    let invariants = invariants(&def.invariants)?;
    if def.grid.is_empty() {
        return Err(
            "the grid is empty: add at least one [[grid]] table".to_string()
        );
    }
    let mut points = Vec::new();
    for (g, grid) in def.grid.iter().enumerate() {
        let at = format!("[[grid]] #{}", g + 1);
        expand(grid, &at, default_queries, base, &mut points)?;
    }
    if points.is_empty() {
        return Err(
            "the grid is empty: every [[grid]] has an empty axis".to_string()
        );
    }
    let trials: u64 = points.iter().map(|p| u64::from(p.trials)).sum();
    if trials > MAX_TRIALS {
        return Err(format!(
            "the plan builds {trials} filters (points × trials), more than \
             {MAX_TRIALS}: lower trials or split the experiment"
        ));
    }
    let charts = match &def.charts {
        None => None,
        Some(names) => {
            let mut out = Vec::new();
            for n in names {
                out.push(crate::charts::ChartKind::from_name(n)?);
            }
            Some(out)
        }
    };
    if let Some(q) = &def.quick {
        for (what, v) in
            [("trials", q.trials), ("queries", q.queries), ("n", q.n)]
        {
            if let Some(v) = v
                && !(v > 0.0 && v <= 1.0)
            {
                return Err(format!("[quick] {what} = {v} must be in (0, 1]"));
            }
        }
    }
    Ok(Plan {
        name: def.name,
        description: def.description,
        analysis: def.analysis,
        seed: def.seed,
        confidence,
        points,
        invariants,
        charts,
        path: path.to_path_buf(),
        source: source.to_string(),
        quick: false,
        quick_def: def.quick,
    })
}

fn queries(q: &QueriesDef, at: &str) -> std::result::Result<Queries, String> {
    match (q.per_filter, q.target_relative_half_width) {
        (Some(_), Some(_)) => Err(format!(
            "{at}: give per-filter or target-relative-half-width, not both"
        )),
        (None, None) => Err(format!(
            "{at}: give per-filter (a fixed budget) or \
             target-relative-half-width with max (adaptive)"
        )),
        (Some(n), None) => {
            if q.min.is_some() || q.max.is_some() {
                return Err(format!(
                    "{at}: min and max belong to an adaptive budget"
                ));
            }
            if n == 0 {
                return Err(format!(
                    "{at}: per-filter = 0 must be at least 1"
                ));
            }
            Ok(Queries::Fixed(n))
        }
        (None, Some(target)) => {
            if !(target > 0.0 && target < 1.0) {
                return Err(format!(
                    "{at}: target-relative-half-width = {target} must be \
                     in (0, 1)"
                ));
            }
            let Some(max) = q.max else {
                return Err(format!(
                    "{at}: an adaptive budget needs max (the cap)"
                ));
            };
            let min = q.min.unwrap_or(DEFAULT_ADAPTIVE_MIN.min(max));
            if min == 0 || max < min {
                return Err(format!(
                    "{at}: need 1 <= min <= max (min = {min}, max = {max})"
                ));
            }
            Ok(Queries::Adaptive { target, min, max })
        }
    }
}

fn invariants(d: &InvariantsDef) -> std::result::Result<Invariants, String> {
    let positive = |what: &str, v: Option<f64>| match v {
        Some(x) if !(x > 0.0 && x.is_finite()) => Err(format!(
            "[invariants] {what} = {x} must be positive and finite"
        )),
        _ => Ok(v),
    };
    let fpr_at_most = d.fpr_at_most;
    if let Some(p) = fpr_at_most
        && !(0.0..=1.0).contains(&p)
    {
        return Err(format!(
            "[invariants] fpr-at-most = {p} must be in [0, 1]"
        ));
    }
    Ok(Invariants {
        no_false_negatives: d.no_false_negatives.unwrap_or(false),
        fpr_consistent: positive("fpr-consistent", d.fpr_consistent)?,
        fpr_at_most,
        classical_rejected: positive(
            "classical-rejected",
            d.classical_rejected,
        )?,
        fpr_under_target: !matches!(
            d.fpr_under_target,
            None | Some(UnderTargetDef::All(false))
        ),
        fpr_under_target_presets: match &d.fpr_under_target {
            Some(UnderTargetDef::Presets(names)) => {
                if names.is_empty() {
                    return Err(
                        "[invariants] fpr-under-target = [] names no \
                                scalable preset"
                            .to_string(),
                    );
                }
                let mut mask = [false; 5];
                for n in names {
                    let p = ScalablePreset::from_name(n)
                        .map_err(|e| format!("[invariants] {e}"))?;
                    mask[variants::scalable_preset_index(p)] = true;
                }
                Some(mask)
            }
            _ => None,
        },
    })
}

/// Names of an optional axis, or the default.
fn axis<'a>(v: &'a Option<Vec<String>>, default: &'a str) -> Vec<&'a str> {
    match v {
        Some(v) => v.iter().map(String::as_str).collect(),
        None => vec![default],
    }
}

fn expand(
    g: &GridDef,
    at: &str,
    default_queries: Queries,
    base: &Path,
    points: &mut Vec<Point>,
) -> std::result::Result<(), String> {
    let empty = |what: &str| format!("{at}: `{what}` is an empty list");
    let mut variants_ = Vec::new();
    for v in &g.variant {
        variants_
            .push(Variant::from_name(v).map_err(|e| format!("{at}: {e}"))?);
    }
    if variants_.is_empty() {
        return Err(empty("variant"));
    }
    let presets: Vec<Option<Preset>> = match &g.preset {
        None => vec![None],
        Some(v) if v.is_empty() => return Err(empty("preset")),
        Some(v) => v
            .iter()
            .map(|p| {
                if p == "none" {
                    Ok(None)
                } else {
                    Preset::from_name(p).map(Some)
                }
            })
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| format!("{at}: {e}"))?,
    };
    let families = axis(&g.family, Family::Xxh3_64.name())
        .into_iter()
        .map(|f| Family::from_name(f).map_err(|e| format!("{at}: {e}")))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let strategies = axis(&g.strategy, Strategy::EnhancedDouble.name())
        .into_iter()
        .map(|s| Strategy::from_name(s).map_err(|e| format!("{at}: {e}")))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let reductions = axis(&g.reduction, Reduction::MultiplyShift.name())
        .into_iter()
        .map(|r| Reduction::from_name(r).map_err(|e| format!("{at}: {e}")))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let mut key_sets = Vec::new();
    for k in axis(&g.key_set, "random-u64") {
        key_sets
            .push(KeySet::parse(k, base).map_err(|e| format!("{at}: {e}"))?);
    }
    if families.is_empty() {
        return Err(empty("family"));
    }
    if strategies.is_empty() {
        return Err(empty("strategy"));
    }
    if reductions.is_empty() {
        return Err(empty("reduction"));
    }
    if key_sets.is_empty() {
        return Err(empty("key-set"));
    }
    if g.n.is_empty() {
        return Err(empty("n"));
    }
    if let Some(&n) = g.n.iter().find(|&&n| n == 0) {
        return Err(format!("{at}: n = {n} must be at least 1"));
    }
    if let Some(&n) = g.n.iter().find(|&&n| n > MAX_N) {
        return Err(format!("{at}: n = {n} must be at most 2^40 ({MAX_N})"));
    }
    let sizings: Vec<Sizing> = match (&g.bits_per_element, &g.fpp) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "{at}: give bits-per-element or fpp, not both"
            ));
        }
        (None, None) => {
            return Err(format!("{at}: give bits-per-element or fpp"));
        }
        (Some(c), None) => {
            if c.is_empty() {
                return Err(empty("bits-per-element"));
            }
            for &c in c {
                if !(c > 0.0 && c.is_finite() && c <= 1e6) {
                    return Err(format!(
                        "{at}: bits-per-element = {c} must be in (0, 1e6]"
                    ));
                }
            }
            c.iter().map(|&c| Sizing::BitsPerElement(c)).collect()
        }
        (None, Some(p)) => {
            if p.is_empty() {
                return Err(empty("fpp"));
            }
            for &p in p {
                if !(p > 0.0 && p < 1.0) {
                    return Err(format!(
                        "{at}: fpp = {p} must be in (0, 1) (a false-positive \
                         probability)"
                    ));
                }
            }
            p.iter().map(|&p| Sizing::Fpp(p)).collect()
        }
    };
    let ks: Vec<KChoice> = match &g.k {
        None => vec![KChoice::Optimal],
        Some(KDef::Named(s)) if s == "optimal" => vec![KChoice::Optimal],
        Some(KDef::Named(s)) => {
            return Err(format!(
                "{at}: k = \"{s}\": give \"optimal\" or a list of integers"
            ));
        }
        Some(KDef::Values(v)) if v.is_empty() => return Err(empty("k")),
        Some(KDef::Values(v)) => {
            if let Some(k) = v.iter().find(|&&k| !(1..=64).contains(&k)) {
                return Err(format!("{at}: k = {k} must be in 1..=64"));
            }
            v.iter().map(|&k| KChoice::Fixed(k)).collect()
        }
    };
    let blocks = g.block_bits.clone().unwrap_or_else(|| vec![512]);
    if blocks.is_empty() {
        return Err(empty("block-bits"));
    }
    for &b in &blocks {
        if !(b.is_power_of_two() && (64..=65536).contains(&b)) {
            return Err(format!(
                "{at}: block-bits = {b} must be a power of two in 64..=65536"
            ));
        }
    }
    let widths = g.counter_bits.clone().unwrap_or_else(|| vec![4]);
    if widths.is_empty() {
        return Err(empty("counter-bits"));
    }
    if let Some(w) = widths.iter().find(|&&w| !matches!(w, 2 | 4 | 8)) {
        return Err(format!("{at}: counter-bits = {w} must be 2, 4 or 8"));
    }
    let churns = g.churn.clone().unwrap_or_else(|| vec![0.0]);
    if churns.is_empty() {
        return Err(empty("churn"));
    }
    if let Some(c) = churns
        .iter()
        .find(|&&c| !(c.is_finite() && (0.0..=MAX_CHURN).contains(&c)))
    {
        return Err(format!(
            "{at}: churn = {c} must be in [0, {MAX_CHURN}] (items replaced, \
             as a fraction of n)"
        ));
    }
    let scalables =
        scalable_axes(g, at, variants_.contains(&Variant::Scalable))?;
    let trials = g.trials.unwrap_or(1);
    if trials == 0 {
        return Err(format!("{at}: trials = 0 must be at least 1"));
    }
    let budget = match &g.queries {
        Some(q) => queries(q, &format!("{at} queries"))?,
        None => default_queries,
    };
    // Axes a variant ignores collapse to one value, so a grid over
    // strategies does not repeat the blocked filter once per strategy.
    // The product is enumerated in row-major order (variant outermost).
    let dims = [
        variants_.len(),
        presets.len(),
        families.len(),
        strategies.len(),
        reductions.len(),
        key_sets.len(),
        g.n.len(),
        sizings.len(),
        ks.len(),
        blocks.len(),
        widths.len(),
        churns.len(),
        scalables.len(),
    ];
    // Checked before the loop: the product of a few long axes can be
    // astronomically large (or overflow).
    let room = MAX_POINTS.saturating_sub(points.len());
    let total = dims
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&t| t <= room)
        .ok_or_else(|| {
            let shown = dims
                .iter()
                .filter(|&&d| d > 1)
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(" × ");
            format!(
                "{at}: the grid's axes multiply to {shown} points, more than \
                 the {MAX_POINTS} a plan may have: shorten some lists or \
                 split the experiment"
            )
        })?;
    let mut seen = std::collections::HashSet::new();
    for flat in 0..total {
        let mut c = [0usize; 13];
        let mut rest = flat;
        for d in (0..dims.len()).rev() {
            c[d] = rest % dims[d];
            rest /= dims[d];
        }
        let mut p = Point {
            index: 0,
            variant: variants_[c[0]],
            preset: presets[c[1]],
            family: families[c[2]],
            strategy: strategies[c[3]],
            reduction: reductions[c[4]],
            key_set: key_sets[c[5]].clone(),
            n: g.n[c[6]],
            sizing: sizings[c[7]],
            k: ks[c[8]],
            block_bits: blocks[c[9]],
            counter_bits: widths[c[10]],
            churn: churns[c[11]],
            scalable: Some(scalables[c[12]]),
            trials,
            queries: budget,
        };
        variants::normalise(&mut p);
        p.key_set.check_members(p.n).map_err(|e| format!("{at}: {e}"))?;
        if p.variant == Variant::Scalable {
            check_scalable(&p, at)?;
        } else {
            check_size(&p, at)?;
        }
        let key = format!(
            "{:?}|{:?}|{}|{}|{}|{}|{}|{:?}|{}|{}|{}|{}|{:?}",
            p.variant,
            p.preset,
            p.family.name(),
            p.strategy.name(),
            p.reduction.name(),
            p.key_set.name(),
            p.n,
            p.sizing,
            p.k,
            p.block_bits,
            p.counter_bits,
            p.churn,
            p.scalable
        );
        if seen.insert(key) {
            p.index = points.len();
            points.push(p);
        }
    }
    Ok(())
}

/// The scalable axes' product (preset, n0, s, r, layout), validated;
/// `scalable`: whether the grid has the scalable variant.
fn scalable_axes(
    g: &GridDef,
    at: &str,
    scalable: bool,
) -> std::result::Result<Vec<ScalableSettings>, String> {
    let empty = |what: &str| format!("{at}: `{what}` is an empty list");
    let presets: Vec<Option<ScalablePreset>> = match &g.scalable_preset {
        None => vec![None],
        Some(v) if v.is_empty() => return Err(empty("scalable-preset")),
        Some(v) => v
            .iter()
            .map(|p| ScalablePreset::from_name(p))
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| format!("{at}: {e}"))?,
    };
    let n0s = g.initial_capacity.clone().unwrap_or_else(|| vec![1000]);
    if n0s.is_empty() {
        return Err(empty("initial-capacity"));
    }
    if let Some(n0) = n0s.iter().find(|&&n| !(1..=1 << 40).contains(&n)) {
        return Err(format!(
            "{at}: initial-capacity = {n0} must be in 1..=2^40"
        ));
    }
    let growths = g.growth.clone().unwrap_or_else(|| vec![2]);
    if growths.is_empty() {
        return Err(empty("growth"));
    }
    let max = bloomlab_scalable::MAX_GROWTH;
    if let Some(s) = growths.iter().find(|&&s| !(1..=max).contains(&s)) {
        return Err(format!("{at}: growth = {s} must be in 1..={max}"));
    }
    let rs = g.tightening.clone().unwrap_or_else(|| vec![0.5]);
    if rs.is_empty() {
        return Err(empty("tightening"));
    }
    if let Some(r) = rs.iter().find(|&&r| !(r > 0.0 && r < 1.0)) {
        return Err(format!("{at}: tightening = {r} must be in (0, 1)"));
    }
    let layouts = match &g.layer_layout {
        None => vec![LayerLayout::Standard],
        Some(v) if v.is_empty() => return Err(empty("layer-layout")),
        Some(v) => v
            .iter()
            .map(|l| LayerLayout::from_name(l))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| format!("{at}: {e}"))?,
    };
    // Presets fix their own layout: a listed layout that none of them
    // uses, with no `none` to take it, would vanish from the results.
    if scalable && g.layer_layout.is_some() && !presets.contains(&None) {
        let fixed = || {
            presets
                .iter()
                .flatten()
                .map(|p| format!("{}: {}", p.name(), p.layout().name()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let unused = layouts
            .iter()
            .find(|&&l| presets.iter().flatten().all(|p| p.layout() != l));
        if let Some(l) = unused {
            return Err(format!(
                "{at}: layer-layout `{}` applies to no point: every \
                 scalable-preset here fixes its own layers ({}); add \
                 \"none\" to scalable-preset, or remove `{}` from \
                 layer-layout",
                l.name(),
                fixed(),
                l.name()
            ));
        }
    }
    let mut out = Vec::new();
    for &preset in &presets {
        for &initial_capacity in &n0s {
            for &growth in &growths {
                for &tightening in &rs {
                    for &layout in &layouts {
                        out.push(ScalableSettings {
                            preset,
                            initial_capacity,
                            growth,
                            tightening,
                            layout,
                        });
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Refuses a filter too large to build here, before any trial tries to
/// allocate it. A sizing the library refuses (too many hash functions,
/// say) stays a trial error, as documented.
fn check_size(p: &Point, at: &str) -> std::result::Result<(), String> {
    let Ok((m, _)) = variants::size(p) else {
        return Ok(());
    };
    let bits = m.saturating_mul(u64::from(p.counter_bits.max(1)));
    if bits > MAX_FILTER_BITS {
        let what = match p.sizing {
            Sizing::BitsPerElement(c) => format!("bits-per-element = {c}"),
            Sizing::Fpp(f) => format!("fpp = {f}"),
        };
        return Err(format!(
            "{at}: n = {} at {what} needs a filter of {bits} bits, more \
             than the 2^40 ({MAX_FILTER_BITS}) a point may use: lower n or \
             the bits per element (raise fpp)",
            p.n
        ));
    }
    Ok(())
}

/// What a scalable point needs: a target error (`fpp`), the optimal `k`,
/// no fixed-size preset, and (bloomlab's settings) layers the library
/// can build for its `n` items ([`variants::check_growth`]).
fn check_scalable(p: &Point, at: &str) -> std::result::Result<(), String> {
    if let Sizing::BitsPerElement(c) = p.sizing {
        return Err(format!(
            "{at}: the scalable variant is sized by its target error: give \
             fpp (P), not bits-per-element = {c}"
        ));
    }
    if let KChoice::Fixed(k) = p.k {
        return Err(format!(
            "{at}: the scalable variant chooses k per layer: k = {k} does \
             not apply (use k = \"optimal\")"
        ));
    }
    if let Some(preset) = p.preset {
        return Err(format!(
            "{at}: preset `{}` does not apply to the scalable variant (use \
             scalable-preset)",
            preset.name()
        ));
    }
    variants::check_growth(p).map_err(|e| format!("{at}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_columns() {
        assert_eq!(line_column("ab\ncd", 0), (1, 1));
        assert_eq!(line_column("ab\ncd", 4), (2, 2));
    }

    #[test]
    fn names() {
        assert!(valid_name("fpr-vs-load2"));
        assert!(!valid_name("Fpr"));
        assert!(!valid_name(""));
        assert!(!valid_name("a_b"));
    }
}
