//! `bloomlab query`: ask a saved filter (either format), or one stored in
//! Redis, about items.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde_json::json;

use crate::cmd::anyfilter::AnyFilter;
use crate::cmd::funnel;
use crate::cmd::redisfilter::{RedisArgs, RedisFilter, Target};
use crate::output;

#[derive(Debug, clap::Args)]
#[command(group(
    clap::ArgGroup::new("source").required(true).args(["filter", "redis"])
))]
pub(crate) struct Args {
    /// The saved filter (Guava's format or bloomlab's, detected).
    #[arg(
        long,
        conflicts_with_all = ["key", "redis_timeout_ms", "batch_size"]
    )]
    filter: Option<PathBuf>,
    #[command(flatten)]
    redis: RedisArgs,
    /// With --redis: probes sent per round trip.
    #[arg(
        long,
        requires = "redis",
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u64).range(1..=1_000_000)
    )]
    batch_size: u64,
    /// How items become bytes: utf8 (default), long, int or bytes, as
    /// when the filter was built.
    #[arg(long, default_value = "utf8")]
    funnel: String,
    /// Probes, one per line (`-`: standard input).
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
    let probes: Vec<Vec<u8>> = match &args.input {
        Some(path) => output::read_lines(path)?,
        None if args.items.is_empty() => {
            bail!("nothing to query: give --input PROBES or items")
        }
        None => args.items.iter().map(|s| s.as_bytes().to_vec()).collect(),
    };
    let keys = probes
        .iter()
        .enumerate()
        .map(|(i, probe)| {
            funnel::key_bytes(funnel, probe)
                .with_context(|| format!("probe {}", i + 1))
        })
        .collect::<Result<Vec<_>>>()?;
    let hits = match (args.redis.target(), &args.filter) {
        (Some(target), _) => query_redis(target, &keys, args.batch_size)?,
        (None, Some(path)) => {
            let bytes = std::fs::read(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let loaded = AnyFilter::read(&bytes)
                .with_context(|| format!("{}", path.display()))?;
            // The batch call: the filters that prefetch on large sizes do.
            let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
            let mut hits = vec![false; refs.len()];
            loaded.as_filter().contains_batch(&refs, &mut hits);
            hits
        }
        // clap's "source" group asks for one of them.
        (None, None) => bail!("give --filter FILE or --redis URL --key NAME"),
    };

    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (probe, hit) in probes.iter().zip(hits) {
        let shown = String::from_utf8_lossy(probe);
        if args.json {
            serde_json::to_writer(
                &mut out,
                &json!({"item": shown, "result": hit}),
            )?;
            writeln!(out)?;
        } else {
            writeln!(out, "{shown}\t{hit}")?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The answers of the filter in Redis, `batch` keys per round trip.
fn query_redis(
    target: Target<'_>,
    keys: &[Vec<u8>],
    batch: u64,
) -> Result<Vec<bool>> {
    let conn = target.connect()?;
    let mut filter = RedisFilter::open(conn, target)?;
    let batch = usize::try_from(batch).unwrap_or(usize::MAX);
    let mut hits = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(batch) {
        let answers = filter
            .contains_many(chunk)
            .map_err(|e| target.error(e, "querying"))?;
        hits.extend(answers);
    }
    Ok(hits)
}
