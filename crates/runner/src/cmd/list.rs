//! `bloomlab list`: everything that can be chosen by name.

use anyhow::Result;
use bloomlab_hash::{Family, Reduction, Strategy};
use serde_json::json;

use bloomlab_runner::keys;
use bloomlab_runner::variants::{ScalablePreset, Variant};

use crate::output;

/// Presets of `bloomlab build --preset` (and, for Guava's, of experiment
/// grids): another library's filter, reproduced bit for bit. The
/// scalable presets follow, from [`ScalablePreset`] (RedisBloom's bit for
/// bit; a paper's or pybloom-live's settings).
const PRESETS: [(&str, &str); 4] = [
    ("guava", "standard: Guava's BloomFilter.create, MURMUR128_MITZ_64"),
    (
        "guava-mitz32",
        "standard, experiments (build: --preset guava --strategy \
         guava-mitz32): Guava's legacy MURMUR128_MITZ_32",
    ),
    (
        "hutool-bitmap",
        "partitioned: hutool's BitMapBloomFilter(m) (its filter-list \
         constructor: the library's hutool_bitmap_with)",
    ),
    ("hutool-bitset", "partitioned: hutool's BitSetBloomFilter(c, n, k)"),
];

fn key_set_description(name: &str) -> &'static str {
    match name {
        "random-u64" => {
            "random 64-bit integers (8 bytes LE, Guava's longFunnel)"
        }
        "sequential" => "consecutive 64-bit integers",
        "item" => "\"item-{i}\" strings",
        "url" => "URLs sharing scheme, host and path prefixes",
        "uuid" => "version-4 UUID strings, from the seed",
        "md5-hex" => "MD5 hex digests of decimal integers",
        "words" => "short words and word pairs from the bundled CC0 list",
        _ => "",
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// One JSON object per registered name.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    // (kind, name, description) for every registered name.
    let mut rows: Vec<(&str, &str, String)> = Vec::new();
    for v in Variant::ALL {
        let status = if !v.available() {
            " (not yet available)"
        } else if v == Variant::Atomic {
            // The same bits as `standard`, filled from many threads.
            " (experiments only; `build --variant standard` makes its bits)"
        } else {
            ""
        };
        rows.push((
            "variant",
            v.name(),
            format!("{}{status}", v.crate_name()),
        ));
    }
    for (name, desc) in PRESETS {
        rows.push(("preset", name, desc.to_string()));
    }
    for p in ScalablePreset::ALL {
        rows.push(("preset", p.name(), p.description().to_string()));
    }
    for name in keys::BUILT_IN {
        rows.push(("key-set", name, key_set_description(name).to_string()));
    }
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
