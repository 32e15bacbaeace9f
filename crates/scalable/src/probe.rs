//! The hot paths. A key is hashed once into its pair `(a, b)`; then every
//! layer is tested by a loop specialised for the configuration, chosen by
//! one `match` per call (the technique of `bloomlab_standard::Probes`):
//! the hash family is called directly, not through the hasher's function
//! pointer, and the layout, probe scheme and reduction are constants of
//! the loop instead of branches inside it.

use bloomlab_hash::murmur64a::{REDISBLOOM_SEED, murmur64a};
use bloomlab_hash::strategy::mix64;
use bloomlab_hash::{Family, Hasher, Reduction};

use crate::config::{BLOCK_BITS, Config, Layout, Pairing, Probe};
use crate::scalable::{Layer, pair_of};

/// Probes of a blocked layer per word of the hash chain: one per block
/// word.
const PER_WORD: u32 = 8;
/// Words of the hash chain a 64-probe blocked layer needs.
const CHAIN: usize = 8;

/// The pair `(a, b)` of a key, with the common families called directly;
/// the same values as [`pair_of`].
#[inline(always)]
pub(crate) fn pair(
    config: &Config,
    hasher: &Hasher,
    key: &[u8],
) -> (u64, u64) {
    match (config.family, config.pairing) {
        (Family::Xxh3_64, Pairing::Single) => {
            let seed = hasher.seed();
            // Seed 0 is the same function with the seed folded away.
            let h = if seed == 0 {
                xxhash_rust::xxh3::xxh3_64(key)
            } else {
                xxhash_rust::xxh3::xxh3_64_with_seed(key, seed)
            };
            (h, mix64(h))
        }
        (Family::Murmur64A, Pairing::Chained) => {
            let a = murmur64a(key, REDISBLOOM_SEED ^ hasher.seed());
            (a, murmur64a(key, a))
        }
        _ => pair_of(config, hasher, key),
    }
}

/// Which loop tests and sets a layer's bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Loop {
    /// [`Layout::Blocked`]; `ms`: multiply-shift picks the block.
    Blocked { ms: bool },
    /// Standard or partitioned layers walked by (enhanced) double
    /// hashing, each position mixed before it is reduced if `mix`
    /// ([`Probe::MixedDouble`]).
    Walk { part: bool, enh: bool, mix: bool, ms: bool },
}

impl Loop {
    #[inline(always)]
    pub(crate) fn of(config: &Config) -> Loop {
        let ms = config.reduction == Reduction::MultiplyShift;
        match config.layout {
            Layout::Blocked => Loop::Blocked { ms },
            layout => Loop::Walk {
                part: layout == Layout::Partitioned,
                enh: config.probe == Probe::EnhancedDouble,
                mix: config.probe == Probe::MixedDouble,
                ms,
            },
        }
    }
}

/// `x` reduced into `[0, m)`, as [`Reduction::reduce64`].
#[inline(always)]
fn reduce<const MS: bool>(x: u64, m: u64) -> u64 {
    if MS { ((u128::from(x) * u128::from(m)) >> 64) as u64 } else { x % m }
}

/// The positions of a standard (`PART = false`) or partitioned layer of
/// modulus `m` and `k` probes: `x_0 = a`, `y_0 = b`, `x_{i+1} = x_i + y_i`
/// and `y_{i+1} = y_i + (i + 1)` if enhanced (`y` constant otherwise), all
/// mod 2^64; probe `i` is `reduce(x_i, m)`, or `reduce(mix64(x_i), m)` if
/// `MIX` (plus `i·m` if partitioned). Calls `f` with each until it
/// returns false; returns whether it never did.
#[inline(always)]
pub(crate) fn walk<
    const PART: bool,
    const ENH: bool,
    const MIX: bool,
    const MS: bool,
>(
    (m, k): (u64, u32),
    (a, b): (u64, u64),
    mut f: impl FnMut(u64) -> bool,
) -> bool {
    let (mut x, mut y) = (a, b);
    for i in 0..k {
        let mut pos = reduce::<MS>(if MIX { mix64(x) } else { x }, m);
        if PART {
            pos += u64::from(i) * m;
        }
        if !f(pos) {
            return false;
        }
        x = x.wrapping_add(y);
        if ENH {
            y = y.wrapping_add(u64::from(i) + 1);
        }
    }
    true
}

/// The chain `b, mix64(b), mix64(mix64(b)), …`: word `t` holds the bit
/// offsets of probes `8t … 8t + 7` of a blocked layer (byte `j`'s low 6
/// bits for probe `8t + j`, in block word `j`). Computed as far as the
/// layers need and shared by all of them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chain {
    words: [u64; CHAIN],
    have: usize,
}

impl Chain {
    #[inline(always)]
    pub(crate) fn new(b: u64) -> Chain {
        let mut words = [0; CHAIN];
        words[0] = b;
        Chain { words, have: 1 }
    }

    /// The words holding the first `k` probes (`k ≤ 64`).
    #[inline(always)]
    pub(crate) fn upto(&mut self, k: u32) -> &[u64] {
        let need = (k.div_ceil(PER_WORD) as usize).min(CHAIN);
        while self.have < need {
            self.words[self.have] = mix64(self.words[self.have - 1]);
            self.have += 1;
        }
        &self.words[..need]
    }
}

/// The bit of the probe in word `j` of a round, from its chain word `w`.
#[inline(always)]
fn bit_of(w: u64, j: usize) -> u64 {
    1 << ((w >> (8 * j)) & 63)
}

/// The 8 word masks of a key's first `k` probes in a block: probe `i`
/// sets bit `chain[i / 8] >> 8(i mod 8) & 63` of word `i mod 8`. Every
/// index is a constant once the loop is unrolled, so the masks stay in
/// registers.
#[inline(always)]
fn split_masks(chain: &[u64], k: u32) -> [u64; 8] {
    let mut m = [0u64; 8];
    let mut left = k;
    for &w in chain {
        for (j, mj) in m.iter_mut().enumerate() {
            *mj |= if (j as u32) < left { bit_of(w, j) } else { 0 };
        }
        left = left.saturating_sub(PER_WORD);
    }
    m
}

/// The block of a blocked layer with `blocks` blocks.
#[inline(always)]
fn block<const MS: bool>(a: u64, blocks: u64) -> u64 {
    reduce::<MS>(a, blocks)
}

/// Whether all of the key's bits are set in a blocked layer: one cache
/// line, compared with the key's masks word by word, no branch per
/// probe.
#[inline(always)]
fn blocked_hit<const MS: bool>(l: &Layer, a: u64, masks: &[u64; 8]) -> bool {
    let start = (block::<MS>(a, l.modulus) * 8) as usize;
    let Some(line) = l.array.words().get(start..start + 8) else {
        return false;
    };
    let Ok(line) = <&[u64; 8]>::try_from(line) else {
        return false;
    };
    let mut missing = 0;
    for (w, m) in line.iter().zip(masks) {
        missing |= m & !w;
    }
    missing == 0
}

/// Calls `f` with the first `k` in-block positions of `chain`.
#[inline(always)]
fn offsets(chain: &[u64], k: u32, mut f: impl FnMut(u64)) {
    let mut left = k;
    for &w in chain {
        for j in 0..u64::from(left.min(PER_WORD)) {
            f(64 * j + ((w >> (8 * j)) & 63));
        }
        left = left.saturating_sub(PER_WORD);
    }
}

/// Sets the key's bits in a blocked layer; returns how many were 0.
#[inline(always)]
fn blocked_set<const MS: bool>(l: &mut Layer, a: u64, chain: &[u64]) -> u64 {
    let base = block::<MS>(a, l.modulus) * BLOCK_BITS;
    let mut changed = 0;
    let k = l.k;
    offsets(chain, k, |p| changed += u64::from(l.array.set(base + p)));
    changed
}

/// The positions of a blocked layer of `blocks` blocks, for callers
/// outside the hot path ([`crate::Prober`]).
pub(crate) fn blocked_walk(
    reduction: Reduction,
    (blocks, k): (u64, u32),
    (a, b): (u64, u64),
    mut f: impl FnMut(u64) -> bool,
) -> bool {
    let base = reduction.reduce64(a, blocks) * BLOCK_BITS;
    let mut chain = Chain::new(b);
    let mut all = true;
    offsets(chain.upto(k), k, |p| {
        // Every offset is visited (no early exit in `offsets`); stop
        // calling `f` after its first false.
        if all {
            all = f(base + p);
        }
    });
    all
}

/// Asks for the line of the key's block in every layer of a blocked
/// filter (nothing for other layouts), so that their misses start
/// together rather than as [`any_hit`] reaches each layer. For `add`,
/// which must look at every layer before it sets a new key's bits.
#[inline(always)]
pub(crate) fn prefetch_blocks(layers: &[Layer], lp: Loop, ab: (u64, u64)) {
    prefetch_blocks_into::<false>(layers, lp, ab);
}

/// [`prefetch_blocks`] into the L2 cache (`bloomlab_core::prefetch_l2`),
/// for batches, which ask for many keys' lines before reading any.
pub(crate) fn prefetch_blocks_l2(layers: &[Layer], lp: Loop, ab: (u64, u64)) {
    prefetch_blocks_into::<true>(layers, lp, ab);
}

#[inline(always)]
fn prefetch_blocks_into<const L2: bool>(
    layers: &[Layer],
    lp: Loop,
    (a, _): (u64, u64),
) {
    let line = |l: &Layer, ms: bool| {
        let block = if ms {
            block::<true>(a, l.modulus)
        } else {
            block::<false>(a, l.modulus)
        };
        let (words, i) = (l.array.words(), (block * 8) as usize);
        if L2 {
            bloomlab_core::prefetch_l2(words, i);
        } else {
            bloomlab_core::prefetch(words, i);
        }
    };
    if let Loop::Blocked { ms } = lp {
        layers.iter().for_each(|l| line(l, ms));
    }
}

/// Calls macro `$m` with every specialised walk, `part enh mix ms` (a
/// mixed walk is never enhanced): the one list both dispatches match.
macro_rules! walk_loops {
    ($m:ident) => {
        $m!(
            false false false false, false false false true,
            false true false false, false true false true,
            false false true false, false false true true,
            true false false false, true false false true,
            true true false false, true true false true,
            true false true false, true false true true
        )
    };
}

/// Whether any layer, newest first, has all of the key's bits.
#[inline(always)]
pub(crate) fn any_hit(layers: &[Layer], lp: Loop, ab: (u64, u64)) -> bool {
    macro_rules! walks {
        ($($p:literal $e:literal $x:literal $m:literal),*) => {
            match lp {
                Loop::Blocked { ms: true } => any_blocked::<true>(layers, ab),
                Loop::Blocked { ms: false } => {
                    any_blocked::<false>(layers, ab)
                }
                $(Loop::Walk { part: $p, enh: $e, mix: $x, ms: $m } => {
                    any_walk::<$p, $e, $x, $m>(layers, ab)
                })*
                // Mixed walks are not enhanced (`Loop::of`).
                Loop::Walk { enh: true, mix: true, .. } => false,
            }
        };
    }
    walk_loops!(walks)
}

#[inline(always)]
fn any_blocked<const MS: bool>(layers: &[Layer], (a, b): (u64, u64)) -> bool {
    // The masks of the first two rounds (probes 0–15), from which those
    // of any k ≤ 16 follow without a branch; a larger k builds its masks
    // from the chain (and keeps them for the next layer).
    let b1 = mix64(b);
    let first: [u64; 8] = std::array::from_fn(|j| bit_of(b, j));
    let second: [u64; 8] = std::array::from_fn(|j| bit_of(b1, j));
    let mut chain = Chain::new(b);
    let mut k = 0;
    let mut masks = [0; 8];
    layers.iter().rev().any(|l| {
        if l.k <= 2 * PER_WORD {
            let lo = &LANES[l.k.min(PER_WORD) as usize];
            let hi = &LANES[l.k.saturating_sub(PER_WORD).min(8) as usize];
            let m: [u64; 8] =
                std::array::from_fn(|j| first[j] & lo[j] | second[j] & hi[j]);
            return blocked_hit::<MS>(l, a, &m);
        }
        if l.k != k {
            k = l.k;
            masks = split_masks(chain.upto(k), k);
        }
        blocked_hit::<MS>(l, a, &masks)
    })
}

/// `LANES[t][j]`: all ones for the block words `j < t` (the words a
/// round of `t` probes uses).
const LANES: [[u64; 8]; 9] = {
    let mut out = [[0; 8]; 9];
    let mut t = 0;
    while t < 9 {
        let mut j = 0;
        while j < t {
            out[t][j] = u64::MAX;
            j += 1;
        }
        t += 1;
    }
    out
};

#[inline(always)]
fn any_walk<
    const PART: bool,
    const ENH: bool,
    const MIX: bool,
    const MS: bool,
>(
    layers: &[Layer],
    ab: (u64, u64),
) -> bool {
    layers.iter().rev().any(|l| {
        walk::<PART, ENH, MIX, MS>((l.modulus, l.k), ab, |p| l.array.get(p))
    })
}

/// Sets the key's bits in `l`; returns how many were 0.
#[inline(always)]
pub(crate) fn set(l: &mut Layer, lp: Loop, ab: (u64, u64)) -> u64 {
    macro_rules! walks {
        ($($p:literal $e:literal $x:literal $m:literal),*) => {
            match lp {
                Loop::Blocked { ms } => {
                    let mut chain = Chain::new(ab.1);
                    let chain = chain.upto(l.k);
                    if ms {
                        blocked_set::<true>(l, ab.0, chain)
                    } else {
                        blocked_set::<false>(l, ab.0, chain)
                    }
                }
                $(Loop::Walk { part: $p, enh: $e, mix: $x, ms: $m } => {
                    let mut changed = 0;
                    let shape = (l.modulus, l.k);
                    walk::<$p, $e, $x, $m>(shape, ab, |p| {
                        changed += u64::from(l.array.set(p));
                        true
                    });
                    changed
                })*
                // Mixed walks are not enhanced (`Loop::of`).
                Loop::Walk { enh: true, mix: true, .. } => 0,
            }
        };
    }
    walk_loops!(walks)
}
