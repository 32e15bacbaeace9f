//! `bloomlab build`: a filter from an items file, saved in Guava's format
//! or bloomlab's own, or stored in Redis (`--redis URL --key NAME`).

use std::collections::HashSet;
use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use bloomlab_core::sizing::GuavaSizing;
use bloomlab_counting::{CounterWidth, CountingBloomFilter};
use bloomlab_hash::{Family, Reduction, Strategy};
use bloomlab_partitioned::{
    AnyPartitioned, Config as PartitionedConfig, PartitionedBloomFilter,
};
use bloomlab_runner::variants::LayerLayout;
use bloomlab_scalable::{
    Config as ScalableConfig, Error as ScalableError, Layout,
    ScalableBloomFilter,
};
use bloomlab_standard::{
    BlockScheme, Builder, Config, DEFAULT_BLOCKED_FAMILY, Format, Size,
    StandardFilter, guava,
};
use serde_json::json;

use crate::cmd::anyfilter::AnyFilter;
use crate::cmd::funnel;
use crate::cmd::redisfilter::{RedisArgs, RedisFilter, Spec, Target};
use crate::output;

/// Variants this build of `bloomlab build` can make.
const VARIANTS: &str = "standard, blocked, counting, partitioned, scalable";

#[derive(Debug, clap::Args)]
#[command(group(
    clap::ArgGroup::new("destination").required(true).args(["out", "redis"])
))]
#[command(after_help = REDIS_HELP)]
pub(crate) struct Args {
    /// Filter variant: standard, blocked, counting, partitioned or
    /// scalable; with --redis, standard (default), counting or scalable.
    #[arg(long, required_unless_present = "redis")]
    variant: Option<String>,
    /// A preset reproducing another library's filter: guava (variant
    /// standard: murmur3 x64_128, MITZ_64 or MITZ_32, Guava's sizing),
    /// hutool-bitmap or hutool-bitset (variant partitioned: hutool's
    /// BitMapBloomFilter and BitSetBloomFilter, bit for bit), redisbloom,
    /// almeida or pybloom-live (variant scalable: RedisBloom's SBChain bit
    /// for bit, Almeida et al.'s and pybloom-live's settings).
    #[arg(long)]
    preset: Option<String>,
    /// Output format: guava (Guava's writeTo, Guava-compatible standard
    /// filters only) or native. Default: guava for --preset guava, else
    /// native.
    #[arg(long, conflicts_with = "redis")]
    format: Option<String>,
    /// Index strategy (see `bloomlab list`).
    #[arg(long)]
    strategy: Option<String>,
    /// Hash family (see `bloomlab list`); default xxh3-128 for standard
    /// and counting filters, xxh3-64 for blocked and partitioned filters
    /// (the library's defaults).
    #[arg(long = "hash")]
    family: Option<String>,
    /// Range reduction: modulo or multiply-shift.
    #[arg(long)]
    reduction: Option<String>,
    /// Hash seed.
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<i128>,
    /// Bits per counter of a counting filter: 2, 4 (default) or 8.
    #[arg(long, allow_negative_numbers = true)]
    counter_bits: Option<u32>,
    /// Block size in bits of a blocked filter (a power of two >= 64).
    #[arg(long, allow_negative_numbers = true)]
    block_bits: Option<u64>,
    /// How a blocked filter places a key's bits in its block:
    /// blocked-salted-multiply (salted, the default) or
    /// parquet-split-block (parquet-split: Parquet's split blocks, 256
    /// bits, k = 8, sized by their own formula).
    #[arg(long)]
    block_scheme: Option<String>,
    /// Layer layout of a scalable filter without a preset: standard,
    /// partitioned or blocked (default: the library's, blocked).
    #[arg(long)]
    layer_layout: Option<String>,
    /// Growth s of a scalable filter without a preset: each new layer
    /// holds s times the items of the one before, s >= 1 (default: the
    /// library's, 4).
    #[arg(long, allow_negative_numbers = true)]
    growth: Option<u64>,
    /// Tightening r of a scalable filter without a preset: each new
    /// layer's error is r times the one before's, 0 < r < 1 (default:
    /// the library's, 0.75).
    #[arg(long, allow_negative_numbers = true)]
    tightening: Option<f64>,
    /// How items become bytes: utf8 (default), long, int (decimal) or
    /// bytes (hex), as Guava's funnels.
    #[arg(long, default_value = "utf8")]
    funnel: String,
    /// Expected number of items (with --p): Guava's sizing (a build
    /// with more distinct items warns on stderr); for a scalable filter,
    /// its initial capacity.
    #[arg(long, allow_negative_numbers = true)]
    n: Option<u64>,
    /// Target false-positive probability (with --n).
    #[arg(long, allow_negative_numbers = true)]
    p: Option<f64>,
    /// Bits, or counters of a counting filter (with --k).
    #[arg(long, allow_negative_numbers = true)]
    m: Option<u64>,
    /// Probes per item (with --m).
    #[arg(long, allow_negative_numbers = true)]
    k: Option<u32>,
    /// The preset's own constructor arguments in its own order
    /// (guava: expectedInsertions,fpp; hutool-bitmap: m; hutool-bitset:
    /// c,n,k; redisbloom: error,capacity then optionally expansion and
    /// the word nonscaling; almeida: n0,p; pybloom-live: n0,p and
    /// optionally growth).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    preset_args: Vec<String>,
    /// Items, one per line (`-`: standard input).
    #[arg(long)]
    input: PathBuf,
    /// Where to save the filter (written to a temporary file, then
    /// renamed).
    #[arg(
        long,
        conflicts_with_all = ["key", "redis_timeout_ms", "batch_size"]
    )]
    out: Option<PathBuf>,
    #[command(flatten)]
    redis: RedisArgs,
    /// With --redis: items sent per round trip (each batch is inserted
    /// atomically).
    #[arg(
        long,
        requires = "redis",
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u64).range(1..=1_000_000)
    )]
    batch_size: u64,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

impl Args {
    /// `--variant`; only a `--redis` build may leave it out.
    fn variant(&self) -> &str {
        self.variant.as_deref().unwrap_or("standard")
    }
}

/// What `build --help` says about Redis, below the flags.
const REDIS_HELP: &str = "\
With --redis URL --key NAME the filter is stored in Redis instead of a \
file (variants standard, counting and scalable; --preset guava gives \
Guava's bit positions, the scalable presets their own layers). If filter \
NAME already exists with exactly the same parameters, the items are added \
to it: several processes may build one filter, a shard each. If it \
exists with other parameters (or is not a bloomlab filter), the build \
fails and changes nothing. Items go in batches of --batch-size, one round \
trip each; if a batch fails, the batches before it are stored and the \
error says how many items that is. A batch is stored whole or not at all: \
one the server refused is not stored, and one whose reply did not come \
(a timeout, a dropped connection) may be; check with query before \
building again, since a counting filter would count it twice. After the \
build the filter is read back once, to report its expected \
false-positive rate and warn when it holds more items than it is sized \
for.";

pub(crate) fn run(args: Args) -> Result<()> {
    let funnel = funnel::parse(&args.funnel)?;
    // Read and convert every item before building anything, so a bad
    // line fails fast and no file is written (nor Redis touched).
    let lines = output::read_lines(&args.input)?;
    let keys = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            funnel::key_bytes(funnel, l).with_context(|| {
                format!("{} line {}", output::input_name(&args.input), i + 1)
            })
        })
        .collect::<Result<Vec<_>>>()?;

    if let Some(target) = args.redis.target() {
        return build_in_redis(&args, target, &keys);
    }
    // clap's "destination" group makes --out present without --redis.
    let Some(out) = &args.out else {
        bail!("give --out FILE or --redis URL --key NAME");
    };

    let mut filter = make_filter(&args)?;
    if let Some(f) = &args.format {
        filter.set_format(Format::from_name(f)?)?;
    }
    let mut changed = 0usize;
    for (i, key) in keys.iter().enumerate() {
        let new = filter
            .insert(key)
            .map_err(|e| growth_hint(e, &args, &filter))
            .with_context(|| {
                format!("{} line {}", output::input_name(&args.input), i + 1)
            })?;
        changed += usize::from(new);
    }
    let bytes = filter.to_bytes()?;
    bloomlab_runner::sweep::write_atomic(out, &bytes)?;

    let format = filter.format();
    let f = filter.as_filter();
    let held = Held::Distinct(&keys);
    if let Some(warning) = overfull_warning(&args, held, f.expected_fpp()) {
        eprintln!("{warning}");
    }
    if args.json {
        output::json_line(&json!({
            "out": out.display().to_string(),
            "format": format.to_string(),
            "variant": f.variant(),
            "items": keys.len(),
            "inserts_changing_bits": changed,
            "m": f.bits(),
            "k": f.hash_count(),
            "bits_set": f.bits_set(),
            "expected_fpp": f.expected_fpp(),
            "bytes": bytes.len(),
        }))
    } else {
        output::line(format_args!(
            "wrote {} ({} format, {} bytes): {} filter, m = {}, k = {}, \
             {} items ({} inserts changed it), expected fpp {}",
            out.display(),
            format,
            bytes.len(),
            f.variant(),
            f.bits(),
            f.hash_count(),
            keys.len(),
            changed,
            rate(f.expected_fpp())
        ))?;
        Ok(())
    }
}

/// A line for stderr when the items outnumber the capacity the filter
/// was sized for, which it does not grow past (every variant but
/// `scalable`), when its expected false-positive rate is above the
/// target: the filter is still written, as asked, but the user should
/// know. `held` is how many distinct items the filter holds: this
/// build's, or for a filter in Redis, which other builds may share, its
/// estimate from the bits.
fn overfull_warning(
    args: &Args,
    held: Held,
    expected_fpp: f64,
) -> Option<String> {
    let (n, p, flag) = sized_for(args)?;
    let (items, said) = match held {
        Held::Distinct(keys) => {
            // Duplicates set no new bits: count each item once.
            let d = keys.iter().collect::<HashSet<_>>().len();
            (d as f64, format!("{d} distinct items"))
        }
        Held::Estimated(x) => {
            (x, format!("about {x:.0} items (estimated from its bits)"))
        }
    };
    // Sizes round up (Guava's to whole words), so a few items more may
    // still be within the target: only a missed target is worth a word.
    (items > n as f64 && expected_fpp > p).then(|| {
        let more = if items.is_finite() {
            format!("{items:.0} or more")
        } else {
            "more".to_owned()
        };
        format!(
            "warning: {said}, more than the {n} the filter is sized for: \
             its expected false-positive rate is {}, not {p}; size it for \
             the items ({flag} {more}) or build --variant scalable",
            rate(expected_fpp)
        )
    })
}

/// What [`overfull_warning`] counts as the filter's items.
enum Held<'a> {
    /// The keys a file build inserted.
    Distinct(&'a [Vec<u8>]),
    /// A shared filter's estimate from its bits.
    Estimated(f64),
}

/// The capacity and target false-positive rate a fixed-size filter was
/// sized for, when the build names them, and the flag that sets the
/// capacity: `--n`/`--p`, or preset guava's `expectedInsertions,fpp`
/// (Guava sizes 0 as 1).
fn sized_for(args: &Args) -> Option<(u64, f64, &'static str)> {
    match args.preset.as_deref() {
        _ if args.variant() == "scalable" => None,
        Some("guava") => {
            let (n, p, _) = guava_params(args).ok()?;
            let flag = if args.preset_args.is_empty() {
                "--n"
            } else {
                "--preset-args expectedInsertions"
            };
            Some((u64::try_from(n).ok()?.max(1), p, flag))
        }
        Some(_) => None,
        // The standard filter sizes n = 0 as Guava's 1 (the others
        // refuse it before a warning could be given).
        None => Some((args.n?.max(1), args.p?, "--n")),
    }
}

/// A rate as people read it: four decimals down to 0.001, then
/// scientific (`9.773e-5`); an empty filter's exact 0 as `0`, not
/// `0.000e0`.
fn rate(x: f64) -> String {
    if x == 0.0 {
        "0".to_owned()
    } else if x >= 1e-3 {
        format!("{x:.4}")
    } else {
        format!("{x:.3e}")
    }
}

/// `--redis URL --key NAME`: creates the filter (or opens an identical
/// one) and inserts `keys` in batches, one round trip each.
fn build_in_redis(
    args: &Args,
    target: Target<'_>,
    keys: &[Vec<u8>],
) -> Result<()> {
    // Every parameter is checked before connecting.
    let spec = redis_spec(args)?;
    spec.check(target.key)
        .map_err(|e| anyhow!("filter {:?}: {e}", target.key))?;
    let conn = target.connect()?;
    let mut filter = RedisFilter::create(conn, target.key, spec)
        .map_err(|e| target.error(e, "creating"))?;
    let batch = usize::try_from(args.batch_size).unwrap_or(usize::MAX);
    let mut changed = 0usize;
    let mut done = 0usize;
    for chunk in keys.chunks(batch) {
        changed += filter.insert_many(chunk).map_err(|e| {
            // Batches are atomic: those before this one are in; this one
            // is not if it was refused, and unknown if its reply never
            // came (the script may have run).
            let unknown = matches!(&e, bloomlab_redis::Error::Redis(r)
                if r.is_timeout() || r.is_io_error() || r.is_connection_dropped());
            let fate = if unknown {
                " (stored whole or not at all: the reply did not come, so \
                 check with query before building again)"
            } else {
                ""
            };
            let what = format!(
                "after storing {done} items, inserting items {}..={}{fate} \
                 of {} into",
                done + 1,
                done + chunk.len(),
                output::input_name(&args.input),
            );
            target.error(e, &what)
        })?;
        done += chunk.len();
    }
    let variant = filter.variant();
    let (m, k) = filter.shape().map_err(|e| target.error(e, "reading"))?;
    // The filter may be shared by other builds: its rate and fill come
    // from its bits, read back once.
    let copy = filter.export(target)?;
    let f = copy.as_filter();
    let expected_fpp = f.expected_fpp();
    let held = Held::Estimated(f.estimated_count());
    if let Some(warning) = overfull_warning(args, held, expected_fpp) {
        eprintln!("{warning}");
    }
    let redis_bytes =
        filter.redis_bytes().map_err(|e| target.error(e, "measuring"))?;
    let url = target.shown_url();
    if args.json {
        return output::json_line(&json!({
            "redis": url,
            "key": target.key,
            "format": "redis",
            "variant": variant,
            "items": keys.len(),
            "inserts_changing_bits": changed,
            "m": m,
            "k": k,
            "expected_fpp": expected_fpp,
            "redis_bytes": redis_bytes,
        }));
    }
    let bytes = match redis_bytes {
        Some(b) => format!("{b} bytes in Redis"),
        None => "MEMORY USAGE refused".to_owned(),
    };
    output::line(format_args!(
        "stored {url} key {} ({bytes}): {variant} filter, m = {m}, k = {k}, \
         {} items ({changed} inserts changed it), expected fpp {}",
        target.key,
        keys.len(),
        rate(expected_fpp),
    ))?;
    Ok(())
}

/// What a `--redis` build creates: the same hashing and sizing as the
/// file build given the same flags, without allocating the filter.
fn redis_spec(args: &Args) -> Result<Spec> {
    let variant = args.variant();
    if args.block_bits.is_some() || args.block_scheme.is_some() {
        bail!(
            "--block-bits and --block-scheme are for blocked filters, not \
             stored in Redis"
        );
    }
    refuse_scalable_flags(args)?;
    match args.preset.as_deref() {
        // The file build's own checks and presets, then its parameters:
        // only the first layer is allocated, to be dropped.
        _ if variant == "scalable" => {
            let AnyFilter::Scalable(f) =
                scalable(args, args.preset.as_deref())?
            else {
                bail!("variant scalable did not build a scalable filter");
            };
            return Ok(Spec::Scalable(*f.config()));
        }
        Some("guava") => {
            let (n, p, strategy) = guava_params(args)?;
            let s = GuavaSizing::new(n, p)?;
            return Ok(Spec::Standard {
                config: Config::guava(strategy),
                m: s.bit_size,
                k: s.hash_functions,
            });
        }
        Some(other) => bail!(
            "preset {other:?} is not available with --redis for variant \
             {variant}; it takes --preset guava (standard), and redisbloom, \
             almeida or pybloom-live (scalable)"
        ),
        None if !args.preset_args.is_empty() => {
            bail!("--preset-args needs a --preset")
        }
        None => {}
    }
    let config = config(args)?;
    match variant {
        "standard" => {
            if args.counter_bits.is_some() {
                bail!("--counter-bits is for counting filters");
            }
            let (m, k) = size(args)?.resolve()?;
            Ok(Spec::Standard { config, m, k })
        }
        "counting" => {
            if let Some(bits) = args.counter_bits
                && CounterWidth::from_bits(bits)? != CounterWidth::Four
            {
                bail!(
                    "a counting filter in Redis has 4-bit counters; drop \
                     --counter-bits {bits}"
                );
            }
            let (m, k) = size(args)?.resolve()?;
            Ok(Spec::Counting { config, m, k })
        }
        other => bail!(
            "variant {other:?} is not supported with --redis; use standard, \
             counting or scalable"
        ),
    }
}

/// The hashing flags over the default configuration.
fn config(args: &Args) -> Result<Config> {
    let mut c = Config::default();
    if let Some(f) = &args.family {
        c.family = Family::from_name(f)?;
    }
    if let Some(s) = args.seed {
        c.seed = s;
    }
    if let Some(s) = &args.strategy {
        c.strategy = Strategy::from_name(s)?;
    }
    if let Some(r) = &args.reduction {
        c.reduction = Reduction::from_name(r)?;
    }
    Ok(c)
}

/// The size asked for: `--n/--p`, `--m/--k`, or a preset's arguments.
fn size(args: &Args) -> Result<Size> {
    match (args.n, args.p, args.m, args.k) {
        (Some(n), Some(p), None, None) => Ok(Size::Rate { n, p }),
        (None, None, Some(m), Some(k)) => Ok(Size::Bits { m, k }),
        _ => bail!("give either --n N --p P or --m M --k K"),
    }
}

fn make_filter(args: &Args) -> Result<AnyFilter> {
    refuse_scalable_flags(args)?;
    refuse_variant_flags(args)?;
    match (args.variant(), args.preset.as_deref()) {
        (_, Some("guava")) => {
            return Ok(AnyFilter::Standard(
                guava_preset(args)?,
                Format::Guava,
            ));
        }
        ("partitioned", Some("hutool-bitmap" | "hutool-bitset")) => {
            return hutool_preset(args);
        }
        ("scalable", Some(preset)) => return scalable(args, Some(preset)),
        (variant, Some(other)) => bail!(
            "unknown preset {other:?} for variant {variant}; this build \
             knows: guava (standard), hutool-bitmap and hutool-bitset \
             (partitioned), redisbloom, almeida and pybloom-live (scalable)"
        ),
        _ => {}
    }
    if !args.preset_args.is_empty() {
        bail!("--preset-args needs a --preset");
    }
    if args.variant() == "partitioned" {
        return partitioned(args);
    }
    if args.variant() == "counting" {
        return counting(args);
    }
    if args.variant() == "scalable" {
        return scalable(args, None);
    }
    let mut b = Builder::sized(size(args)?).config(config(args)?);
    if args.family.is_none() && args.variant() == "blocked" {
        // As the library builds a blocked filter given no family.
        b = b.family(DEFAULT_BLOCKED_FAMILY);
    }
    if let Some(bits) = args.block_bits {
        b = b.block_bits(bits);
    }
    if let Some(name) = &args.block_scheme {
        let scheme = BlockScheme::from_name(name).ok_or_else(|| {
            anyhow!(
                "unknown --block-scheme {name:?}; known: {}",
                BlockScheme::ALL.map(BlockScheme::name).join(", ")
            )
        })?;
        b = b.block_scheme(scheme);
    }
    let filter: StandardFilter = match args.variant() {
        "standard" => b.build()?.into(),
        "blocked" => {
            if args.strategy.is_some() || args.reduction.is_some() {
                bail!(
                    "a blocked filter places its bits by its own scheme; \
                     drop --strategy and --reduction"
                );
            }
            b.build_blocked()?.into()
        }
        other => bail!(
            "variant {other:?} is not available in this build; \
             available: {VARIANTS}"
        ),
    };
    Ok(AnyFilter::Standard(filter, Format::Native))
}

/// Refuses `--counter-bits` off a counting filter and `--block-bits` or
/// `--block-scheme` off a blocked one, presets included, rather than
/// building a filter without them (a scalable filter names its own).
fn refuse_variant_flags(args: &Args) -> Result<()> {
    let variant = args.variant();
    if variant == "scalable" {
        return Ok(());
    }
    let shown = match &args.preset {
        Some(p) => format!("{variant} (preset {p})"),
        None => variant.to_owned(),
    };
    if args.counter_bits.is_some()
        && (variant != "counting" || args.preset.is_some())
    {
        bail!("--counter-bits is for counting filters, not {shown}; drop it");
    }
    if (args.block_bits.is_some() || args.block_scheme.is_some())
        && (variant != "blocked" || args.preset.is_some())
    {
        bail!(
            "--block-bits and --block-scheme are for blocked filters, not \
             {shown}; drop them"
        );
    }
    Ok(())
}

/// `--variant partitioned` without a preset: k slices of m/k bits.
fn partitioned(args: &Args) -> Result<AnyFilter> {
    let mut config = PartitionedConfig::default();
    if let Some(f) = &args.family {
        config.family = Family::from_name(f)?;
    }
    if let Some(seed) = args.seed {
        config.seed = config.family.check_seed(seed)?;
    }
    if let Some(s) = &args.strategy {
        config.strategy = Strategy::from_name(s)?;
    }
    if let Some(r) = &args.reduction {
        config.reduction = Reduction::from_name(r)?;
    }
    let filter = match size(args)? {
        Size::Rate { n, p } => {
            PartitionedBloomFilter::with_rate(n, p, config)?
        }
        Size::Bits { m, k } => {
            if k == 0 || m % u64::from(k) != 0 {
                bail!(
                    "a partitioned filter has k slices of m/k bits: m = {m} \
                     must be a multiple of k = {k}"
                );
            }
            PartitionedBloomFilter::with_config(config, k, m / u64::from(k))?
        }
    };
    Ok(AnyFilter::Partitioned(filter.into()))
}

/// `--variant counting`: `m` counters of `--counter-bits` bits.
fn counting(args: &Args) -> Result<AnyFilter> {
    let mut b = match size(args)? {
        Size::Rate { n, p } => CountingBloomFilter::builder(n, p),
        Size::Bits { m, k } => CountingBloomFilter::builder_counters(m, k),
    }
    .config(config(args)?);
    if let Some(bits) = args.counter_bits {
        b = b.width(CounterWidth::from_bits(bits)?);
    }
    Ok(AnyFilter::Counting(b.build()?))
}

/// `--variant scalable`: grows from `--n` (the initial capacity) at
/// target error `--p`, with `--layer-layout`, `--growth` and
/// `--tightening` over the library's defaults; presets take their own
/// constructors' arguments: redisbloom `error,capacity`, then optionally
/// `expansion` and `nonscaling` (as `BF.RESERVE`), almeida `n0,p`,
/// pybloom-live `n0,p` and optionally `growth`.
fn scalable(args: &Args, preset: Option<&str>) -> Result<AnyFilter> {
    // Each layer's hashing and size follow from the layout, n and p.
    let given: Vec<&str> = [
        ("--hash", args.family.is_some()),
        ("--strategy", args.strategy.is_some()),
        ("--reduction", args.reduction.is_some()),
        ("--seed", args.seed.is_some()),
        ("--block-bits", args.block_bits.is_some()),
        ("--block-scheme", args.block_scheme.is_some()),
        ("--counter-bits", args.counter_bits.is_some()),
        ("--m", args.m.is_some()),
        ("--k", args.k.is_some()),
    ]
    .into_iter()
    .filter_map(|(flag, set)| set.then_some(flag))
    .collect();
    if !given.is_empty() {
        let verb = if given.len() == 1 { "does" } else { "do" };
        bail!(
            "{} {verb} not apply to a scalable filter: it is set by --n \
             (initial capacity) and --p (target error), with --layer-layout, \
             --growth and --tightening, or by a preset's --preset-args",
            given.join(", ")
        );
    }
    let a: Vec<&str> = args.preset_args.iter().map(|s| s.trim()).collect();
    let num = |s: &str, what: &str| -> Result<f64> {
        s.parse::<f64>()
            .with_context(|| format!("--preset-args: {what} {s:?}"))
    };
    let int = |s: &str, what: &str| -> Result<u64> {
        s.parse::<u64>()
            .with_context(|| format!("--preset-args: {what} {s:?}"))
    };
    let filter = match preset {
        None => {
            if !a.is_empty() {
                bail!("--preset-args needs a --preset");
            }
            let (Some(n0), Some(p)) = (args.n, args.p) else {
                bail!("a scalable filter needs --n N0 --p P (or a preset)");
            };
            tuned_scalable(args, n0, p)?
        }
        Some(_) if args.n.is_some() || args.p.is_some() => {
            bail!("scalable presets take --preset-args, not --n/--p")
        }
        Some(p @ ("redisbloom" | "almeida" | "pybloom-live"))
            if scalable_flag(args).is_some() =>
        {
            bail!(
                "preset {p} fixes the layer layout, growth and tightening; \
                 drop --layer-layout, --growth and --tightening (redisbloom \
                 and pybloom-live take a growth in --preset-args)"
            )
        }
        Some("redisbloom") => {
            let (error, capacity, rest) = match a.as_slice() {
                [e, c, rest @ ..] if rest.len() <= 2 => {
                    (num(e, "error")?, int(c, "capacity")?, rest)
                }
                _ => bail!(
                    "preset redisbloom takes --preset-args \
                     error,capacity[,expansion][,nonscaling]"
                ),
            };
            let mut expansion = None;
            let mut nonscaling = false;
            for r in rest {
                if r.eq_ignore_ascii_case("nonscaling") {
                    nonscaling = true;
                } else {
                    let e = u32::try_from(int(r, "expansion")?)
                        .context("--preset-args: expansion too large")?;
                    expansion = Some(e);
                }
            }
            ScalableBloomFilter::redisbloom_reserve(
                error, capacity, expansion, nonscaling,
            )?
        }
        Some("almeida") => match a.as_slice() {
            [n0, p] => ScalableBloomFilter::almeida(
                int(n0, "initial capacity")?,
                num(p, "error")?,
            )?,
            _ => bail!("preset almeida takes --preset-args n0,p"),
        },
        Some("pybloom-live") => match a.as_slice() {
            [n0, p] | [n0, p, _] => ScalableBloomFilter::pybloom_live(
                int(n0, "initial capacity")?,
                num(p, "error")?,
                match a.get(2) {
                    Some(g) => int(g, "growth")?,
                    None => 4,
                },
            )?,
            _ => {
                bail!("preset pybloom-live takes --preset-args n0,p[,growth]")
            }
        },
        Some(other) => bail!(
            "unknown preset {other:?} for variant scalable; known: \
             redisbloom, almeida, pybloom-live"
        ),
    };
    Ok(AnyFilter::Scalable(filter))
}

/// The first of `--layer-layout`, `--growth` and `--tightening` given.
fn scalable_flag(args: &Args) -> Option<&'static str> {
    [
        (args.layer_layout.is_some(), "--layer-layout"),
        (args.growth.is_some(), "--growth"),
        (args.tightening.is_some(), "--tightening"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

/// The scalable-only flags with any other variant are an error.
fn refuse_scalable_flags(args: &Args) -> Result<()> {
    match scalable_flag(args) {
        Some(flag) if args.variant() != "scalable" => bail!(
            "{flag} is for variant scalable, not {}; drop it or use \
             --variant scalable",
            args.variant()
        ),
        _ => Ok(()),
    }
}

/// bloomlab's scalable filter for `n0` and `p`, with `--layer-layout`,
/// `--growth` and `--tightening` over the library's defaults. The
/// library checks them; its refusal is turned into the flag to change.
fn tuned_scalable(
    args: &Args,
    n0: u64,
    p: f64,
) -> Result<ScalableBloomFilter> {
    let mut c = ScalableConfig::new(n0, p);
    if let Some(name) = &args.layer_layout {
        let l = LayerLayout::from_name(name)
            .map_err(|e| anyhow!("--layer-layout: {e}"))?;
        c = c.layout(l.layout());
    }
    if let Some(s) = args.growth {
        c = c.growth(s);
    }
    if let Some(r) = args.tightening {
        c = c.tightening(r);
    }
    ScalableBloomFilter::with_config(c).map_err(|e| tuning_error(e, &c))
}

/// Names the flag to change when the library refuses `c`; other
/// refusals (`--n`, `--p`) pass through as they were.
fn tuning_error(e: ScalableError, c: &ScalableConfig) -> anyhow::Error {
    match &e {
        ScalableError::InvalidParameter { name: "s", .. } => {
            anyhow!("--growth {}: {e}; give a growth of 1 or more", c.growth)
        }
        // r is checked before P0 = P(1 - r); with P and r valid, P0 is
        // in (0, 1), so "p0" is only a fallback.
        ScalableError::InvalidParameter { name: "r" | "p0", .. } => {
            anyhow!(
                "--tightening {}: {e}; give a ratio strictly between 0 and 1",
                c.tightening
            )
        }
        // The first layer cannot be built: nothing has grown yet, so the
        // library's "cannot grow" is said as what it is.
        ScalableError::CannotGrow(why) => {
            let first = format!(
                "the first layer (capacity {}, error {:e}) cannot be built: \
                 {why}",
                c.initial_capacity, c.first_error
            );
            // A blocked layer's k is capped (MAX_BLOCKED_K): a tight
            // error needs another layout or a looser --p.
            if c.layout == Layout::Blocked && why.contains("probes") {
                anyhow!(
                    "{first}; blocked layers (the default --layer-layout) \
                     take errors down to 2^-64: use --layer-layout standard \
                     or partitioned, or a larger --p"
                )
            } else {
                anyhow!("{first}; lower --n (the first layer's capacity)")
            }
        }
        ScalableError::Core(bloomlab_core::Error::AllocationFailed {
            bytes,
            ..
        }) => anyhow!(
            "could not allocate {bytes} bytes for the first layer; lower \
             --n (its capacity) or raise --p"
        ),
        _ => e.into(),
    }
}

/// A scalable filter that cannot build its next layer (only found when
/// the items need it): names the flags that set the chain, unless a
/// preset fixed them.
fn growth_hint(e: anyhow::Error, args: &Args, f: &AnyFilter) -> anyhow::Error {
    let AnyFilter::Scalable(f) = f else {
        return e;
    };
    let cannot_grow = matches!(
        e.downcast_ref::<ScalableError>(),
        Some(ScalableError::CannotGrow(_))
    );
    if !cannot_grow || args.preset.is_some() {
        return e;
    }
    let other = if f.config().layout == Layout::Blocked {
        ", or use --layer-layout standard or partitioned"
    } else {
        ""
    };
    anyhow!(
        "{e}; raise --p, --tightening or --growth (fewer, looser \
         layers){other}"
    )
}

/// `--preset hutool-bitmap --preset-args M` (`new BitMapBloomFilter(M)`)
/// and `--preset hutool-bitset --preset-args C,N,K`
/// (`new BitSetBloomFilter(C, N, K)`).
fn hutool_preset(args: &Args) -> Result<AnyFilter> {
    if args.family.is_some()
        || args.strategy.is_some()
        || args.reduction.is_some()
        || args.seed.is_some()
        || args.n.is_some()
        || args.p.is_some()
        || args.m.is_some()
        || args.k.is_some()
    {
        bail!(
            "hutool presets take only --preset-args (their Java constructor's \
             arguments); drop --hash, --strategy, --reduction, --seed, --n, \
             --p, --m and --k"
        );
    }
    let ints = args
        .preset_args
        .iter()
        .map(|a| {
            a.trim().parse::<i32>().with_context(|| {
                format!("--preset-args: {a:?} is not a Java int")
            })
        })
        .collect::<Result<Vec<i32>>>()?;
    let filter: AnyPartitioned =
        match (args.preset.as_deref(), ints.as_slice()) {
            (Some("hutool-bitmap"), [m]) => {
                bloomlab_partitioned::hutool_bitmap(*m)?.into()
            }
            (Some("hutool-bitset"), [c, n, k]) => {
                bloomlab_partitioned::hutool_bitset(*c, *n, *k)?.into()
            }
            (Some("hutool-bitmap"), _) => {
                bail!("preset hutool-bitmap takes --preset-args M (megabytes)")
            }
            _ => bail!("preset hutool-bitset takes --preset-args C,N,K"),
        };
    Ok(AnyFilter::Partitioned(filter))
}

/// `--preset guava`: `BloomFilter.create(funnel, n, p[, strategy])`.
fn guava_preset(args: &Args) -> Result<StandardFilter> {
    let (n, p, strategy) = guava_params(args)?;
    Ok(guava::create(n, p, strategy)?.into())
}

/// `--preset guava`'s `(expectedInsertions, fpp, strategy)`, checked.
fn guava_params(args: &Args) -> Result<(i64, f64, Strategy)> {
    if !args.preset_args.is_empty() && (args.n.is_some() || args.p.is_some()) {
        bail!("give --n/--p or --preset-args, not both");
    }
    if args.variant() != "standard" {
        bail!("preset guava is a standard filter; use --variant standard");
    }
    if args.family.is_some() || args.reduction.is_some() || args.seed.is_some()
    {
        bail!(
            "preset guava fixes the hash (murmur3-x64-128, seed 0) and the \
             reduction (modulo); drop --hash, --seed and --reduction"
        );
    }
    if args.m.is_some() || args.k.is_some() {
        bail!(
            "preset guava sizes the filter from --n and --p (or \
             --preset-args expectedInsertions,fpp); drop --m and --k"
        );
    }
    let strategy = match &args.strategy {
        None => Strategy::GuavaMitz64,
        Some(s) => match Strategy::from_name(s)? {
            st @ (Strategy::GuavaMitz32 | Strategy::GuavaMitz64) => st,
            other => bail!(
                "preset guava takes --strategy guava-mitz64 or guava-mitz32, \
                 not {other}"
            ),
        },
    };
    let (n, p) = match (args.preset_args.as_slice(), args.n, args.p) {
        ([n, p], None, None) => (
            n.trim().parse::<i64>().with_context(|| {
                format!("--preset-args: expectedInsertions {n:?}")
            })?,
            p.trim()
                .parse::<f64>()
                .with_context(|| format!("--preset-args: fpp {p:?}"))?,
        ),
        ([], Some(n), Some(p)) => {
            (i64::try_from(n).context("--n must be below 2^63")?, p)
        }
        _ => bail!(
            "preset guava is sized by --n N --p P or \
             --preset-args expectedInsertions,fpp"
        ),
    };
    Ok((n, p, strategy))
}

#[cfg(test)]
mod tests {
    use super::rate;

    #[test]
    fn rates_print_fixed_scientific_or_zero() {
        assert_eq!(rate(0.0), "0");
        assert_eq!(rate(9.772_832_440_196_482e-3), "0.0098");
        assert_eq!(rate(1.0), "1.0000");
        assert_eq!(rate(1.096e-22), "1.096e-22");
    }
}
