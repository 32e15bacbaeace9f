/*!
Partitioned (sliced) Bloom filters, and hutool's `BitMapBloomFilter` and
`BitSetBloomFilter` reproduced bit for bit.

A partitioned filter splits its `m` bits into `k` slices and sets exactly
one bit per slice for each key. The slices are independent, so its
false-positive rate is exactly `(1 − (1 − k/m)^n)^k` when `k | m`
([`bloomlab_core::theory::fpr_partitioned`]), a hair above a classic
filter of the same size. Each slice can have its own hash function — which
is how many Java teams' filters work: hutool's `BitMapBloomFilter` is five
bit maps addressed by five classic string hashes (Java's `hashCode`, ELF,
JS, PJW, SDBM). This crate builds both kinds, and measures what those
string hashes cost (see [`readme`]).

* [`PartitionedBloomFilter`]: `k` slices addressed either by one hash
  family and an index strategy (probe `i` of the strategy lands in slice
  `i`; default `xxh3-64`, enhanced double hashing, multiply-shift) or by
  one hash function per slice ([`SliceSpec`]). Sized from `(n, p)` with
  `k = ⌈log2(1/p)⌉` ([`PartitionedBloomFilter::sizing`]) or from explicit
  slices.
* [`HutoolBitMap`]: `new BitMapBloomFilter(m)` and
  `new BitMapBloomFilter(m, filters...)` over the ten hutool filter
  classes ([`HutoolFilterClass`]).
* [`HutoolBitSet`]: `new BitSetBloomFilter(c, n, k)`.
* [`AnyPartitioned`]: bloomlab's own file format for all three
  (`FORMAT.md`), and what `bloomlab inspect` shows.

# Example

```
use bloomlab_partitioned::{HutoolBitMap, PartitionedBloomFilter};

// A partitioned filter for a million keys at 1%: 7 slices.
let mut f = PartitionedBloomFilter::new(1_000_000, 0.01)?;
f.insert_many(&[1u64, 2, 3]);
assert!(f.contains(&2u64));
assert_eq!(f.hash_count(), 7);

// hutool's new BitMapBloomFilter(5), with hutool's answers.
let mut h = HutoolBitMap::new(5)?;
assert!(h.add("https://example.com/page/0?ref=abc"));
assert!(h.contains("https://example.com/page/0?ref=abc"));
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Choosing a filter

* Need hutool's exact answers (to read a Java service's behaviour, or to
  migrate off it): [`HutoolBitMap`] or [`HutoolBitSet`], fed the same
  strings.
* Otherwise, for a filter whose false-positive rate is exactly what the
  formula says: [`PartitionedBloomFilter::new`]. It costs about the same
  bits as a classic filter (`bloomlab-standard`'s `BloomFilter`) for the
  same `p`; use the classic one when every last bit counts, and the
  blocked one there when speed does.
* Comparing hash functions: [`PartitionedBloomFilter::with_slices`] with
  one registered family per slice, each with its own reduction.

Every filter implements [`bloomlab_core::Filter`] (variant
`partitioned`), the trait the experiment runner drives.

# Untrusted input

[`AnyPartitioned::read`] (and each type's own `read`, such as
[`PartitionedBloomFilter::read`], and with the `serde` feature its
`Deserialize`) never panics and never allocates more than the
input's length justifies: a truncated file, an unknown name, a zero or
absurd slice count or size, trailing bytes or a bad checksum are
[`Error`]s.

# Crate features

* `serde` (off by default): `Serialize` and `Deserialize` for
  [`PartitionedBloomFilter`], [`HutoolBitMap`], [`HutoolBitSet`] and
  [`AnyPartitioned`], each as the bytes of its file
  ([`PartitionedBloomFilter::to_bytes`]), checked on the way in as a file
  is. The hashing settings serialize as their fields, with families and
  reductions by name: [`Config`] (every field optional on the way in,
  [`Config::default`]'s if omitted) and [`SliceSpec`] (`family` and
  `bits` required, `seed` 0 and `reduction` multiply-shift if omitted),
  so a service's configuration file can list hutool-style slices.

# Other crates

* `bloomlab-hash`: funnels, hash families (including hutool's
  `HashUtil`) and index strategies.
* `bloomlab-core`: bit arrays, sizing, theory formulas and statistics.
* `bloomlab-standard`: classic and blocked filters, Guava interop;
  `bloomlab-counting`, `bloomlab-scalable` (which can stack partitioned
  layers); `bloomlab-runner` runs experiments over all of them.
*/
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod error;
mod format;
mod hutool;
mod partitioned;
#[cfg(feature = "serde")]
mod serde_impls;
mod walk;

pub use error::{Error, Result};
pub use format::{AnyPartitioned, Info, MAGIC, VARIANT_PARTITIONED, VERSION};
pub use hutool::{
    HutoolBitMap, HutoolBitSet, HutoolFilterClass, MIB_BITS,
    bitmap_default_filters, bitmap_index_fits, bitmap_int_map_length,
    bitmap_size_per_filter,
};
pub use partitioned::{
    Config, Layout, MAX_SLICES, PartitionedBloomFilter, Sizing,
    SliceReduction, SliceSpec,
};

/// `new BitMapBloomFilter(m)`: see [`HutoolBitMap::new`].
pub fn hutool_bitmap(m: i32) -> Result<HutoolBitMap> {
    HutoolBitMap::new(m)
}

/// `new BitMapBloomFilter(m, filters...)`: see
/// [`HutoolBitMap::with_filters`].
pub fn hutool_bitmap_with(
    m: i32,
    filters: &[(HutoolFilterClass, i64)],
) -> Result<HutoolBitMap> {
    HutoolBitMap::with_filters(m, filters)
}

/// `new BitSetBloomFilter(c, n, k)`: see [`HutoolBitSet::new`].
pub fn hutool_bitset(c: i32, n: i32, k: i32) -> Result<HutoolBitSet> {
    HutoolBitSet::new(c, n, k)
}

pub mod readme {
    //! The crate README: hutool's edge cases and what bloomlab does with
    //! them, and the measured false-positive rates of hutool's presets.
    #![doc = include_str!("../README.md")]
}
