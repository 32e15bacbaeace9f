//! Every filter the CLI can save and load, behind one type: the file's
//! first bytes say which crate reads it.

use anyhow::{Result, anyhow, bail};
use bloomlab_core::Filter;
use bloomlab_counting::CountingBloomFilter;
use bloomlab_partitioned::AnyPartitioned;
use bloomlab_runner::variants::LayerLayout;
use bloomlab_scalable::ScalableBloomFilter;
use bloomlab_standard::{Format, StandardFilter};
use serde_json::{Value, json};

/// bloomlab's native files start with this magic, then a `u16` version,
/// then the variant byte (see each crate's FORMAT.md).
const MAGIC: &[u8; 8] = b"BLOOMLAB";
const VARIANT_OFFSET: usize = 10;
const VARIANT_COUNTING: u8 = 2;
const VARIANT_PARTITIONED: u8 = 3;
const VARIANT_SCALABLE: u8 = 4;

/// A filter of any variant, and the format it is (to be) saved in.
pub(crate) enum AnyFilter {
    /// Classic or blocked (`bloomlab-standard`), native or Guava format.
    Standard(StandardFilter, Format),
    /// Partitioned or a hutool preset (`bloomlab-partitioned`), native.
    Partitioned(AnyPartitioned),
    /// Counting filter (`bloomlab-counting`), native.
    Counting(CountingBloomFilter),
    /// Scalable filter (`bloomlab-scalable`), native.
    Scalable(ScalableBloomFilter),
}

impl AnyFilter {
    /// Reads a saved filter, detecting its format and variant.
    pub(crate) fn read(bytes: &[u8]) -> Result<AnyFilter> {
        let variant = (bytes.len() > VARIANT_OFFSET
            && bytes.starts_with(MAGIC))
        .then(|| bytes[VARIANT_OFFSET]);
        match variant {
            Some(VARIANT_PARTITIONED) => {
                Ok(AnyFilter::Partitioned(AnyPartitioned::read(bytes)?))
            }
            Some(VARIANT_SCALABLE) => {
                Ok(AnyFilter::Scalable(ScalableBloomFilter::read(bytes)?))
            }
            Some(VARIANT_COUNTING) => {
                Ok(AnyFilter::Counting(bloomlab_counting::read(bytes)?))
            }
            _ => {
                let loaded = bloomlab_standard::read_any(bytes)?;
                Ok(AnyFilter::Standard(loaded.filter, loaded.format))
            }
        }
    }

    /// The filter through the runner's trait.
    pub(crate) fn as_filter(&self) -> &dyn Filter {
        match self {
            AnyFilter::Standard(f, _) => f.as_filter(),
            AnyFilter::Partitioned(f) => f.as_filter(),
            AnyFilter::Counting(f) => f,
            AnyFilter::Scalable(f) => f,
        }
    }

    /// The filter through the runner's trait, mutably.
    pub(crate) fn as_filter_mut(&mut self) -> &mut dyn Filter {
        match self {
            AnyFilter::Standard(f, _) => f.as_filter_mut(),
            AnyFilter::Partitioned(f) => f.as_filter_mut(),
            AnyFilter::Counting(f) => f,
            AnyFilter::Scalable(f) => f,
        }
    }

    /// Inserts a key; returns whether it changed the filter. A scalable
    /// filter answers as `BF.ADD` does, and a full non-scaling one is an
    /// error (`ERR non scaling filter is full`) rather than a silent no.
    pub(crate) fn insert(&mut self, key: &[u8]) -> Result<bool> {
        match self {
            AnyFilter::Scalable(f) => Ok(f.add(key)?),
            other => Ok(other.as_filter_mut().insert_bytes(key)),
        }
    }

    /// The format the filter was read in or will be written in.
    pub(crate) fn format(&self) -> Format {
        match self {
            AnyFilter::Standard(_, format) => *format,
            AnyFilter::Partitioned(_)
            | AnyFilter::Counting(_)
            | AnyFilter::Scalable(_) => Format::Native,
        }
    }

    /// Sets the format to write in; Guava's only holds standard filters
    /// Guava could have made, which is checked here, before any item is
    /// inserted.
    pub(crate) fn set_format(&mut self, format: Format) -> Result<()> {
        match (self, format) {
            (AnyFilter::Standard(s, f), _) => {
                if format == Format::Guava {
                    let fits = match s {
                        StandardFilter::Classic(c) => {
                            bloomlab_standard::guava::guava_header(c).map(drop)
                        }
                        StandardFilter::Blocked(_) => {
                            bail!(
                                "Guava's format holds no blocked filter; use \
                                 --variant standard or --format native"
                            )
                        }
                    };
                    fits.map_err(|e| {
                        anyhow!(
                            "--format guava: {e}; build with --preset guava \
                             for Guava's filter, or use --format native"
                        )
                    })?;
                }
                *f = format;
            }
            (_, Format::Native) => {}
            (_, Format::Guava) => bail!(
                "Guava's format holds only standard filters; use \
                 --format native"
            ),
        }
        Ok(())
    }

    /// The file's bytes.
    pub(crate) fn to_bytes(&self) -> Result<Vec<u8>> {
        Ok(match self {
            AnyFilter::Standard(f, format) => f.to_bytes(*format)?,
            AnyFilter::Partitioned(f) => f.to_bytes()?,
            AnyFilter::Counting(f) => f.to_bytes()?,
            AnyFilter::Scalable(f) => f.to_bytes()?,
        })
    }

    /// What `inspect` prints, as text.
    pub(crate) fn describe(&self) -> String {
        match self {
            AnyFilter::Standard(f, format) => f.describe(*format).to_string(),
            AnyFilter::Partitioned(f) => f.info().to_string(),
            AnyFilter::Counting(f) => f.info().to_string(),
            AnyFilter::Scalable(f) => describe_scalable(f, self.format()),
        }
    }

    /// What `inspect --json` prints: the same keys for every variant
    /// (`null` where a field does not apply).
    pub(crate) fn describe_json(&self) -> Value {
        let f = self.as_filter();
        let mut v = json!({
            "format": self.format().to_string(),
            "variant": f.variant(),
            "m": f.bits(),
            "k": f.hash_count(),
            "bits_set": f.bits_set(),
            "expected_fpp": f.expected_fpp(),
            "bytes_of_memory": f.bytes_of_memory(),
        });
        let extra = match self {
            AnyFilter::Standard(s, format) => {
                let i = s.describe(*format);
                json!({
                    "preset": Value::Null,
                    "hash": i.family,
                    "seed": i.seed,
                    "strategy": i.strategy,
                    "reduction": i.reduction,
                    "block_bits": i.block_bits,
                    "estimated_count": i.estimated_count,
                })
            }
            AnyFilter::Partitioned(p) => {
                let i = p.info();
                json!({
                    "preset": i.preset,
                    "constructor": i.constructor,
                    "hash": i.hash,
                    "seed": i.seed,
                    "strategy": i.strategy,
                    "reduction": i.reduction,
                    "estimated_count": i.estimated_count,
                })
            }
            AnyFilter::Counting(c) => {
                let i = c.info();
                json!({
                    "preset": Value::Null,
                    "hash": i.family,
                    "seed": i.seed,
                    "strategy": i.strategy,
                    "reduction": i.reduction,
                    "counter_bits": i.counter_bits,
                    "saturated_counters": i.saturated_counters,
                    "inserts": i.stats.inserts,
                    "removes": i.stats.removes,
                    "rejected_removes": i.stats.rejected_removes,
                    "saturation_events": i.stats.saturation_events,
                    "skipped_decrements": i.stats.skipped_decrements,
                    "estimated_count": i.estimated_count,
                })
            }
            AnyFilter::Scalable(f) => {
                let i = f.info();
                let layers: Vec<Value> = i
                    .layers
                    .iter()
                    .map(|l| {
                        json!({
                            "capacity": l.capacity,
                            "error": l.error,
                            "bits": l.bits,
                            "k": l.k,
                            "count": l.count,
                            "bits_set": l.bits_set,
                        })
                    })
                    .collect();
                let (hash, seed, strategy, pairing, reduction) = hashing(f);
                json!({
                    "preset": f.preset(),
                    "hash": hash,
                    "seed": seed,
                    "strategy": strategy,
                    "pairing": pairing,
                    "reduction": reduction,
                    "capacity": i.capacity,
                    "items": i.items,
                    "skipped": i.skipped,
                    "filters": i.filters,
                    "layer_layout": layer_layout(f),
                    "expansion": i.expansion,
                    "tightening": f.config().tightening,
                    "error": i.error,
                    "error_bound": i.error_bound,
                    "compounded_error": i.compounded_error,
                    "redis_size": i.redis_size,
                    "estimated_count": f.estimated_count(),
                    "layers": layers,
                })
            }
        };
        if let (Value::Object(a), Value::Object(b)) = (&mut v, extra) {
            a.extend(b);
        }
        v
    }
}

/// `inspect`'s lines for a scalable filter: `key: value`, as the other
/// variants' (format, variant, m, k, bits set, estimated count, expected
/// fpp, ...), then one line per layer.
fn describe_scalable(f: &ScalableBloomFilter, format: Format) -> String {
    let i = f.info();
    let expansion =
        i.expansion.map_or("none (non-scaling)".to_owned(), |s| s.to_string());
    let (hash, seed, strategy, pairing, reduction) = hashing(f);
    let mut lines =
        vec![format!("format: {format}"), format!("variant: {}", f.variant())];
    if let Some(p) = f.preset() {
        lines.push(format!("preset: {p}"));
    }
    lines.extend([
        format!("hash: {hash}"),
        format!("seed: {seed}"),
        format!("strategy: {strategy}"),
        format!("pairing: {pairing}"),
        format!("reduction: {reduction}"),
        format!("layer layout: {}", layer_layout(f)),
        format!("expansion: {expansion}"),
        format!("tightening: {}", f.config().tightening),
        format!("error: {}", i.error),
        format!("error bound: {}", i.error_bound),
        format!("capacity: {}", i.capacity),
        format!("items: {}", i.items),
        format!("skipped: {}", i.skipped),
        format!("layers: {}", i.filters),
        format!("m: {}", f.bits()),
        format!("k: {}", f.hash_count()),
        format!("bits set: {}", f.bits_set()),
        format!("estimated count: {:.1}", f.estimated_count()),
        // The layers' compounded error at their current fill.
        format!("expected fpp: {:e}", f.expected_fpp()),
        format!("bytes of memory: {}", f.bytes_of_memory()),
        format!("redis size: {}", i.redis_size),
    ]);
    lines.extend(i.layers.iter().enumerate().map(|(n, l)| {
        format!(
            "layer {n}: capacity {} error {} bits {} k {} count {} \
             bits set {}",
            l.capacity, l.error, l.bits, l.k, l.count, l.bits_set
        )
    }));
    lines.join("\n")
}

/// A scalable filter's hash family, seed, strategy (how a key's `(a, b)`
/// become its probes; blocked layers place theirs in one block), pairing
/// and reduction, by the names `bloomlab list` uses.
fn hashing(
    f: &ScalableBloomFilter,
) -> (&'static str, u64, &str, &str, String) {
    use bloomlab_scalable::{Layout, Pairing, Probe};
    let c = f.config();
    let strategy = match (c.layout, c.probe) {
        (Layout::Blocked, _) => "split-block",
        (_, Probe::Double) => "double",
        (_, Probe::EnhancedDouble) => "enhanced-double",
        (_, Probe::MixedDouble) => "mixed-double",
    };
    let pairing = match c.pairing {
        Pairing::Chained => "chained",
        Pairing::Single => "single",
    };
    (c.family.name(), c.seed, strategy, pairing, c.reduction.to_string())
}

/// The name `build --layer-layout` and experiments use for a scalable
/// filter's layout.
fn layer_layout(f: &ScalableBloomFilter) -> &'static str {
    LayerLayout::ALL
        .into_iter()
        .find(|l| l.layout() == f.config().layout)
        .map_or("unknown", LayerLayout::name)
}
