//! `bloomlab run`: sweep an experiment, write CSV, charts and report.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use bloomlab_runner::{Plan, sweep};
use serde_json::json;

use crate::output;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The experiment file (TOML; see experiments/FORMAT.md).
    experiment: PathBuf,
    /// Output folder (default: `notebooks-output/NAME`, NAME the
    /// experiment's name).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads, 1 to 1024 (default: every core).
    #[arg(long, value_parser = super::threads)]
    threads: Option<usize>,
    /// Fewer trials and queries (the experiment's `[quick]` factors).
    #[arg(long)]
    quick: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Print the per-point summaries as JSON lines instead of a table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let mut plan = Plan::load(&args.experiment)?;
    if args.quick {
        plan = plan.quick();
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("notebooks-output").join(&plan.name));
    let opts = sweep::Options {
        out: out.clone(),
        threads: args.threads,
        quiet: args.quiet,
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    let outcome = sweep::run(&plan, &opts)
        .with_context(|| format!("experiment {}", plan.name))?;
    print(&outcome, args.json)?;
    if !args.json {
        eprintln!(
            "wrote {}/results.csv, run.json, charts/ and report.html \
             ({} in {:.1} s)",
            out.display(),
            output::count(outcome.rows.len(), "trial"),
            outcome.info.timings.total
        );
    }
    // Everything is written (a failed trial's row carries its error). A
    // sweep may expect some failures (combinations the library refuses),
    // so they are a note; a run in which every trial failed measured
    // nothing, which is an error to a script.
    let mut failed = outcome.rows.iter().filter(|r| !r.err.is_empty());
    if let Some(first) = failed.next() {
        let (n, all) = (1 + failed.count(), outcome.rows.len());
        let what = format!(
            "{n} of {} failed (first: {}); their rows' err column says \
             why",
            output::count(all, "trial"),
            first.err
        );
        if n == all {
            bail!("{}: {what}", plan.name);
        }
        eprintln!("note: {what}");
    }
    Ok(())
}

/// Prints the per-point summaries and the invariants.
/// `--json` output of `run`, `verify` and `report`: one object per grid
/// point, then one `{"invariant": ...}` per declared invariant.
pub(crate) fn print_json(
    summaries: &[bloomlab_runner::results::Summary],
    checks: &[bloomlab_runner::results::Check],
) -> Result<()> {
    for s in summaries {
        output::json_line(&serde_json::to_value(s)?)?;
    }
    for c in checks {
        output::json_line(&json!({ "invariant": c }))?;
    }
    Ok(())
}

pub(crate) fn print(outcome: &sweep::Outcome, json: bool) -> Result<()> {
    use bloomlab_runner::report::rate;
    if json {
        return print_json(&outcome.summaries, &outcome.checks);
    }
    let rows: Vec<Vec<String>> = outcome
        .summaries
        .iter()
        .map(|s| {
            vec![
                s.point.to_string(),
                s.label.clone(),
                s.first.key_set.clone(),
                s.first.n.to_string(),
                // A point whose every trial failed has no filter to
                // describe: a dash, as the report's table has it.
                if s.m.is_finite() {
                    format!("{:.0}", s.m)
                } else {
                    "–".into()
                },
                if s.trials == 0 { "–".into() } else { s.k.to_string() },
                s.trials.to_string(),
                s.false_negatives.to_string(),
                rate(s.fpr),
                rate(s.theory),
                if s.z.is_finite() {
                    format!("{:+.2}{}", s.z, if s.asserted { "" } else { "*" })
                } else {
                    "–".into()
                },
                if s.error.is_empty() {
                    String::new()
                } else {
                    s.error.clone()
                },
            ]
        })
        .collect();
    output::table(
        &[
            "#", "DESIGN", "KEYS", "N", "M", "K", "FILTERS", "FN", "FPR",
            "THEORY", "Z", "ERR",
        ],
        &rows,
    )?;
    for c in &outcome.checks {
        output::line(format_args!(
            "invariant {} ({}): {} — {}",
            c.name,
            c.bound,
            if c.held { "held" } else { "FAILED" },
            c.detail
        ))?;
    }
    Ok(())
}
