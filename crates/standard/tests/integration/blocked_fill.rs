//! A blocked filter's fill-based figures: `expected_fpp`, the rate of a
//! random non-member given its bits, and `estimated_count`, the number of
//! keys its fill implies, for both block schemes.

use bloomlab_core::Filter;
use bloomlab_core::stats::clopper_pearson;
use bloomlab_core::theory::{
    BlockInner, estimate_count_blocked_sd, estimate_count_split_block_sd,
    fpr_blocked_binomial, fpr_split_block,
};
use bloomlab_hash::Family;
use bloomlab_standard::{BlockScheme, BlockedBloomFilter};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const N: u64 = 100_000;
const QUERIES: usize = 1_000_000;
/// Two-sided 99.9% normal quantile.
const Z999: f64 = 3.290_526_731_491_926;

/// `(scheme, B, k, bits per key, seed)`.
type Case = (BlockScheme, u64, u32, u64, u64);

/// The default line-sized block from 8 to 20 bits a key, a word-sized
/// block (whose in-block collisions the classic formulas miss most), a
/// small and a large block, and Parquet's split block.
const CASES: [Case; 9] = [
    (BlockScheme::Salted, 512, 6, 8, 1),
    (BlockScheme::Salted, 512, 7, 10, 2),
    (BlockScheme::Salted, 512, 14, 20, 3),
    (BlockScheme::Salted, 64, 7, 10, 4),
    (BlockScheme::Salted, 128, 4, 8, 5),
    (BlockScheme::Salted, 4096, 11, 16, 6),
    (BlockScheme::ParquetSplit, 256, 8, 8, 7),
    (BlockScheme::ParquetSplit, 256, 8, 10, 8),
    (BlockScheme::ParquetSplit, 256, 8, 16, 9),
];

/// A filter of `n` random keys with the top bit clear, and the generator
/// that made them (non-members have the top bit set).
fn filled(
    (scheme, block_bits, k, bits_per_key, seed): Case,
    n: u64,
) -> (BlockedBloomFilter, ChaCha8Rng) {
    let mut f = BlockedBloomFilter::with_scheme(
        Family::Xxh3_64,
        0,
        n * bits_per_key,
        k,
        block_bits,
        scheme,
    )
    .unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let members: Vec<u64> = (0..n).map(|_| rng.random::<u64>() >> 1).collect();
    f.insert_many(&members);
    (f, rng)
}

/// The estimate's standard deviation by the theory for a filter shaped
/// as `f` holding `n` keys.
fn estimate_sd(f: &BlockedBloomFilter, n: u64) -> f64 {
    let (m, k, b) = (f.bits(), f.hash_count(), f.block_bits());
    match f.scheme() {
        BlockScheme::Salted => estimate_count_blocked_sd(m, k, b, n),
        BlockScheme::ParquetSplit => estimate_count_split_block_sd(m, k, b, n),
    }
    .unwrap()
}

/// Each block's own rate, from the words, independently of the filter's
/// code: `(X_b/B)^k`, or for split blocks `Π_w (X_{b,w}/32)`.
fn block_rates(f: &BlockedBloomFilter) -> Vec<f64> {
    let words: Vec<u64> = f.words().collect();
    let per_block = (f.block_bits() / 64) as usize;
    words
        .chunks(per_block)
        .map(|b| match f.scheme() {
            BlockScheme::Salted => {
                let x: u32 = b.iter().map(|w| w.count_ones()).sum();
                (f64::from(x) / f.block_bits() as f64)
                    .powi(f.hash_count() as i32)
            }
            BlockScheme::ParquetSplit => b
                .iter()
                .flat_map(|&w| [w as u32, (w >> 32) as u32])
                .map(|w| f64::from(w.count_ones()) / 32.0)
                .product(),
        })
        .collect()
}

/// `expected_fpp` is the rate of this very filter for a random
/// non-member, so the non-members' false positives are
/// `Binomial(QUERIES, expected_fpp)`: it must lie in their 99.9%
/// Clopper–Pearson interval (half-widths from 2% of the rate at 8 bits a
/// key to 22% at 20). Guava's `(X/m)^k`, 1.12 to 3.8 times lower here,
/// falls below the interval in every case but the 4096-bit block's.
#[test]
fn expected_fpp_is_the_rate_of_random_non_members() {
    for case in CASES {
        let (f, mut rng) = filled(case, N);
        let queries: Vec<u64> =
            (0..QUERIES).map(|_| rng.random::<u64>() | 1 << 63).collect();
        let mut out = vec![false; QUERIES];
        f.contains_many(&queries, &mut out);
        let hits = out.iter().filter(|&&x| x).count() as u64;
        let ci = clopper_pearson(hits, QUERIES as u64, 0.999).unwrap();
        let expected = f.expected_fpp();
        assert!(
            ci.contains(expected),
            "{case:?}: {hits} hits of {QUERIES}, 99.9% CI [{:e}, {:e}], \
             expected_fpp {expected:e}",
            ci.lo,
            ci.hi
        );
    }
}

/// `expected_fpp` is the mean of the blocks' own rates, and its
/// expectation over filters is the blocked formula (`fpr_blocked_binomial`
/// with the exact inner rate, binomial block loads; `fpr_split_block`,
/// whose Poisson loads move it by O(B/m), under 3e-4 relative here, which
/// the tolerance adds). One filter's value differs from the formula by
/// the spread of a mean of `blocks` block rates: the tolerance is 3.29
/// standard errors (99.9% normal), the standard error `s/√blocks` from
/// the sample sd `s` of this filter's block rates (1.4% to 3.4% of the
/// rate here). That treats the blocks as independent; their loads sum to
/// `N`, which correlates them negatively and makes the true spread
/// smaller (2.5% against 3.4% over 40 filters at `B = 512`, `k = 14`), so
/// the bound is conservative.
#[test]
fn expected_fpp_is_the_mean_of_block_rates_and_near_the_formula() {
    for case in CASES {
        let (f, _) = filled(case, N);
        let rates = block_rates(&f);
        let blocks = rates.len() as f64;
        assert_eq!(blocks, f.blocks() as f64);
        let mean = rates.iter().sum::<f64>() / blocks;
        let var = rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>()
            / (blocks - 1.0);
        let expected = f.expected_fpp();
        // The same sum in another order: equal but for rounding.
        assert!(
            (expected - mean).abs() <= 1e-12 * mean,
            "{case:?}: expected_fpp {expected:e}, mean of block rates {mean:e}"
        );
        let (m, k, b) = (f.bits(), f.hash_count(), f.block_bits());
        let formula = match f.scheme() {
            BlockScheme::Salted => {
                fpr_blocked_binomial(m, N, k, b, BlockInner::Exact).unwrap()
            }
            BlockScheme::ParquetSplit => fpr_split_block(m, N, k, b).unwrap(),
        };
        let tolerance = Z999 * (var / blocks).sqrt() + 3e-4 * formula;
        assert!(
            (expected - formula).abs() <= tolerance,
            "{case:?}: expected_fpp {expected:e}, formula {formula:e}, \
             tolerance {tolerance:e}"
        );
    }
}

/// The estimate from the fill is within 3.29 of its standard deviations
/// (99.9% normal) of the `N` keys inserted, the standard deviation by the
/// delta method with the exact variance of the blocked fill
/// ([`estimate_count_blocked_sd`], [`estimate_count_split_block_sd`]):
/// 0.06% to 0.10% of `N` here. The classic estimator undercounts a salted
/// filter by 3.8 to 46 of them (0.3% to 4.6%); a split block's `k` bits
/// are distinct, as a classic filter's almost are, so it is right there.
#[test]
fn estimated_count_is_within_its_spread_of_the_keys() {
    for case in CASES {
        let (f, _) = filled(case, N);
        let sd = estimate_sd(&f, N);
        let estimate = Filter::estimated_count(&f);
        assert!(
            (estimate - N as f64).abs() <= Z999 * sd,
            "{case:?}: estimate {estimate}, {N} keys, sd {sd}"
        );
    }
}

/// The spread the previous test allows is the estimate's: over
/// `FILTERS` small filters of `n = 2000` keys each, the standardised
/// errors `z = (n* − n)/sd` have mean 0 and standard deviation 1. With
/// `FILTERS = 400` the sample mean's standard error is 0.05 and the
/// sample sd's about `1/√(2·399) = 0.035`; the bounds are 3.29 of each
/// (99.9% normal), so `|mean| ≤ 0.165` and `|sd − 1| ≤ 0.117`; measured
/// here, means 0.03 to 0.05 (the estimator's small upward bias, from the
/// logarithm's curvature) and sds 0.90 to 0.98. The classic estimator's
/// mean is −6.5 at `B = 64`.
#[test]
fn estimated_count_spread_is_the_theory_s() {
    const FILTERS: u64 = 400;
    let n = 2000;
    for (scheme, b, k, bits_per_key) in [
        (BlockScheme::Salted, 64, 7, 10),
        (BlockScheme::Salted, 512, 7, 10),
        (BlockScheme::ParquetSplit, 256, 8, 10),
    ] {
        let z: Vec<f64> = (0..FILTERS)
            .map(|seed| {
                let case = (scheme, b, k, bits_per_key, 1000 + seed);
                let (f, _) = filled(case, n);
                (Filter::estimated_count(&f) - n as f64) / estimate_sd(&f, n)
            })
            .collect();
        let count = FILTERS as f64;
        let mean = z.iter().sum::<f64>() / count;
        let sd = (z.iter().map(|z| (z - mean).powi(2)).sum::<f64>()
            / (count - 1.0))
            .sqrt();
        let (mean_bound, sd_bound) =
            (Z999 / count.sqrt(), Z999 / (2.0 * (count - 1.0)).sqrt());
        assert!(
            mean.abs() <= mean_bound && (sd - 1.0).abs() <= sd_bound,
            "{scheme:?} B={b} k={k}: z mean {mean} (bound {mean_bound}), \
             sd {sd} (1 ± {sd_bound})"
        );
    }
}

/// Hand-set bits. Salted, `B = 64`, `k = 2`, four blocks holding 4, 64,
/// 0 and 0 bits: `((4/64)² + 1 + 0 + 0)/4 = 257/1024`, where Guava's
/// `(68/256)²` is 0.071. Split blocks: block 0's 64-bit words each hold a
/// 32-bit word of 16 bits (low half) and one of 8 (high half), so its
/// rate is `(16/32 · 8/32)^4 = 2^-12`; block 1 is full but for one empty
/// 32-bit word, rate 0; the mean is `2^-13`.
#[test]
fn expected_fpp_of_hand_set_blocks() {
    let f = BlockedBloomFilter::from_words(
        Family::Xxh3_64,
        0,
        2,
        64,
        &[0b1111, u64::MAX, 0, 0],
    )
    .unwrap();
    assert_eq!(f.expected_fpp(), 257.0 / 1024.0);
    let quarter = 0x0000_00ff_0000_ffff;
    let f = BlockedBloomFilter::from_words_with_scheme(
        Family::Xxh3_64,
        0,
        8,
        256,
        BlockScheme::ParquetSplit,
        &[quarter; 4]
            .into_iter()
            .chain([u64::MAX, u64::MAX, u32::MAX.into(), u64::MAX])
            .collect::<Vec<_>>(),
    )
    .unwrap();
    assert_eq!(f.expected_fpp(), 2f64.powi(-13));
}

/// Hand-set bits, half of them set. Salted, `m = 1024`, `B = 64`, `k = 2`:
/// one key sets a given bit with probability
/// `q = (64/1024)(1 − (63/64)²) = 127/65536`, so
/// `n* = ln(1/2)/ln(1 − q) = 357.339…`, where the classic estimator's
/// `−(m/k) ln(1/2)` is 354.9. Split blocks, `m = 512`: `q = 8/512`,
/// `n* = ln(1/2)/ln(63/64) = 44.0139…` (classic 44.36). Values from
/// Python's `math.log1p`.
#[test]
fn estimated_count_of_hand_set_blocks() {
    let half = [[u64::MAX; 8], [0; 8]].concat();
    let f = BlockedBloomFilter::from_words(Family::Xxh3_64, 0, 2, 64, &half)
        .unwrap();
    let n = Filter::estimated_count(&f);
    assert!((n / 357.339_090_941_780_5 - 1.0).abs() < 1e-12, "{n}");
    let f = BlockedBloomFilter::from_words_with_scheme(
        Family::Xxh3_64,
        0,
        8,
        256,
        BlockScheme::ParquetSplit,
        &half[4..12],
    )
    .unwrap();
    let n = Filter::estimated_count(&f);
    assert!((n / 44.013_936_308_547_36 - 1.0).abs() < 1e-12, "{n}");
}
