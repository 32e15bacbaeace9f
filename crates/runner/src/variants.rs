//! The variant registry: one match arm per filter variant builds a
//! `Box<dyn Filter>` from a grid point, and one names the formula its
//! false-positive rate should match (`THEORY.md` §11).

use bloomlab_core::{Filter, theory};
use bloomlab_hash::{Family, Reduction, Strategy};
use bloomlab_standard::{BLOCK_SCHEME, Builder, Config, Size};

use crate::experiment::{KChoice, Point, Sizing};

/// A filter variant, by the name experiments use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// The classic filter (`bloomlab-standard`).
    Standard,
    /// The classic filter with lock-free inserts (`bloomlab-standard`).
    Atomic,
    /// The cache-blocked filter (`bloomlab-standard`).
    Blocked,
    /// The partitioned filter (`bloomlab-partitioned`).
    Partitioned,
    /// The counting filter (`bloomlab-counting`).
    Counting,
    /// The scalable filter (`bloomlab-scalable`).
    Scalable,
}

impl Variant {
    /// Every variant, available or not.
    pub const ALL: [Variant; 6] = [
        Variant::Standard,
        Variant::Atomic,
        Variant::Blocked,
        Variant::Partitioned,
        Variant::Counting,
        Variant::Scalable,
    ];

    /// The name experiments and results use.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Atomic => "atomic",
            Variant::Blocked => "blocked",
            Variant::Partitioned => "partitioned",
            Variant::Counting => "counting",
            Variant::Scalable => "scalable",
        }
    }

    /// The crate that provides it.
    pub fn crate_name(self) -> &'static str {
        match self {
            Variant::Standard | Variant::Atomic | Variant::Blocked => {
                "bloomlab-standard"
            }
            Variant::Partitioned => "bloomlab-partitioned",
            Variant::Counting => "bloomlab-counting",
            Variant::Scalable => "bloomlab-scalable",
        }
    }

    /// Whether this build of the runner can run it.
    pub fn available(self) -> bool {
        matches!(
            self,
            Variant::Standard
                | Variant::Atomic
                | Variant::Blocked
                | Variant::Partitioned
                | Variant::Counting
                | Variant::Scalable
        )
    }

    /// Looks a variant up by name; unknown and not-yet-available variants
    /// are errors that say which is which.
    pub fn from_name(name: &str) -> Result<Variant, String> {
        let Some(v) = Variant::ALL.into_iter().find(|v| v.name() == name)
        else {
            return Err(format!(
                "unknown variant `{name}` (known: {})",
                Variant::ALL.map(Variant::name).join(", ")
            ));
        };
        if !v.available() {
            return Err(format!(
                "variant `{name}` is not available yet: it arrives with the \
                 {} crate (available now: {})",
                v.crate_name(),
                Variant::ALL
                    .into_iter()
                    .filter(|v| v.available())
                    .map(Variant::name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Ok(v)
    }
}

/// A preset: a library's own configuration, reproduced bit for bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
    /// Guava's `BloomFilter`: murmur3-x64-128, `MURMUR128_MITZ_64`, `% m`,
    /// seed 0.
    Guava,
    /// Guava's legacy `MURMUR128_MITZ_32` strategy.
    GuavaMitz32,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 2] = [Preset::Guava, Preset::GuavaMitz32];

    /// The name experiments use.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Guava => "guava",
            Preset::GuavaMitz32 => "guava-mitz32",
        }
    }

    /// Looks a preset up by name.
    pub fn from_name(name: &str) -> Result<Preset, String> {
        Preset::ALL.into_iter().find(|p| p.name() == name).ok_or_else(|| {
            format!(
                "unknown preset `{name}` (known: none, {}; hutool presets \
                 arrive with the partitioned variant)",
                Preset::ALL.map(Preset::name).join(", ")
            )
        })
    }

    fn strategy(self) -> Strategy {
        match self {
            Preset::Guava => Strategy::GuavaMitz64,
            Preset::GuavaMitz32 => Strategy::GuavaMitz32,
        }
    }
}

/// The settings a scalable filter is built with: a library's, or
/// bloomlab's shaped by `growth`, `tightening` and `layer-layout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalablePreset {
    /// RedisBloom's SBChain (`BF.RESERVE key P n0 EXPANSION s`): bit for
    /// bit, MurmurHash64A with seed 0, `r = 0.5`, standard layers.
    RedisBloom,
    /// Almeida et al.'s slow-growth settings: `s = 2`, `r = 0.85`,
    /// partitioned layers.
    Almeida,
    /// Almeida et al.'s fast-growth settings: `s = 4`, `r = 0.75`.
    AlmeidaFast,
    /// pybloom-live's parameters: `r = 0.9`, first layer at `0.9·P`
    /// (error bound `9P`), growth `s`, partitioned layers.
    PybloomLive,
}

impl ScalablePreset {
    /// Every scalable preset.
    pub const ALL: [ScalablePreset; 4] = [
        ScalablePreset::RedisBloom,
        ScalablePreset::Almeida,
        ScalablePreset::AlmeidaFast,
        ScalablePreset::PybloomLive,
    ];

    /// The name experiments use.
    pub fn name(self) -> &'static str {
        match self {
            ScalablePreset::RedisBloom => "redisbloom",
            ScalablePreset::Almeida => "almeida",
            ScalablePreset::AlmeidaFast => "almeida-fast",
            ScalablePreset::PybloomLive => "pybloom-live",
        }
    }

    /// Looks a scalable preset up by name (`none`: bloomlab's settings).
    pub fn from_name(name: &str) -> Result<Option<ScalablePreset>, String> {
        if name == "none" {
            return Ok(None);
        }
        ScalablePreset::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "unknown scalable-preset `{name}` (known: none, {})",
                    ScalablePreset::ALL.map(ScalablePreset::name).join(", ")
                )
            })
    }
}

/// A scalable preset's position in `[none, redisbloom, almeida,
/// almeida-fast, pybloom-live]`.
pub fn scalable_preset_index(p: Option<ScalablePreset>) -> usize {
    p.and_then(|p| ScalablePreset::ALL.iter().position(|&q| q == p))
        .map_or(0, |i| i + 1)
}

/// How a scalable filter's layers are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LayerLayout {
    /// One bit array per layer.
    Standard,
    /// `k` slices per layer, one probe each.
    Partitioned,
}

impl LayerLayout {
    /// The name experiments use.
    pub fn name(self) -> &'static str {
        match self {
            LayerLayout::Standard => "standard",
            LayerLayout::Partitioned => "partitioned",
        }
    }

    /// Looks a layout up by name.
    pub fn from_name(name: &str) -> Result<LayerLayout, String> {
        match name {
            "standard" => Ok(LayerLayout::Standard),
            "partitioned" => Ok(LayerLayout::Partitioned),
            _ => Err(format!(
                "unknown layer-layout `{name}` (known: standard, partitioned)"
            )),
        }
    }

    fn layout(self) -> bloomlab_scalable::Layout {
        match self {
            LayerLayout::Standard => bloomlab_scalable::Layout::Standard,
            LayerLayout::Partitioned => bloomlab_scalable::Layout::Partitioned,
        }
    }
}

/// A scalable point's settings. After [`normalise`] they are the ones the
/// filter really uses (a preset's own `s`, `r` and layout).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalableSettings {
    /// The preset (`None`: bloomlab's settings).
    pub preset: Option<ScalablePreset>,
    /// `n0`, the first layer's capacity.
    pub initial_capacity: u64,
    /// `s`, the growth factor of the layers' capacities.
    pub growth: u64,
    /// `r`, the tightening ratio of the layers' errors.
    pub tightening: f64,
    /// The layers' layout.
    pub layout: LayerLayout,
}

/// Collapses what a point's variant ignores: a preset fixes family,
/// strategy and reduction; the blocked layout has its own probe scheme
/// (strategy and reduction are not used); only the blocked layout has a
/// block size, and only the counting filter a counter width and a churn
/// (0 elsewhere).
///
/// A scalable point's preset fixes what it fixes: RedisBloom's hashing
/// (murmur64a, plain double hashing, modulo), `r` and layout; Almeida's
/// `s`, `r` and layout; pybloom-live's `r` and layout. Other variants
/// have no scalable settings.
pub fn normalise(p: &mut Point) {
    if p.variant != Variant::Counting {
        p.counter_bits = 0;
        p.churn = 0.0;
    }
    if p.variant != Variant::Scalable {
        p.scalable = None;
    } else if let Some(s) = &mut p.scalable {
        match s.preset {
            None => {}
            Some(ScalablePreset::RedisBloom) => {
                s.tightening = 0.5;
                s.layout = LayerLayout::Standard;
                p.family = Family::Murmur64A;
                p.strategy = Strategy::Double;
                p.reduction = Reduction::Modulo;
            }
            Some(preset) => {
                let (growth, r) = match preset {
                    ScalablePreset::Almeida => (2, 0.85),
                    ScalablePreset::AlmeidaFast => (4, 0.75),
                    _ => (s.growth, 0.9),
                };
                s.growth = growth;
                s.tightening = r;
                s.layout = LayerLayout::Partitioned;
                p.family = Family::Xxh3_64;
                p.strategy = Strategy::EnhancedDouble;
                p.reduction = Reduction::MultiplyShift;
            }
        }
    }
    if let Some(preset) = p.preset {
        p.family = Family::Murmur3X64_128;
        p.strategy = preset.strategy();
        p.reduction = Reduction::Modulo;
    }
    if p.variant == Variant::Blocked {
        p.strategy = Strategy::EnhancedDouble;
        p.reduction = Reduction::MultiplyShift;
    } else {
        p.block_bits = 0;
    }
}

/// The strategy name a results row shows for a point.
pub fn strategy_label(p: &Point) -> &'static str {
    if p.variant == Variant::Blocked {
        BLOCK_SCHEME
    } else {
        p.strategy.name()
    }
}

/// `(m, k)` before the variant rounds `m` (the blocked layout rounds up
/// to whole blocks).
pub fn size(p: &Point) -> Result<(u64, u32), String> {
    let (m, k_opt) = match p.sizing {
        Sizing::Fpp(fpp) if p.variant == Variant::Partitioned => {
            let s =
                bloomlab_partitioned::PartitionedBloomFilter::sizing(p.n, fpp)
                    .map_err(|e| e.to_string())?;
            (s.bits(), s.k)
        }
        Sizing::Fpp(fpp) => Size::Rate { n: p.n, p: fpp }
            .resolve()
            .map_err(|e| e.to_string())?,
        Sizing::BitsPerElement(c) => {
            let m = ((c * p.n as f64).ceil() as u64).max(1);
            let k = (m as f64 / p.n as f64 * std::f64::consts::LN_2).round();
            (m, (k as u32).clamp(1, 64))
        }
    };
    let k = match p.k {
        KChoice::Optimal => k_opt,
        KChoice::Fixed(k) => k,
    };
    Ok((m, k))
}

/// The hash seed a trial's filter uses: derived from the trial's seed,
/// fitted to what the family takes (seedless families and presets: 0).
pub fn hash_seed(p: &Point, trial_seed: u64) -> i128 {
    let redis = p
        .scalable
        .is_some_and(|s| s.preset == Some(ScalablePreset::RedisBloom));
    if p.preset.is_some() || redis {
        return 0;
    }
    let s = crate::keys::mix64(trial_seed ^ 0xa54f_f53a_5f1d_36f1);
    match p.family.seed_kind() {
        bloomlab_hash::SeedKind::None => 0,
        bloomlab_hash::SeedKind::Int32 => i128::from(s as u32),
        bloomlab_hash::SeedKind::U64 => i128::from(s),
    }
}

/// Builds the point's filter with the given hash seed. Invalid
/// combinations (a strategy a family cannot drive, a Java-exact strategy
/// with multiply-shift, ...) are errors, which the runner records as a
/// row with `err`.
pub fn build(p: &Point, seed: i128) -> Result<Box<dyn Filter>, String> {
    let (m, k) = size(p)?;
    let config = Config {
        family: p.family,
        seed,
        strategy: p.strategy,
        reduction: p.reduction,
    };
    let builder = Builder::bits(m, k).config(config);
    let err = |e: bloomlab_standard::Error| e.to_string();
    Ok(match p.variant {
        Variant::Standard => Box::new(builder.build().map_err(err)?),
        Variant::Atomic => Box::new(builder.build_atomic().map_err(err)?),
        Variant::Blocked => Box::new(
            builder.block_bits(p.block_bits).build_blocked().map_err(err)?,
        ),
        Variant::Partitioned => {
            let perr = |e: bloomlab_partitioned::Error| e.to_string();
            let seed = p.family.check_seed(seed).map_err(|e| e.to_string())?;
            let config = bloomlab_partitioned::Config {
                family: p.family,
                seed,
                strategy: p.strategy,
                reduction: p.reduction,
            };
            // k slices of ⌊m/k⌋ bits (k | m, so the formula is exact).
            let slice = (m / u64::from(k)).max(1);
            Box::new(
                bloomlab_partitioned::PartitionedBloomFilter::with_config(
                    config, k, slice,
                )
                .map_err(perr)?,
            )
        }
        Variant::Counting => Box::new(build_counting(p, seed)?),
        Variant::Scalable => Box::new(build_scalable(p, seed)?),
    })
}

/// Builds the point's scalable filter: target error `P` (the point's
/// `fpp`), first layer for `n0` items, the preset's settings or
/// bloomlab's with the point's `s`, `r`, layout, family, strategy
/// (`double` or `enhanced-double`) and reduction. Presets other than
/// RedisBloom (bit-exact with seed 0) get the trial's hash seed.
pub fn build_scalable(
    p: &Point,
    seed: i128,
) -> Result<bloomlab_scalable::ScalableBloomFilter, String> {
    use bloomlab_scalable::{Config, Pairing, Probe, ScalableBloomFilter};
    let err = |e: bloomlab_scalable::Error| e.to_string();
    let s = p.scalable.ok_or("a scalable point without scalable settings")?;
    let Sizing::Fpp(target) = p.sizing else {
        return Err("the scalable variant is sized by fpp".to_string());
    };
    let n0 = s.initial_capacity;
    let seed = u64::try_from(seed)
        .map_err(|_| format!("hash seed {seed} does not fit 64 bits"))?;
    let config = match s.preset {
        Some(ScalablePreset::RedisBloom) => {
            let expansion = u32::try_from(s.growth)
                .map_err(|_| format!("growth = {} is too large", s.growth))?;
            return ScalableBloomFilter::redisbloom_reserve(
                target,
                n0,
                Some(expansion),
                false,
            )
            .map_err(err);
        }
        Some(ScalablePreset::Almeida) => {
            *ScalableBloomFilter::almeida(n0, target).map_err(err)?.config()
        }
        Some(ScalablePreset::AlmeidaFast) => {
            *ScalableBloomFilter::almeida_fast(n0, target)
                .map_err(err)?
                .config()
        }
        Some(ScalablePreset::PybloomLive) => {
            *ScalableBloomFilter::pybloom_live(n0, target, s.growth)
                .map_err(err)?
                .config()
        }
        None => {
            let probe = match p.strategy {
                Strategy::Double => Probe::Double,
                Strategy::EnhancedDouble => Probe::EnhancedDouble,
                other => {
                    return Err(format!(
                        "the scalable variant derives its probes by double \
                         or enhanced-double hashing, not `{}`",
                        other.name()
                    ));
                }
            };
            Config::new(n0, target)
                .tightening(s.tightening)
                .growth(s.growth)
                .layout(s.layout.layout())
                .probes(Pairing::Single, probe, p.reduction)
        }
    };
    ScalableBloomFilter::with_config(config.hash(p.family, seed)).map_err(err)
}

/// Whether a scalable point's `compounded` prediction is asserted
/// (`fpr-consistent`): a strong hash family. The prediction is the
/// filter's own rate given its layers' realised fill, so it has no
/// filter-to-filter spread; only the query noise remains.
pub fn scalable_asserted(p: &Point) -> bool {
    strong(p.family)
}

/// Builds the point's counting filter (`m` counters of
/// `p.counter_bits` bits, placed as the standard filter places bits).
pub fn build_counting(
    p: &Point,
    seed: i128,
) -> Result<bloomlab_counting::CountingBloomFilter, String> {
    let (m, k) = size(p)?;
    let err = |e: bloomlab_counting::Error| e.to_string();
    let width = bloomlab_counting::CounterWidth::from_bits(p.counter_bits)
        .map_err(err)?;
    bloomlab_counting::CountingBloomFilter::builder_counters(m, k)
        .config(Config {
            family: p.family,
            seed,
            strategy: p.strategy,
            reduction: p.reduction,
        })
        .width(width)
        .build()
        .map_err(err)
}

/// The theoretical false-positive rates of a built filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theory {
    /// `(1 − e^{−kn/m})^k`.
    pub classical: f64,
    /// `(1 − (1 − 1/m)^{kn})^k`.
    pub classical_discrete: f64,
    /// The exact standard-filter rate (Bose et al.; Christensen et al.).
    pub exact: Option<f64>,
    /// The blocked rate (Putze et al., exact inner), blocked only.
    pub blocked: Option<f64>,
    /// The partitioned rate, partitioned only.
    pub partitioned: Option<f64>,
    /// Name of the matching formula.
    pub formula: &'static str,
    /// Its value.
    pub matching: f64,
    /// Whether the construction is expected to meet it closely (so the
    /// `fpr-consistent` invariant applies).
    pub asserted: bool,
    /// Relative standard deviation of one filter's own rate `(X/m)^k`
    /// across filters, `≈ k·sd(X)/E[X]`.
    pub filter_rel_sd: f64,
}

/// Families whose output behaves as random for the formulas.
fn strong(f: Family) -> bool {
    matches!(
        f,
        Family::Murmur3X64_128
            | Family::Murmur3X86_32
            | Family::Murmur64A
            | Family::Xxh64
            | Family::Xxh3_64
            | Family::Xxh3_128
            | Family::SipHash13
    )
}

/// The formulas for a filter of `m` bits and `k` probes holding `p.n`
/// keys, and which one should match (`THEORY.md` §11): standard →
/// exact; counting → exact for the `n` live keys (its non-zero counters
/// are the standard filter of the live keys as long as no counter
/// saturated; the runner withdraws the assertion for a trial where one
/// did); blocked → blocked with the exact inner rate and the binomial
/// block load (exact for whole blocks); partitioned → partitioned.
///
/// Double hashing meets the exact rate only asymptotically, so it is
/// asserted for `m ≥ 1e5`, independent probes, or enhanced double
/// hashing on the standard layouts (not on partitioned slices); weak hash families (FNV, Java's `hashCode`, hutool's) and
/// 32-bit hashes whose fingerprint floor `n/2^32` is over 1% of the rate
/// are never asserted, nor are Guava's legacy 32-bit strategy and
/// Redisson's alternating scheme (measured well above the formula).
pub fn theory(p: &Point, m: u64, k: u32) -> Result<Theory, String> {
    let e = |e: bloomlab_core::Error| e.to_string();
    let n = p.n;
    let classical = theory::fpr_classical(m as f64, n as f64, f64::from(k));
    let classical_discrete =
        theory::fpr_classical_discrete(m, n, k).map_err(e)?;
    let exact = theory::fpr_exact(m, n, k).map_err(e)?.value;
    let moments = theory::set_bits_moments(m, n, k).map_err(e)?;
    let filter_rel_sd = if moments.mean > 0.0 {
        f64::from(k) * moments.variance.sqrt() / moments.mean
    } else {
        0.0
    };
    let (formula, matching, blocked) = match p.variant {
        Variant::Blocked => {
            // The binomial block load is exact for m/B whole blocks; the
            // Poisson limit overstates the rate of filters of few blocks
            // (by ~1% at 24 blocks).
            let b = theory::fpr_blocked_binomial(
                m,
                n,
                k,
                p.block_bits,
                theory::BlockInner::Exact,
            )
            .map_err(e)?;
            ("blocked", b, Some(b))
        }
        Variant::Partitioned => {
            let f = theory::fpr_partitioned(m, n, k).map_err(e)?;
            ("partitioned", f, None)
        }
        _ => ("exact", exact, None),
    };
    let partitioned = (p.variant == Variant::Partitioned).then_some(matching);
    let floor = if p.family.output_bits() <= 32 {
        n as f64 / 2f64.powi(32)
    } else {
        0.0
    };
    // Enhanced double hashing is asserted on the standard layouts
    // (THEORY.md §11), not on partitioned slices: probe i of the scheme
    // reduced into a slice of a few thousand bits measured ~2% above the
    // formula (z > 4 over 1,000 filters of 8 × 1,500 bits).
    let enhanced_ok = p.strategy == Strategy::EnhancedDouble
        && p.variant != Variant::Partitioned;
    let strategy_ok = matches!(p.variant, Variant::Blocked)
        || p.strategy == Strategy::Independent
        || enhanced_ok
        || (m >= 100_000
            && !matches!(
                p.strategy,
                Strategy::GuavaMitz32 | Strategy::Redisson
            ));
    let asserted = strong(p.family) && strategy_ok && floor <= 0.01 * matching;
    Ok(Theory {
        classical,
        classical_discrete,
        exact: Some(exact),
        blocked,
        partitioned,
        formula,
        matching,
        asserted,
        filter_rel_sd,
    })
}
