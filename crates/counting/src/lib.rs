/*!
Counting Bloom filters with delete, honest about what goes wrong.

A [`CountingBloomFilter`] (Fan, Cao, Almeida & Broder 2000, "Summary
Cache") replaces each bit of a Bloom filter by a small counter: insert
increments the `k` counters of a key, remove decrements them, and a key
is present while all its counters are non-zero. Counters are 2, 4
(default) or 8 bits ([`CounterWidth`]), packed into `u64` words with no
padding, so `m` 4-bit counters take `m/2` bytes. Keys are placed exactly
as [`bloomlab_standard::BloomFilter`] places them under the same
[`Config`] (hash family, seed, index strategy, range reduction):
[`CountingBloomFilter::to_standard`] gives that filter bit for bit.

The filter counts what it can see going wrong ([`Stats`]): increments
lost to saturated counters, decrements skipped on them, and removes it
refused because the key was certainly absent.

# Example

```
use bloomlab_counting::{CountingBloomFilter, Error};
use bloomlab_standard::BloomFilter;

// 10,000 keys at 1%: Guava's sizing, one 4-bit counter per bit.
let mut f = CountingBloomFilter::new(10_000, 0.01)?;
for i in 0..100u64 {
    f.insert(&i);
}
for i in 0..50u64 {
    f.remove(&i)?;
}
assert!((50..100u64).all(|i| f.contains(&i)));
// A key with a zero counter cannot be removed; nothing changes.
assert!(matches!(f.remove(&1_000_000u64), Err(Error::NotPresent { .. })));
assert_eq!(f.stats().rejected_removes, 1);

// The same bits as a standard filter of the 50 live keys.
let mut g = BloomFilter::with_config(f.config(), f.counters(), 7)?;
for i in 50..100u64 {
    g.insert(&i);
}
assert_eq!(f.to_standard()?, g);
assert_eq!(f.bytes_of_memory(), 95_872 / 2);
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Deletes: what the filter can and cannot detect

* **It detects** the remove of a key that is certainly absent: one of its
  counters is zero (never inserted, or removed as often as inserted).
  [`CountingBloomFilter::remove`] returns [`Error::NotPresent`], changes
  no counter and counts it in [`Stats::rejected_removes`].
* **It cannot detect** the remove of a key that was never inserted but is
  a *false positive* (all its counters are non-zero because of other
  keys). The remove succeeds and decrements counters that belong to
  other keys; any that fall to zero turn those keys into **false
  negatives** (Guo, Liu, Li & Yang 2010, "False Negative Problem of
  Counting Bloom Filter"). At the optimal load a counter is about
  Poisson(ln 2), and a decremented counter reaches zero with probability
  about ln 2, so a removed false positive zeroes about `0.69·k` counters
  and almost surely creates false negatives (`THEORY.md` §6). Nor can it
  tell a double remove from a single one while other keys hold the
  counters up. Only remove keys you know you inserted: keep the
  authoritative set elsewhere, or use the filter for keys whose
  membership you check in that set first.
* **Saturation** is sticky and counted. A counter at its maximum means
  "at least the maximum": later increments are lost
  ([`Stats::saturation_events`]) and it is never decremented again
  ([`Stats::skipped_decrements`]), so saturation can never cause a false
  negative; it can only leave counters set after their keys are gone
  (false positives that churn cannot clear).
  [`CountingBloomFilter::saturated_counters`] counts them. With 4-bit
  counters at the optimal load, the chance that any counter saturates is
  about `m·P(Poisson(ln 2) ≥ 15)`, negligible below billions of counters
  (`bloomlab_core::theory::fpr_counting_overflow_binomial`); with 2-bit
  counters it is routine, which is what [`CounterWidth::Two`] is for.

`fastbloom-rs`'s counting filter, measured in `benches/benches/counting.rs`,
decrements counters that saturated at 15 (their true count is higher), so
after overload and heavy deletes they reach zero early and live keys
become false negatives; that benchmark prints the count for both.

# Choosing a filter

* Keys are only ever added: [`bloomlab_standard::BloomFilter`], 4× less
  memory for the same false-positive rate.
* Keys come and go, and you know every removed key was inserted:
  [`CountingBloomFilter`] with the default 4-bit counters.
* Studying overflow against counter width, load or churn:
  [`CounterWidth::Two`] saturates at realistic loads;
  [`CounterWidth::Eight`] keeps multiplicities up to 254 for
  [`CountingBloomFilter::count_estimate`].
* A snapshot for a reader that needs no deletes:
  [`CountingBloomFilter::to_standard`].
* Many keys at once, on a filter larger than the CPU caches:
  [`CountingBloomFilter::insert_many`],
  [`CountingBloomFilter::remove_many`] and
  [`CountingBloomFilter::contains_many`] hash a batch and prefetch its
  counters before touching any (from [`INSERT_PREFETCH_MIN_BYTES`]),
  2.4 to 3.3 times faster than one key at a time at 48 MB of counters
  (the counting bench's `build`, `teardown` and `contains` rows).
* Queries far outnumber updates, or other nodes need the bits: a filter
  that keeps a summary ([`CountingBloomFilter::keep_summary`], as the
  proxies of *Summary Cache* do), the standard filter kept in step with
  the counters. Queries read `m` bits instead of `m` counters, at the
  standard filter's speed; updates write both, and memory is `m` bits
  more (5 bits a counter with 4-bit counters).

Every filter implements [`bloomlab_core::Filter`] (variant
`counting`; "bits" are counters, "bits set" the non-zero counters).

# Files

[`CountingBloomFilter::write`] / [`CountingBloomFilter::read`] use
bloomlab's own format, variant 2 (`FORMAT.md`): the counters, the
configuration and the statistics, checksummed. Readers never panic and
never allocate more than the input holds; [`is_counting`] tells a
counting filter's file from other bloomlab files.
[`CountingBloomFilter::info`] is what `bloomlab inspect` prints.

# Crate features

* `serde` (off by default): `Serialize` and `Deserialize` for
  [`CountingBloomFilter`], as the bytes of its file
  ([`CountingBloomFilter::to_bytes`]: counters, configuration and
  statistics), checked on the way in as [`CountingBloomFilter::read`]
  checks a file. [`CounterWidth`] serializes as its bits (2, 4 or 8),
  and the hashing [`Config`] as its fields
  (`bloomlab-standard`'s `serde` feature, which this one turns on).

# Other crates

* `bloomlab-hash`: funnels, hash families and index strategies.
* `bloomlab-core`: sizing, theory formulas (including the counter
  overflow bounds) and statistics.
* `bloomlab-standard`: the classic and blocked filters, and the
  [`Config`] this crate shares; `bloomlab-partitioned`,
  `bloomlab-scalable`: the other variants; `bloomlab-runner` runs
  experiments over all of them.
*/
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod counters;
mod error;
mod fast;
mod filter;
mod format;
mod probes;

pub mod readme {
    //! The crate README: counter width against memory and overflow,
    //! batches and the summary, files and speed. Its examples run as
    //! doctests.
    #![doc = include_str!("../README.md")]
}
#[cfg(feature = "serde")]
mod serde_impls;

pub use bloomlab_standard::{Config, Size};
pub use counters::CounterWidth;
pub use error::{Error, Result};
pub use filter::{
    Builder, CountingBloomFilter, INSERT_PREFETCH_MIN_BYTES, MAX_K,
    QUERY_BRANCH_MIN_BYTES, Stats,
};
pub use format::{Info, MAGIC, VARIANT_COUNTING, VERSION, is_counting, read};
