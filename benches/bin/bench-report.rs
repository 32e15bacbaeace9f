//! `bench-report SUITE`: the Markdown block of a bench suite (times,
//! ratios against the issues' targets, measured false-positive rates),
//! read from criterion's results and the bench's saved log; with
//! `--readme`, written into the README between the suite's markers.
//!
//! `scripts/bench.sh` runs a suite and then this.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use bloomlab_benches::report::{
    Accuracy, Error, Results, render, splice, suite, write_atomically,
};
use clap::Parser;

#[derive(Parser)]
#[command(about = "Tables of a bench suite's results, from criterion's \
                   output (see scripts/bench.sh)")]
struct Args {
    /// The suite: standard or counting.
    suite: String,
    /// Criterion's output directory.
    #[arg(long, default_value = "target/criterion")]
    criterion: PathBuf,
    /// The bench's saved output (stdout and stderr), for the measured
    /// false-positive rates it prints.
    #[arg(long)]
    log: Option<PathBuf>,
    /// Only results written at or after this Unix time (the run's
    /// start), so every figure comes from the same run.
    #[arg(long, default_value_t = 0)]
    since: u64,
    /// Write the block into this README instead of printing it.
    #[arg(long)]
    readme: Option<PathBuf>,
}

fn main() {
    if let Err(e) = run(Args::parse()) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run(args: Args) -> Result<()> {
    let suite = suite(&args.suite)?;
    let results = Results::read(&args.criterion, args.since)?;
    let acc = match &args.log {
        Some(p) => Accuracy::parse(
            &std::fs::read_to_string(p)
                .with_context(|| format!("reading {}", p.display()))?,
        ),
        None => Accuracy::default(),
    };
    let block =
        render(suite, &results, &acc).ok_or_else(|| Error::NoResults {
            path: args.criterion.clone(),
            suite: suite.name.to_owned(),
        })?;
    match &args.readme {
        None => print!("{block}"),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let Some(new) = splice(&text, suite.name, &block) else {
                bail!(Error::NoMarkers {
                    path: path.clone(),
                    suite: suite.name.to_owned(),
                });
            };
            write_atomically(path, &new)?;
            eprintln!("wrote the {} block of {}", suite.name, path.display());
        }
    }
    Ok(())
}
