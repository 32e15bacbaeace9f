//! MurmurHash64A (Austin Appleby's 64-bit MurmurHash2), as RedisBloom
//! hashes every item: blocks of 8 bytes read little-endian, a 64-bit seed.
//!
//! RedisBloom derives its two hashes as `a = murmur64a(item,
//! 0xc6a4a7935bd1e995)` and `b = murmur64a(item, a)`; see
//! [`crate::Strategy::RedisBloom`].
//!
//! ```
//! use bloomlab_hash::murmur64a::{murmur64a, REDISBLOOM_SEED};
//!
//! // RedisBloom's first hash of the empty item.
//! assert_eq!(murmur64a(b"", REDISBLOOM_SEED), 0x1ab11ea5a7b2c56e);
//! ```

const M: u64 = 0xc6a4_a793_5bd1_e995;
const R: u32 = 47;

/// The seed of RedisBloom's first hash (the constant `M` itself).
pub const REDISBLOOM_SEED: u64 = M;

/// MurmurHash64A of `data` with `seed`.
#[inline]
pub fn murmur64a(data: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ (data.len() as u64).wrapping_mul(M);
    let mut blocks = data.chunks_exact(8);
    for b in &mut blocks {
        let mut k = u64::from_le_bytes([
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
        ]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        // The C code's fall-through switch XORs byte i at bit 8*i: the same
        // as XOR-ing the little-endian value of the tail.
        let mut buf = [0u8; 8];
        buf[..tail.len()].copy_from_slice(tail);
        h ^= u64::from_le_bytes(buf);
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^ (h >> R)
}
