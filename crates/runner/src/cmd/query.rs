//! `bloomlab query`: ask a saved filter (either format) about items.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde_json::json;

use crate::cmd::anyfilter::AnyFilter;
use crate::cmd::funnel;
use crate::output;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The saved filter (Guava's format or bloomlab's, detected).
    #[arg(long)]
    filter: PathBuf,
    /// How items become bytes: utf8 (default), long, int or bytes, as
    /// when the filter was built.
    #[arg(long, default_value = "utf8")]
    funnel: String,
    /// Probes, one per line.
    #[arg(long, conflicts_with = "items")]
    input: Option<PathBuf>,
    /// Probes given on the command line.
    items: Vec<String>,
    /// One JSON object per probe: {"item", "result"}.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let funnel = funnel::parse(&args.funnel)?;
    let bytes = std::fs::read(&args.filter)
        .with_context(|| format!("reading {}", args.filter.display()))?;
    let loaded = AnyFilter::read(&bytes)
        .with_context(|| format!("{}", args.filter.display()))?;
    let filter = loaded.as_filter();
    let probes: Vec<Vec<u8>> = match &args.input {
        Some(path) => output::read_lines(path)?,
        None if args.items.is_empty() => {
            bail!("nothing to query: give --input PROBES or items")
        }
        None => args.items.iter().map(|s| s.as_bytes().to_vec()).collect(),
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (i, probe) in probes.iter().enumerate() {
        let key = funnel::key_bytes(funnel, probe)
            .with_context(|| format!("probe {}", i + 1))?;
        let hit = filter.contains_bytes(&key);
        let shown = String::from_utf8_lossy(probe);
        if args.json {
            use std::io::Write;
            serde_json::to_writer(
                &mut out,
                &json!({"item": shown, "result": hit}),
            )?;
            writeln!(out)?;
        } else {
            use std::io::Write;
            writeln!(out, "{shown}\t{hit}")?;
        }
    }
    use std::io::Write;
    out.flush()?;
    Ok(())
}
