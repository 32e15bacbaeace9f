//! `bloomlab list`: everything that can be chosen by name.

use anyhow::Result;
use bloomlab_hash::{Family, Reduction, Strategy};
use serde_json::json;

use crate::output;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// One JSON object per registered name.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    // (kind, name, description) for every registered name.
    let mut rows: Vec<(&str, &str, String)> = Vec::new();
    for f in Family::all() {
        let desc = format!(
            "{}-bit, {} seed: {}",
            f.output_bits(),
            match f.seed_kind() {
                bloomlab_hash::SeedKind::None => "no",
                bloomlab_hash::SeedKind::Int32 => "32-bit",
                bloomlab_hash::SeedKind::U64 => "64-bit",
            },
            f.description()
        );
        rows.push(("hash-family", f.name(), desc));
    }
    for s in Strategy::all() {
        rows.push(("strategy", s.name(), s.description().to_string()));
    }
    for r in Reduction::all() {
        let desc = match r {
            Reduction::Modulo => "x % m (Guava, RedisBloom, Redisson)",
            Reduction::MultiplyShift => "(x * m) >> w (Lemire), the default",
        };
        rows.push(("reduction", r.name(), desc.to_string()));
    }
    if args.json {
        for (kind, name, desc) in rows {
            output::json_line(&json!({
                "kind": kind, "name": name, "description": desc,
            }))?;
        }
        return Ok(());
    }
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|(k, n, d)| vec![k.to_string(), n.to_string(), d])
        .collect();
    output::table(&["KIND", "NAME", "DESCRIPTION"], &rows)
}
