/*!
Scalable Bloom filters (Almeida, Baquero, Preguiça & Hutchison 2007): a
chain of Bloom filters ("layers") that grows as items arrive and still
keeps its false-positive promise.

Layer `i` (from 0) has capacity `n0·s^i` and error `P_i = P0·r^i`. A
non-member is a false positive if any layer errs, so the chain errs with
`1 − Π(1 − P_i) ≤ Σ P0 r^i ≤ P0/(1 − r)`; starting at `P0 = P(1 − r)`
keeps the whole chain under the target `P` however far it grows.

* **Inserts go to the newest layer.** A layer is full when its count of
  newly set items reaches its capacity (optionally also when half its bits
  are set); the next layer is created when an item actually has to be
  inserted (lazy growth, as RedisBloom).
* **An item any layer reports present is not inserted again.**
  [`ScalableBloomFilter::add`] returns `Ok(false)` and counts it in
  [`ScalableBloomFilter::skipped`]: true duplicates and false positives
  alike, as RedisBloom's `BF.ADD` replying 0.
* The key is hashed once; every layer derives its probes from the same
  pair of 64-bit hashes, modulo its own size. Each configuration's
  probe loop is specialised once per call (as `bloomlab_standard::Probes`
  does), not branched on inside.

# Example

```
use bloomlab_scalable::ScalableBloomFilter;

// Start small at a 1 % target and grow 100-fold.
let mut f = ScalableBloomFilter::new(1_000, 0.01)?;
for i in 0..100_000u64 {
    f.add(&i.to_le_bytes())?;
}
assert!(f.contains(&42u64.to_le_bytes()));
assert_eq!(f.layers().len(), 5); // 1000 + 4000 + ... + 256000 ≥ 100000
assert!(f.compounded_error() < 0.01); // at the current fill
assert!(f.error_bound() <= 0.01); // however far it grows
# Ok::<(), bloomlab_scalable::Error>(())
```

# Presets

* [`ScalableBloomFilter::redisbloom`] and
  [`ScalableBloomFilter::redisbloom_reserve`]: RedisBloom's SBChain bit
  for bit — MurmurHash64A pair, plain double hashing modulo a multiple of
  64 bits, first layer at `P/2`, `r = 0.5`, expansion 2, RedisBloom's
  sizing with its decimal `ln 2` constants, lazy growth, the 0.25 error
  cap and the non-scaling mode that refuses inserts when full. `BF.INFO`
  figures ([`ScalableBloomFilter::info`]), `BF.DEBUG` lines and
  `BF.SCANDUMP`/`BF.LOADCHUNK` bytes are reproduced exactly.
* [`ScalableBloomFilter::almeida`] (`s = 2`, `r = 0.85`) and
  [`ScalableBloomFilter::almeida_fast`] (`s = 4`, `r = 0.75`): the
  paper's settings, partitioned layers filled to one half.
* [`ScalableBloomFilter::pybloom_live`]: pybloom-live's parameters
  (`r = 0.9`, growth 2 or 4, first layer at `0.9·P`: bound `9P`), for
  comparison charts.
* [`ScalableBloomFilter::new`]: bloomlab's defaults ([`Config::new`]):
  blocked layers (one 512-bit cache line per layer and key,
  [`Layout::Blocked`]), `s = 4`, `r = 0.75`, xxh3-64 — at 10⁶ items
  3.0–8.5× the speed of growable-bloom-filter and 8.6–21× that of
  probabilistic-collections (inserts to member queries, the committed
  block) at a lower false-positive rate, for more memory than `s = 2`;
  the [`readme`] has the measurements and the trade-off.

A different chain is a [`Config`]:

```
use bloomlab_scalable::{Config, Layout, ScalableBloomFilter};

// Slow growth, less memory: blocked layers, s = 2, r = 0.85.
let c = Config::new(10_000, 0.001).growth(2).tightening(0.85);
let mut f = ScalableBloomFilter::with_config(c)?;
assert!(f.add(b"apple")?); // newly inserted
assert!(!f.add(b"apple")?); // reported present: not inserted again
assert_eq!((f.len(), f.skipped()), (1, 1));
assert_eq!(f.layers()[0].k(), 13); // P0 = 0.00015: ⌈log2(1/P0)⌉
assert_eq!(f.config().layout, Layout::Blocked);
# Ok::<(), bloomlab_scalable::Error>(())
```

# Files

[`ScalableBloomFilter::to_bytes`] / [`ScalableBloomFilter::read`]:
bloomlab's own format (variant 4), described in `FORMAT.md`.
[`ScalableBloomFilter::from_layers`], [`Config::layer_specs`] and
[`Prober`] take a filter apart and rebuild it, for stores that keep the
layers apart (`bloomlab-redis`).
[`ScalableBloomFilter::redis_scandump`] /
[`ScalableBloomFilter::from_redis_scandump`]: RedisBloom's.

# Crate features

* `serde` (off by default): `Serialize` and `Deserialize` for
  [`ScalableBloomFilter`], as the bytes of its file
  ([`ScalableBloomFilter::to_bytes`]), checked on the way in as
  [`ScalableBloomFilter::read`] checks a file. A [`Config`] serializes as
  its fields, with names in kebab case (`layout = "blocked"`,
  `sizing = "half-fill"`, `family = "xxh3-64"`). On the way in only
  `initial_capacity` and `error` are required; the rest default as in
  [`Config::new`], an omitted `first_error` follows `tightening` and
  `scaling` as [`Config::tightening`] and [`Config::non_scaling`] set it,
  and the result is [`Config::validate`]d.

# Other crates

* `bloomlab-core`: bit arrays, the [`bloomlab_core::Filter`] trait, and
  the scalable formulas ([`bloomlab_core::theory::scalable_layers`]).
* `bloomlab-hash`: MurmurHash64A and the other families.
* `bloomlab-standard`, `bloomlab-partitioned`: fixed-size filters; this
  crate's layers use the same layouts.
*/
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod readme {
    //! The crate README: presets and where their parameters come from,
    //! the false-positive promise and its tests, measured speed against
    //! peer crates, and what RedisBloom's own chain does.
    #![doc = include_str!("../README.md")]
}

mod config;
mod error;
mod native;
mod parts;
mod probe;
pub mod redis;
mod scalable;
#[cfg(feature = "serde")]
mod serde_impls;

pub use config::{
    BLOCK_BITS, Config, Layout, MAX_BLOCKED_K, MAX_GROWTH, Pairing, Probe,
    Sizing,
};
pub use error::{Error, Result};
pub use native::VARIANT;
pub use parts::{LayerSpec, Prober};
pub use scalable::{Info, Layer, LayerInfo, ScalableBloomFilter};
