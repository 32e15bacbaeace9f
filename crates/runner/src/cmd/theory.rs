//! `bloomlab theory`: Guava's sizing for (n, p), and the false-positive
//! rate of an (m, n, k) filter by every formula in `bloomlab_core::theory`.

use anyhow::{Result, bail};
use bloomlab_core::{sizing, theory};
use serde_json::{Value, json};

use crate::output;

/// Block size of the blocked-filter column (one cache line is 512 bits).
const BLOCK_BITS: u64 = 512;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Number of items inserted (at least 1).
    #[arg(long, allow_negative_numbers = true)]
    n: Option<u64>,
    /// Target false-positive probability, in (0, 1): size the filter as
    /// Guava does.
    #[arg(long, allow_negative_numbers = true)]
    p: Option<f64>,
    /// Bits in the filter (with --n and --k).
    #[arg(long, allow_negative_numbers = true)]
    m: Option<u64>,
    /// Probes per item (with --m and --n).
    #[arg(long, allow_negative_numbers = true)]
    k: Option<u32>,
    /// One JSON object with every figure.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let Some(n) = args.n else {
        bail!("--n is required: give --n N --p P, or --m M --n N --k K");
    };
    if n == 0 {
        bail!("--n 0: a filter's false-positive rate needs at least 1 item");
    }
    let mut report = serde_json::Map::new();
    let (m, k) = match (args.p, args.m, args.k) {
        (Some(p), None, None) => {
            let s = sizing::optimal(n, p)?;
            report.insert("m".into(), json!(s.optimal_bits));
            report.insert("m_rounded".into(), json!(s.bit_size));
            report.insert("p".into(), json!(p));
            (s.bit_size, s.hash_functions)
        }
        (None, Some(m), Some(k)) => {
            if m == 0 || k == 0 {
                bail!("--m and --k must be at least 1 (got m = {m}, k = {k})");
            }
            report.insert("m".into(), json!(m));
            report.insert("p".into(), Value::Null);
            (m, k)
        }
        _ => bail!("give either --n N --p P, or --m M --n N --k K"),
    };
    report.insert("n".into(), json!(n));
    report.insert("k".into(), json!(k));
    // The formulas describe the filter that really exists: for a sizing,
    // Guava's bit count rounded up to whole 64-bit words.
    report.insert("formulas_at_m".into(), json!(m));
    report.insert("bits_per_element".into(), json!(m as f64 / n as f64));

    let classical = theory::fpr_classical(m as f64, n as f64, f64::from(k));
    let discrete = theory::fpr_classical_discrete(m, n, k)?;
    report.insert("classical".into(), json!(classical));
    report.insert("classical_discrete".into(), json!(discrete));
    let mut notes = Vec::new();
    // A k past the exact formula's domain still gets the other figures.
    let (exact, method) = match theory::fpr_exact(m, n, k) {
        Ok(e) => (json!(e.value), json!(e.method.name())),
        Err(e) => {
            notes.push(format!("exact: {e}"));
            (Value::Null, Value::Null)
        }
    };
    report.insert("exact".into(), exact);
    report.insert("exact_method".into(), method);
    let partitioned = match theory::fpr_partitioned(m, n, k) {
        Ok(v) => json!(v),
        Err(e) => {
            notes.push(format!("partitioned: {e}"));
            Value::Null
        }
    };
    report.insert("partitioned".into(), partitioned);
    let blocked = match theory::fpr_blocked(
        m,
        n,
        k,
        BLOCK_BITS,
        theory::BlockInner::Exact,
    ) {
        Ok(v) => json!(v),
        Err(e) => {
            notes.push(format!("blocked_512: {e}"));
            Value::Null
        }
    };
    report.insert("blocked_512".into(), blocked);
    report.insert("notes".into(), json!(notes));

    if args.json {
        return output::json_line(&Value::Object(report));
    }
    print_text(&report)
}

fn print_text(r: &serde_json::Map<String, Value>) -> Result<()> {
    let get = |key: &str| r.get(key).cloned().unwrap_or(Value::Null);
    let fmt = |v: Value| match v {
        Value::Null => "n/a".to_string(),
        Value::Number(x) if x.is_f64() => {
            let f = x.as_f64().unwrap_or(f64::NAN);
            format!("{f:.6e}")
        }
        other => other.to_string(),
    };
    let mut rows = Vec::new();
    if r.contains_key("m_rounded") {
        rows.push(vec!["m (Guava's optimal bits)".into(), fmt(get("m"))]);
        rows.push(vec!["m rounded to 64".into(), fmt(get("m_rounded"))]);
        rows.push(vec!["target p".into(), fmt(get("p"))]);
    } else {
        rows.push(vec!["m".into(), fmt(get("m"))]);
    }
    rows.push(vec!["n".into(), fmt(get("n"))]);
    rows.push(vec!["k".into(), fmt(get("k"))]);
    rows.push(vec!["bits per element".into(), {
        let b = get("bits_per_element").as_f64().unwrap_or(f64::NAN);
        format!("{b:.3}")
    }]);
    rows.push(vec!["classical (1-e^-kn/m)^k".into(), fmt(get("classical"))]);
    rows.push(vec![
        "classical discrete (1-(1-1/m)^kn)^k".into(),
        fmt(get("classical_discrete")),
    ]);
    rows.push(vec![
        format!(
            "exact (Bose et al.; {})",
            get("exact_method").as_str().unwrap_or("not computed")
        ),
        fmt(get("exact")),
    ]);
    rows.push(vec!["partitioned (k slices)".into(), fmt(get("partitioned"))]);
    rows.push(vec!["blocked, 512-bit blocks".into(), fmt(get("blocked_512"))]);
    output::table(&["QUANTITY", "VALUE"], &rows)?;
    if let Some(Value::Array(notes)) = r.get("notes") {
        for note in notes {
            output::line(format_args!(
                "note: {}",
                note.as_str().unwrap_or_default()
            ))?;
        }
    }
    Ok(())
}
