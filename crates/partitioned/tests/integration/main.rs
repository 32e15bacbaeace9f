//! Integration tests of bloomlab-partitioned: one binary, one module per
//! topic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// The general filter's API: sizing, insert/contains, batches, union,
// counts, the Filter trait.
mod api;
// Empirical FPR of the general filter against the partitioned formula.
mod fpr;
// hutool presets' FPR on realistic keys against the formula (findings).
mod findings;
// The file format: round trips, every rejection rule, corruption.
mod format;
// hutool edge cases: where bloomlab errors and where it follows hutool.
mod hutool_edges;
// Every case of testdata/hutool/filters.json, bit for bit.
mod hutool_vectors;
// Property tests: no false negatives, round trip, corruption never panics.
mod props;
// The inlined walks against the indexer's positions.
mod walk;
