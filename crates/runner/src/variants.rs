//! The variant registry: one match arm per filter variant builds a
//! `Box<dyn Filter>` from a grid point, and one names the formula its
//! false-positive rate should match (`THEORY.md` §11).

use bloomlab_core::{Filter, theory};
use bloomlab_hash::{Family, Reduction, Strategy};
use bloomlab_standard::{BLOCK_SCHEME, Builder, Config, Size};

use crate::experiment::{KChoice, Point, Sizing};
use crate::trial::Grown;

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
            let known = Preset::ALL.map(Preset::name).join(", ");
            if matches!(ScalablePreset::from_name(name), Ok(Some(_))) {
                format!(
                    "`{name}` is a scalable filter's preset: give it as \
                     scalable-preset = [\"{name}\"] (preset knows: none, \
                     {known})"
                )
            } else if name.starts_with("hutool-") {
                format!(
                    "preset `{name}` is for `bloomlab build --variant \
                     partitioned`; in experiments, hutool's hashing is its \
                     families (family = [\"hutool-elf\", ...], see \
                     `bloomlab list`) (preset knows: none, {known})"
                )
            } else {
                format!("unknown preset `{name}` (known: none, {known})")
            }
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

    /// One line for `bloomlab list`: what the preset reproduces, and
    /// where it can be named.
    pub fn description(self) -> &'static str {
        match self {
            ScalablePreset::RedisBloom => {
                "scalable: RedisBloom's BF.RESERVE error capacity \
                 [EXPANSION s] [NONSCALING], bit for bit (MurmurHash64A, \
                 r = 0.5, standard layers)"
            }
            ScalablePreset::Almeida => {
                "scalable: Almeida et al.'s slow growth (s = 2, r = 0.85, \
                 partitioned layers)"
            }
            ScalablePreset::AlmeidaFast => {
                "scalable, experiments (build: --layer-layout \
                 partitioned): Almeida et al.'s fast growth (s = 4, \
                 r = 0.75, partitioned layers)"
            }
            ScalablePreset::PybloomLive => {
                "scalable: pybloom-live's ScalableBloomFilter(n0, p, \
                 growth) settings (r = 0.9, first layer at 0.9 p, \
                 partitioned layers; bloomlab's hashing)"
            }
        }
    }

    /// The layer layout the preset fixes (a point's `layer-layout` is
    /// ignored).
    pub fn layout(self) -> LayerLayout {
        match self {
            ScalablePreset::RedisBloom => LayerLayout::Standard,
            ScalablePreset::Almeida
            | ScalablePreset::AlmeidaFast
            | ScalablePreset::PybloomLive => LayerLayout::Partitioned,
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
    /// Split blocks of 512 bits: one block (cache line) per key and
    /// layer, `max(k, 8)` probes spread over its 8 words; sized by half
    /// fill, at most 64 probes per layer.
    Blocked,
}

/// The strategy column of a scalable point with blocked layers: they
/// derive their in-block bits from a hash chain of their own, not by the
/// point's strategy.
pub const SPLIT_BLOCK_SCHEME: &str = "split-block";

impl LayerLayout {
    /// Every layout, in the order experiments list them.
    pub const ALL: [LayerLayout; 3] = [
        LayerLayout::Standard,
        LayerLayout::Partitioned,
        LayerLayout::Blocked,
    ];

    /// The name experiments use.
    pub fn name(self) -> &'static str {
        match self {
            LayerLayout::Standard => "standard",
            LayerLayout::Partitioned => "partitioned",
            LayerLayout::Blocked => "blocked",
        }
    }

    /// Looks a layout up by name.
    pub fn from_name(name: &str) -> Result<LayerLayout, String> {
        LayerLayout::ALL.into_iter().find(|l| l.name() == name).ok_or_else(
            || {
                format!(
                    "unknown layer-layout `{name}` (known: {})",
                    LayerLayout::ALL.map(LayerLayout::name).join(", ")
                )
            },
        )
    }

    /// The library's layout.
    pub fn layout(self) -> bloomlab_scalable::Layout {
        match self {
            LayerLayout::Standard => bloomlab_scalable::Layout::Standard,
            LayerLayout::Partitioned => bloomlab_scalable::Layout::Partitioned,
            LayerLayout::Blocked => bloomlab_scalable::Layout::Blocked,
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
/// `s`, `r` and layout; pybloom-live's `r` and layout. Without a preset,
/// blocked layers ignore the strategy (their bits come from a hash chain
/// of their own; family and reduction still pick the block). Other
/// variants have no scalable settings.
pub fn normalise(p: &mut Point) {
    if p.variant != Variant::Counting {
        p.counter_bits = 0;
        p.churn = 0.0;
    }
    if p.variant != Variant::Scalable {
        p.scalable = None;
    } else if let Some(s) = &mut p.scalable {
        match s.preset {
            None => {
                if s.layout == LayerLayout::Blocked {
                    p.strategy = Strategy::EnhancedDouble;
                }
            }
            Some(preset @ ScalablePreset::RedisBloom) => {
                s.tightening = 0.5;
                s.layout = preset.layout();
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
                s.layout = preset.layout();
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
        // Guava's two presets differ only in the strategy, which the
        // blocked layout replaces: one design, run once.
        if p.preset == Some(Preset::GuavaMitz32) {
            p.preset = Some(Preset::Guava);
        }
    } else {
        p.block_bits = 0;
    }
}

/// The strategy column of a scalable point whose preset walks its
/// layers with mixed double hashing (`bloomlab_scalable::Probe::MixedDouble`,
/// the library's default): Almeida's and pybloom-live's.
pub const MIXED_DOUBLE: &str = "mixed-double";

/// The strategy name a results row shows for a point.
pub fn strategy_label(p: &Point) -> &'static str {
    let mixed = |s: ScalableSettings| {
        s.layout != LayerLayout::Blocked
            && s.preset.is_some_and(|x| x != ScalablePreset::RedisBloom)
    };
    if p.variant == Variant::Blocked {
        BLOCK_SCHEME
    } else if p.scalable.is_some_and(|s| s.layout == LayerLayout::Blocked) {
        SPLIT_BLOCK_SCHEME
    } else if p.scalable.is_some_and(mixed) {
        MIXED_DOUBLE
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
/// `fpp`), first layer for `n0`, the preset's settings or
/// bloomlab's ([`bloomlab_config`]). Presets other than RedisBloom
/// (bit-exact with seed 0) get the trial's hash seed.
pub fn build_scalable(
    p: &Point,
    seed: i128,
) -> Result<bloomlab_scalable::ScalableBloomFilter, String> {
    use bloomlab_scalable::ScalableBloomFilter;
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
        None => bloomlab_config(p, &s, target)?,
    };
    ScalableBloomFilter::with_config(config.hash(p.family, seed)).map_err(err)
}

/// bloomlab's scalable settings for a point without a preset, before the
/// trial's hash seed: target error `target`, the point's `n0`, `s`, `r`,
/// layout, family, strategy (`double` or `enhanced-double`; blocked
/// layers use neither) and reduction, layers sized by half fill (the
/// only sizing blocked layers take).
pub fn bloomlab_config(
    p: &Point,
    s: &ScalableSettings,
    target: f64,
) -> Result<bloomlab_scalable::Config, String> {
    use bloomlab_scalable::{Config, Pairing, Probe, Sizing};
    let probe = match (s.layout, p.strategy) {
        // Not used: blocked layers set bits from a hash chain of their own.
        (LayerLayout::Blocked, _) => Probe::EnhancedDouble,
        (_, Strategy::Double) => Probe::Double,
        (_, Strategy::EnhancedDouble) => Probe::EnhancedDouble,
        (_, other) => {
            return Err(format!(
                "the scalable variant derives its probes by double or \
                 enhanced-double hashing, not `{}`",
                other.name()
            ));
        }
    };
    Ok(Config::new(s.initial_capacity, target)
        .tightening(s.tightening)
        .growth(s.growth)
        .layout(s.layout.layout())
        .sizing(Sizing::HalfFill)
        .probes(Pairing::Single, probe, p.reduction)
        .hash(p.family, 0))
}

/// Layers a chain from `n0` growing by `s` needs before `n` items fit:
/// the fewest whose capacities `n0·s^i` add up to `n` (saturating: a
/// capacity past `u64` is the library's to refuse).
fn layers_needed(n0: u64, s: u64, n: u64) -> u64 {
    if s <= 1 {
        return n.div_ceil(n0.max(1)).max(1);
    }
    let (mut capacity, mut total, mut layers) = (n0, n0, 1);
    while total < n {
        capacity = capacity.saturating_mul(s);
        total = total.saturating_add(capacity);
        layers += 1;
    }
    layers
}

/// Whether bloomlab's scalable filter for this point (no preset) can grow
/// to hold its `n` items: the library builds every layer it may need
/// ([`bloomlab_scalable::Config::layer_specs`]) and refuses the ones it
/// cannot (a blocked layer over 64 probes, an error that underflows, a
/// capacity past 64 bits). A trial would otherwise stop growing and drop
/// the items it could not insert. Presets are their libraries' settings
/// and are not checked here, nor are settings the library refuses
/// outright (a strategy it cannot use): like every such combination, they
/// become rows with an `err`. The error says what to change.
pub fn check_growth(p: &Point) -> Result<(), String> {
    let (Some(s), Sizing::Fpp(target)) = (p.scalable, p.sizing) else {
        return Ok(());
    };
    if s.preset.is_some() {
        return Ok(());
    }
    let Ok(config) = bloomlab_config(p, &s, target) else {
        return Ok(());
    };
    if config.validate().is_err() {
        return Ok(());
    }
    let layers = layers_needed(s.initial_capacity, s.growth, p.n);
    let last = usize::try_from(layers - 1).unwrap_or(usize::MAX);
    let Err(e) = config.layer_specs(last) else {
        return Ok(());
    };
    // Debug prints 1e-19 where Display would spell out 19 zeros.
    let chain = format!(
        "n = {} items from n0 = {} with growth = {}, tightening = {:?} at \
         fpp = {target:?}",
        p.n, s.initial_capacity, s.growth, s.tightening
    );
    Err(match s.layout {
        LayerLayout::Blocked => format!(
            "layer-layout `blocked` cannot hold {chain}: {e} (every layer's \
             error must be at least 2^-{}); raise fpp, tightening or \
             growth, or use layer-layout `standard` or `partitioned`",
            bloomlab_scalable::MAX_BLOCKED_K,
        ),
        _ => format!(
            "the scalable filter cannot hold {chain}: {e}; raise tightening \
             or growth (fewer, looser layers)"
        ),
    })
}

/// Whether a scalable point's `compounded` prediction is asserted
/// (`fpr-consistent`): a strong hash family whose fingerprint floor
/// (`n/2^32` for a 32-bit hash) is at most 1% of the prediction, as in
/// [`theory()`], and, for partitioned layers, a first layer of at least
/// 10^5 bits. The prediction is the
/// filter's own rate given its layers' realised fill, so it has no
/// filter-to-filter spread; only the query noise remains.
///
/// Partitioned layers probe by (enhanced) double hashing, whose excess
/// over the formula grows as the slices shrink, the rule [`theory()`]
/// applies to the partitioned filter (asserted from `m ≥ 10^5`). Measured
/// (xxh3-64, P = 1%, s = 2, 200,000 queries, 10 seeds): z = 2.6–6.9 with
/// n0 = 100, and 0.6 on average with n0 = 1,000.
pub fn scalable_asserted(p: &Point, grown: &Grown) -> bool {
    let partitioned =
        p.scalable.is_some_and(|s| s.layout == LayerLayout::Partitioned);
    let floor = if p.family.output_bits() <= 32 {
        p.n as f64 / 2f64.powi(32)
    } else {
        0.0
    };
    strong(p.family)
        && floor <= 0.01 * grown.compounded_error
        && (!partitioned || grown.first_layer_bits >= 100_000)
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
    /// Relative standard deviation of one filter's own rate across
    /// filters: `≈ k·sd(X)/E[X]` for `(X/m)^k`, and for a blocked filter
    /// [`theory::blocked_rate_relative_sd`] (its blocks' loads vary too).
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
            | Family::Fold128
            | Family::Fold64
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
/// hashing on the standard layouts (not on partitioned slices); weak
/// hash families (FNV, Java's `hashCode`, hutool's) and 32-bit hashes
/// whose fingerprint floor `n/2^32` is over 1% of the rate are never
/// asserted, nor are Guava's legacy 32-bit strategy and Redisson's
/// alternating scheme (measured well above the formula). On the
/// standard, atomic and counting filters no strategy but independent
/// probes is asserted where its pair floor
/// ([`theory::pair_floor_multiply_shift`],
/// [`theory::pair_floor_modulo`]) exceeds 1% of the rate, whatever `m`
/// (many bits a key make the rate tiny and the floor, `O(1/m)`,
/// dominant).
pub fn theory(p: &Point, m: u64, k: u32) -> Result<Theory, String> {
    let e = |e: bloomlab_core::Error| e.to_string();
    let n = p.n;
    let classical = theory::fpr_classical(m as f64, n as f64, f64::from(k));
    let classical_discrete =
        theory::fpr_classical_discrete(m, n, k).map_err(e)?;
    let exact = theory::fpr_exact(m, n, k).map_err(e)?.value;
    // How much one filter's own rate varies from filter to filter: for a
    // blocked filter mostly through its blocks' loads, several times the
    // standard filter's spread for the same bits.
    let moments = theory::set_bits_moments(m, n, k).map_err(e)?;
    let filter_rel_sd = if p.variant == Variant::Blocked {
        theory::blocked_rate_relative_sd(m, n, k, p.block_bits).map_err(e)?
    } else if moments.mean > 0.0 {
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
    // Probes from one hash pair put some keys' probes on a few bits
    // (`theory::pair_floor_multiply_shift`), whatever m; the formula of
    // independent probes holds only where those keys' false positives
    // are under 1% of the rate.
    let pair_floor = match p.variant {
        Variant::Standard | Variant::Atomic | Variant::Counting
            if p.strategy != Strategy::Independent =>
        {
            let f = moments.mean / m as f64;
            match p.reduction {
                Reduction::MultiplyShift => {
                    theory::pair_floor_multiply_shift(m, k, f)
                }
                Reduction::Modulo => theory::pair_floor_modulo(m, f),
            }
        }
        _ => 0.0,
    };
    let asserted = strong(p.family)
        && strategy_ok
        && floor <= 0.01 * matching
        && pair_floor <= 0.01 * matching;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::Plan;

    /// The points of a one-grid scalable experiment at target `fpp`, n0
    /// = 100, with `grid` appended.
    fn points(grid: &str, fpp: f64) -> Result<Vec<Point>, String> {
        let toml = format!(
            "name = \"t\"\ndescription = \"t\"\nseed = 1\n\
             [queries]\nper-filter = 1000\n\
             [[grid]]\nvariant = [\"scalable\"]\nfpp = [{fpp:?}]\n\
             initial-capacity = [100]\n{grid}\n"
        );
        Plan::from_toml(&toml, "t.toml".as_ref())
            .map(|p| p.points)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn layer_layouts_round_trip_by_name() {
        for l in LayerLayout::ALL {
            assert_eq!(LayerLayout::from_name(l.name()), Ok(l));
        }
        assert_eq!(
            LayerLayout::Blocked.layout(),
            bloomlab_scalable::Layout::Blocked
        );
        let e = LayerLayout::from_name("split").unwrap_err();
        assert!(e.contains("standard, partitioned, blocked"), "{e}");
    }

    /// Blocked layers ignore the strategy: one point, not one per
    /// strategy, shown as the split-block scheme and built as the
    /// library's blocked layers.
    #[test]
    fn blocked_layers_collapse_the_strategy() {
        let ps = points(
            "n = [1000]\nstrategy = [\"double\", \"enhanced-double\"]\n\
             layer-layout = [\"standard\", \"blocked\"]",
            0.01,
        )
        .unwrap();
        let layout = |p: &Point| p.scalable.unwrap().layout;
        let blocked: Vec<&Point> =
            ps.iter().filter(|p| layout(p) == LayerLayout::Blocked).collect();
        assert_eq!((ps.len(), blocked.len()), (3, 1));
        assert_eq!(strategy_label(blocked[0]), SPLIT_BLOCK_SCHEME);
        let f = build_scalable(blocked[0], 7).unwrap();
        let c = f.config();
        assert_eq!(c.layout, bloomlab_scalable::Layout::Blocked);
        assert_eq!(c.sizing, bloomlab_scalable::Sizing::HalfFill);
        assert_eq!(f.layers()[0].bits() % bloomlab_scalable::BLOCK_BITS, 0);
        let standard = ps.iter().find(|p| layout(p) == LayerLayout::Standard);
        assert_eq!(strategy_label(standard.unwrap()), "double");
    }

    /// Partitioned layers are asserted only from a first layer of 10^5
    /// bits (double hashing's small-slice excess); other layouts with a
    /// strong family always; a weak family never.
    #[test]
    fn scalable_assertion_follows_layout_and_first_layer() {
        let ps = points(
            "n = [1000]\nfamily = [\"xxh3-64\", \"fnv1a-64\"]\n\
             layer-layout = [\"standard\", \"partitioned\"]",
            0.01,
        )
        .unwrap();
        let g = |first_layer_bits| Grown {
            first_layer_bits,
            compounded_error: 0.01,
            ..Grown::default()
        };
        for p in &ps {
            let s = p.scalable.unwrap();
            let strong = p.family == Family::Xxh3_64;
            let part = s.layout == LayerLayout::Partitioned;
            assert_eq!(scalable_asserted(p, &g(99_999)), strong && !part);
            assert_eq!(scalable_asserted(p, &g(100_000)), strong);
        }
        assert_eq!(ps.len(), 4);
    }

    /// A preset's layout wins over the axis; `none` takes the axis.
    #[test]
    fn presets_fix_their_layout() {
        let ps = points(
            "n = [1000]\nscalable-preset = [\"none\", \"redisbloom\", \
             \"almeida\"]\nlayer-layout = [\"blocked\"]",
            0.01,
        )
        .unwrap();
        let got: Vec<(Option<ScalablePreset>, LayerLayout)> = ps
            .iter()
            .map(|p| p.scalable.unwrap())
            .map(|s| (s.preset, s.layout))
            .collect();
        assert_eq!(
            got,
            [
                (None, LayerLayout::Blocked),
                (Some(ScalablePreset::RedisBloom), LayerLayout::Standard),
                (Some(ScalablePreset::Almeida), LayerLayout::Partitioned),
            ]
        );
    }

    #[test]
    fn layers_needed_adds_up_capacities() {
        // 100, 200, 400, ...
        assert_eq!(layers_needed(100, 2, 100), 1);
        assert_eq!(layers_needed(100, 2, 101), 2);
        assert_eq!(layers_needed(100, 2, 300), 2);
        assert_eq!(layers_needed(100, 2, 301), 3);
        assert_eq!(layers_needed(100, 1, 1000), 10);
        assert_eq!(layers_needed(100, 1, 1001), 11);
        // Saturates instead of overflowing.
        assert_eq!(layers_needed(1 << 40, 32768, u64::MAX), 3);
    }

    /// Layers the library refuses are a plan error that says what to
    /// change; the same chain with standard layers is fine.
    #[test]
    fn growth_the_blocked_layout_refuses_is_a_plan_error() {
        // Layer 0 at P(1 − r) = 5e-20 needs 65 probes.
        let e = points("n = [1000]\nlayer-layout = [\"blocked\"]", 1e-19)
            .unwrap_err();
        assert!(e.contains("layer-layout `blocked` cannot hold"), "{e}");
        assert!(e.contains("more than 64 probes"), "{e}");
        assert!(e.contains("raise fpp"), "{e}");
        // s = 1: layer 57 of 100 is under 2^-64.
        let grid = "n = [10000]\ngrowth = [1]\nlayer-layout = [\"blocked\"]";
        assert!(points(grid, 0.01).is_err());
        assert!(points(&grid.replace("10000", "5000"), 0.01).is_ok());
        assert!(points(&grid.replace("blocked", "standard"), 0.01).is_ok());
    }
}
