//! The probe loops of the multiply-shift double-hashing walks (the default
//! configuration), unrolled for each `k` up to 16: the
//! same positions as [`crate::probes::Probes::walk_digest`], in the same
//! order.

use bloomlab_core::{BitArray, prefetch};
use bloomlab_standard::{
    Fold64Start, Fold128Start, MsHash, MsStart, Xxh3x64Start, Xxh3x128Start,
};

/// Whether a filter of `bytes` of counters takes the prefetching insert
/// ([`add`] with `FAR`): at [`crate::INSERT_PREFETCH_MIN_BYTES`] or more,
/// the size from which `insert_many` prefetches too. Measured with
/// `benches/benches/counting.rs` at n = 1e7 (48 MB), bench binaries
/// without and with it alternated on a noisy host (2026-11-24):
/// `insert` 150, 150, 158 and 276 ns a key against 202, 241, 163 and 180
/// without; fastbloom-rs ÷ bloomlab 2.09, 2.20, 2.14, 1.25 against 1.73,
/// 1.41, 1.91, 2.76. A one-off loop (48 MB, 7 counters a key, the same
/// process) gave 118–130 against 135–141 ns.
pub(crate) fn far(bytes: usize) -> bool {
    bytes >= crate::INSERT_PREFETCH_MIN_BYTES
}

/// Whether a filter of `bytes` of counters tests every probe of a query
/// with a branch ([`query`] with `FAR`): at
/// [`crate::QUERY_BRANCH_MIN_BYTES`] or more.
pub(crate) fn far_query(bytes: usize) -> bool {
    bytes >= crate::QUERY_BRANCH_MIN_BYTES
}

/// Whether a filter of `bytes` of counters prefetches a key's lines
/// before a remove reads them, and before an insert of a filter keeping
/// a summary does: at [`bloomlab_core::PREFETCH_MIN_BYTES`] (4 MiB) or
/// more, past the L2 cache. Measured with bench binaries without and
/// with it (2026-11-27): at n = 1e7 (48 MB) fastbloom-rs ÷ bloomlab
/// removes taking turns (`benches/benches/counting.rs`) 1.85, 1.86,
/// 1.86 against 2.07–2.12 (five runs); at n = 1e6 (4.8 MB) with a
/// summary 1.35–1.37 against 1.53–1.62, criterion 36.5 and 36.1 ns
/// against 31.0 and 31.4, summary inserts 1.86, 1.86 against 1.92–1.98;
/// without a summary level (22.6, 22.8 against 22.4, 22.1 ns). Below
/// it the prefetches are instructions for nothing (a one-off loop at
/// n = 1e5, 480 KB: removes 15.1–15.3 against 16.6 ns, summary inserts
/// 18.0–18.4 against 19.5–20.3; at 1e4 removes 13.9–14.2 against 14.8–
/// 14.9).
pub(crate) fn prefetch_updates(bytes: usize) -> bool {
    bytes >= bloomlab_core::PREFETCH_MIN_BYTES
}

/// Probes of a query tested without a branch between them: on a
/// non-member the first probes decide, and a branch on each would be
/// mispredicted about half of the time. Three, not the standard
/// filter's four: a counting filter is four times larger, and at
/// n = 1e7 (48 MB, past the L3 cache) each probe of the head is a miss
/// to memory. Measured with k = 7 (`benches/benches/counting.rs`, same
/// binaries alternated): non-members at 1e7 about 85 → 69 ns, members
/// at 1e7 and 1e6 level or a little faster, non-members at 1e6 about
/// 18.4 → 19.3 ns; two probes cost 23 ns there, six or seven cost more
/// everywhere. Since 2026-11-25 filters of
/// [`crate::QUERY_BRANCH_MIN_BYTES`] or more (48 MB at 1e7) have no
/// head: each probe is then tested with a mask made before its load,
/// and that beat the head of three there (see the constant).
const BRANCH_FREE: u32 = 3;

/// Lemire's multiply-shift: `x` mapped to `[0, m)`.
#[inline(always)]
fn reduce(x: u64, m: u64) -> u64 {
    ((u128::from(x) * u128::from(m)) >> 64) as u64
}

/// One step of the (enhanced, if `E`) double-hashing walk after probe `i`.
#[inline(always)]
fn step<const E: bool>(x: &mut u64, y: &mut u64, i: u32) {
    *x = x.wrapping_add(*y);
    if E {
        *y = y.wrapping_add(u64::from(i) + 1);
    }
}

/// The packed counters' width, as the generic walk needs it (the
/// unrolled loops take it as the constant `LW`, so their shifts are by
/// constants).
#[derive(Clone, Copy)]
pub(crate) struct Lanes {
    /// `log2` of the counter width.
    pub(crate) lw: u32,
    /// The counter maximum.
    pub(crate) max: u64,
}

impl Lanes {
    /// Word index and shift of counter `p`.
    #[inline(always)]
    pub(crate) fn locate(self, p: u64) -> (usize, u64) {
        ((p >> (6 - self.lw)) as usize, (p << self.lw) & 63)
    }

    /// The same for a width of `2^LW` bits: `(word, shift, max)`.
    #[inline(always)]
    const fn at<const LW: u32>(p: u64) -> (usize, u64, u64) {
        ((p >> (6 - LW)) as usize, (p << LW) & 63, (1 << (1 << LW)) - 1)
    }
}

/// The walk's `K` positions from `(x, y)`, each counter's line (and
/// each summary bit's) prefetched as its position is made: the pass
/// that prefetching queries, inserts and removes take before they read.
/// Kept, so that the reading pass does not compute them again (fewer
/// instructions a key in the core's window, see [`add`]).
#[inline(always)]
fn prefetched<const K: u32, const E: bool, const LW: u32>(
    words: &[u64],
    bits: &impl Bits,
    m: u64,
    mut x: u64,
    mut y: u64,
) -> [u64; 16] {
    const { assert!(K <= 16, "kernels are unrolled for k up to 16") };
    let mut at = [0u64; 16];
    for i in 0..K {
        let p = reduce(x, m);
        at[i as usize] = p;
        prefetch(words, Lanes::at::<LW>(p).0);
        bits.prefetch(p);
        step::<E>(&mut x, &mut y, i);
    }
    at
}

/// Whether all probes of the walk from `(x, y)` find non-zero counters.
/// A filter past the caches (`FAR`) first prefetches every probe's
/// line, then tests every probe with a branch: on a member each branch
/// is predicted, so only a test waits for each load, and the core's
/// window holds more queries' misses at once than when each load also
/// feeds the head's arithmetic.
#[inline(always)]
pub(crate) fn query<
    const K: u32,
    const E: bool,
    const LW: u32,
    const FAR: bool,
>(
    words: &[u64],
    m: u64,
    mut x: u64,
    mut y: u64,
) -> bool {
    let head = if FAR { 0 } else { K.min(BRANCH_FREE) };
    // A far filter's lines are all asked for before the first is tested:
    // a non-member then waits about one miss, not one for each probe
    // until the first zero, and a member's misses start together. Bench
    // binaries without and with it, alternated twice at n = 1e7 (48 MB,
    // 2026-11-27, `benches/benches/counting.rs`): members 90.5, 93.5 ns
    // against 81.0, 79.0; non-members 80.7, 81.8 against 64.0, 63.8
    // (fastbloom-rs 90-101 there). Kept positions, as in `add`.
    let at = if FAR {
        prefetched::<K, E, LW>(words, &(), m, x, y)
    } else {
        [0; 16]
    };
    // 1 while every counter so far is non-zero: `c + max` reaches
    // `2^bits` exactly when `c ≥ 1` (arithmetic, so no branch is made).
    let mut all = 1;
    for i in 0..head {
        let p = reduce(x, m);
        let (w, sh, max) = Lanes::at::<LW>(p);
        all &= (((words[w] >> sh) & max) + max) >> (1 << LW);
        step::<E>(&mut x, &mut y, i);
    }
    if all == 0 {
        return false;
    }
    for i in head..K {
        // The counter's mask is made from the position alone, so the
        // test is the only instruction that waits for the load.
        let p = if FAR { at[i as usize] } else { reduce(x, m) };
        let (w, sh, max) = Lanes::at::<LW>(p);
        if words[w] & (max << sh) == 0 {
            return false;
        }
        step::<E>(&mut x, &mut y, i);
    }
    true
}

/// Whether counters of `2^LW` bits saturate rarely enough to test for
/// it with a branch. A 4-bit counter reaches 15 only far past the
/// filter's sizing, so the branch is never taken and costs nothing; the
/// branch-free form made each store wait for the comparison and kept a
/// flag per probe live across the unrolled loop (measured at n = 1e6,
/// same binaries alternated: insert about 34 against 26 ns, remove 38
/// against 31, `benches/benches/counting.rs`). A 2-bit counter reaches 3
/// on a few percent of probes at the optimal load, where a branch would
/// be mispredicted: it keeps the branch-free form.
const fn rare_saturation(lw: u32) -> bool {
    lw >= 2
}

/// `n + 1`, out of line: the rare path of a saturated counter.
#[cold]
#[inline(never)]
fn one_more(n: u64) -> u64 {
    n + 1
}

/// Adds 1 to (if `UP`, else subtracts 1 from) the counter at `sh` of
/// `word`, whose value is `c`, unless it holds `max`: then adds 1 to
/// `stuck` instead. The step of an insert or a remove.
#[inline(always)]
fn bump_unless_full<const LW: u32, const UP: bool>(
    word: &mut u64,
    sh: u64,
    c: u64,
    max: u64,
    stuck: &mut u64,
) {
    let full = c == max;
    if rare_saturation(LW) {
        if full {
            *stuck = one_more(*stuck);
        } else if UP {
            *word += 1 << sh;
        } else {
            *word -= 1 << sh;
        }
    } else {
        let one = u64::from(!full) << sh;
        if UP {
            *word += one;
        } else {
            *word -= one;
        }
        *stuck += u64::from(full);
    }
}

/// The summary bits an update keeps in step with the counters
/// (`CountingBloomFilter::keep_summary`): bit `p` set while counter `p`
/// is non-zero. `()` keeps none, and compiles to nothing.
pub(crate) trait Bits {
    /// Counter `p` is now non-zero.
    fn set(&mut self, p: u64);
    /// Counter `p` is now zero if `zero`.
    fn clear_if(&mut self, p: u64, zero: bool);
    /// Prefetches bit `p`.
    fn prefetch(&self, p: u64);
}

impl Bits for () {
    #[inline(always)]
    fn set(&mut self, _: u64) {}
    #[inline(always)]
    fn clear_if(&mut self, _: u64, _: bool) {}
    #[inline(always)]
    fn prefetch(&self, _: u64) {}
}

impl Bits for &mut BitArray {
    #[inline(always)]
    fn set(&mut self, p: u64) {
        BitArray::set(self, p);
    }
    // Without a branch: whether a decremented counter reached zero is
    // data, about an even chance at the optimal load.
    #[inline(always)]
    fn clear_if(&mut self, p: u64, zero: bool) {
        self.unset_if(p, zero);
    }
    #[inline(always)]
    fn prefetch(&self, p: u64) {
        prefetch(self.words(), (p >> 6) as usize);
    }
}

/// Adds 1 to the counter at `sh` of `word` unless it holds `max`: then
/// adds 1 to `lost` instead. The step of an insert.
///
/// Counters that saturate rarely (4 and 8 bits) are incremented first
/// and tested after: a counter that held `max` now reads 0 (its carry
/// went into the next counter), and subtracting the 1 again restores
/// the word exactly, on the cold path. The common path is a load, an
/// add, a store and a test that nothing waits for, three instructions
/// fewer a probe than testing the loaded counter before adding. Bench
/// binaries before and after, alternated three times (2026-11-25):
/// inserts at 10^6 24.6, 24.1, 26.6 ns a key against 20.7, 23.3, 21.5
/// (`benches/benches/counting.rs`); at 10^7 fastbloom-rs's time ÷
/// bloomlab's, the median of 21 rounds taking turns, 1.86, 1.91, 1.91
/// against 1.96, 1.96, 1.94 (`benches/benches/counting_floor.rs`).
/// Two probes on one counter stay exact: each is tested before the
/// next is added.
#[inline(always)]
fn increment<const LW: u32>(
    word: &mut u64,
    sh: u64,
    max: u64,
    lost: &mut u64,
) {
    if rare_saturation(LW) {
        let one = 1 << sh;
        *word = word.wrapping_add(one);
        if *word & (max << sh) == 0 {
            *word = word.wrapping_sub(one);
            *lost = one_more(*lost);
        }
    } else {
        let c = (*word >> sh) & max;
        bump_unless_full::<LW, true>(word, sh, c, max, lost);
    }
}

/// Increments the counters of the walk, saturating; returns the
/// increments lost to saturated counters. If `FAR` (a filter too large
/// for the caches), every counter's line is prefetched first: the
/// increments' loads then miss together rather than as the core's
/// window reaches each one, which a branch on each loaded counter (the
/// saturation test) holds back. Measured at n = 1e7 (48 MB), see
/// [`far`]; a filter keeping a summary, whose inserts touch two lines a
/// probe, takes `FAR` from [`prefetch_updates`]'s smaller size.
#[inline(always)]
pub(crate) fn add<
    B: Bits,
    const K: u32,
    const E: bool,
    const LW: u32,
    const FAR: bool,
>(
    words: &mut [u64],
    mut bits: B,
    m: u64,
    mut x: u64,
    mut y: u64,
) -> u64 {
    // The positions of a prefetching insert, kept from the prefetch pass
    // for the update pass (kernels have `K` ≤ 16): fewer instructions a
    // key in the core's window. Bench binaries without and with it,
    // alternated twice at n = 1e7 (2026-11-25): builds 1.39 and 1.42 s
    // against 1.26 and 1.25 (fastbloom-rs 2.60, 2.23 and 2.38, 2.39),
    // inserts of members again level (137 and 124 ns against 120, 128).
    let at = if FAR {
        prefetched::<K, E, LW>(words, &bits, m, x, y)
    } else {
        [0; 16]
    };
    let mut lost = 0;
    for i in 0..K {
        let p = if FAR { at[i as usize] } else { reduce(x, m) };
        let (w, sh, max) = Lanes::at::<LW>(p);
        increment::<LW>(&mut words[w], sh, max, &mut lost);
        bits.set(p);
        step::<E>(&mut x, &mut y, i);
    }
    lost
}

/// Decrements the counters of the walk, skipping saturated ones. Stops at
/// the first zero counter and returns its probe, after undoing the
/// decrements before it; else returns the decrements skipped.
#[inline(always)]
pub(crate) fn sub<
    B: Bits,
    const K: u32,
    const E: bool,
    const LW: u32,
    const PRE: bool,
>(
    words: &mut [u64],
    mut bits: B,
    m: u64,
    x0: u64,
    y0: u64,
) -> Result<u64, (u32, u64)> {
    // If `PRE` ([`prefetch_updates`]), every counter's line (and summary
    // bit's) is asked for before the first is read: each probe's zero
    // test is a branch the core's window waits behind, so without this
    // the loads of a key start one after another.
    let at = if PRE {
        prefetched::<K, E, LW>(words, &bits, m, x0, y0)
    } else {
        [0; 16]
    };
    let (mut x, mut y) = (x0, y0);
    let mut skipped = 0;
    for i in 0..K {
        let p = if PRE { at[i as usize] } else { reduce(x, m) };
        let (w, sh, max) = Lanes::at::<LW>(p);
        let word = &mut words[w];
        let c = (*word >> sh) & max;
        if c == 0 {
            undo::<E, LW>(words, bits, m, x0, y0, i);
            return Err((i, p));
        }
        bump_unless_full::<LW, false>(word, sh, c, max, &mut skipped);
        // A counter at 1 is decremented to zero (the maximum is at
        // least 3, so it was not skipped).
        bits.clear_if(p, c == 1);
        step::<E>(&mut x, &mut y, i);
    }
    Ok(skipped)
}

/// Undoes the decrements of probes `0..upto` (cold: only a key whose
/// probes share a counter that holds less than their number gets here).
/// A decremented counter is now below the maximum, a skipped one still
/// at it.
#[cold]
#[inline(never)]
fn undo<const E: bool, const LW: u32>(
    words: &mut [u64],
    mut bits: impl Bits,
    m: u64,
    mut x: u64,
    mut y: u64,
    upto: u32,
) {
    for i in 0..upto {
        let p = reduce(x, m);
        let (w, sh, max) = Lanes::at::<LW>(p);
        if (words[w] >> sh) & max != max {
            words[w] += 1 << sh;
        }
        // Non-zero again (a cleared bit comes back).
        bits.set(p);
        step::<E>(&mut x, &mut y, i);
    }
}

/// `$f::<h, k, e, lw>(args)` for the start hash `h`, `k` up to 16 and
/// each width, else `$other`.
macro_rules! unrolled {
    ($h:ty, $k:expr, $e:expr, $lw:expr, $f:ident, $args:tt, $other:expr) => {
        match $lw {
            1 => $crate::fast::unrolled!(@k $h, $k, $e, 1, $f, $args, $other),
            2 => $crate::fast::unrolled!(@k $h, $k, $e, 2, $f, $args, $other),
            _ => $crate::fast::unrolled!(@k $h, $k, $e, 3, $f, $args, $other),
        }
    };
    (@k $h:ty, $k:expr, $e:expr, $lw:literal, $f:ident, $args:tt,
        $other:expr) => {
        $crate::fast::unrolled!(@arms $h, $k, $e, $lw, $f, $args, $other;
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    };
    (@arms $h:ty, $k:expr, $e:expr, $lw:literal, $f:ident, $args:tt,
        $other:expr; $($n:literal)*) => {
        match ($k, $e) {
            $(
                ($n, true) => $f::<$h, $n, true, $lw> $args,
                ($n, false) => $f::<$h, $n, false, $lw> $args,
            )*
            _ => $other,
        }
    };
}
pub(crate) use unrolled;

/// `fn(seed, m, words, key)`: [`query`] of the key's walk.
pub(crate) type QueryFn = fn(u64, u64, &[u64], &[u8]) -> bool;
/// `fn(seed, m, words, key)`: [`add`] of the key's walk.
pub(crate) type AddFn = fn(u64, u64, &mut [u64], &[u8]) -> u64;
/// `fn(seed, m, words, key)`: [`sub`] of the key's walk.
pub(crate) type SubFn =
    fn(u64, u64, &mut [u64], &[u8]) -> Result<u64, (u32, u64)>;

/// [`QueryFn`] for a key that is one little-endian word (a `u64` or
/// `i64`, see [`bloomlab_hash::Funnel::as_le_word`]), passed in a
/// register.
pub(crate) type QueryWordFn = fn(u64, u64, &[u64], u64) -> bool;
/// [`AddFn`] for a one-word key.
pub(crate) type AddWordFn = fn(u64, u64, &mut [u64], u64) -> u64;
/// [`SubFn`] for a one-word key.
pub(crate) type SubWordFn =
    fn(u64, u64, &mut [u64], u64) -> Result<u64, (u32, u64)>;
/// [`AddWordFn`] that also sets the summary's bits (`fn(seed, m, words,
/// summary, key)`).
pub(crate) type AddWordSumFn =
    fn(u64, u64, &mut [u64], &mut BitArray, u64) -> u64;
/// [`SubWordFn`] that also clears the summary's bits of the counters it
/// zeroes.
pub(crate) type SubWordSumFn =
    fn(u64, u64, &mut [u64], &mut BitArray, u64) -> Result<u64, (u32, u64)>;

/// A filter's probe loops, chosen once, when it is built: a `match` over
/// `k`, the walk and the counter width on every key cost about as much
/// as the loop itself (the same finding as `bloomlab-standard`'s
/// kernels). Each function is monomorphic in the hash, `k`, the walk and
/// the width, with the hash inlined: one predicted indirect call a key.
/// The `*_word` loops take a one-word key by value, with the same
/// positions: its bytes are not written to memory nor their length
/// tested.
#[derive(Clone, Copy)]
pub(crate) struct Kernel {
    pub(crate) query: QueryFn,
    pub(crate) add: AddFn,
    pub(crate) sub: SubFn,
    pub(crate) query_word: QueryWordFn,
    pub(crate) add_word: AddWordFn,
    pub(crate) sub_word: SubWordFn,
    /// `add_word` of a filter that keeps a summary.
    pub(crate) add_word_sum: AddWordSumFn,
    /// `sub_word` of a filter that keeps a summary.
    pub(crate) sub_word_sum: SubWordSumFn,
}

// A kernel is a function of the probes and width, which filters compare.
impl PartialEq for Kernel {
    fn eq(&self, _: &Kernel) -> bool {
        true
    }
}

impl Eq for Kernel {}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Kernel")
    }
}

impl Kernel {
    /// The kernel of `probes` with counters of `2^lw` bits, if its
    /// configuration has a multiply-shift fast path and `k` is unrolled;
    /// its inserts prefetch if a filter of `bytes` of counters is [`far`],
    /// its queries prefetch and branch on every probe if it is
    /// [`far_query`], its removes (and a summary's inserts) prefetch if
    /// [`prefetch_updates`].
    pub(crate) fn new(
        probes: &bloomlab_standard::Probes,
        lw: u32,
        bytes: usize,
    ) -> Option<Kernel> {
        let far = (far(bytes), far_query(bytes), prefetch_updates(bytes));
        let (hash, e) = probes.ms_hash()?;
        let k = probes.k();
        match hash {
            MsHash::Xxh3x64 => Kernel::of::<Xxh3x64Start>(k, e, lw, far),
            MsHash::Xxh3x128 => Kernel::of::<Xxh3x128Start>(k, e, lw, far),
            MsHash::Fold128 => Kernel::of::<Fold128Start>(k, e, lw, far),
            MsHash::Fold64 => Kernel::of::<Fold64Start>(k, e, lw, far),
        }
    }

    fn of<H: MsStart>(
        k: u32,
        e: bool,
        lw: u32,
        far: (bool, bool, bool),
    ) -> Option<Kernel> {
        unrolled!(H, k, e, lw, kernel_of, (far), None)
    }
}

fn key_query<
    H: MsStart,
    const K: u32,
    const E: bool,
    const LW: u32,
    const FAR: bool,
>(
    seed: u64,
    m: u64,
    words: &[u64],
    key: &[u8],
) -> bool {
    let (x, y) = H::start(seed, key);
    query::<K, E, LW, FAR>(words, m, x, y)
}

fn key_add<
    H: MsStart,
    const K: u32,
    const E: bool,
    const LW: u32,
    const FAR: bool,
>(
    seed: u64,
    m: u64,
    words: &mut [u64],
    key: &[u8],
) -> u64 {
    let (x, y) = H::start(seed, key);
    add::<_, K, E, LW, FAR>(words, (), m, x, y)
}

fn key_sub<
    H: MsStart,
    const K: u32,
    const E: bool,
    const LW: u32,
    const PRE: bool,
>(
    seed: u64,
    m: u64,
    words: &mut [u64],
    key: &[u8],
) -> Result<u64, (u32, u64)> {
    let (x, y) = H::start(seed, key);
    sub::<_, K, E, LW, PRE>(words, (), m, x, y)
}

fn word_query<
    H: MsStart,
    const K: u32,
    const E: bool,
    const LW: u32,
    const FAR: bool,
>(
    seed: u64,
    m: u64,
    words: &[u64],
    key: u64,
) -> bool {
    let (x, y) = H::start_word(seed, key);
    query::<K, E, LW, FAR>(words, m, x, y)
}

fn word_add<
    H: MsStart,
    const K: u32,
    const E: bool,
    const LW: u32,
    const FAR: bool,
>(
    seed: u64,
    m: u64,
    words: &mut [u64],
    key: u64,
) -> u64 {
    let (x, y) = H::start_word(seed, key);
    add::<_, K, E, LW, FAR>(words, (), m, x, y)
}

fn word_add_sum<
    H: MsStart,
    const K: u32,
    const E: bool,
    const LW: u32,
    const FAR: bool,
>(
    seed: u64,
    m: u64,
    words: &mut [u64],
    bits: &mut BitArray,
    key: u64,
) -> u64 {
    let (x, y) = H::start_word(seed, key);
    add::<_, K, E, LW, FAR>(words, bits, m, x, y)
}

fn word_sub<
    H: MsStart,
    const K: u32,
    const E: bool,
    const LW: u32,
    const PRE: bool,
>(
    seed: u64,
    m: u64,
    words: &mut [u64],
    key: u64,
) -> Result<u64, (u32, u64)> {
    let (x, y) = H::start_word(seed, key);
    sub::<_, K, E, LW, PRE>(words, (), m, x, y)
}

fn word_sub_sum<
    H: MsStart,
    const K: u32,
    const E: bool,
    const LW: u32,
    const PRE: bool,
>(
    seed: u64,
    m: u64,
    words: &mut [u64],
    bits: &mut BitArray,
    key: u64,
) -> Result<u64, (u32, u64)> {
    let (x, y) = H::start_word(seed, key);
    sub::<_, K, E, LW, PRE>(words, bits, m, x, y)
}

// Named by `unrolled!` with `H, K, E, LW`.
fn kernel_of<H: MsStart, const K: u32, const E: bool, const LW: u32>(
    (far, far_query, pre): (bool, bool, bool),
) -> Option<Kernel> {
    let (add, add_word): (AddFn, AddWordFn) = if far {
        (key_add::<H, K, E, LW, true>, word_add::<H, K, E, LW, true>)
    } else {
        (key_add::<H, K, E, LW, false>, word_add::<H, K, E, LW, false>)
    };
    // A filter keeping a summary touches two lines a probe, and prefetches
    // from the smaller size ([`prefetch_updates`]).
    let (add_word_sum, sub, sub_word, sub_word_sum): (
        AddWordSumFn,
        SubFn,
        SubWordFn,
        SubWordSumFn,
    ) = if pre {
        (
            word_add_sum::<H, K, E, LW, true>,
            key_sub::<H, K, E, LW, true>,
            word_sub::<H, K, E, LW, true>,
            word_sub_sum::<H, K, E, LW, true>,
        )
    } else {
        (
            word_add_sum::<H, K, E, LW, false>,
            key_sub::<H, K, E, LW, false>,
            word_sub::<H, K, E, LW, false>,
            word_sub_sum::<H, K, E, LW, false>,
        )
    };
    let (query, query_word): (QueryFn, QueryWordFn) = if far_query {
        (key_query::<H, K, E, LW, true>, word_query::<H, K, E, LW, true>)
    } else {
        (key_query::<H, K, E, LW, false>, word_query::<H, K, E, LW, false>)
    };
    Some(Kernel {
        query,
        add,
        sub,
        query_word,
        add_word,
        sub_word,
        add_word_sum,
        sub_word_sum,
    })
}
