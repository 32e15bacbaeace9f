//! [`prefetch`]: ask the CPU to start loading a word's cache line now, so
//! that a batch of queries can have all of its cache misses in flight at
//! once instead of as many as fit in the core's out-of-order window.
//!
//! On x86-64 this is the SSE `prefetcht0` instruction (part of the
//! baseline target), reached through `safe_arch`'s safe wrapper, as this
//! workspace forbids `unsafe`. Elsewhere it does nothing. It never
//! changes a result: a prefetch has no architectural effect.

/// Arrays at least this large are worth prefetching for in batch
/// queries: the same size as [`crate::words::HUGE_PAGE_MIN_BYTES`], a few
/// times the L2 cache of common cores.
///
/// Prefetching costs instructions (a batch computes each position twice),
/// and it pays only when loads wait on memory. Measured on the project's
/// machine (2-core AMD EPYC VM, 512 KiB L2, 32 MiB L3 shared with other
/// tenants), a classic filter's `contains_many` with and without
/// prefetching, two builds of a one-off timing program alternated on
/// 2026-11-24 (a design measurement, not a bench): at 1.2 MB and
/// 3.6 MB, members 16.4-17.2 ns a key without against 18-21 with, and
/// Guava's preset (positions by division) 33-37 against 45-48; at 6 MB
/// and 12 MB, 18-53 and 25-50 without against 20-21 and 26 with: a
/// little slower when the host is quiet and the filter stays in the L3
/// cache, two to three times faster when it does not.
pub const PREFETCH_MIN_BYTES: usize = 4 << 20;

/// Filters at least this large test every probe of a one-key query with
/// a branch (the standard and counting filters' kernels), where smaller
/// ones test their first probes without: past this machine class's L3
/// cache (32 MiB) each probe is a miss to memory, and a predicted branch
/// leaves one instruction waiting for each load (a branch-free head adds
/// its arithmetic), so the core's window holds more queries' misses at
/// once. In smaller filters the branch-free head wins on non-members,
/// whose first probes decide and whose branches would be mispredicted.
/// Measured on the project's machine (2026-11-25): a counting filter of
/// 48 MB (n = 1e7, 4-bit counters), bench binaries without and with it
/// alternated (`benches/benches/counting.rs`), member queries 126.7 and
/// 134.3 ns a key against 105.0 and 101.3, non-members 104.3 and 100.4
/// against 82.4 and 77.8; in a one-off loop (a design measurement, not a
/// bench), a standard filter of 48 MB at n = 1e7 (its bits a quarter
/// set) members 83-88 against 75-79 ns and non-members 58-69 against
/// 30-38, and a counting filter with a head of three against none,
/// non-members 17.8-20.8 against 23.1-24.8 ns at 9.6 MB, mixed at 19 MB.
pub const QUERY_BRANCH_MIN_BYTES: usize = 32 << 20;

/// Keys a filter's `Extend` hands to its batch insert at a time.
pub const EXTEND_BATCH: usize = 1024;

/// Calls `f` on consecutive slices of `items`, [`EXTEND_BATCH`] at a
/// time (the last one shorter): how the filters' `Extend` feeds an
/// iterator to their batch inserts, which hash a batch and prefetch its
/// lines before writing any.
///
/// ```
/// let mut sizes = Vec::new();
/// bloomlab_core::for_each_batch(0..2500u64, |b| sizes.push(b.len()));
/// assert_eq!(sizes, [1024, 1024, 452]);
/// ```
pub fn for_each_batch<K>(
    items: impl IntoIterator<Item = K>,
    mut f: impl FnMut(&[K]),
) {
    let mut items = items.into_iter();
    let first = items.size_hint().0.clamp(1, EXTEND_BATCH);
    let mut batch = Vec::with_capacity(first);
    loop {
        batch.clear();
        batch.extend(items.by_ref().take(EXTEND_BATCH));
        if batch.is_empty() {
            return;
        }
        f(&batch);
    }
}

/// Whether a batch over `items` should prefetch: whether they take at
/// least [`PREFETCH_MIN_BYTES`].
///
/// ```
/// assert!(!bloomlab_core::worth_prefetching(&[0u64; 1024]));
/// ```
#[inline]
pub fn worth_prefetching<T>(items: &[T]) -> bool {
    std::mem::size_of_val(items) >= PREFETCH_MIN_BYTES
}

/// Starts loading the cache line of `items[i]` into every cache level;
/// does nothing if `i` is out of bounds. For a line wanted now (one
/// key's own probes); a batch asking for many lines ahead takes
/// [`prefetch_l2`].
///
/// ```
/// let words = vec![0u64; 1 << 10];
/// bloomlab_core::prefetch(&words, 700);
/// bloomlab_core::prefetch(&words, 1 << 20); // out of bounds: nothing
/// ```
#[inline(always)]
pub fn prefetch<T>(items: &[T], i: usize) {
    prefetch_into::<false, T>(items, i);
}

/// `prefetcht0` (every level) or, if `L2`, `prefetcht1` (the L2 and
/// beyond) of `items[i]`, if it is in bounds; nothing off x86-64.
#[inline(always)]
fn prefetch_into<const L2: bool, T>(items: &[T], i: usize) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    if let Some(item) = items.get(i) {
        if L2 {
            safe_arch::prefetch_t1(item);
        } else {
            safe_arch::prefetch_t0(item);
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = (items, i);
}

/// Starts loading the cache line of `items[i]` into the L2 cache (and
/// those beyond it), not the L1; does nothing if `i` is out of bounds.
/// For batches, which ask for many keys' lines before reading any.
///
/// A line on its way into the L1 holds one of the L1's few miss buffers
/// (a couple of dozen on current cores) until it arrives, so once a
/// batch's [`prefetch`]es fill them the rest wait for a free one, and
/// the batch has only that many misses in flight. Lines asked for into
/// the L2 use the L2's larger queue, and each read then finds its line
/// in the L2. Measured on the project's machine (AMD EPYC Zen 4 VM, 2
/// cores), bench binaries before and after alternated twice
/// (2026-11-27): the counting filter's `insert_many` of 10^7 keys
/// (48 MB of counters) took 1.12 and 1.31 s before, 0.388 and 0.384 s
/// after (one `insert` at a time 1.05-1.13 s); the standard filter's
/// `insert_many` of 10^7 keys (12 MB) 388 and 326 ms against 193 and
/// 194, its `contains_many` level or a little faster
/// (`benches/benches/counting.rs`, `benches/benches/standard.rs`). The
/// counting bench's `bloomlab-counting-contains-many` at 10^7 now
/// answers in 34.0 ns a member and 22.3 a non-member, against 134 and
/// 95.5 for fastbloom-rs's one-key query in the same runs (118-133 ns a
/// member before, in a one-off loop). One key's own lines, read at
/// once, gain nothing from it: those keep [`prefetch`].
///
/// ```
/// let words = vec![0u64; 1 << 10];
/// bloomlab_core::prefetch_l2(&words, 700);
/// bloomlab_core::prefetch_l2(&words, 1 << 20); // out of bounds: nothing
/// ```
#[inline(always)]
pub fn prefetch_l2<T>(items: &[T], i: usize) {
    prefetch_into::<true, T>(items, i);
}
