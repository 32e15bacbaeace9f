//! A scalable filter taken apart: each layer's shape as the chain grows
//! it ([`LayerSpec`]), the probe positions of a key in any layer
//! ([`Prober`]), and a filter rebuilt from its layers
//! ([`ScalableBloomFilter::from_layers`]). A chain stored elsewhere
//! (`bloomlab-redis` keeps each layer in its own Redis string) uses them
//! to set and read exactly the in-memory filter's bits.

use bloomlab_core::BitArray;
use bloomlab_hash::Hasher;

use crate::config::{Config, Shape, shape};
use crate::scalable::{Layer, ScalableBloomFilter, pair_of, walk_of};
use crate::{Error, Result};

/// The shape of layer `i` of a chain: what the in-memory filter builds
/// when it grows to `i + 1` layers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerSpec {
    /// Items it holds before the chain grows, `n0·s^i`.
    pub capacity: u64,
    /// Its target error, `P0·r^i` (multiplied out layer by layer, as the
    /// filter does, so the bits are the same).
    pub error: f64,
    /// Its number of bits.
    pub bits: u64,
    /// Its modulus: `bits` (standard layout), one slice (partitioned),
    /// or the number of blocks (blocked).
    pub modulus: u64,
    /// Probes per key.
    pub k: u32,
    /// Bits per entry as sized.
    pub bits_per_entry: f64,
}

impl LayerSpec {
    fn new(capacity: u64, error: f64, s: Shape) -> LayerSpec {
        LayerSpec {
            capacity,
            error,
            bits: s.bits,
            modulus: s.modulus,
            k: s.k,
            bits_per_entry: s.bpe,
        }
    }

    /// Layer 0 of `config`.
    pub(crate) fn first(config: &Config) -> Result<LayerSpec> {
        let (n0, p0) = (config.initial_capacity, config.first_error);
        let s = shape(config.sizing, config.layout, n0, p0)?;
        Ok(LayerSpec::new(n0, p0, s))
    }

    /// Layer `index` grown after one of capacity `capacity` and error
    /// `error`.
    pub(crate) fn grown(
        config: &Config,
        capacity: u64,
        error: f64,
        index: usize,
    ) -> Result<LayerSpec> {
        let capacity =
            capacity.checked_mul(config.growth).ok_or_else(|| {
                Error::CannotGrow(format!(
                    "layer {index}'s capacity overflows 64 bits"
                ))
            })?;
        let error = error * config.tightening;
        let s = shape(config.sizing, config.layout, capacity, error)?;
        Ok(LayerSpec::new(capacity, error, s))
    }

    /// Why stored layer `index`, `(capacity, error, s)`, is not the layer
    /// `config` grows after `prev` (layer `index − 1`'s capacity and
    /// error; `None` for layer 0), or `Ok` if it is: the reader's check of
    /// a saved chain. The next layer is sized from the last one's
    /// capacity and error, so a chain whose numbers were forged (with the
    /// checksum recomputed) would otherwise make a later insert allocate
    /// what no byte of the input accounts for.
    ///
    /// Capacity and error must be exactly what growing gives (RedisBloom
    /// grows them the same way: `entries·growth`, `error·0.5`); the shape
    /// (bits per entry included) exactly what [`shape`] gives, except under
    /// [`Sizing::RedisBloom`](crate::Sizing::RedisBloom), whose layers
    /// may come from a dump that RedisBloom's C code sized: there the
    /// bits per entry must agree to within `1e-9` (relative), `k` be
    /// RedisBloom's `k` for them (the dump reader's rule), and the bits be
    /// within one 512-bit block of [`shape`]'s, a margin that does not
    /// assume RedisBloom rounded the array exactly as this crate does
    /// (the recorded dumps agree exactly) while still tying the bits to
    /// the capacity and error.
    pub(crate) fn check_stored(
        config: &Config,
        index: usize,
        prev: Option<(u64, f64)>,
        capacity: u64,
        error: f64,
        s: &Shape,
    ) -> std::result::Result<(), String> {
        let (want_capacity, want_error) = match prev {
            None => (config.initial_capacity, config.first_error),
            Some((c, e)) => (
                c.checked_mul(config.growth).ok_or_else(|| {
                    format!("layer {index}'s capacity overflows 64 bits")
                })?,
                e * config.tightening,
            ),
        };
        if capacity != want_capacity || error.to_bits() != want_error.to_bits()
        {
            return Err(format!(
                "layer {index} has capacity {capacity} and error {error}, \
                 the config grows it to {want_capacity} and {want_error}"
            ));
        }
        let want = shape(config.sizing, config.layout, capacity, error)
            .map_err(|e| format!("layer {index}: {e}"))?;
        let same = if config.sizing == crate::Sizing::RedisBloom {
            (s.bpe - want.bpe).abs() <= 1e-9 * want.bpe
                && f64::from(s.k) == crate::config::redis_k(s.bpe)
                && s.bits.abs_diff(want.bits) <= 512
        } else {
            // Bits per entry are `bits / capacity` under these sizings,
            // written as computed: bit for bit (NaN or a negative value
            // is not).
            s.bits == want.bits
                && s.modulus == want.modulus
                && s.k == want.k
                && s.bpe.to_bits() == want.bpe.to_bits()
        };
        if !same {
            return Err(format!(
                "layer {index} has {} bits, k {}, {} bits per entry; the \
                 config sizes it at {} bits, k {}, {} bits per entry",
                s.bits, s.k, s.bpe, want.bits, want.k, want.bpe
            ));
        }
        Ok(())
    }

    pub(crate) fn shape(&self) -> Shape {
        Shape {
            bits: self.bits,
            modulus: self.modulus,
            k: self.k,
            bpe: self.bits_per_entry,
        }
    }
}

impl Config {
    /// The shapes of layers `0..=index`, as the in-memory filter grows
    /// them (whether or not the filter scales); an error if a layer
    /// cannot be built ([`Error::CannotGrow`]).
    ///
    /// ```
    /// use bloomlab_scalable::Config;
    ///
    /// let config = Config::new(1000, 0.01).growth(2).tightening(0.5);
    /// let specs = config.layer_specs(2)?;
    /// let caps: Vec<u64> = specs.iter().map(|s| s.capacity).collect();
    /// assert_eq!(caps, [1000, 2000, 4000]);
    /// assert_eq!(specs[1].error, 0.01 * 0.5 * 0.5);
    /// # Ok::<(), bloomlab_scalable::Error>(())
    /// ```
    pub fn layer_specs(&self, index: usize) -> Result<Vec<LayerSpec>> {
        self.validate()?;
        let mut out = Vec::with_capacity(index.saturating_add(1).min(64));
        let mut spec = LayerSpec::first(self)?;
        out.push(spec);
        for i in 1..=index {
            spec = LayerSpec::grown(self, spec.capacity, spec.error, i)?;
            out.push(spec);
        }
        Ok(out)
    }
}

/// How a scalable filter turns keys into probe positions: the key is
/// hashed once into a pair `(a, b)`, and each layer derives its `k`
/// positions from that pair modulo its own size.
///
/// ```
/// use bloomlab_scalable::{Config, Prober, ScalableBloomFilter};
///
/// let config = Config::new(100, 0.01);
/// let mut f = ScalableBloomFilter::with_config(config)?;
/// f.add(b"key")?;
/// let spec = config.layer_specs(0)?[0];
/// let prober = Prober::new(&config)?;
/// let mut positions = Vec::new();
/// prober.positions(prober.pair(b"key"), spec.modulus, spec.k, |p| {
///     positions.push(p)
/// });
/// let bits = f.layers()[0].bit_array();
/// assert!(positions.iter().all(|&p| bits.get(p)));
/// # Ok::<(), bloomlab_scalable::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Prober {
    config: Config,
    hasher: Hasher,
}

impl Prober {
    /// The prober of filters with `config` (checked).
    pub fn new(config: &Config) -> Result<Prober> {
        config.validate()?;
        let hasher = Hasher::new(config.family, i128::from(config.seed))?;
        Ok(Prober { config: *config, hasher })
    }

    /// The pair `(a, b)` every layer derives the key's probes from.
    #[inline]
    pub fn pair(&self, key: &[u8]) -> (u64, u64) {
        pair_of(&self.config, &self.hasher, key)
    }

    /// Calls `f` with the key's `k` positions (in probe order) in a layer
    /// of modulus `modulus` ([`LayerSpec::modulus`]); in a partitioned
    /// layer, probe `i`'s position includes its slice's offset.
    #[inline]
    pub fn positions(
        &self,
        pair: (u64, u64),
        modulus: u64,
        k: u32,
        mut f: impl FnMut(u64),
    ) {
        walk_of(&self.config, (modulus, k), pair, |p| {
            f(p);
            true
        });
    }
}

impl ScalableBloomFilter {
    /// A filter rebuilt from its layers' bits and insert counts, oldest
    /// first: what a store that keeps the layers apart reads back.
    ///
    /// Layer `i` must have the shape `config` grows it to
    /// ([`Config::layer_specs`]) and a count at most its capacity; a
    /// non-scaling filter has one layer. [`ScalableBloomFilter::len`] is
    /// the sum of the counts, `skipped` is [`ScalableBloomFilter::skipped`],
    /// and the RedisBloom header fields follow from `config` (options 5
    /// or 13; growth `s`, or for a non-scaling filter 2, or 0 if `s` is 0
    /// as RedisBloom's `EXPANSION 0`). Anything else is
    /// [`Error::Corrupt`].
    ///
    /// ```
    /// use bloomlab_scalable::ScalableBloomFilter;
    ///
    /// let mut f = ScalableBloomFilter::new(10, 0.01)?;
    /// for i in 0..100u64 {
    ///     f.add(&i.to_le_bytes())?;
    /// }
    /// let layers = f
    ///     .layers()
    ///     .iter()
    ///     .map(|l| (l.bit_array().clone(), l.count()))
    ///     .collect();
    /// let g = ScalableBloomFilter::from_layers(*f.config(), layers, 0)?;
    /// assert_eq!(g, f);
    /// # Ok::<(), bloomlab_scalable::Error>(())
    /// ```
    pub fn from_layers(
        config: Config,
        layers: Vec<(BitArray, u64)>,
        skipped: u64,
    ) -> Result<ScalableBloomFilter> {
        let bad = |reason: String| Error::corrupt("layers", reason);
        let Some(last) = layers.len().checked_sub(1) else {
            return Err(bad("no layer".into()));
        };
        if !config.scaling && last != 0 {
            return Err(bad(format!(
                "a non-scaling filter has one layer, not {}",
                layers.len()
            )));
        }
        let specs = config.layer_specs(last)?;
        let hasher = Hasher::new(config.family, i128::from(config.seed))?;
        let mut items = 0u64;
        let mut out = Vec::with_capacity(layers.len());
        for (i, ((array, count), spec)) in
            layers.into_iter().zip(&specs).enumerate()
        {
            if array.bit_len() != spec.bits {
                return Err(bad(format!(
                    "layer {i} has {} bits, the config grows it to {}",
                    array.bit_len(),
                    spec.bits
                )));
            }
            if count > spec.capacity {
                return Err(bad(format!(
                    "layer {i} counts {count} items, its capacity is {}",
                    spec.capacity
                )));
            }
            items = items
                .checked_add(count)
                .ok_or_else(|| bad("the counts overflow 64 bits".into()))?;
            let mut layer = Layer::new(
                spec.capacity,
                spec.error,
                Shape { bits: 64, ..spec.shape() },
            )?;
            layer.ones = array.count_ones();
            layer.array = array;
            layer.count = count;
            out.push(layer);
        }
        let growth = u32::try_from(config.growth).unwrap_or(u32::MAX);
        Ok(ScalableBloomFilter {
            config,
            hasher,
            layers: out,
            items,
            skipped,
            redis_options: if config.scaling { 5 } else { 13 },
            redis_growth: match (config.scaling, growth) {
                (true, s) => s,
                (false, 0) => 0,
                (false, _) => 2,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::{Layout, Sizing};

    fn configs() -> Vec<Config> {
        vec![
            Config::new(10, 0.01),
            Config::new(7, 0.05).layout(Layout::Partitioned).growth(3),
            Config::new(16, 0.02)
                .layout(Layout::Standard)
                .growth(2)
                .layout(Layout::Standard)
                .sizing(Sizing::Pybloom)
                .tightening(0.9),
            Config::new(20, 0.1)
                .layout(Layout::Standard)
                .full_at_half_fill(true),
            *ScalableBloomFilter::redisbloom_reserve(0.01, 12, Some(4), false)
                .unwrap()
                .config(),
        ]
    }

    /// Specs, probes and a rebuilt filter agree with a filter grown in
    /// memory, bit for bit.
    #[test]
    fn specs_probes_and_layers_rebuild_the_grown_filter() {
        for config in configs() {
            let mut f = ScalableBloomFilter::with_config(config).unwrap();
            let keys: Vec<[u8; 8]> =
                (0..2_000u64).map(|i| i.to_le_bytes()).collect();
            for key in &keys {
                f.add(key).unwrap();
            }
            let n = f.layers().len();
            assert!(n >= 4, "{config:?} grew to {n} layers only");
            let specs = config.layer_specs(n - 1).unwrap();
            let prober = Prober::new(&config).unwrap();
            let mut arrays: Vec<BitArray> =
                specs.iter().map(|s| BitArray::new(s.bits).unwrap()).collect();
            for (l, s) in f.layers().iter().zip(&specs) {
                assert_eq!(l.capacity(), s.capacity);
                assert_eq!(l.error().to_bits(), s.error.to_bits());
                assert_eq!((l.bits(), l.k()), (s.bits, s.k));
                assert_eq!(
                    l.bits_per_entry().to_bits(),
                    s.bits_per_entry.to_bits()
                );
            }
            // Every layer's bits are the union of the probes of the keys
            // it took: replay the inserts layer by layer.
            let mut g = ScalableBloomFilter::with_config(config).unwrap();
            for key in &keys {
                let before = g.layers().len();
                if g.add(key).unwrap() {
                    let i = g.layers().len() - 1;
                    assert!(i + 1 >= before);
                    let s = &specs[i];
                    prober.positions(prober.pair(key), s.modulus, s.k, |p| {
                        arrays[i].set(p);
                    });
                }
            }
            for (l, a) in f.layers().iter().zip(&arrays) {
                assert_eq!(l.bit_array(), a);
            }
            let layers = f
                .layers()
                .iter()
                .map(|l| (l.bit_array().clone(), l.count()))
                .collect();
            let h =
                ScalableBloomFilter::from_layers(config, layers, f.skipped())
                    .unwrap();
            assert_eq!(h, f);
        }
    }

    #[test]
    fn from_layers_refuses_what_the_config_does_not_grow() {
        let config = Config::new(10, 0.01);
        let spec = config.layer_specs(0).unwrap()[0];
        let ok = || BitArray::new(spec.bits).unwrap();
        assert!(ScalableBloomFilter::from_layers(config, vec![], 0).is_err());
        let wrong = BitArray::new(spec.bits + 64).unwrap();
        let e = ScalableBloomFilter::from_layers(config, vec![(wrong, 0)], 0);
        assert!(matches!(e, Err(Error::Corrupt { .. })));
        let e = ScalableBloomFilter::from_layers(config, vec![(ok(), 11)], 0);
        assert!(matches!(e, Err(Error::Corrupt { .. })));
        let ns = config.non_scaling();
        let two = vec![(ok(), 0), (ok(), 0)];
        assert!(ScalableBloomFilter::from_layers(ns, two, 0).is_err());
    }

    /// RedisBloom's header fields survive: NONSCALING keeps growth 2,
    /// EXPANSION 0 keeps 0.
    #[test]
    fn from_layers_keeps_redisbloom_header_fields() {
        for (exp, nonscaling) in
            [(None, false), (Some(3), false), (None, true), (Some(0), false)]
        {
            let mut f = ScalableBloomFilter::redisbloom_reserve(
                0.01, 50, exp, nonscaling,
            )
            .unwrap();
            for i in 0..40u64 {
                f.add(&i.to_le_bytes()).unwrap();
            }
            let layers = f
                .layers()
                .iter()
                .map(|l| (l.bit_array().clone(), l.count()))
                .collect();
            let g = ScalableBloomFilter::from_layers(*f.config(), layers, 0)
                .unwrap();
            assert_eq!(
                g.redis_scandump().unwrap(),
                f.redis_scandump().unwrap()
            );
            assert_eq!(g, f);
        }
    }
}
