//! `bloomlab inspect`: what a saved filter is, whichever format, or what
//! a filter stored in Redis is.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::cmd::anyfilter::AnyFilter;
use crate::cmd::redisfilter::{RedisArgs, RedisFilter, Target};
use crate::output;

#[derive(Debug, clap::Args)]
#[command(group(
    clap::ArgGroup::new("source").required(true).args(["file", "redis"])
))]
pub(crate) struct Args {
    /// The saved filter (Guava's format or bloomlab's, detected).
    #[arg(conflicts_with_all = ["key", "redis_timeout_ms"])]
    file: Option<PathBuf>,
    #[command(flatten)]
    redis: RedisArgs,
    /// One JSON object.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    if let Some(target) = args.redis.target() {
        return inspect_redis(target, args.json);
    }
    // clap's "source" group asks for the file without --redis.
    let Some(file) = &args.file else {
        bail!("give FILE or --redis URL --key NAME");
    };
    let bytes = std::fs::read(file)
        .with_context(|| format!("reading {}", file.display()))?;
    let filter = AnyFilter::read(&bytes)
        .with_context(|| format!("{}", file.display()))?;
    if args.json {
        let mut v = filter.describe_json();
        if let Value::Object(m) = &mut v {
            m.insert("file".into(), json!(file.display().to_string()));
            m.insert("file_bytes".into(), json!(bytes.len()));
        }
        return output::json_line(&v);
    }
    output::line(format_args!("file: {}", file.display()))?;
    output::line(format_args!("{}", filter.describe()))?;
    Ok(())
}

/// Reads the whole filter out of Redis and describes it with the file
/// path's formatter; the fields Redis does not keep are left out, and
/// the bytes it takes in Redis added.
fn inspect_redis(target: Target<'_>, json: bool) -> Result<()> {
    let conn = target.connect()?;
    let mut redis = RedisFilter::open(conn, target)?;
    let filter = redis.export(target)?;
    let untracked = redis.untracked_fields();
    let redis_bytes =
        redis.redis_bytes().map_err(|e| target.error(e, "measuring"))?;
    if json {
        let mut v = filter.describe_json();
        if let Value::Object(m) = &mut v {
            for field in untracked {
                m.remove(*field);
            }
            m.insert("format".into(), json!("redis"));
            m.insert("redis".into(), json!(target.shown_url()));
            m.insert("key".into(), json!(target.key));
            m.insert("redis_bytes".into(), json!(redis_bytes));
        }
        return output::json_line(&v);
    }
    output::line(format_args!("redis: {}", target.shown_url()))?;
    output::line(format_args!("key: {}", target.key))?;
    for line in filter.describe().lines() {
        let label = line.split_once(':').map_or(line, |(l, _)| l);
        if untracked.iter().any(|f| f.replace('_', " ") == label) {
            continue;
        }
        if label == "format" {
            output::line(format_args!("format: redis"))?;
        } else {
            output::line(format_args!("{line}"))?;
        }
    }
    match redis_bytes {
        Some(b) => output::line(format_args!("bytes in redis: {b}"))?,
        None => output::line(format_args!(
            "bytes in redis: unknown (MEMORY USAGE refused)"
        ))?,
    }
    Ok(())
}
