//! Why the RedisBloom preset's measured false-positive rate can exceed
//! its target `P`: the theory of each link at its fill (exact formula,
//! `bloomlab_core::theory::fpr_exact`), the chain's compounded error, the
//! rate of the filter's actual bits, and the measured rate, for one key
//! set at 1e5 and 1e6 items; plain double hashing's excess on single
//! links; then the spread over 40 key sets at 1e5.
//! The preset is RedisBloom's SBChain bit for bit, so RedisBloom given
//! the same items has the same bits and the same rates.
//!
//! `cargo run --release -p bloomlab-scalable --example redisbloom_fpr`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bloomlab_core::theory::{fpr_exact, scalable_compounded_error};
use bloomlab_scalable::ScalableBloomFilter;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const P: f64 = 0.01;

/// `BF.RESERVE key 0.01 1000 EXPANSION 2`, filled with `n` random even
/// keys from `seed`.
fn filled(n: u64, seed: u64) -> (ScalableBloomFilter, ChaCha8Rng) {
    let mut f =
        ScalableBloomFilter::redisbloom_reserve(P, 1000, Some(2), false)
            .unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    while f.len() < n {
        let k = rng.random::<u64>() & !1;
        f.add(&k.to_le_bytes()).unwrap();
    }
    (f, rng)
}

/// The rate measured on `queries` random odd keys (never inserted).
fn measured(
    f: &ScalableBloomFilter,
    rng: &mut ChaCha8Rng,
    queries: u64,
) -> f64 {
    let fp = (0..queries)
        .filter(|_| f.contains(&(rng.random::<u64>() | 1).to_le_bytes()))
        .count();
    fp as f64 / queries as f64
}

fn main() {
    for n in [100_000u64, 1_000_000] {
        let (f, mut rng) = filled(n, 1);
        println!("n = {n} ({} adds skipped as present)", f.skipped());
        println!(
            "  link        m   k   items/capacity  P_i        exact at fill  \
             exact/P_i  rate of its bits"
        );
        let mut exact = Vec::new();
        for (i, l) in f.layers().iter().enumerate() {
            let e = fpr_exact(l.bits(), l.count(), l.k()).unwrap().value;
            let full = fpr_exact(l.bits(), l.capacity(), l.k()).unwrap().value;
            println!(
                "  {i:>4} {:>9} {:>3} {:>7}/{:<7} {:.3e}  {e:.4e}     \
                 {:.4} (full: {:.4})  {:.4e}",
                l.bits(),
                l.k(),
                l.count(),
                l.capacity(),
                l.error(),
                e / l.error(),
                full / l.error(),
                l.fill().powi(l.k() as i32),
            );
            exact.push(e);
        }
        let theory = scalable_compounded_error(&exact);
        let bits = f.compounded_error();
        let rate = measured(&f, &mut rng, 4_000_000);
        println!(
            "  compounded: exact at fill {:.4} P, of the actual bits {:.4} P, \
             measured (4e6 queries) {:.4} P\n",
            theory / P,
            bits / P,
            rate / P
        );
    }

    // Plain double hashing's excess: single links (non-scaling filters
    // of the first link's size, and a large one), many key sets, measured
    // against the exact formula for random probes.
    for (p, n, filters) in [(0.005, 1000u64, 300u64), (0.005, 100_000, 10)] {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (mut fp, mut queries) = (0u64, 0u64);
        let mut shape = (0, 0);
        for _ in 0..filters {
            let mut f =
                ScalableBloomFilter::redisbloom_reserve(p, n, None, true)
                    .unwrap();
            while f.len() < n {
                let k = rng.random::<u64>() & !1;
                f.add(&k.to_le_bytes()).unwrap();
            }
            let l = &f.layers()[0];
            shape = (l.bits(), l.k());
            let q = 100_000;
            fp += (measured(&f, &mut rng, q) * q as f64).round() as u64;
            queries += q;
        }
        let exact = fpr_exact(shape.0, n, shape.1).unwrap().value;
        let rate = fp as f64 / queries as f64;
        println!(
            "{filters} links of {} bits, k = {}, {n} items: measured {rate:.4e} \
             = {:.4} × exact ({exact:.4e})",
            shape.0,
            shape.1,
            rate / exact
        );
    }

    let mut rates = Vec::new();
    let mut bits = Vec::new();
    for seed in 0..40 {
        let (f, mut rng) = filled(100_000, 1000 + seed);
        rates.push(measured(&f, &mut rng, 1_000_000) / P);
        bits.push(f.compounded_error() / P);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let max = |v: &[f64]| v.iter().copied().fold(f64::MIN, f64::max);
    let min = |v: &[f64]| v.iter().copied().fold(f64::MAX, f64::min);
    println!(
        "40 key sets at 1e5: measured {:.4} P on average (min {:.4}, max \
         {:.4}, above P in {}); rate of the bits {:.4} P on average (min \
         {:.4}, max {:.4})",
        mean(&rates),
        min(&rates),
        max(&rates),
        rates.iter().filter(|r| **r > 1.0).count(),
        mean(&bits),
        min(&bits),
        max(&bits)
    );
}
