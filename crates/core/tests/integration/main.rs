//! Integration tests of bloomlab-core: one binary, one module per topic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// Guava's sizing, against every row of Guava 31.1's own outputs.
mod sizing;
// Confidence intervals against published values.
mod stats;
// Theory formulas against enumeration and seeded Monte Carlo.
mod theory;
