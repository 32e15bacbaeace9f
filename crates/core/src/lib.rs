/*!
The ground floor of bloomlab's maths: bit storage, sizing, theory and
statistics, the [`Filter`] trait every filter implements, and the byte
framing every file format shares.

Everything a chart or a report prints about a Bloom filter rests on this
crate, so each module has one job and every formula names its source:

* [`bits`]: [`BitArray`] and the lock-free [`AtomicBitArray`], both in
  Guava's layout (bit `i` is bit `i & 63` of word `i >> 6`).
* [`sizing`]: Guava's optimal number of bits and hash functions, bit-exact
  (including its truncation, its rounding and its errors).
* [`theory`]: the false-positive rate by the classical, discrete, exact,
  partitioned, blocked and scalable formulas; count estimates from the
  fill; Guava's `expectedFpp` and `approximateElementCount`.
* [`stats`]: Clopper–Pearson and Wilson intervals for an empirical
  false-positive rate, and the sample sizes they need.
* [`Filter`]: the object-safe trait the experiment runner drives.
* [`words`]: [`Words`], the word storage of large filters, in huge pages
  on Linux.
* [`framing`]: the byte framing of bloomlab's file formats, a
  bounds-checked reader, a checksumming writer and the checksum.
* `serde_file` (feature `serde`): how the filter crates serialize a
  filter with serde, as the bytes of its file.

# Example

Size a filter as Guava would, then ask what each formula predicts for it:

```
use bloomlab_core::{sizing::GuavaSizing, theory};

let s = GuavaSizing::new(1_000_000, 0.01)?;
assert_eq!(s.optimal_bits, 9_585_058);
assert_eq!(s.hash_functions, 7);
assert_eq!(s.bit_size, 9_585_088); // rounded up to whole 64-bit words

let classical = theory::fpr_classical(
    s.bit_size as f64, 1e6, f64::from(s.hash_functions));
let exact = theory::fpr_exact(s.bit_size, 1_000_000, s.hash_functions)?;
assert!(exact.value >= classical);
assert!((exact.value / classical - 1.0).abs() < 1e-5);
# Ok::<(), bloomlab_core::Error>(())
```

# Crate features

* `serde`: the `serde_file` module, which the filter crates' own `serde`
  features use to implement `Serialize` and `Deserialize`. Off by
  default.

# Other crates

* `bloomlab-hash` turns keys into bits: funnels, hash families and index
  strategies. It does not depend on this crate, nor this crate on it.
* `bloomlab-standard`, `bloomlab-counting`, `bloomlab-partitioned` and
  `bloomlab-scalable` are the filters; `bloomlab-runner` runs experiments.
*/
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod bits;
mod error;
mod filter;
pub mod framing;
mod prefetch;
#[cfg(feature = "serde")]
pub mod serde_file;
pub mod sizing;
pub mod stats;
pub mod theory;
pub mod words;

pub use bits::{AtomicBitArray, BitArray};
pub use error::{Error, Result, param_value};
pub use filter::Filter;
pub use prefetch::{
    EXTEND_BATCH, PREFETCH_MIN_BYTES, QUERY_BRANCH_MIN_BYTES, for_each_batch,
    prefetch, prefetch_l2, worth_prefetching,
};
pub use words::Words;
