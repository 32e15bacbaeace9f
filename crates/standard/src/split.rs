//! Parquet's split-block layout (the `parquet-split-block` scheme of
//! [`BlockScheme`](crate::BlockScheme)): blocks of 256 bits, eight 32-bit
//! words each, and a key sets exactly one bit in each word.
//!
//! This is the split block Bloom filter of Apache Parquet's
//! `BloomFilter.md` (from Impala and Kudu), bit for bit: for a 64-bit
//! hash `h`, the block is `((h >> 32) · blocks) >> 32` and the bit of
//! word `i` is `(h32 · SALT_i mod 2^32) >> 27`, `h32` the low half of
//! `h`. Block `b` is words `8b..8b+8`, little-endian, which in bloomlab's
//! 64-bit words is words `4b..4b+4`: half a 64-byte line.
//!
//! On x86-64 with AVX2 (detected at run time, through `pulp`'s safe
//! tokens) the eight bits are made and tested in one 256-bit register:
//! a lane multiply, a shift, a per-lane shift and a test, as Parquet's
//! reference code does. Without AVX2 they are made in SSE2 registers
//! (the baseline of the target, through `safe_arch`'s safe wrappers):
//! about 30 instructions where eight scalar probes take about 50. SSE2
//! has no 32-bit lane multiply, so each product is two `pmuludq`s, and
//! no per-lane shift, so `1 << x` is the float with exponent `x`
//! converted back to an integer. Elsewhere the same bits come from
//! scalar code.

/// Parquet's eight salts (`BloomFilter.md`, "Technical Approach").
pub const PARQUET_SALTS: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// Bits in a split block.
pub const SPLIT_BLOCK_BITS: u64 = 256;

/// Probes (words) per split block.
pub const SPLIT_K: u32 = 8;

/// Most blocks a split-block filter may have: the block index is a
/// 32-bit multiply-shift, as in Parquet.
pub const MAX_SPLIT_BLOCKS: u64 = 1 << 32;

/// The block of a key whose 64-bit block hash is `lo`: Lemire's
/// multiply-shift of its high half, as Parquet computes it.
#[inline(always)]
pub(crate) fn block_of(lo: u64, blocks: u64) -> u64 {
    // `blocks` is at most 2^32, so the product fits in 64 bits.
    ((lo >> 32) * blocks) >> 32
}

/// `(line, first word in the line)` of block `b`: two blocks a line.
#[inline(always)]
pub(crate) fn place(b: u64) -> (usize, usize) {
    ((b >> 1) as usize, (b as usize & 1) * 4)
}

/// The bit of word `i` (0 to 7) of a key with in-block hash `h`.
#[inline(always)]
pub(crate) fn bit(h: u32, i: usize) -> u32 {
    h.wrapping_mul(PARQUET_SALTS[i]) >> 27
}

/// The four 64-bit words of a key's eight 32-bit masks, as they lie in
/// the block (word `2j` in the low half of 64-bit word `j`).
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "sse2"),
    allow(dead_code)
)]
#[inline(always)]
fn scalar_masks(h: u32) -> [u64; 4] {
    let m = |i: usize| 1u64 << bit(h, i);
    [
        m(0) | m(1) << 32,
        m(2) | m(3) << 32,
        m(4) | m(5) << 32,
        m(6) | m(7) << 32,
    ]
}

/// Whether every bit of `h` is set in the block at `w[o..o + 4]`, in
/// scalar code.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "sse2"),
    allow(dead_code)
)]
#[inline(always)]
pub(crate) fn test_scalar(w: &[u64; 8], o: usize, h: u32) -> bool {
    let m = scalar_masks(h);
    let o = o & 4;
    let miss = (!w[o] & m[0])
        | (!w[o + 1] & m[1])
        | (!w[o + 2] & m[2])
        | (!w[o + 3] & m[3]);
    miss == 0
}

/// Sets the bits of `h` in the block at `w[o..o + 4]`; whether any
/// changed. Scalar code.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "sse2"),
    allow(dead_code)
)]
#[inline(always)]
pub(crate) fn set_scalar(w: &mut [u64; 8], o: usize, h: u32) -> bool {
    let m = scalar_masks(h);
    let o = o & 4;
    let mut changed = 0;
    for (x, m) in w[o..o + 4].iter_mut().zip(m) {
        changed |= !*x & m;
        *x |= m;
    }
    changed != 0
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use super::PARQUET_SALTS as S;
    use safe_arch::{
        add_i32_m128i, bitand_m128i, bitandnot_m128i, bitor_m128i,
        cast_to_m128_from_m128i, cmp_eq_mask_i8_m128i, m128i,
        move_mask_i8_m128i, mul_widen_u32_odd_m128i, set_splat_i32_m128i,
        shl_imm_u32_m128i, shl_imm_u64_m128i, shr_imm_u32_m128i,
        truncate_m128_to_m128i, zeroed_m128i,
    };

    /// `1 << x` in each 32-bit lane, `x` from 0 to 31: the float `2^x`
    /// (exponent `x + 127`) truncated to an integer. For `x = 31` the
    /// conversion overflows to `0x8000_0000`, which is `1 << 31`.
    #[inline(always)]
    fn pow2(x: m128i) -> m128i {
        let e = add_i32_m128i(
            shl_imm_u32_m128i::<23>(x),
            set_splat_i32_m128i(127 << 23),
        );
        truncate_m128_to_m128i(cast_to_m128_from_m128i(e))
    }

    /// The masks of four words: `1 << ((h · s_i mod 2^32) >> 27)` for the
    /// salts `even = [s0, _, s2, _]` and `odd = [s1, _, s3, _]`.
    #[inline(always)]
    fn quarter(h4: m128i, even: [u32; 4], odd: [u32; 4]) -> m128i {
        // `pmuludq` multiplies lanes 0 and 2 into 64-bit products; the
        // low halves of the even products stay in place and the odd ones
        // move up into lanes 1 and 3.
        let e = mul_widen_u32_odd_m128i(h4, m128i::from(even));
        let o = mul_widen_u32_odd_m128i(h4, m128i::from(odd));
        let low = m128i::from([u32::MAX, 0, u32::MAX, 0]);
        let p = bitor_m128i(bitand_m128i(e, low), shl_imm_u64_m128i::<32>(o));
        pow2(shr_imm_u32_m128i::<27>(p))
    }

    /// The masks of words 0-3 and 4-7.
    #[inline(always)]
    fn masks(h: u32) -> (m128i, m128i) {
        let h4 = set_splat_i32_m128i(h as i32);
        (
            quarter(h4, [S[0], 0, S[2], 0], [S[1], 0, S[3], 0]),
            quarter(h4, [S[4], 0, S[6], 0], [S[5], 0, S[7], 0]),
        )
    }

    /// Whether `(a | b)` is all zeros.
    #[inline(always)]
    fn none(a: m128i, b: m128i) -> bool {
        let z = cmp_eq_mask_i8_m128i(bitor_m128i(a, b), zeroed_m128i());
        move_mask_i8_m128i(z) == 0xFFFF
    }

    #[inline(always)]
    pub(crate) fn test(w: &[u64; 8], o: usize, h: u32) -> bool {
        let (ma, mb) = masks(h);
        let o = o & 4;
        let a = m128i::from([w[o], w[o + 1]]);
        let b = m128i::from([w[o + 2], w[o + 3]]);
        none(bitandnot_m128i(a, ma), bitandnot_m128i(b, mb))
    }

    #[inline(always)]
    pub(crate) fn set(w: &mut [u64; 8], o: usize, h: u32) -> bool {
        let (ma, mb) = masks(h);
        let o = o & 4;
        let a = m128i::from([w[o], w[o + 1]]);
        let b = m128i::from([w[o + 2], w[o + 3]]);
        let changed = !none(bitandnot_m128i(a, ma), bitandnot_m128i(b, mb));
        let [a0, a1]: [u64; 2] = bitor_m128i(a, ma).into();
        let [b0, b1]: [u64; 2] = bitor_m128i(b, mb).into();
        w[o] = a0;
        w[o + 1] = a1;
        w[o + 2] = b0;
        w[o + 3] = b1;
        changed
    }
}

/// AVX2, if the CPU has it: a token that lets safe code run AVX2
/// instructions (`pulp`'s), found once when a filter is made.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Simd(#[cfg(target_arch = "x86_64")] Option<pulp::x86::V3>);

impl Simd {
    /// What this CPU has.
    pub(crate) fn detect() -> Simd {
        Simd(
            #[cfg(target_arch = "x86_64")]
            pulp::x86::V3::try_new(),
        )
    }

    /// `avx(token, state)` on a CPU with AVX2, compiled for it; else
    /// `other(state)`.
    #[inline(always)]
    pub(crate) fn run<S, R>(
        self,
        state: S,
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
        avx: impl FnOnce(Avx2, S) -> R,
        other: impl FnOnce(S) -> R,
    ) -> R {
        #[cfg(target_arch = "x86_64")]
        if let Some(v) = self.0 {
            return v.vectorize(
                #[inline(always)]
                move || avx(Avx2(v), state),
            );
        }
        other(state)
    }
}

/// Every filter's token is the same machine's.
impl PartialEq for Simd {
    fn eq(&self, _: &Simd) -> bool {
        true
    }
}

impl Eq for Simd {}

/// Proof that the CPU has AVX2 (see [`Simd::run`]).
#[derive(Clone, Copy)]
pub(crate) struct Avx2(
    #[cfg(target_arch = "x86_64")] pub(crate) pulp::x86::V3,
);

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    #[inline(always)]
    fn mask(self, h: u32) -> core::arch::x86_64::__m256i {
        let v = self.0;
        let salts: core::arch::x86_64::__m256i = pulp::cast(PARQUET_SALTS);
        let x = v
            .avx2
            ._mm256_mullo_epi32(salts, v.avx._mm256_set1_epi32(h as i32));
        let x = v.avx2._mm256_srli_epi32::<27>(x);
        v.avx2._mm256_sllv_epi32(v.avx._mm256_set1_epi32(1), x)
    }

    /// Whether every bit of `h` is set in `block` (one split block, four
    /// words): [`test()`] in AVX2.
    #[inline(always)]
    pub(crate) fn test(self, block: &[u64; 4], h: u32) -> bool {
        let b: core::arch::x86_64::__m256i = pulp::cast(*block);
        self.0.avx._mm256_testc_si256(b, self.mask(h)) != 0
    }

    /// Sets the bits of `h` in `block`; whether any changed: [`set`] in
    /// AVX2.
    #[inline(always)]
    pub(crate) fn set(self, block: &mut [u64; 4], h: u32) -> bool {
        let b: core::arch::x86_64::__m256i = pulp::cast(*block);
        let m = self.mask(h);
        let had = self.0.avx._mm256_testc_si256(b, m) != 0;
        *block = pulp::cast(self.0.avx2._mm256_or_si256(b, m));
        !had
    }
}

// Never called: `Simd::run` gives a token only on x86-64.
#[cfg(not(target_arch = "x86_64"))]
impl Avx2 {
    pub(crate) fn test(self, block: &[u64; 4], h: u32) -> bool {
        let mut w = [0; 8];
        w[..4].copy_from_slice(block);
        test_scalar(&w, 0, h)
    }

    pub(crate) fn set(self, block: &mut [u64; 4], h: u32) -> bool {
        let mut w = [0; 8];
        w[..4].copy_from_slice(block);
        let changed = set_scalar(&mut w, 0, h);
        block.copy_from_slice(&w[..4]);
        changed
    }
}

/// Whether every bit of `h` is set in the block at `w[o..o + 4]` (`o` 0
/// or 4).
#[inline(always)]
pub(crate) fn test(w: &[u64; 8], o: usize, h: u32) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    return sse2::test(w, o, h);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    return test_scalar(w, o, h);
}

/// Sets the bits of `h` in the block at `w[o..o + 4]` (`o` 0 or 4);
/// whether any changed.
#[inline(always)]
pub(crate) fn set(w: &mut [u64; 8], o: usize, h: u32) -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    return sse2::set(w, o, h);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    return set_scalar(w, o, h);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector and scalar paths agree on every bit, for in-block
    /// hashes that reach each of the 32 bits of every word.
    #[test]
    fn vector_and_scalar_masks_agree() {
        let mut state = 0x1234_5678_9abc_def0u64;
        for n in 0..20_000u32 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let h =
                if n < 64 { n.rotate_left(27) } else { (state >> 32) as u32 };
            let o = (n as usize & 1) * 4;
            let mut v = [0u64; 8];
            let mut s = [0u64; 8];
            // Sparse earlier contents, so both answers occur.
            v[o] = state & (state >> 7) & (state >> 13);
            s[o] = v[o];
            assert_eq!(test(&v, o, h), test_scalar(&s, o, h), "h = {h:#x}");
            let mut a = v;
            if let Some(avx) = avx2() {
                let half = |w: &[u64; 8]| [w[o], w[o + 1], w[o + 2], w[o + 3]];
                assert_eq!(avx.test(&half(&a), h), test_scalar(&s, o, h));
                let mut b = s;
                let mut block = half(&a);
                assert_eq!(avx.set(&mut block, h), set_scalar(&mut b, o, h));
                a[o..o + 4].copy_from_slice(&block);
                assert_eq!(a, b, "h = {h:#x}");
            }
            assert_eq!(set(&mut v, o, h), set_scalar(&mut s, o, h));
            assert_eq!(v, s, "h = {h:#x}");
            assert!(test(&v, o, h) && test_scalar(&s, o, h));
            // On an empty block: one bit in each 32-bit word, the one
            // Parquet's formula names, and none outside the block.
            let mut z = [0u64; 8];
            assert!(set(&mut z, o, h));
            for i in 0..8 {
                let word = (z[o + i / 2] >> (32 * (i % 2))) as u32;
                assert_eq!(word, 1 << bit(h, i), "h = {h:#x}, word {i}");
            }
            assert!(
                z.iter()
                    .enumerate()
                    .all(|(j, &x)| x == 0 || (o..o + 4).contains(&j))
            );
        }
    }

    /// The AVX2 token, outside `vectorize` (the intrinsics still run:
    /// the test machine has AVX2 if `try_new` says so).
    fn avx2() -> Option<Avx2> {
        #[cfg(target_arch = "x86_64")]
        return pulp::x86::V3::try_new().map(Avx2);
        #[cfg(not(target_arch = "x86_64"))]
        return None;
    }

    #[test]
    fn block_of_is_parquets_multiply_shift() {
        assert_eq!(block_of(u64::MAX, MAX_SPLIT_BLOCKS), MAX_SPLIT_BLOCKS - 1);
        assert_eq!(block_of(0xFFFF_FFFF, 1000), 0);
        assert_eq!(block_of(1 << 63, 1000), 500);
        assert_eq!(place(5), (2, 4));
        assert_eq!(place(4), (2, 0));
    }
}
