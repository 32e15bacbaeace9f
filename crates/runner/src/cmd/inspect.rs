//! `bloomlab inspect`: what a saved filter is, whichever format.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::json;

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
    let loaded = bloomlab_standard::read_any(&bytes)
        .with_context(|| format!("{}", args.file.display()))?;
    let info = loaded.info();
    if args.json {
        return output::json_line(&json!({
            "file": args.file.display().to_string(),
            "format": info.format.to_string(),
            "variant": info.variant,
            "hash": info.family,
            "seed": info.seed,
            "strategy": info.strategy,
            "reduction": info.reduction,
            "m": info.m,
            "k": info.k,
            "block_bits": info.block_bits,
            "bits_set": info.bits_set,
            "estimated_count": info.estimated_count,
            "expected_fpp": info.expected_fpp,
            "bytes_of_memory": info.bytes_of_memory,
            "file_bytes": bytes.len(),
        }));
    }
    println!("file: {}", args.file.display());
    println!("{info}");
    Ok(())
}
