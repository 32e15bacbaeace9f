//! [`prefetch`]: ask the CPU to start loading a word's cache line now, so
//! that a batch of queries can have all of its cache misses in flight at
//! once instead of as many as fit in the core's out-of-order window.
//!
//! On x86-64 this is the SSE `prefetcht0` instruction (part of the
//! baseline target), reached through `safe_arch`'s safe wrapper, as this
//! workspace forbids `unsafe`. Elsewhere it does nothing. It never
//! changes a result: a prefetch has no architectural effect.

/// Starts loading the cache line of `words[i]` into every cache level;
/// does nothing if `i` is out of bounds.
///
/// ```
/// let words = vec![0u64; 1 << 10];
/// bloomlab_core::prefetch(&words, 700);
/// bloomlab_core::prefetch(&words, 1 << 20); // out of bounds: nothing
/// ```
#[inline(always)]
pub fn prefetch(words: &[u64], i: usize) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    if let Some(w) = words.get(i) {
        safe_arch::prefetch_t0(w);
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = (words, i);
}
