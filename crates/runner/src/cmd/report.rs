//! `bloomlab report`: rebuild charts and report.html from results.csv.

use std::path::PathBuf;

use anyhow::Result;
use bloomlab_runner::report;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A folder written by `bloomlab run` (results.csv and run.json).
    dir: PathBuf,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let (sums, checks) = report::rebuild(&args.dir)?;
    let held = checks.iter().filter(|c| c.held).count();
    eprintln!(
        "rebuilt {}/report.html and charts/ from {} grid points; {} of {} \
         invariants held",
        args.dir.display(),
        sums.len(),
        held,
        checks.len()
    );
    Ok(())
}
