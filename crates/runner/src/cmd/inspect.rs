//! `bloomlab inspect`: what a saved filter is, whichever format.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::json;

use crate::cmd::anyfilter::AnyFilter;
use crate::output;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The saved filter (Guava's format or bloomlab's, detected).
    file: PathBuf,
    /// One JSON object.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("reading {}", args.file.display()))?;
    let filter = AnyFilter::read(&bytes)
        .with_context(|| format!("{}", args.file.display()))?;
    if args.json {
        let mut v = filter.describe_json();
        if let serde_json::Value::Object(m) = &mut v {
            m.insert("file".into(), json!(args.file.display().to_string()));
            m.insert("file_bytes".into(), json!(bytes.len()));
        }
        return output::json_line(&v);
    }
    println!("file: {}", args.file.display());
    println!("{}", filter.describe());
    Ok(())
}
