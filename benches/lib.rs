//! Benchmarks for bloomlab live in `benches/`; this library holds
//! [`report`], which turns their results into the tables of
//! `benches/README.md` (and of the scalable crate's README), and
//! [`turns`], the benches' comparisons of filters taking turns.
//!
//! Run them with `cargo bench -p bloomlab-benches`, or with
//! `scripts/bench.sh SUITE`, which also regenerates the suite's block of
//! its README from that run.
#![forbid(unsafe_code)]

pub mod report;
pub mod turns;
