/*!
Byte-stable hashing for Bloom filters: funnels, hash families and index
strategies, each bit-exact with the implementation it is named after
(for Redisson, its index scheme: Redisson hashes with HighwayHash-128,
which is not among the families).

A Bloom filter's answers are only as portable as its hashing. This crate
turns keys into bytes the way Guava's funnels do ([`Funnel`]), bytes into
hash values with a registered [`Family`] (Guava's murmur3, RedisBloom's
MurmurHash64A, xxHash, FNV-1a, SipHash-1-3, Java's `String.hashCode`,
all of hutool's `HashUtil` functions, and bloomlab's own
[`fold::fold128`] and [`fold::fold64`], one or two multiplies deep for
short keys), and hash values into `k` positions with an index [`Strategy`] (Guava's MITZ_32 and MITZ_64, double and
enhanced double hashing, RedisBloom's and Redisson's schemes, independent
hashes) and a range [`Reduction`] (modulo or multiply-shift). Every family
and strategy has a stable name, so experiments can sweep over them.

# Example

Reproduce where Guava's default Bloom filter sets the bits of a key:

```
use bloomlab_hash::{Family, Funnel, Indexer, Reduction, Strategy};

// BloomFilter.create(Funnels.stringFunnel(UTF_8), 100, 0.01):
// 958 bits (Guava truncates 958.5) rounded up to 960, k = 7, MURMUR128_MITZ_64.
let guava = Indexer::new(Family::Murmur3X64_128, 0,
    Strategy::GuavaMitz64, Reduction::Modulo, 7, 960)?;
let bits = "item-0".with_bytes(|b| guava.indices(b));
assert_eq!(bits.len(), 7);

// The same key under a different design, chosen by name.
let fast = Indexer::new(Family::from_name("xxh3-64")?, 0,
    Strategy::from_name("double")?, Reduction::MultiplyShift, 7, 960)?;
assert!(fast.indices(b"item-0").iter().all(|&i| i < 960));
# Ok::<(), bloomlab_hash::Error>(())
```

# Registry

[`Family::all`], [`Strategy::all`] and [`Reduction::all`] list everything
by name; `bloomlab list` prints the same. Names are lower-case kebab case
and never change once published.

# Crate features

* `serde`: [`Family`], [`Strategy`] and [`Reduction`] serialize as
  their registry names (module `serde_name`). Off by default.

# Other crates

* `bloomlab-core`: bit arrays, sizing, theory and statistics; it knows
  nothing of hashing, and this crate nothing of it.
* `bloomlab-standard`, `bloomlab-counting`, `bloomlab-partitioned` and
  `bloomlab-scalable` build filters from an [`Indexer`].
*/
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod error;
pub mod family;
pub mod fold;
pub mod funnel;
pub mod hutool;
pub mod inline;
pub mod murmur3;
pub mod murmur64a;
#[cfg(feature = "serde")]
pub mod serde_name;
pub mod strategy;

pub use error::{Error, Result};
pub use family::{Digest, Family, Hasher, SeedKind};
pub use funnel::{Funnel, Utf16Le};
pub use hutool::HutoolHash;
pub use strategy::{Indexer, MAX_K, Reduction, Strategy};
