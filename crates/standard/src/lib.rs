/*!
Classic and cache-blocked Bloom filters: Guava-exact where interop
matters, fast where it does not.

* [`BloomFilter`]: the classic filter over one bit array, configured by
  hash family, index strategy and range reduction ([`Config`]; default
  `xxh3-128`, enhanced double hashing, multiply-shift), sized from `(n, p)`
  exactly as Guava sizes it or from `(m, k)`. Batch methods
  ([`BloomFilter::insert_many`], [`BloomFilter::contains_many`]) hash a
  batch of keys and prefetch the words they will read before reading
  any, so that the batch's cache misses are in flight together.
  [`BloomFilter::add`] inserts a key without telling whether it was new,
  which [`BloomFilter::insert`] must read every probed word to say: use
  it to fill a filter.
* [`AtomicBloomFilter`]: the same filter with lock-free inserts through
  `&self`, for many threads filling one filter.
* [`BlockedBloomFilter`]: the cache-blocked layout of Putze, Sanders and
  Singler (2007): all `k` bits of a key in one block of 512 bits (or any
  power of two from 64), one cache miss per operation; hashed by default
  with `xxh3-64` ([`DEFAULT_BLOCKED_FAMILY`]), which gives it all the
  bits it reads.
* [`guava`]: Guava's `BloomFilter` bit for bit, and its `writeTo` /
  `readFrom` byte for byte, including filters of more than 2^31 bits.
* [`read_any`] and [`StandardFilter`]: bloomlab's own file format for
  every layout (`FORMAT.md`), format detection, and what `inspect` shows.

# Example

```
use bloomlab_standard::{BloomFilter, guava};
use bloomlab_hash::Strategy;

// A fast filter for a million keys at 1%.
let mut f = BloomFilter::new(1_000_000, 0.01)?;
f.insert_many(&[1u64, 2, 3]);
f.add(&4u64);
assert!(f.contains(&2u64) && f.contains(&4u64));

// Guava's BloomFilter.create(stringFunnel(UTF_8), 1000, 0.03), saved as
// Guava's writeTo would save it.
let mut g = guava::create(1000, 0.03, Strategy::GuavaMitz64)?;
assert!(g.insert("user0@example.com"));
let bytes = guava::to_guava_bytes(&g)?;
assert_eq!(&bytes[..6], &[1, 5, 0, 0, 0, 115]);
assert_eq!(guava::read_guava(&bytes)?, g);
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Choosing a filter

* Need Guava's bits or files: [`guava::create`], [`guava::read_guava`].
* Otherwise, for the lowest false-positive rate per bit: [`BloomFilter`]
  (one cache miss per probe on filters larger than the cache; use the
  batch methods there).
* For the fastest operations on large filters: [`BlockedBloomFilter`]
  (one line a key; its `contains_many` prefetches too), at a
  false-positive rate about 1.1–1.2× the classic filter's at 10 bits
  per key.
* Many threads inserting: [`AtomicBloomFilter`], then
  [`AtomicBloomFilter::into_bloom_filter`].
* The fastest hashing of short keys (up to 16 bytes, such as `u64`s):
  the `fold-64` family, one folded multiply like the one fastbloom
  hashes with, but fixed across versions and platforms, so saved filters
  keep their meaning (`bloomlab-fold` in the benchmarks of
  `benches/README.md`); `fold-128` adds a second multiply for 128 bits,
  which only matter past about 2^32 keys in one filter. Their constants
  are public: use them for keys nobody picks against you.

  ```
  use bloomlab_hash::Family;
  use bloomlab_standard::Builder;

  let mut f = Builder::rate(1_000_000, 0.01).family(Family::Fold64).build()?;
  f.insert_many(&[1u64, 2, 3]);
  assert!(f.contains(&2u64));
  # Ok::<(), bloomlab_standard::Error>(())
  ```

Every filter implements [`bloomlab_core::Filter`], the trait the
experiment runner drives.

# Untrusted input

Readers ([`BloomFilter::read`], [`BlockedBloomFilter::read`],
[`AtomicBloomFilter::read`],
[`read_any`], [`guava::read_guava`], [`read_native`], and with the
`serde` feature each filter's `Deserialize`) never
panic and never allocate more than the input's length justifies: a
truncated file, an unknown strategy or variant, a zero or absurd word
count, trailing bytes or a bad checksum are [`Error`]s.

# Crate features

* `serde` (off by default): `Serialize` and `Deserialize` for
  [`BloomFilter`], [`BlockedBloomFilter`], [`AtomicBloomFilter`] (a
  snapshot of its bits) and [`StandardFilter`]. A filter serializes as
  the bytes of its bloomlab file ([`BloomFilter::to_bytes`]), so a filter
  inside a JSON, bincode or postcard document is the same bytes as on
  disk, and deserializing checks it as [`read_native`] checks a file: a
  corrupt filter is the document's error, never a panic. `BloomFilter`
  and `StandardFilter` also deserialize Guava's `writeTo` bytes.
  [`Config`] serializes as its settings, with the family, strategy and
  reduction by name and every field optional on the way in (an omitted
  one is [`Config::default`]'s), and [`BlockScheme`] as its name, so a
  service's configuration file can say how its filters hash.

# Other crates

* `bloomlab-hash`: funnels, hash families and index strategies.
* `bloomlab-core`: bit arrays, sizing, theory formulas and statistics.
* `bloomlab-counting`, `bloomlab-partitioned`, `bloomlab-scalable`: the
  other variants; `bloomlab-runner` runs experiments over all of them.
*/
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod atomic;
mod blocked;
mod blocked_kernel;
mod builder;
mod classic;
mod config;
mod error;
pub mod guava;
mod kernel;
mod native;
#[cfg(feature = "serde")]
mod serde_impls;
mod split;

pub mod readme {
    //! The crate README: which filter to pick, sharing a filter with
    //! Java through Guava's format, files and speed. Its examples run as
    //! doctests.
    #![doc = include_str!("../README.md")]
}

pub use atomic::AtomicBloomFilter;
pub use blocked::{
    BLOCK_SALTS, BLOCK_SCHEME, BlockScheme, BlockedBloomFilter,
    DEFAULT_BLOCK_BITS, DEFAULT_BLOCKED_FAMILY, MAX_BLOCK_BITS, MAX_BLOCKED_K,
};
pub use builder::{Builder, Size};
pub use classic::BloomFilter;
pub use config::{Config, MsHash, Probes};
pub use error::{Error, Result};
pub use kernel::{
    Fold64Start, Fold128Start, MsStart, StartFn, Xxh3x64Start, Xxh3x128Start,
};
pub use native::{
    Format, Info, Loaded, MAGIC, StandardFilter, VERSION, read_any,
    read_native, write_native,
};
pub use split::{MAX_SPLIT_BLOCKS, PARQUET_SALTS, SPLIT_BLOCK_BITS, SPLIT_K};
