//! Integration tests of bloomlab-scalable: one binary, one module per topic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// Every case of testdata/redisbloom/filters.json: replies, BF.INFO,
// BF.DEBUG, SCANDUMP bytes, LOADCHUNK round trips; the sizing grid.
mod redisbloom;
// RedisBloom behaviour checked against its C source (refusal order,
// bloom_init limits, which chains have a SCANDUMP).
mod redisbloom_audit;
// Growth from 1,000 items: empirical FPR against the target.
mod growth;
// Layer counts, capacities, errors, k and bits against the formulas.
mod layers;
// bloomlab's own format: round trips and bad input.
mod format;
// Property tests: no false negatives, round trips, corruption.
mod props;
// estimated_count against the items inserted, per layout.
mod count;
// add_many and contains_many against one key at a time.
mod batch;
