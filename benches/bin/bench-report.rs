//! `bench-report SUITE`: the Markdown block of a bench suite (times,
//! ratios against the issues' targets, measured false-positive rates),
//! read from criterion's results and the bench's saved log; with
//! `--write`, written into the suite's README between its markers.
//! `bench-report targets` is the summary of every block's ratios against
//! the targets, read from the READMEs' blocks.
//!
//! `scripts/bench.sh` runs a suite and then this.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bloomlab_benches::report::{
    Accuracy, Error, READMES, Results, TARGETS, render, splice, suite,
    targets, write_atomically,
};
use clap::Parser;

#[derive(Parser)]
#[command(about = "Tables of a bench suite's results, from criterion's \
                   output (see scripts/bench.sh)")]
struct Args {
    /// The suite: standard, counting, counting-floor, window,
    /// partitioned, scalable, hash or redis; or `targets`, the summary
    /// of the blocks' ratios in benches/README.md.
    suite: String,
    /// Criterion's output directory. Given more than once (copies of it
    /// after each of several runs), each figure is the median of the
    /// runs' medians.
    #[arg(long, default_value = "target/criterion")]
    criterion: Vec<PathBuf>,
    /// The bench's saved output (stdout and stderr), for the measured
    /// false-positive rates and the notes (churn, redis filter) it
    /// prints.
    #[arg(long)]
    log: Option<PathBuf>,
    /// Only results written at or after this Unix time (the run's
    /// start), so every figure comes from the same run.
    #[arg(long, default_value_t = 0)]
    since: u64,
    /// Write the block into the suite's README (run from the workspace
    /// root) instead of printing it.
    #[arg(long)]
    write: bool,
    /// The block's name in the README (default: the suite's).
    #[arg(long)]
    block: Option<String>,
}

fn main() {
    if let Err(e) = run(Args::parse()) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run(args: Args) -> Result<()> {
    if args.suite == TARGETS {
        return summary(args.write);
    }
    let suite = suite(&args.suite)?;
    let results = match args.criterion.as_slice() {
        [one] => Results::read(one, args.since)?,
        dirs => Results::median(
            dirs.iter()
                .map(|d| Results::read(d, args.since))
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    let acc = match &args.log {
        Some(p) => Accuracy::parse(
            &std::fs::read_to_string(p)
                .with_context(|| format!("reading {}", p.display()))?,
        ),
        None => Accuracy::default(),
    };
    // The scalable bench's size comes from the environment.
    let env = match std::env::var("BLOOMLAB_SCALABLE_N") {
        Ok(n) if suite.name == "scalable" => {
            format!("BLOOMLAB_SCALABLE_N={n} ")
        }
        _ => String::new(),
    };
    let block = render(suite, &results, &acc, &env).ok_or_else(|| {
        Error::NoResults {
            path: args.criterion.first().cloned().unwrap_or_default(),
            suite: suite.name.to_owned(),
            requires: suite.requires,
        }
    })?;
    if !args.write {
        print!("{block}");
        return Ok(());
    }
    let name = args.block.as_deref().unwrap_or(suite.name);
    let path = Path::new(suite.readme);
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading {}", path.display()))?;
    write_into(path, &text, name, &block)
}

/// Writes `block` into `path` (whose text is `text`) between the markers
/// of block `name`.
fn write_into(path: &Path, text: &str, name: &str, block: &str) -> Result<()> {
    let Some(new) = splice(text, name, block) else {
        bail!(Error::NoMarkers {
            path: path.to_path_buf(),
            block: name.to_owned(),
        });
    };
    write_atomically(path, &new)?;
    eprintln!("wrote block {name} of {}", path.display());
    Ok(())
}

/// `bench-report targets`: prints the summary, or writes it into
/// benches/README.md.
fn summary(write: bool) -> Result<()> {
    let texts = READMES
        .iter()
        .map(|p| {
            std::fs::read_to_string(p).with_context(|| format!("reading {p}"))
        })
        .collect::<Result<Vec<_>>>()?;
    let readmes: Vec<(&str, &str)> = READMES
        .iter()
        .copied()
        .zip(texts.iter().map(String::as_str))
        .collect();
    let block = targets(&readmes);
    if !write {
        print!("{block}");
        return Ok(());
    }
    write_into(Path::new(READMES[0]), &texts[0], TARGETS, &block)
}
