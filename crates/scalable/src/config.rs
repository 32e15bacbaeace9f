//! What a scalable filter is made of: the chain parameters (`n0`, `P`,
//! `r`, `s`), how each layer is laid out and sized, and how keys are
//! hashed into probes.

use bloomlab_hash::{Family, Reduction};

use crate::{Error, Result};

/// How a layer's bits are arranged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// One array; the `k` probes land anywhere in it (RedisBloom,
    /// `bloomlab-standard`'s classic filter).
    Standard,
    /// `k` slices of equal size, probe `i` in slice `i` (Almeida et al.'s
    /// construction, `bloomlab-partitioned`, pybloom-live).
    Partitioned,
}

/// How a layer of capacity `n` and error `p` gets its bits and `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sizing {
    /// RedisBloom's `bloom.c`, bit for bit: `bpe = −(ln p /
    /// 0.480453013918201)`, `m = ⌊n·bpe⌋` (at least 1) rounded up to a
    /// multiple of 64, `k = ⌈0.693147180559945·bpe⌉`. The decimal
    /// constants matter: at exact powers of two `k = log2(1/p) + 1`.
    RedisBloom,
    /// `THEORY.md` §7 (Almeida et al.): `k = ⌈log2(1/p)⌉` slices of
    /// `⌈n / ln 2⌉` bits, so that a full layer is half set and errs with
    /// `2^−k ≤ p`. Same as [`bloomlab_core::theory::scalable_layers`]. A
    /// standard layout gets the same total, rounded up to 64.
    HalfFill,
    /// pybloom-live's `BloomFilter`: `k = ⌈log2(1/p)⌉` slices of
    /// `⌈n·|ln p| / (k·ln² 2)⌉` bits.
    Pybloom,
}

/// How a key becomes the pair `(a, b)` the probes are derived from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pairing {
    /// RedisBloom's: `a = H(key, 0xc6a4a7935bd1e995 ^ seed)`,
    /// `b = H(key, a)`. Needs a family with 64-bit seeds.
    Chained,
    /// One hash: `(lo, hi)` of a 128-bit digest, else `(h, mix64(h))`.
    Single,
}

/// How the `k` positions follow from `(a, b)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Probe {
    /// Plain double hashing, `x_i = a + i·b` (mod 2^64), RedisBloom's.
    Double,
    /// Enhanced double hashing (Dillinger & Manolios):
    /// `x_i = a + i·b + (i³ − i)/6`.
    EnhancedDouble,
}

/// The parameters of a [`crate::ScalableBloomFilter`].
///
/// Layer `i` (from 0) has capacity `n0·s^i` and error `P0·r^i`; the
/// bound on the compounded error is `P0/(1 − r)`, so `P0 = P·(1 − r)`
/// keeps it under the target `P` ([`Config::new`] does that).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// `n0`: the first layer's capacity (items).
    pub initial_capacity: u64,
    /// `P`: the target error of the whole chain.
    pub error: f64,
    /// `P0`: the first layer's error.
    pub first_error: f64,
    /// `r`: each layer's error is the previous one's times `r`.
    pub tightening: f64,
    /// `s`: each layer's capacity is the previous one's times `s` (an
    /// integer, as in RedisBloom, pybloom-live and the paper's code).
    pub growth: u64,
    /// Whether the filter grows; a non-scaling filter refuses new items
    /// once full ([`crate::Error::Full`]).
    pub scaling: bool,
    /// Also call a layer full when half its bits are set (the paper's
    /// rule), not only when its count reaches its capacity.
    pub full_at_half_fill: bool,
    /// Layer layout.
    pub layout: Layout,
    /// Layer sizing.
    pub sizing: Sizing,
    /// Hash family.
    pub family: Family,
    /// Seed (for [`Pairing::Chained`], XORed into RedisBloom's seed).
    pub seed: u64,
    /// How keys become `(a, b)`.
    pub pairing: Pairing,
    /// How `(a, b)` becomes `k` positions.
    pub probe: Probe,
    /// How a position is mapped into a layer (or slice).
    pub reduction: Reduction,
}

impl Config {
    /// bloomlab's defaults for `n0` and `P`: `r = 0.5`, `s = 2`,
    /// `P0 = P/2`, standard layers sized by [`Sizing::HalfFill`], xxh3-64
    /// with enhanced double hashing and multiply-shift reduction.
    pub fn new(initial_capacity: u64, error: f64) -> Config {
        Config {
            initial_capacity,
            error,
            first_error: error * 0.5,
            tightening: 0.5,
            growth: 2,
            scaling: true,
            full_at_half_fill: false,
            layout: Layout::Standard,
            sizing: Sizing::HalfFill,
            family: Family::Xxh3_64,
            seed: 0,
            pairing: Pairing::Single,
            probe: Probe::EnhancedDouble,
            reduction: Reduction::MultiplyShift,
        }
    }

    /// Sets `r` and `P0 = P·(1 − r)`.
    pub fn tightening(mut self, r: f64) -> Config {
        self.tightening = r;
        self.first_error = self.error * (1.0 - r);
        self
    }

    /// Sets `s`.
    pub fn growth(mut self, s: u64) -> Config {
        self.growth = s;
        self
    }

    /// Sets the layout.
    pub fn layout(mut self, layout: Layout) -> Config {
        self.layout = layout;
        self
    }

    /// Sets the sizing.
    pub fn sizing(mut self, sizing: Sizing) -> Config {
        self.sizing = sizing;
        self
    }

    /// Sets the fill-½ fullness rule.
    pub fn full_at_half_fill(mut self, yes: bool) -> Config {
        self.full_at_half_fill = yes;
        self
    }

    /// Makes the filter non-scaling (one layer at error `P`).
    pub fn non_scaling(mut self) -> Config {
        self.scaling = false;
        self.first_error = self.error;
        self
    }

    /// Sets the hash family and seed.
    pub fn hash(mut self, family: Family, seed: u64) -> Config {
        self.family = family;
        self.seed = seed;
        self
    }

    /// Sets pairing, probe scheme and reduction.
    pub fn probes(
        mut self,
        pairing: Pairing,
        probe: Probe,
        reduction: Reduction,
    ) -> Config {
        self.pairing = pairing;
        self.probe = probe;
        self.reduction = reduction;
        self
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if self.initial_capacity == 0 {
            return Err(Error::invalid("n0", 0, "must be at least 1"));
        }
        let open = |x: f64| x > 0.0 && x < 1.0;
        if !open(self.error) {
            return Err(Error::invalid("p", self.error, "must be in (0, 1)"));
        }
        if !open(self.first_error) {
            return Err(Error::invalid(
                "p0",
                self.first_error,
                "must be in (0, 1)",
            ));
        }
        if !open(self.tightening) {
            return Err(Error::invalid(
                "r",
                self.tightening,
                "must be in (0, 1)",
            ));
        }
        if self.scaling && self.growth == 0 {
            return Err(Error::invalid("s", 0, "must be at least 1"));
        }
        if self.pairing == Pairing::Chained
            && self.family.seed_kind() != bloomlab_hash::SeedKind::U64
        {
            return Err(Error::invalid(
                "family",
                self.family.name(),
                "chained pairing needs a family with 64-bit seeds",
            ));
        }
        bloomlab_hash::Hasher::new(self.family, i128::from(self.seed))?;
        Ok(())
    }

    /// The bound on the compounded error, `P0/(1 − r)` (for a non-scaling
    /// filter, its one layer's error).
    pub fn error_bound(&self) -> f64 {
        if self.scaling {
            self.first_error / (1.0 - self.tightening)
        } else {
            self.first_error
        }
    }
}

/// One layer's shape: total bits, modulus (the whole array or one slice),
/// `k` and bits per entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Shape {
    pub(crate) bits: u64,
    pub(crate) modulus: u64,
    pub(crate) k: u32,
    pub(crate) bpe: f64,
}

/// RedisBloom's decimal `ln² 2`.
pub(crate) const REDIS_LN2_SQUARED: f64 = 0.480453013918201;
/// RedisBloom's decimal `ln 2`: deliberately the 15-digit literal, not
/// `LN_2` (at exact powers of two it makes `k = log2(1/p) + 1`).
#[allow(clippy::approx_constant)]
pub(crate) const REDIS_LN2: f64 = 0.693147180559945;

/// RedisBloom's `k` for a bits-per-entry figure.
pub(crate) fn redis_k(bpe: f64) -> f64 {
    (REDIS_LN2 * bpe).ceil()
}

pub(crate) fn shape(
    sizing: Sizing,
    layout: Layout,
    capacity: u64,
    error: f64,
) -> Result<Shape> {
    use std::f64::consts::LN_2;
    let bad = |why: &'static str| Error::CannotGrow(why.to_string());
    if !(error > 0.0 && error < 1.0) {
        return Err(bad("layer error outside (0, 1)"));
    }
    let n = capacity as f64;
    let (k, slice_or_total) = match sizing {
        Sizing::RedisBloom => {
            let bpe = -(error.ln() / REDIS_LN2_SQUARED);
            let mut m = (n * bpe).floor();
            if m < 1.0 {
                m = 1.0;
            }
            let k = redis_k(bpe);
            let fits = m < 2f64.powi(62) && k < 4096.0;
            if !fits {
                return Err(bad("layer too large"));
            }
            let m = (m as u64).div_ceil(64) * 64;
            let k = k as u32;
            return Ok(match layout {
                Layout::Standard => Shape { bits: m, modulus: m, k, bpe },
                Layout::Partitioned => {
                    let slice = m.div_ceil(u64::from(k));
                    Shape {
                        bits: slice * u64::from(k),
                        modulus: slice,
                        k,
                        bpe,
                    }
                }
            });
        }
        Sizing::HalfFill => {
            let k = (-error.log2()).ceil().max(1.0);
            (k, (n / LN_2).ceil())
        }
        Sizing::Pybloom => {
            let k = (-error.log2()).ceil().max(1.0);
            (k, (n * -error.ln() / (k * LN_2 * LN_2)).ceil().max(1.0))
        }
    };
    let fits = k < 4096.0 && slice_or_total * k < 2f64.powi(62);
    if !fits {
        return Err(bad("layer too large"));
    }
    let k_u = k as u32;
    let slice = slice_or_total as u64;
    let total = slice * u64::from(k_u);
    Ok(match layout {
        Layout::Partitioned => Shape {
            bits: total,
            modulus: slice,
            k: k_u,
            bpe: total as f64 / n,
        },
        Layout::Standard => {
            let m = total.div_ceil(64) * 64;
            Shape { bits: m, modulus: m, k: k_u, bpe: m as f64 / n }
        }
    })
}
