//! `bloomlab verify`: run an experiment small and check its invariants.

use std::path::PathBuf;

use anyhow::{Result, bail};
use bloomlab_runner::{Plan, sweep};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The experiment file.
    experiment: PathBuf,
    /// Keep the results in this folder (default: a temporary folder,
    /// removed afterwards).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads, 1 to 1024 (default: every core).
    #[arg(long, value_parser = super::threads)]
    threads: Option<usize>,
    /// Run the experiment at full size instead of its quick size.
    #[arg(long)]
    full: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Print summaries and invariants as JSON lines.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let mut plan = Plan::load(&args.experiment)?;
    if !args.full {
        plan = plan.quick();
    }
    let tmp = tempfile::tempdir()?;
    let out = args.out.clone().unwrap_or_else(|| tmp.path().join("out"));
    let opts = sweep::Options {
        out,
        threads: args.threads,
        quiet: args.quiet,
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    let outcome = sweep::run(&plan, &opts)?;
    super::run::print(&outcome, args.json)?;
    let failed: Vec<String> = outcome
        .checks
        .iter()
        .filter(|c| !c.held)
        .map(|c| format!("{} ({}): {}", c.name, c.bound, c.detail))
        .collect();
    // (Failed trials are the failed check `trials-ran`.)
    if !failed.is_empty() {
        bail!(
            "{}: {} invariant(s) failed: {}",
            plan.name,
            failed.len(),
            failed.join("; ")
        );
    }
    if outcome.checks.is_empty() {
        eprintln!("{}: no invariants declared; nothing to check", plan.name);
    }
    Ok(())
}
