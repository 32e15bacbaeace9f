/*!
bloomlab's Bloom filters stored in Redis, shared by many processes.

[`RedisBloomFilter`] keeps a classic filter's bits in a Redis string and
its parameters in a companion hash; every operation is one Lua script,
one round trip, that checks the parameters and sets or reads the bits
atomically. Bit positions are those of the in-memory
[`bloomlab_standard::BloomFilter`] with the same [`Config`], `m` and `k`,
so a Redis filter exports to (and imports from) bloomlab's own file
format and, for Guava's configurations, Guava's.

[`RedisCountingBloomFilter`] does the same for the counting filter with
remove: 4-bit counters driven by `BITFIELD ... OVERFLOW SAT INCRBY u4`,
saturating inside Redis, counter for counter the in-memory
[`bloomlab_counting::CountingBloomFilter`]'s. Its `insert_many`,
`contains_many` and `remove_many` take a batch of keys in one round trip
(a churn workload's deletes among them), each key applied in turn as its
one-key call would.

[`RedisScalableBloomFilter`] keeps a scalable filter's growing chain of
layers, one Redis string each, with the chain's state (layer count,
per-layer shapes and counts) in a hash every client reads; a full layer
is followed by a new one inside the Lua script, so concurrent clients
never grow the chain twice, and layer `i` is layer `i` of the in-memory
[`bloomlab_scalable::ScalableBloomFilter`], bit for bit.

[`scandump`] and [`loadchunk`] exchange filters with the RedisBloom
module (`BF.SCANDUMP` / `BF.LOADCHUNK`) through the scalable crate's
RedisBloom preset; on a server without the module they fail with
[`Error::NoRedisBloom`] and change nothing.

# Example

```no_run
use bloomlab_redis::{Options, RedisBloomFilter, connect};
use bloomlab_standard::Config;

let conn = connect("redis://127.0.0.1:6379/", &Options::default())?;
let mut f = RedisBloomFilter::create_for_rate(
    conn, "urls", Config::default(), 1_000_000, 0.01,
)?;
f.insert("https://example.com/")?;
assert!(f.contains("https://example.com/")?);
f.insert_many(&["a", "b", "c"])?; // one round trip
assert_eq!(f.contains_many(&["a", "z"])?.len(), 2);

// Another process opens the same filter by name.
let conn = connect("redis://127.0.0.1:6379/", &Options::default())?;
let mut g = RedisBloomFilter::open(conn, "urls")?;
assert!(g.contains("a")?);

// The same bits in memory, to save in bloomlab's format.
let local = g.export()?;
assert!(local.contains("a"));
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Keys

Filter `name` uses two keys with the hash tag `{name}`, so that they
hash to one slot: `{name}:bits` (a string, bit `i` of the
in-memory filter at offset [`redis_offset`]`(i)`) and `{name}:config` (a
hash: `variant`, `version`, `m`, `k`, `family`, `seed`, `strategy`,
`reduction`). A counting filter keeps its counters in `{name}:counters`
instead (variant `counting-u4`). A scalable filter keeps `{name}:config`
(variant `scalable`), the chain hash `{name}:chain` and one string per
layer, `{name}:layer:<i>`. A bit filter's dense batch inserts also use
`{name}:tmp` for an instant inside their script, and refuse to run
([`Error::KeyInUse`]) if it holds anything.

The connection is one plain connection, which does not follow Redis
Cluster's redirects: against a cluster, connect to the node serving the
name's slot (a `MOVED` error names it). Counting queries use
`BITFIELD_RO`, so the server must be Redis 6.0 or newer.

A filter whose data key disappears while its config stays (deleted,
expired, or evicted by a server whose `maxmemory-policy` evicts any
key) has lost its contents: every use is [`Error::Lost`] rather than
answers from an empty filter, which would call every member absent.
Keep filters on a server that does not evict them (`noeviction`, or a
`volatile-*` policy with no expiry on the filter's keys).

# Errors and timeouts

A missing filter, a key of another type, a filter re-created with other
parameters are typed [`Error`]s; the script changes nothing then.
[`connect`] sets connection and reply timeouts ([`Options`]), so no call
waits longer; after a timeout or an I/O error, open a new connection.
*/
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod counting;
mod error;
mod filter;
mod handle;
mod redisbloom;
mod scalable;
mod scalable_scripts;
mod scripts;

pub use bloomlab_standard::Config;
pub use counting::{
    COUNTER_MAX, COUNTING_VARIANT, MAX_COUNTERS, RedisCountingBloomFilter,
    counter_index,
};
pub use error::{Error, Result};
pub use filter::{
    MAX_BITS, Options, RedisBloomFilter, VARIANT, bits_key, connect,
    redact_url, redis_offset, to_redis_bytes,
};
pub use handle::{CONFIG_VERSION, MAX_K, check_name, config_key};
pub use redis;
pub use redisbloom::{
    LoadChunks, ScandumpReader, loadchunk, loadchunk_with, scandump,
    scandump_with,
};
pub use scalable::{
    MAX_LAYERS, RedisScalableBloomFilter, SCALABLE_VARIANT, ScalableInfo,
    ScalableLayerInfo, chain_key, layer_key,
};
