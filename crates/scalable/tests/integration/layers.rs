//! Layer counts, capacities, errors, `k` and bits against the formulas.

use bloomlab_core::theory;
use bloomlab_scalable::{Config, Error, Layout, ScalableBloomFilter};

/// Grows `f` with distinct keys until it has taken `n` items.
fn fill(f: &mut ScalableBloomFilter, n: u64) {
    let mut i = 0u64;
    while f.len() < n {
        f.add(&i.to_le_bytes()).unwrap();
        i += 1;
    }
}

/// Worked example B of THEORY.md §7: P0 = 0.001, r = 0.8, s = 3,
/// n0 = 500, grown to 100,000 items.
#[test]
fn worked_example_b() {
    let mut c = Config::new(500, 0.005).layout(Layout::Partitioned).growth(3);
    c.tightening = 0.8;
    c.first_error = 0.001;
    let mut f = ScalableBloomFilter::with_config(c).unwrap();
    assert!((f.error_bound() - 0.005).abs() < 1e-15);
    fill(&mut f, 100_000);
    let caps: Vec<u64> = f.layers().iter().map(|l| l.capacity()).collect();
    assert_eq!(caps, [500, 1500, 4500, 13500, 40500, 121500]);
    let ks: Vec<u32> = f.layers().iter().map(|l| l.k()).collect();
    assert_eq!(ks, [10, 11, 11, 11, 12, 12]);
    let slices: Vec<u64> =
        f.layers().iter().map(|l| l.bits() / u64::from(l.k())).collect();
    assert_eq!(slices, [722, 2165, 6493, 19477, 58430, 175288]);
    assert_eq!(f.total_bits(), 3_121_321);
    assert!((f.compounded_target_error() - 0.00368377).abs() < 1e-8);
}

/// For a grid of (n0, P, r, s), the chain after growth to N has the
/// layers `theory::scalable_layers` predicts, bit for bit.
#[test]
fn layers_match_scalable_layers() {
    for &(n0, p, r, s, n) in &[
        (1000u64, 0.01, 0.5, 2u64, 100_000u64),
        (100, 0.001, 0.85, 2, 20_000),
        (500, 0.05, 0.75, 4, 50_000),
        (64, 0.1, 0.9, 3, 10_000),
        (1, 0.2, 0.5, 2, 1000),
    ] {
        let c = Config::new(n0, p)
            .layout(Layout::Partitioned)
            .tightening(r)
            .growth(s);
        let mut f = ScalableBloomFilter::with_config(c).unwrap();
        fill(&mut f, n);
        let want = theory::scalable_layers(n0, p * (1.0 - r), r, s as f64, n)
            .unwrap();
        assert_eq!(f.layers().len(), want.len(), "{n0} {p} {r} {s}");
        for (l, w) in f.layers().iter().zip(&want) {
            assert_eq!(l.capacity(), w.capacity);
            assert!((l.error() / w.error - 1.0).abs() < 1e-12);
            assert_eq!(l.k(), w.k);
            assert_eq!(l.bits(), w.bits);
        }
        let bits: u64 = want.iter().map(|w| w.bits).sum();
        assert_eq!(f.total_bits(), bits);
        assert!(f.compounded_target_error() < p);
        assert!(f.error_bound() <= p * (1.0 + 1e-12));
        // Standard layout: the same bits, rounded up to whole words.
        let mut g =
            ScalableBloomFilter::with_config(c.layout(Layout::Standard))
                .unwrap();
        fill(&mut g, n);
        for (l, w) in g.layers().iter().zip(&want) {
            assert_eq!(l.bits(), w.bits.div_ceil(64) * 64);
            assert_eq!(l.k(), w.k);
        }
    }
}

/// The number of layers is the smallest L with n0·(s^L − 1)/(s − 1) ≥ N
/// (lazy growth: exactly N items never open another layer).
#[test]
fn layer_count_formula() {
    for &(n0, s) in &[(1000u64, 2u64), (100, 4), (7, 3)] {
        for n in [1, n0, n0 + 1, 10 * n0, 1000 * n0] {
            let mut f = ScalableBloomFilter::with_config(
                Config::new(n0, 0.01).growth(s),
            )
            .unwrap();
            fill(&mut f, n);
            let mut total = 0;
            let mut layers = 0;
            while total < n {
                total += n0 * s.pow(layers);
                layers += 1;
            }
            assert_eq!(f.layers().len() as u32, layers.max(1), "{n0} {s} {n}");
            assert_eq!(f.capacity(), total.max(n0));
        }
    }
}

/// RedisBloom's chain: k grows by one per layer, errors halve exactly,
/// capacities multiply by the expansion.
#[test]
fn redisbloom_chain_formulas() {
    let mut f =
        ScalableBloomFilter::redisbloom_reserve(0.01, 1000, Some(2), false)
            .unwrap();
    fill(&mut f, 100_000);
    assert_eq!(f.capacity(), 127_000);
    for (i, l) in f.layers().iter().enumerate() {
        assert_eq!(l.capacity(), 1000 << i);
        assert_eq!(l.error(), 0.005 / f64::from(1u32 << i));
        assert_eq!(l.k(), 8 + i as u32);
        let bpe = -(l.error().ln() / 0.480453013918201);
        let m = ((l.capacity() as f64 * bpe).floor() as u64).div_ceil(64) * 64;
        assert_eq!(l.bits(), m);
    }
    assert_eq!(f.layers()[0].bits(), 11_072);
}

#[test]
fn fill_rule_option_opens_layers_earlier() {
    // A layer sized for 1000 at 1/2 fill is full at ~1000 items either
    // way; with a tiny growth the rule changes nothing harmful.
    let c = Config::new(1000, 0.01).full_at_half_fill(true);
    let mut f = ScalableBloomFilter::with_config(c).unwrap();
    fill(&mut f, 10_000);
    for l in &f.layers()[..f.layers().len() - 1] {
        assert!(l.count() <= l.capacity());
        assert!(2 * l.bits_set() >= l.bits() || l.count() == l.capacity());
    }
}

/// The default chain (blocked layers, `r = 0.75`, `s = 4`, `P0 = P/4`):
/// capacities `n0·4^i`, errors `P0·0.75^i`, `k = max(⌈log2(1/P_i)⌉, 8)`
/// and `⌈n_i / ((1 − 2^−k) λ_k)⌉` blocks of 512 bits (`λ_9 = 36.1614`,
/// `λ_10 = 31.6312`; `config.rs` documents the table).
#[test]
fn default_chain_formulas() {
    let mut f = ScalableBloomFilter::new(1000, 0.01).unwrap();
    fill(&mut f, 100_000);
    let want_k = [9, 10, 10, 10, 11];
    for (i, l) in f.layers().iter().enumerate() {
        assert_eq!(l.capacity(), 1000 << (2 * i));
        let p = 0.0025 * 0.75f64.powi(i as i32);
        assert!((l.error() / p - 1.0).abs() < 1e-12);
        assert_eq!(l.k(), want_k[i]);
        assert_eq!(l.k(), ((-p.log2()).ceil() as u32).max(8));
        assert_eq!(l.bits() % 512, 0);
    }
    // 1000 / ((1 − 2^−9) · 36.1614) = 27.71 → 28 blocks;
    // 4000 / ((1 − 2^−10) · 31.6312) = 126.58 → 127 blocks.
    assert_eq!(f.layers()[0].bits(), 28 * 512);
    assert_eq!(f.layers()[1].bits(), 127 * 512);
    assert!(f.error_bound() <= 0.01 * (1.0 + 1e-12));
    assert!(f.compounded_target_error() < 0.01);
}

/// RedisBloom's sizing gives each full link its error `P_i` by the exact
/// formula (to −1.8 %…+0.2 %: `k` is rounded up, `m` up to 64 bits), so
/// the chain's compounded error at capacity is under `P`. (What makes a
/// real RedisBloom chain exceed `P` — the small first links' spread and
/// plain double hashing's excess — is in the README; `cargo run
/// --release -p bloomlab-scalable --example redisbloom_fpr` measures it.)
#[test]
fn redisbloom_links_meet_their_error_at_capacity() {
    let mut f =
        ScalableBloomFilter::redisbloom_reserve(0.01, 1000, Some(2), false)
            .unwrap();
    fill(&mut f, 1_000_000);
    let mut at_capacity = Vec::new();
    for l in f.layers() {
        let e = theory::fpr_exact(l.bits(), l.capacity(), l.k()).unwrap();
        let ratio = e.value / l.error();
        assert!((0.98..=1.003).contains(&ratio), "{ratio}");
        at_capacity.push(e.value);
    }
    assert!(theory::scalable_compounded_error(&at_capacity) < 0.01);
}

/// A blocked chain whose error keeps halving at a constant capacity
/// reaches 64 probes and then refuses to grow, with an error, and stays
/// usable.
#[test]
fn blocked_layers_stop_at_64_probes() {
    let c = Config::new(1, 0.3).tightening(0.5).growth(1);
    let mut f = ScalableBloomFilter::with_config(c).unwrap();
    let mut i = 0u64;
    let err = loop {
        match f.add(&i.to_le_bytes()) {
            Ok(_) => i += 1,
            Err(e) => break e,
        }
        assert!(i < 1000, "never refused");
    };
    assert!(matches!(err, Error::CannotGrow(_)), "{err}");
    assert!(err.to_string().contains("more than 64 probes"), "{err}");
    assert_eq!(f.layers().last().unwrap().k(), 64);
    assert!(f.contains(&0u64.to_le_bytes()));
}

/// A 32-bit hash family under multiply-shift spreads keys over every
/// layout: the false-positive rate of 200,000 non-members matches the
/// chain's own rate given its bits (`compounded_error`). Before the fix
/// every key's first probe (or, blocked, its block) was 0: blocked
/// layers answered yes to everything.
#[test]
fn thirty_two_bit_families_spread_under_multiply_shift() {
    use bloomlab_hash::{Family, Reduction};
    fpr_matches_the_chains(|c| {
        c.family = Family::Murmur3X86_32;
        c.reduction = Reduction::MultiplyShift;
    });
}

/// `fold-64` in a chain, under both reductions: the same test. A chain
/// takes `b = mix64(a)` for every 64-bit family, `fold-64` included: its
/// blocked layers read all of `b`'s bytes for in-block bits, and
/// `Family::step`'s rotation would hand them `a`'s high half, from which
/// multiply-shift picked the block (tried: 12× the rate at 10^4 keys).
#[test]
fn fold64_steps_spread_under_both_reductions() {
    use bloomlab_hash::{Family, Reduction};
    for reduction in [Reduction::MultiplyShift, Reduction::Modulo] {
        fpr_matches_the_chains(|c| {
            c.family = Family::Fold64;
            c.reduction = reduction;
        });
    }
}

/// Fills a chain configured by `set` (from n0 = 1000, p = 1%, growth 2)
/// in every layout with 20,000 keys and checks the false-positive rate
/// of 200,000 non-members against the chain's `compounded_error`.
fn fpr_matches_the_chains(set: impl Fn(&mut Config)) {
    for layout in [Layout::Standard, Layout::Partitioned, Layout::Blocked] {
        let mut c = Config::new(1000, 0.01).layout(layout).growth(2);
        set(&mut c);
        let mut f = ScalableBloomFilter::with_config(c).unwrap();
        fill(&mut f, 20_000);
        let q = 200_000u64;
        let fp = (0..q)
            .filter(|i| f.contains(&(u64::MAX - i).to_le_bytes()))
            .count() as f64;
        let p = f.compounded_error();
        // Given the bits, each non-member is a Bernoulli(p) trial; 3.29
        // standard errors is the two-sided 99.9% normal bound.
        let se = (q as f64 * p * (1.0 - p)).sqrt();
        let z = (fp - q as f64 * p) / se;
        eprintln!(
            "{layout:?} {}: fpr {} vs {p}, z = {z:.2}",
            c.family,
            fp / q as f64
        );
        assert!(z.abs() < 3.29, "{layout:?} {}: z = {z}", c.family);
    }
}

/// pybloom-live's `BloomFilter` sizing, operation for operation
/// (`pybloom_live/pybloom.py`): `num_slices = ceil(math.log(1.0 /
/// error_rate, 2))`, `bits_per_slice = ceil((capacity *
/// abs(math.log(error_rate))) / (num_slices * (math.log(2) ** 2)))`, the
/// first layer at `error_rate * 0.9` and each next one at `capacity *
/// scale`, `error_rate * 0.9`. The expected values are Python's.
#[test]
fn pybloom_live_layers_are_sized_as_pybloom_live() {
    let specs = |n0, p, s, last| {
        ScalableBloomFilter::pybloom_live(n0, p, s)
            .unwrap()
            .config()
            .layer_specs(last)
            .unwrap()
    };
    let got: Vec<(u64, u32, u64)> = specs(1000, 0.01, 4, 3)
        .iter()
        .map(|l| (l.capacity, l.k, l.modulus))
        .collect();
    assert_eq!(
        got,
        [
            (1000, 7, 1401),
            (4000, 7, 5728),
            (16000, 8, 20486),
            (64000, 8, 83698)
        ]
    );
    // Where `k·(ln 2)²` and `(k·ln 2)·ln 2` round apart, the slice is
    // pybloom-live's (too large to allocate; sized only).
    let l = specs(1, 0.0001, 4, 23)[23];
    assert_eq!((l.capacity, l.k), (70_368_744_177_664, 17));
    assert_eq!(l.error.to_bits(), 7.976644307687257e-06f64.to_bits());
    assert_eq!(l.modulus, 101_137_168_664_825);
}
