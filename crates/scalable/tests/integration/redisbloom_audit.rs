//! Cases checked against RedisBloom's C source rather than the recorded
//! server outputs (which hold no `BF.RESERVE` refusals): the order of
//! its checks, what `bloom_init` refuses, and which chains have a
//! RedisBloom representation at all.

use bloomlab_hash::{Family, Reduction};
use bloomlab_scalable::{
    Config, Error, Layout, Pairing, Probe, ScalableBloomFilter, Sizing,
};

use crate::redisbloom::msg;

/// `BFReserve_RedisCommand` refuses `NONSCALING` with a non-zero
/// `EXPANSION` before it checks the expansion's range:
///
/// ```c
/// if (expansion == 0) { nonScaling = BLOOM_OPT_NO_SCALING; }
/// else if (nonScaling == BLOOM_OPT_NO_SCALING) {
///     return RedisModule_ReplyWithError(ctx, "Nonscaling filters cannot expand"); }
/// if (!isConfigValid(expansion, rm_config.bf_expansion_factor)) { ... range ... }
/// ```
#[test]
fn nonscaling_with_an_out_of_range_expansion_says_it_cannot_expand() {
    let r = ScalableBloomFilter::redisbloom_reserve;
    assert_eq!(
        msg(r(0.01, 100, Some(40_000), true)),
        "Nonscaling filters cannot expand"
    );
    // Without NONSCALING the range is what is wrong.
    assert_eq!(
        msg(r(0.01, 100, Some(40_000), false)),
        "ERR expansion must be in the range [0, 32768]"
    );
}

/// `SB_NewChain` halves the (non-zero) error for the first link and
/// `bloom_init` refuses `error <= 0`, so the smallest double reserves a
/// non-scaling filter (k = 1075, `BLOOM_MAX_HASHES`) but not a scaling
/// one: `ERR could not create filter`.
#[test]
fn an_error_that_halves_to_zero_cannot_create_a_filter() {
    let tiny = f64::from_bits(1); // 4.9e-324
    let r = ScalableBloomFilter::redisbloom_reserve;
    assert_eq!(msg(r(tiny, 100, None, false)), "ERR could not create filter");
    let f = r(tiny, 100, None, true).unwrap();
    assert_eq!(f.layers()[0].k(), 1075);
}

fn murmur_standard(config: Config) -> Config {
    config.layout(Layout::Standard).hash(Family::Murmur64A, 0).probes(
        Pairing::Chained,
        Probe::Double,
        Reduction::Modulo,
    )
}

/// Only chains RedisBloom grows the same way have a `BF.SCANDUMP`: its
/// links are sized by `bloom_init` (`bpe`, `k = ⌈ln 2·bpe⌉`), tightened
/// by `ERROR_TIGHTENING_RATIO` 0.5 and added when `size >= entries`. A
/// dump of any other chain is refused by `BF.LOADCHUNK` (`hashes !=
/// ceil(LN2 * bpe)`) or, loaded, grows differently; and
/// `from_redis_scandump` refuses it.
#[test]
fn only_redisbloom_grown_chains_have_a_scandump() {
    let configs = [
        // Half-fill sizing on standard 64-bit-word layers.
        murmur_standard(Config::new(100, 0.01)).tightening(0.5).growth(2),
        // RedisBloom's sizing, tightened by 0.75.
        murmur_standard(Config::new(100, 0.01))
            .sizing(Sizing::RedisBloom)
            .tightening(0.75)
            .growth(2),
        // RedisBloom's sizing, growing at half fill.
        murmur_standard(Config::new(100, 0.01))
            .sizing(Sizing::RedisBloom)
            .tightening(0.5)
            .growth(2)
            .full_at_half_fill(true),
    ];
    for config in configs {
        let mut f = ScalableBloomFilter::with_config(config).unwrap();
        for i in 0..1000u32 {
            f.add(&i.to_le_bytes()).unwrap();
        }
        assert!(f.layers().len() > 1);
        match f.redis_scandump() {
            Err(Error::NotRedisBloom(_)) => assert!(!f.is_redisbloom()),
            Ok(dump) => {
                let g = ScalableBloomFilter::from_redis_scandump(&dump);
                panic!(
                    "{config:?} dumped as RedisBloom; read back: {:?}",
                    g.map(|_| ())
                );
            }
            Err(e) => panic!("{e}"),
        }
    }
    // The preset itself, and what a dump of it reads back as, still do.
    let config = murmur_standard(Config::new(100, 0.01))
        .sizing(Sizing::RedisBloom)
        .tightening(0.5)
        .growth(2);
    let mut g = ScalableBloomFilter::with_config(config).unwrap();
    for i in 0..1000u32 {
        g.add(&i.to_le_bytes()).unwrap();
    }
    let dump = g.redis_scandump().unwrap();
    let back = ScalableBloomFilter::from_redis_scandump(&dump).unwrap();
    assert_eq!(back.redis_scandump().unwrap(), dump);
}
