//! Integration tests of bloomlab-counting: one binary, one module per
//! topic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// The API: sizing, insert/remove/count_estimate, shared probes, union,
// memory, the Filter trait, inspect's text.
mod api;
// Seeded churn at n = 1e5: no false negatives, FPR against the formula.
mod churn;
// The file format: round trips, every rejection rule, corruption.
mod format;
// The false-negative hazard of removing a false positive, demonstrated.
mod hazard;
// Model-based property test against a multiset.
mod model;
// 2-bit counters driven into saturation: counts, stickiness, no false
// negatives.
mod saturation;
// to_standard() against bloomlab-standard, bit for bit, per config.
mod standard;
// keep_summary(): the summary follows the counters through every change.
mod summary;
// One-word keys (u64, i64, [u8; 8]) against the same bytes as a slice.
mod words;
