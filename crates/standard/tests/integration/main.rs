//! Integration tests of bloomlab-standard: one binary, one module per topic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// Small API behaviour: sizing, errors, union/intersection, batches,
// describe.
mod api;
// AtomicBloomFilter: threads inserting disjoint keys give the sequential
// build's bits.
mod concurrency;
// A blocked filter's expected_fpp and estimated_count against measured
// rates, the blocked formulas and the keys inserted.
mod blocked_fill;
// Empirical false-positive rates at n = 1e6 against the formulas.
mod fpr;
// Every case of testdata/guava/filters.json, bit for bit and byte for byte.
mod guava;
// The two filters of more than 2^31 bits in testdata/guava/filters_large.json.
mod guava_large;
// The fast probe paths give the same positions as bloomlab_hash::Indexer.
mod indexer;
// Native and Guava formats: round trips and bad input.
mod format;
// Property tests: no false negatives, unions, round trips, corruption.
mod props;
// Parquet's split-block scheme: sbbf-rs-safe's bits, sizing, files.
mod split;
