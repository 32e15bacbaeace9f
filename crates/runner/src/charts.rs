//! Charts drawn from the per-point summaries with plotters, as SVG and
//! PNG. Text uses DejaVu Sans embedded in the binary (`data/fonts/`,
//! Bitstream Vera licence alongside), so PNGs render on a machine without
//! system fonts.
//!
//! Each chart is first described backend-free ([`Spec`]) and then drawn
//! twice. Log axes are drawn as linear axes over `log10` of the values,
//! labelled with the original values.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::results::Summary;
use crate::{Error, Result};

const FONT: &[u8] = include_bytes!("../data/fonts/DejaVuSans.ttf");

/// Width of every chart in pixels.
pub const WIDTH: u32 = 960;

/// A chart the runner can draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    /// Empirical FPR vs bits per element, with intervals and the
    /// matching formula.
    FprVsLoad,
    /// Empirical FPR vs k.
    FprVsK,
    /// Empirical / theoretical FPR per hash family and key set.
    HashComparison,
    /// Bits per element vs FPR against log2(1/p) and 1.44·log2(1/p).
    BitsVsFpr,
    /// Insert and query nanoseconds per key, per design.
    Throughput,
    /// Empirical and classical rates relative to the matching formula.
    Formulas,
    /// Counting filters under churn: saturated counters and false
    /// negatives (one chart per counter width), and the false-positive
    /// rate against the formula for the live load.
    CountingChurn,
    /// Scalable filters growing: false-positive rate and memory per item
    /// vs items inserted, with the target and the error bound.
    ScalableGrowth,
}

impl ChartKind {
    /// Every chart kind.
    pub const ALL: [ChartKind; 8] = [
        ChartKind::FprVsLoad,
        ChartKind::FprVsK,
        ChartKind::HashComparison,
        ChartKind::BitsVsFpr,
        ChartKind::Formulas,
        ChartKind::CountingChurn,
        ChartKind::ScalableGrowth,
        ChartKind::Throughput,
    ];

    /// The name experiments use and the chart's file stem.
    pub fn name(self) -> &'static str {
        match self {
            ChartKind::FprVsLoad => "fpr-vs-load",
            ChartKind::FprVsK => "fpr-vs-k",
            ChartKind::HashComparison => "hash-comparison",
            ChartKind::BitsVsFpr => "bits-vs-fpr",
            ChartKind::Throughput => "throughput",
            ChartKind::Formulas => "formulas",
            ChartKind::CountingChurn => "counting-churn",
            ChartKind::ScalableGrowth => "scalable-growth",
        }
    }

    /// Looks a chart up by name.
    pub fn from_name(name: &str) -> std::result::Result<ChartKind, String> {
        ChartKind::ALL.into_iter().find(|k| k.name() == name).ok_or_else(
            || {
                format!(
                    "unknown chart `{name}` (known: {})",
                    ChartKind::ALL.map(ChartKind::name).join(", ")
                )
            },
        )
    }
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Markers with interval bars.
    Points,
    /// A solid line.
    Line,
    /// A dashed line.
    Dashed,
}

/// A point with an optional interval (on the y axis for XY charts, on the
/// value axis for categorical ones).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pt {
    /// x, or the category index.
    pub x: f64,
    /// y, or the value.
    pub y: f64,
    /// Interval low end.
    pub lo: Option<f64>,
    /// Interval high end.
    pub hi: Option<f64>,
}

/// One series.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text (empty: not in the legend).
    pub name: String,
    /// Palette index.
    pub color: usize,
    /// How it is drawn.
    pub style: Style,
    /// Its points.
    pub points: Vec<Pt>,
}

/// A chart, backend-free.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// File stem.
    pub stem: String,
    /// Title.
    pub title: String,
    /// x axis description (with units).
    pub x_label: String,
    /// y axis description (with units).
    pub y_label: String,
    /// Log-scaled x.
    pub log_x: bool,
    /// Log-scaled y.
    pub log_y: bool,
    /// Categories (horizontal layout: one row per category, the value on
    /// the x axis); empty for an XY chart.
    pub categories: Vec<String>,
    /// A vertical reference line (x value, legend text).
    pub reference: Option<(f64, String)>,
    /// Series.
    pub series: Vec<Series>,
    /// Where the legend goes (the emptiest corner for the usual data).
    pub legend: Corner,
}

/// A corner of the plot for the legend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corner {
    /// Upper left.
    UpperLeft,
    /// Upper right.
    UpperRight,
    /// Lower left.
    LowerLeft,
    /// Lower right.
    LowerRight,
}

impl Corner {
    fn position(self) -> SeriesLabelPosition {
        match self {
            Corner::UpperLeft => SeriesLabelPosition::UpperLeft,
            Corner::UpperRight => SeriesLabelPosition::UpperRight,
            Corner::LowerLeft => SeriesLabelPosition::LowerLeft,
            Corner::LowerRight => SeriesLabelPosition::LowerRight,
        }
    }
}

/// A drawn chart.
#[derive(Debug, Clone)]
pub struct Drawn {
    /// File stem (`charts/<stem>.svg|png`).
    pub stem: String,
    /// Title.
    pub title: String,
    /// The SVG text.
    pub svg: String,
}

/// The Tableau 10 palette.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is a fixed, valid TTF; if registration failed anyway,
        // text would be missing from the charts, nothing worse.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            FONT,
        );
    });
}

/// The charts to draw: the declared ones, or every one the data
/// supports; their error bars are `confidence` intervals (the
/// experiment's, as the summaries were computed with).
pub fn specs(
    kinds: Option<&[ChartKind]>,
    sums: &[Summary],
    confidence: f64,
) -> Vec<Spec> {
    let bars = interval_name(confidence);
    let declared = kinds.is_some();
    let kinds: Vec<ChartKind> =
        kinds.map_or_else(|| ChartKind::ALL.to_vec(), <[_]>::to_vec);
    let mut out = Vec::new();
    for kind in kinds {
        let made = match kind {
            ChartKind::FprVsLoad => fpr_vs(sums, Axis::Load, &bars),
            ChartKind::FprVsK => fpr_vs(sums, Axis::K, &bars),
            ChartKind::HashComparison => hash_comparison(sums),
            ChartKind::BitsVsFpr => bits_vs_fpr(sums),
            ChartKind::Throughput => throughput(sums),
            ChartKind::CountingChurn => counting_churn(sums, &bars),
            ChartKind::ScalableGrowth => scalable_growth(sums, &bars),
            ChartKind::Formulas => {
                // Undeclared, only where many small filters were averaged.
                if declared || sums.iter().any(|s| s.trials >= 20) {
                    formulas(sums, &bars)
                } else {
                    Vec::new()
                }
            }
        };
        out.extend(made);
    }
    out
}

/// "95% interval" for a confidence of 0.95: what a chart's error bars
/// are.
fn interval_name(confidence: f64) -> String {
    let percent = format!("{:.4}", confidence * 100.0);
    let percent = percent.trim_end_matches('0').trim_end_matches('.');
    format!("{percent}% interval")
}

/// Draws every spec into `dir` (SVG and PNG), staged in `staged` under
/// temporary names, and returns the SVG texts.
pub fn draw_all(
    dir: &Path,
    specs: &[Spec],
    staged: &mut crate::sweep::Staged,
) -> Result<Vec<Drawn>> {
    register_font();
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut out = Vec::new();
    for spec in specs {
        let height = height(spec);
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (WIDTH, height))
                .into_drawing_area();
            draw(&root, spec).map_err(|m| chart_err(spec, m))?;
            root.present().map_err(|e| chart_err(spec, e.to_string()))?;
        }
        staged
            .write(&dir.join(format!("{}.svg", spec.stem)), svg.as_bytes())?;
        // The bitmap backend picks the encoder from the extension, so the
        // temporary name ends in .png too; it is removed if not committed.
        let png = dir.join(format!("{}.png", spec.stem));
        let tmp =
            crate::sweep::temp_beside(&png, ".tmp.png")?.into_temp_path();
        {
            let root =
                BitMapBackend::new(&tmp, (WIDTH, height)).into_drawing_area();
            draw(&root, spec).map_err(|m| chart_err(spec, m))?;
            root.present().map_err(|e| chart_err(spec, e.to_string()))?;
        }
        staged.add_temp(tmp, &png);
        out.push(Drawn {
            stem: spec.stem.clone(),
            title: spec.title.clone(),
            svg,
        });
    }
    Ok(out)
}

fn chart_err(spec: &Spec, message: String) -> Error {
    Error::Chart { chart: spec.stem.clone(), message }
}

fn height(spec: &Spec) -> u32 {
    if spec.categories.is_empty() {
        600
    } else {
        (170 + 30 * spec.categories.len() as u32).max(420)
    }
}

fn tr(v: f64, log: bool) -> Option<f64> {
    if log {
        (v > 0.0 && v.is_finite()).then(|| v.log10())
    } else {
        v.is_finite().then_some(v)
    }
}

/// Axis labels: log axes show `10^v` compactly; over 1.5 decades or
/// more, only whole decades are labelled.
fn axis_label(v: f64, log: bool, span: f64) -> String {
    if !log {
        return trim_number(v);
    }
    let x = 10f64.powf(v);
    let whole = (v - v.round()).abs() < 1e-9;
    if !whole && span >= 1.5 {
        return String::new();
    }
    if whole {
        let e = v.round() as i32;
        return match e {
            -2..=3 => trim_number(10f64.powi(e)),
            _ => format!("1e{e}"),
        };
    }
    if (1e-2..1e4).contains(&x) { two_digits(x) } else { format!("{x:.1e}") }
}

/// `x` to two significant digits (whole from 100 up): a log axis' ticks
/// between powers of ten fall on `10^0.1` steps, and 1.3 reads better
/// than 1.2589.
fn two_digits(x: f64) -> String {
    let decimals = usize::try_from(1 - x.log10().floor() as i64).unwrap_or(0);
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn trim_number(v: f64) -> String {
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

fn range(
    vals: impl Iterator<Item = f64>,
    log: bool,
    from_zero: bool,
) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    if from_zero && !log {
        lo = lo.min(0.0);
    }
    let span = hi - lo;
    if log {
        let pad = (span * 0.08).max(0.15);
        (lo - pad, hi + pad)
    } else if span == 0.0 {
        (lo - 0.5 * lo.abs().max(1.0), hi + 0.5 * hi.abs().max(1.0))
    } else {
        let pad = span * 0.08;
        (if from_zero && lo >= 0.0 { lo } else { lo - pad }, hi + pad)
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &Spec,
) -> std::result::Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    if spec.categories.is_empty() {
        draw_xy(root, spec)
    } else {
        draw_categorical(root, spec)
    }
}

fn draw_xy<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &Spec,
) -> std::result::Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (lx, ly) = (spec.log_x, spec.log_y);
    let xs = spec
        .series
        .iter()
        .flat_map(|s| s.points.iter().filter_map(|p| tr(p.x, lx)));
    let (x0, x1) = range(xs, lx, false);
    let ys = spec.series.iter().flat_map(|s| {
        s.points.iter().flat_map(|p| {
            [Some(p.y), p.lo, p.hi]
                .into_iter()
                .flatten()
                .filter_map(|v| tr(v, ly))
        })
    });
    let (y0, y1) = range(ys, ly, !ly);
    let mut chart = ChartBuilder::on(root)
        .caption(&spec.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(e)?;
    let xf = |v: &f64| axis_label(*v, lx, x1 - x0);
    let yf = |v: &f64| axis_label(*v, ly, y1 - y0);
    chart
        .configure_mesh()
        .x_desc(&spec.x_label)
        .y_desc(&spec.y_label)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_labels(10)
        .y_labels(10)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    for s in &spec.series {
        let color = PALETTE[s.color % PALETTE.len()];
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter_map(|p| Some((tr(p.x, lx)?, tr(p.y, ly)?)))
            .collect();
        let anno = match s.style {
            Style::Points => {
                for p in &s.points {
                    let (Some(x), Some(lo), Some(hi)) = (
                        tr(p.x, lx),
                        p.lo.and_then(|v| tr(v, ly).or(Some(y0))),
                        p.hi.and_then(|v| tr(v, ly)),
                    ) else {
                        continue;
                    };
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            vec![(x, lo), (x, hi)],
                            color.stroke_width(2),
                        )))
                        .map_err(e)?;
                }
                chart
                    .draw_series(
                        pts.iter().map(|&p| Circle::new(p, 4, color.filled())),
                    )
                    .map_err(e)?
            }
            Style::Line => chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                .map_err(e)?,
            Style::Dashed => chart
                .draw_series(DashedLineSeries::new(
                    pts,
                    8,
                    5,
                    color.stroke_width(2),
                ))
                .map_err(e)?,
        };
        if !s.name.is_empty() {
            let anno = anno.label(s.name.clone());
            match s.style {
                Style::Points => {
                    anno.legend(move |(x, y)| {
                        Circle::new((x + 10, y), 4, color.filled())
                    });
                }
                Style::Line | Style::Dashed => {
                    let w = if s.style == Style::Line { 2 } else { 1 };
                    anno.legend(move |(x, y)| {
                        PathElement::new(
                            vec![(x, y), (x + 20, y)],
                            color.stroke_width(w),
                        )
                    });
                }
            }
        }
    }
    chart
        .configure_series_labels()
        .position(spec.legend.position())
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(160, 160, 160))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    Ok(())
}

fn draw_categorical<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &Spec,
) -> std::result::Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let lx = spec.log_x;
    let ncat = spec.categories.len();
    let vals = spec
        .series
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .flat_map(|p| [Some(p.y), p.lo, p.hi].into_iter().flatten())
        })
        .chain(spec.reference.as_ref().map(|r| r.0))
        .filter_map(|v| tr(v, lx));
    // Times start at zero; ratios (with a reference line) need not.
    let (x0, x1) = range(vals, lx, !lx && spec.reference.is_none());
    // Room on the right for the legend of a time chart.
    let x1 = if spec.reference.is_none() { x1 + 0.3 * (x1 - x0) } else { x1 };
    let (y0, y1) = (-0.6, ncat as f64 - 0.4);
    let longest =
        spec.categories.iter().map(|c| c.chars().count()).max().unwrap_or(4);
    let mut chart = ChartBuilder::on(root)
        .caption(&spec.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size((longest as u32 * 8 + 24).clamp(60, 560))
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(e)?;
    let cats = spec.categories.clone();
    let yf = move |v: &f64| {
        let i = v.round();
        if (v - i).abs() > 1e-6 || i < 0.0 {
            return String::new();
        }
        // Row 0 is drawn at the top.
        let idx = ncat as i64 - 1 - i as i64;
        usize::try_from(idx)
            .ok()
            .and_then(|i| cats.get(i).cloned())
            .unwrap_or_default()
    };
    let xf = |v: &f64| axis_label(*v, lx, x1 - x0);
    chart
        .configure_mesh()
        .x_desc(&spec.x_label)
        .y_desc(&spec.y_label)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_labels(10)
        .y_labels(ncat.max(2))
        .disable_y_mesh()
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    if let Some((v, name)) = &spec.reference
        && let Some(x) = tr(*v, lx)
    {
        chart
            .draw_series(DashedLineSeries::new(
                vec![(x, y0), (x, y1)],
                6,
                4,
                BLACK.stroke_width(1),
            ))
            .map_err(e)?
            .label(name.clone())
            .legend(|(x, y)| {
                PathElement::new(
                    vec![(x, y), (x + 20, y)],
                    BLACK.stroke_width(1),
                )
            });
    }
    let ns = spec.series.len().max(1) as f64;
    for (j, s) in spec.series.iter().enumerate() {
        let color = PALETTE[s.color % PALETTE.len()];
        let offset = if ns > 1.0 {
            (j as f64 - (ns - 1.0) / 2.0) * (0.6 / ns)
        } else {
            0.0
        };
        let row = |x: f64| ncat as f64 - 1.0 - x - offset;
        for p in &s.points {
            if let (Some(lo), Some(hi)) = (
                p.lo.and_then(|v| tr(v, lx).or(Some(x0))),
                p.hi.and_then(|v| tr(v, lx)),
            ) {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(lo, row(p.x)), (hi, row(p.x))],
                        color.stroke_width(2),
                    )))
                    .map_err(e)?;
            }
        }
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter_map(|p| Some((tr(p.y, lx)?, row(p.x))))
            .collect();
        let anno = chart
            .draw_series(
                pts.iter().map(|&p| Circle::new(p, 5, color.filled())),
            )
            .map_err(e)?;
        if !s.name.is_empty() {
            anno.label(s.name.clone()).legend(move |(x, y)| {
                Circle::new((x + 10, y), 4, color.filled())
            });
        }
    }
    chart
        .configure_series_labels()
        .position(spec.legend.position())
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(160, 160, 160))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    Ok(())
}

/// The fields of a summary that tell series apart.
fn field(s: &Summary, f: &str) -> String {
    let r = &s.first;
    match f {
        "design" => s.label.clone(),
        "keys" => format!("keys {}", r.key_set),
        "n" => format!("n = {}", si(r.n as f64)),
        "k" => format!("k = {}", r.k_choice),
        "bpe" => match (r.bits_per_element, r.fpp) {
            (Some(c), _) => format!("{} bits/key", trim_number(c)),
            (_, Some(p)) => format!("p = {p}"),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

/// `1000000` → `1M`, `4096` → `4096`.
pub fn si(v: f64) -> String {
    if v >= 1e6 && (v / 1e6).fract() == 0.0 {
        format!("{}M", v / 1e6)
    } else if v >= 1e4 && (v / 1e3).fract() == 0.0 {
        format!("{}k", v / 1e3)
    } else {
        trim_number(v)
    }
}

/// Groups summaries into series by every field in `fields` except the x
/// one; the series name lists only the fields that vary.
fn group<'a>(
    sums: &'a [Summary],
    fields: &[&str],
) -> Vec<(String, Vec<&'a Summary>)> {
    let varying: Vec<&str> = fields
        .iter()
        .copied()
        .filter(|f| {
            let first = sums.first().map(|s| field(s, f));
            sums.iter().any(|s| Some(field(s, f)) != first)
        })
        .collect();
    let mut groups: BTreeMap<String, (usize, Vec<&Summary>)> = BTreeMap::new();
    for s in sums {
        let key =
            fields.iter().map(|f| field(s, f)).collect::<Vec<_>>().join(", ");
        let order = groups.len();
        groups.entry(key).or_insert((order, Vec::new())).1.push(s);
    }
    let mut out: Vec<(usize, String, Vec<&Summary>)> = groups
        .into_values()
        .map(|(order, v)| {
            let name = if varying.is_empty() {
                field(v[0], "design")
            } else {
                varying
                    .iter()
                    .map(|f| field(v[0], f))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            (order, name, v)
        })
        .collect();
    out.sort_by_key(|g| g.0);
    out.into_iter().map(|(_, n, v)| (n, v)).collect()
}

#[derive(Clone, Copy, PartialEq)]
enum Axis {
    Load,
    K,
}

fn measured(sums: &[Summary]) -> Vec<&Summary> {
    sums.iter().filter(|s| s.trials > 0 && s.fpr.is_finite()).collect()
}

fn fpr_vs(sums: &[Summary], axis: Axis, bars: &str) -> Vec<Spec> {
    // Scalable filters have their own chart (their m/n follows n).
    let ok: Vec<Summary> = measured(sums)
        .into_iter()
        .filter(|s| s.target().is_none())
        .cloned()
        .collect();
    let fields: &[&str] = match axis {
        Axis::Load => &["design", "keys", "n", "k"],
        Axis::K => &["design", "keys", "n", "bpe"],
    };
    let x_of = |s: &Summary| match axis {
        Axis::Load => s.bits_per_element(),
        Axis::K => f64::from(s.k),
    };
    let groups = group(&ok, fields);
    // Only worth drawing if some series has two x values.
    let useful = groups.iter().any(|(_, v)| {
        let first = v.first().map(|s| x_of(s));
        v.iter().any(|s| Some(x_of(s)) != first)
    });
    if !useful {
        return Vec::new();
    }
    let mut series = Vec::new();
    for (i, (name, v)) in groups.iter().enumerate() {
        let mut v = v.clone();
        v.sort_by(|a, b| x_of(a).total_cmp(&x_of(b)));
        series.push(Series {
            name: name.clone(),
            color: i,
            style: Style::Points,
            points: v
                .iter()
                .map(|s| Pt {
                    x: x_of(s),
                    y: s.fpr,
                    lo: Some(s.lo),
                    hi: Some(s.hi),
                })
                .collect(),
        });
        series.push(Series {
            name: String::new(),
            color: i,
            style: Style::Dashed,
            points: v
                .iter()
                .map(|s| Pt { x: x_of(s), y: s.theory, lo: None, hi: None })
                .collect(),
        });
    }
    // One legend entry explains every dashed line.
    series.push(Series {
        name: format!("dashed: the design's matching formula (bars: {bars})"),
        color: 7,
        style: Style::Dashed,
        points: Vec::new(),
    });
    let (stem, title, x_label) = match axis {
        Axis::Load => (
            "fpr-vs-load",
            "False-positive rate vs memory: measured (points) and theory (dashed)",
            "bits per element m/n (fewer bits = heavier load)",
        ),
        Axis::K => (
            "fpr-vs-k",
            "False-positive rate vs number of probes k",
            "probes per key k",
        ),
    };
    vec![Spec {
        stem: stem.into(),
        title: title.into(),
        x_label: x_label.into(),
        y_label: "false-positive rate (log scale)".into(),
        log_x: false,
        log_y: true,
        categories: Vec::new(),
        legend: Corner::LowerLeft,
        reference: None,
        series,
    }]
}

fn hash_comparison(sums: &[Summary]) -> Vec<Spec> {
    let mut by_strategy: BTreeMap<String, Vec<&Summary>> = BTreeMap::new();
    for s in sums {
        by_strategy.entry(s.first.strategy.clone()).or_default().push(s);
    }
    let families: std::collections::BTreeSet<&str> =
        sums.iter().map(|s| s.first.family.as_str()).collect();
    let key_sets: std::collections::BTreeSet<&str> =
        sums.iter().map(|s| s.first.key_set.as_str()).collect();
    if families.len() < 2 && key_sets.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (strategy, v) in by_strategy {
        let mut cats: Vec<String> = Vec::new();
        for s in &v {
            if !cats.contains(&s.first.family) {
                cats.push(s.first.family.clone());
            }
        }
        let mut keys: Vec<String> = Vec::new();
        for s in &v {
            if !keys.contains(&s.first.key_set) {
                keys.push(s.first.key_set.clone());
            }
        }
        let series = keys
            .iter()
            .enumerate()
            .map(|(i, k)| Series {
                name: format!("keys {k}"),
                color: i,
                style: Style::Points,
                points: v
                    .iter()
                    .filter(|s| {
                        &s.first.key_set == k
                            && s.fpr.is_finite()
                            && s.theory > 0.0
                    })
                    .filter_map(|s| {
                        let c =
                            cats.iter().position(|c| c == &s.first.family)?;
                        // A zero count shows at the interval's top.
                        let y = if s.fpr > 0.0 { s.fpr } else { s.hi };
                        Some(Pt {
                            x: c as f64,
                            y: y / s.theory,
                            lo: Some(s.lo / s.theory),
                            hi: Some(s.hi / s.theory),
                        })
                    })
                    .collect(),
            })
            .collect();
        let stem = if out.is_empty()
            && sums.iter().all(|s| s.first.strategy == strategy)
        {
            "hash-comparison".to_string()
        } else {
            format!("hash-comparison-{strategy}")
        };
        out.push(Spec {
            stem,
            title: format!(
                "Measured / theoretical false-positive rate by hash family \
                 (strategy {strategy})"
            ),
            x_label: "measured FPR / matching formula (log scale; 1 = as theory predicts)".into(),
            y_label: "hash family".into(),
            log_x: true,
            log_y: false,
            categories: cats,
            legend: Corner::UpperRight,
            reference: Some((1.0, "theory".into())),
            series,
        });
    }
    out
}

fn bits_vs_fpr(sums: &[Summary]) -> Vec<Spec> {
    let ok: Vec<Summary> =
        measured(sums).into_iter().filter(|s| s.fpr > 0.0).cloned().collect();
    if ok.is_empty() {
        return Vec::new();
    }
    let groups = group(&ok, &["design", "keys", "n", "k"]);
    let mut series = Vec::new();
    for (i, (name, v)) in groups.iter().enumerate() {
        let mut v = v.clone();
        v.sort_by(|a, b| a.fpr.total_cmp(&b.fpr));
        series.push(Series {
            name: name.clone(),
            color: i,
            style: Style::Points,
            points: v
                .iter()
                .map(|s| Pt {
                    x: s.fpr,
                    y: s.bits_per_element(),
                    lo: None,
                    hi: None,
                })
                .collect(),
        });
    }
    let lo = ok.iter().map(|s| s.fpr).fold(f64::INFINITY, f64::min) / 2.0;
    let hi = (ok.iter().map(|s| s.fpr).fold(0.0, f64::max) * 2.0).min(0.5);
    let curve = |f: f64| -> Vec<Pt> {
        (0..=40)
            .map(|i| {
                let p = lo * (hi / lo).powf(f64::from(i) / 40.0);
                Pt { x: p, y: f * (1.0 / p).log2(), lo: None, hi: None }
            })
            .collect()
    };
    series.push(Series {
        name: "optimal Bloom filter: 1.44 log2(1/p)".into(),
        color: 7,
        style: Style::Dashed,
        points: curve(std::f64::consts::LOG2_E),
    });
    series.push(Series {
        name: "information-theoretic minimum: log2(1/p)".into(),
        color: 7,
        style: Style::Line,
        points: curve(1.0),
    });
    vec![Spec {
        stem: "bits-vs-fpr".into(),
        title: "Memory per key vs measured false-positive rate".into(),
        x_label: "measured false-positive rate p (log scale)".into(),
        y_label: "bits per element m/n".into(),
        log_x: true,
        log_y: false,
        categories: Vec::new(),
        legend: Corner::UpperRight,
        reference: None,
        series,
    }]
}

fn throughput(sums: &[Summary]) -> Vec<Spec> {
    // One row per design and key set: its largest n, and there the load
    // closest to 10 bits per key.
    let mut best: BTreeMap<String, &Summary> = BTreeMap::new();
    let mut order = Vec::new();
    let score =
        |s: &Summary| (s.first.n, -(s.bits_per_element() - 10.0).abs());
    for s in measured(sums) {
        if !s.insert_ns.is_finite() {
            continue;
        }
        let name = format!("{}, keys {}", s.label, s.first.key_set);
        match best.get(&name) {
            Some(b) if score(b) >= score(s) => {}
            _ => {
                if !best.contains_key(&name) {
                    order.push(name.clone());
                }
                best.insert(name, s);
            }
        }
    }
    if best.is_empty() {
        return Vec::new();
    }
    let cats: Vec<String> = order
        .iter()
        .map(|n| {
            let s = best[n];
            format!(
                "{n}, n = {}, m/n = {}",
                si(s.first.n as f64),
                trim_number((s.bits_per_element() * 10.0).round() / 10.0)
            )
        })
        .collect();
    let pts = |f: fn(&Summary) -> f64| -> Vec<Pt> {
        order
            .iter()
            .enumerate()
            .map(|(i, n)| Pt {
                x: i as f64,
                y: f(best[n]),
                lo: None,
                hi: None,
            })
            .collect()
    };
    vec![Spec {
        stem: "throughput".into(),
        title: "Time per key (lower is faster; key generation included)"
            .into(),
        x_label: "nanoseconds per key, one core".into(),
        y_label: "design".into(),
        log_x: false,
        log_y: false,
        categories: cats,
        legend: Corner::LowerRight,
        reference: None,
        series: vec![
            Series {
                name: "insert".into(),
                color: 0,
                style: Style::Points,
                points: pts(|s| s.insert_ns),
            },
            Series {
                name: "query a non-member".into(),
                color: 1,
                style: Style::Points,
                points: pts(|s| s.query_ns),
            },
        ],
    }]
}

fn formulas(sums: &[Summary], bars: &str) -> Vec<Spec> {
    let ok: Vec<&Summary> =
        measured(sums).into_iter().filter(|s| s.theory > 0.0).collect();
    if ok.is_empty() {
        return Vec::new();
    }
    let cats: Vec<String> = ok
        .iter()
        .map(|s| {
            format!(
                "{}, m = {}, n = {}, k = {} ({} filters)",
                s.label,
                si(s.m),
                si(s.first.n as f64),
                s.k,
                s.trials
            )
        })
        .collect();
    let pts = |f: &dyn Fn(&Summary) -> Pt| -> Vec<Pt> {
        ok.iter()
            .enumerate()
            .map(|(i, s)| Pt { x: i as f64, ..f(s) })
            .collect()
    };
    vec![Spec {
        stem: "formulas".into(),
        title: "Which formula matches? Rates relative to each design's \
                matching formula"
            .into(),
        x_label: "rate / matching formula (1 = match)".into(),
        y_label: "design".into(),
        log_x: false,
        log_y: false,
        categories: cats,
        legend: Corner::LowerLeft,
        reference: Some((1.0, "matching formula".into())),
        series: vec![
            Series {
                name: format!("measured (mean of filters, {bars})"),
                color: 0,
                style: Style::Points,
                points: pts(&|s| Pt {
                    x: 0.0,
                    y: s.fpr / s.theory,
                    lo: Some(s.lo / s.theory),
                    hi: Some(s.hi / s.theory),
                }),
            },
            Series {
                name: "(1-(1-1/m)^kn)^k".into(),
                color: 2,
                style: Style::Points,
                points: pts(&|s| Pt {
                    x: 0.0,
                    y: s.classical_discrete / s.theory,
                    lo: None,
                    hi: None,
                }),
            },
            Series {
                name: "classical (1-e^(-kn/m))^k".into(),
                color: 3,
                style: Style::Points,
                points: pts(&|s| Pt {
                    x: 0.0,
                    y: s.classical / s.theory,
                    lo: None,
                    hi: None,
                }),
            },
        ],
    }]
}

/// Palette indices for data series (red and grey are kept for the
/// false negatives and the reference lines).
const DATA_COLORS: [usize; 8] = [0, 1, 2, 4, 5, 6, 8, 9];

/// An unnamed series of one point: a single-point line draws nothing but
/// stretches the axis, leaving room for the legend.
fn headroom(x: f64, y: f64) -> Series {
    Series {
        name: String::new(),
        color: 7,
        style: Style::Line,
        points: vec![Pt { x, y, lo: None, hi: None }],
    }
}

/// Counting filters under churn: per counter width, saturated counters
/// (% of counters) and false negatives among live items (% of live
/// items) vs churn, one series per load; and every width's false-positive
/// rate vs churn against the exact formula for the live load. Drawn when
/// counting points cover at least two churn values.
fn counting_churn(sums: &[Summary], bars: &str) -> Vec<Spec> {
    let ok: Vec<&Summary> = measured(sums)
        .into_iter()
        .filter(|s| s.first.counter_bits.is_some() && s.first.churn.is_some())
        .collect();
    let churn = |s: &Summary| s.first.churn.unwrap_or(0.0);
    let churns: std::collections::BTreeSet<u64> =
        ok.iter().map(|s| churn(s).to_bits()).collect();
    if churns.len() < 2 {
        return Vec::new();
    }
    let x_max = ok.iter().map(|s| churn(s)).fold(0.0, f64::max);
    let mut widths: Vec<u32> =
        ok.iter().filter_map(|s| s.first.counter_bits).collect();
    widths.sort_unstable();
    widths.dedup();
    // Loads, lightest first (most bits per key).
    let load = |s: &Summary| s.bits_per_element();
    let mut loads: Vec<String> = Vec::new();
    let mut by_load: Vec<&Summary> = ok.clone();
    by_load.sort_by(|a, b| load(b).total_cmp(&load(a)));
    for s in &by_load {
        let f = load_name(s);
        if !loads.contains(&f) {
            loads.push(f);
        }
    }
    let series_of = |w: u32, l: &str| -> Vec<&Summary> {
        let mut v: Vec<&Summary> = ok
            .iter()
            .copied()
            .filter(|s| s.first.counter_bits == Some(w) && load_name(s) == l)
            .collect();
        v.sort_by(|a, b| churn(a).total_cmp(&churn(b)));
        v
    };
    let mut out = Vec::new();

    // Saturation and false negatives, one chart per width.
    for &w in &widths {
        let mut series = Vec::new();
        let mut y_max: f64 = 0.0;
        let mut any_saturated = false;
        for (i, l) in loads.iter().enumerate() {
            let v = series_of(w, l);
            if v.is_empty() {
                continue;
            }
            let pts: Vec<Pt> = v
                .iter()
                .map(|s| Pt {
                    x: churn(s),
                    y: 100.0 * s.saturated_counters / s.m,
                    lo: None,
                    hi: None,
                })
                .collect();
            any_saturated |= pts.iter().any(|p| p.y > 0.0);
            y_max = pts.iter().map(|p| p.y).fold(y_max, f64::max);
            let color = DATA_COLORS[i % DATA_COLORS.len()];
            series.push(Series {
                name: format!("saturated counters, {l}"),
                color,
                style: Style::Points,
                points: pts.clone(),
            });
            series.push(Series {
                name: String::new(),
                color,
                style: Style::Line,
                points: pts,
            });
        }
        // False negatives among live items, over every load.
        let mut fn_pts: BTreeMap<u64, (f64, u64, u64)> = BTreeMap::new();
        for s in ok.iter().filter(|s| s.first.counter_bits == Some(w)) {
            let e =
                fn_pts.entry(churn(s).to_bits()).or_insert((churn(s), 0, 0));
            e.1 += s.false_negatives;
            e.2 += s.first.n * s.trials as u64;
        }
        let fn_pts: Vec<Pt> = fn_pts
            .into_values()
            .map(|(x, f, live)| Pt {
                x,
                y: 100.0 * f as f64 / live.max(1) as f64,
                lo: None,
                hi: None,
            })
            .collect();
        let total_fn: f64 = fn_pts.iter().map(|p| p.y).sum();
        y_max = fn_pts.iter().map(|p| p.y).fold(y_max, f64::max);
        series.push(Series {
            name: "false negatives among live items, % (every load)".into(),
            color: 3,
            style: Style::Dashed,
            points: fn_pts,
        });
        // Room above the data for the legend.
        let top = if y_max > 0.0 { y_max * 1.45 } else { 1.0 };
        series.push(headroom(0.0, top));
        let verdict = match (any_saturated, total_fn > 0.0) {
            (false, false) => ": no counter saturated, no false negative",
            (true, false) => ": counters saturate, no false negative",
            (_, true) => ": FALSE NEGATIVES",
        };
        out.push(Spec {
            stem: format!("counting-churn-saturation-{w}bit"),
            title: format!("{w}-bit counting filters under churn{verdict}"),
            x_label: "churn: items deleted and replaced, as a multiple of n \
                      (0.5 = delete half, insert n/2 new)"
                .into(),
            y_label: "% of counters saturated / % of live items missed".into(),
            log_x: false,
            log_y: false,
            categories: Vec::new(),
            legend: Corner::UpperLeft,
            reference: None,
            series,
        });
    }

    // False-positive rate vs churn against the formula.
    let mut series = Vec::new();
    let step = x_max * 0.012;
    let mid = (widths.len() as f64 - 1.0) / 2.0;
    let mut y_min = f64::INFINITY;
    for (wi, &w) in widths.iter().enumerate() {
        let color = DATA_COLORS[wi % DATA_COLORS.len()];
        let dx = (wi as f64 - mid) * step;
        let mut named = false;
        for l in &loads {
            let v = series_of(w, l);
            if v.is_empty() {
                continue;
            }
            y_min = v
                .iter()
                .map(|s| s.lo)
                .filter(|&y| y > 0.0)
                .fold(y_min, f64::min);
            series.push(Series {
                name: if named {
                    String::new()
                } else {
                    format!("{w}-bit counters (measured, {bars})")
                },
                color,
                style: Style::Points,
                points: v
                    .iter()
                    .map(|s| Pt {
                        x: churn(s) + dx,
                        y: s.fpr,
                        lo: Some(s.lo),
                        hi: Some(s.hi),
                    })
                    .collect(),
            });
            named = true;
        }
    }
    for l in &loads {
        // The formula depends on the load only; take any width's points.
        let Some(&w) = widths.iter().find(|&&w| !series_of(w, l).is_empty())
        else {
            continue;
        };
        series.push(Series {
            name: String::new(),
            color: 7,
            style: Style::Dashed,
            points: series_of(w, l)
                .iter()
                .map(|s| Pt { x: churn(s), y: s.theory, lo: None, hi: None })
                .collect(),
        });
    }
    series.push(Series {
        name: format!(
            "dashed: exact formula for the n live items ({} from bottom)",
            loads.join(", ")
        ),
        color: 7,
        style: Style::Dashed,
        points: Vec::new(),
    });
    // Room below the data for the legend (rates above 1 would confuse).
    if y_min.is_finite() {
        series.push(headroom(0.0, y_min / 10.0));
    }
    out.push(Spec {
        stem: "counting-churn-fpr".into(),
        title: "Counting filters under churn: false-positive rate vs the \
                formula for the live load"
            .into(),
        x_label: "churn: items deleted and replaced, as a multiple of n \
                  (widths offset slightly)"
            .into(),
        y_label: "false-positive rate (log scale)".into(),
        log_x: false,
        log_y: true,
        categories: Vec::new(),
        legend: Corner::LowerRight,
        reference: None,
        series,
    });
    out
}

/// Scalable filters growing from their initial capacity: the measured
/// false-positive rate vs items inserted (with intervals), each design's
/// prediction from its realised fill (dashed), the target `P` and, where
/// it differs, the design's error bound; and memory (bits per item
/// inserted) vs items inserted against a fixed-size filter sized for the
/// final n. Drawn when the scalable points of some design cover at least
/// two values of n.
fn scalable_growth(sums: &[Summary], bars: &str) -> Vec<Spec> {
    let ok: Vec<&Summary> =
        measured(sums).into_iter().filter(|s| s.target().is_some()).collect();
    // One series per design and target, in plan order.
    let mut groups: Vec<(String, Vec<&Summary>)> = Vec::new();
    for s in &ok {
        let name = format!(
            "{}, P = {}",
            s.label.trim_start_matches("scalable "),
            s.target().unwrap_or(f64::NAN)
        );
        match groups.iter_mut().find(|g| g.0 == name) {
            Some(g) => g.1.push(s),
            None => groups.push((name, vec![s])),
        }
    }
    let n_of = |s: &Summary| s.first.n as f64;
    let useful = groups
        .iter()
        .any(|(_, v)| v.iter().any(|s| s.first.n != v[0].first.n));
    if !useful {
        return Vec::new();
    }
    for g in &mut groups {
        g.1.sort_by(|a, b| n_of(a).total_cmp(&n_of(b)));
    }
    let x_min = ok.iter().map(|s| n_of(s)).fold(f64::INFINITY, f64::min);
    let x_max = ok.iter().map(|s| n_of(s)).fold(0.0, f64::max);
    let hline = |y: f64| -> Vec<Pt> {
        [x_min, x_max]
            .into_iter()
            .map(|x| Pt { x, y, lo: None, hi: None })
            .collect()
    };
    let mut targets: Vec<f64> = ok.iter().filter_map(|s| s.target()).collect();
    targets.sort_by(f64::total_cmp);
    targets.dedup();

    // False-positive rate.
    let mut series = Vec::new();
    let mut y_min = f64::INFINITY;
    for (i, (name, v)) in groups.iter().enumerate() {
        let color = DATA_COLORS[i % DATA_COLORS.len()];
        let promised = v.iter().all(|s| s.promises_target());
        y_min =
            v.iter().map(|s| s.lo).filter(|&y| y > 0.0).fold(y_min, f64::min);
        series.push(Series {
            name: if promised {
                name.clone()
            } else {
                format!("{name} (bound above the target)")
            },
            color,
            style: Style::Points,
            points: v
                .iter()
                .map(|s| Pt {
                    x: n_of(s),
                    y: s.fpr,
                    lo: Some(s.lo),
                    hi: Some(s.hi),
                })
                .collect(),
        });
        series.push(Series {
            name: String::new(),
            color,
            style: Style::Dashed,
            points: v
                .iter()
                .map(|s| Pt { x: n_of(s), y: s.theory, lo: None, hi: None })
                .collect(),
        });
        if !promised {
            let bound = v[0].error_bound;
            series.push(Series {
                name: format!(
                    "its error bound P0/(1-r) = {}",
                    trim_number(bound)
                ),
                color,
                style: Style::Line,
                points: hline(bound),
            });
        }
    }
    for &p in &targets {
        series.push(Series {
            name: format!(
                "target P = {p} (= the error bound P0/(1-r) of the others)"
            ),
            color: 3,
            style: Style::Line,
            points: hline(p),
        });
    }
    series.push(Series {
        name: format!(
            "dashed: prediction 1-Π(1-P_i) from the layers' realised fill \
             (bars: {bars})"
        ),
        color: 7,
        style: Style::Dashed,
        points: Vec::new(),
    });
    // Room below the data for the legend.
    if y_min.is_finite() {
        series.push(headroom(x_min, y_min / 30.0));
    }
    let mut out = vec![Spec {
        stem: "scalable-growth-fpr".into(),
        title: "Scalable filters growing: false-positive rate vs items \
                inserted"
            .into(),
        x_label: "items inserted n (log scale; every filter starts at its \
                  initial capacity n0)"
            .into(),
        y_label: "false-positive rate (log scale)".into(),
        log_x: true,
        log_y: true,
        categories: Vec::new(),
        legend: Corner::LowerRight,
        reference: None,
        series,
    }];

    // Memory.
    let mut series = Vec::new();
    let mut top: f64 = 0.0;
    for (i, (name, v)) in groups.iter().enumerate() {
        let color = DATA_COLORS[i % DATA_COLORS.len()];
        let pts: Vec<Pt> = v
            .iter()
            .map(|s| Pt {
                x: n_of(s),
                y: s.bits_per_element(),
                lo: None,
                hi: None,
            })
            .collect();
        top = pts.iter().map(|p| p.y).fold(top, f64::max);
        series.push(Series {
            name: format!(
                "{name} ({} layers at n = {})",
                trim_number(v.last().map_or(f64::NAN, |s| s.layers)),
                si(v.last().map_or(f64::NAN, |s| n_of(s)))
            ),
            color,
            style: Style::Points,
            points: pts.clone(),
        });
        series.push(Series {
            name: String::new(),
            color,
            style: Style::Line,
            points: pts,
        });
    }
    for &p in &targets {
        let bits = (1.0 / p).log2();
        series.push(Series {
            name: format!(
                "fixed-size optimal filter for the final n at P = {p}: \
                 1.44 log2(1/P) = {}",
                trim_number(
                    (bits * std::f64::consts::LOG2_E * 100.0).round() / 100.0
                )
            ),
            color: 7,
            style: Style::Dashed,
            points: hline(bits * std::f64::consts::LOG2_E),
        });
        series.push(Series {
            name: format!(
                "information-theoretic minimum log2(1/P) = {}",
                trim_number((bits * 100.0).round() / 100.0)
            ),
            color: 7,
            style: Style::Line,
            points: hline(bits),
        });
    }
    series.push(headroom(x_min, 0.0));
    series.push(headroom(x_min, top * 1.6));
    out.push(Spec {
        stem: "scalable-growth-memory".into(),
        title: "Scalable filters growing: memory per item vs items inserted"
            .into(),
        x_label: "items inserted n (log scale)".into(),
        y_label: "bits per item inserted (all layers)".into(),
        log_x: true,
        log_y: false,
        categories: Vec::new(),
        legend: Corner::UpperRight,
        reference: None,
        series,
    });
    out
}

/// `10 bits/key` (or `p = 0.01`): the load of a summary.
fn load_name(s: &Summary) -> String {
    field(s, "bpe")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(axis_label(-3.0, true, 3.0), "1e-3");
        assert_eq!(axis_label(-1.0, true, 3.0), "0.1");
        assert_eq!(axis_label(-1.5, true, 3.0), "");
        // Within a decade or so, ticks between powers of ten show two
        // significant digits (whole numbers from 100).
        for (v, want) in [
            (-0.5, "0.32"),
            (-0.1, "0.79"),
            (0.1, "1.3"),
            (0.3, "2"),
            (0.4, "2.5"),
            (1.4, "25"),
            (2.1, "126"),
        ] {
            assert_eq!(axis_label(v, true, 1.0), want, "{v}");
        }
        assert_eq!(axis_label(2.5, false, 3.0), "2.5");
        assert_eq!(si(1_000_000.0), "1M");
        assert_eq!(si(20_000.0), "20k");
        assert_eq!(si(64.0), "64");
    }
}
