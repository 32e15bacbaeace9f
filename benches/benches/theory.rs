//! How long the exact false-positive rate takes, for the sizes its docs
//! quote (`bloomlab_core::theory::fpr_exact`): a typical filter
//! (`m = 10^7`, `n = 10^6`, `k = 7`, the closed form), `k` in the
//! hundreds, and the slowest case found (`m = 2^64 − 1`, `n = 10^4`,
//! `k = 1000`). The runner calls it once per grid point, so these bound
//! what theory adds to an experiment.
//!
//! `cargo bench -p bloomlab-benches --bench theory`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use bloomlab_core::theory::fpr_exact;
use criterion::{Criterion, criterion_group, criterion_main};

fn exact(c: &mut Criterion) {
    let mut g = c.benchmark_group("theory/fpr-exact");
    g.sample_size(10).warm_up_time(Duration::from_millis(500));
    let cases: [(&str, u64, u64, u32); 3] = [
        ("typical-1e7-1e6-7", 10_000_000, 1_000_000, 7),
        ("k300-1e6-2e4", 1_000_000, 20_000, 300),
        ("slowest-2^64-1e4-1000", u64::MAX, 10_000, 1000),
    ];
    for (name, m, n, k) in cases {
        g.bench_function(name, |b| {
            b.iter(|| fpr_exact(black_box(m), black_box(n), black_box(k)))
        });
    }
    g.finish();
}

criterion_group!(benches, exact);
criterion_main!(benches);
