//! Integration tests of bloomlab-redis against a real `redis-server` on
//! 127.0.0.1 (started per test by `common`): one binary, one module per
//! topic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// The harness: a redis-server on a random port, killed on drop.
mod common;
// Bits equal the in-memory filter's; batches; import/export; errors.
mod api;
// RedisCountingBloomFilter: counters equal the in-memory filter's.
mod counting;
// Threads and processes inserting disjoint sets into one filter.
mod concurrency;
// Killed, frozen and silent servers; what failed batches leave behind.
mod faults;
// RedisScalableBloomFilter: layers equal the in-memory chain's; errors;
// concurrent growth by processes and threads.
mod scalable;
// RedisBloom interop: SCANDUMP/LOADCHUNK chunks against the recorded
// vectors; a plain server without the module.
mod redisbloom;
