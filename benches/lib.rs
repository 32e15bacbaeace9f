//! Benchmarks for bloomlab live in `benches/`; this library is empty.
//!
//! Run them with `cargo bench -p bloomlab-benches`. See the README of the
//! workspace for the figures and how they compare with peer crates.
