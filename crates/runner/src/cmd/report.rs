//! `bloomlab report`: rebuild charts and report.html from results.csv.

use std::path::PathBuf;

use anyhow::Result;
use bloomlab_runner::report;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A folder written by `bloomlab run` (results.csv and run.json).
    dir: PathBuf,
    /// The grid points and invariants as JSON, one object per line (as
    /// `run --json` prints them), instead of the summary line.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let (sums, checks) = report::rebuild(&args.dir)?;
    if args.json {
        return super::run::print_json(&sums, &checks);
    }
    let held = checks.iter().filter(|c| c.held).count();
    let invariants = match checks.len() {
        0 => "the experiment declares no invariants".to_owned(),
        n => format!("{held} of {n} invariants held"),
    };
    eprintln!(
        "rebuilt {}/report.html and charts/ from {}; {invariants}",
        args.dir.display(),
        crate::output::count(sums.len(), "grid point"),
    );
    Ok(())
}
