//! Whole-key probe loops, chosen once per filter.
//!
//! [`crate::Probes`] decides per key which loop to run (a few
//! well-predicted `match`es), which keeps every filter on one code path
//! but costs a few nanoseconds a key: the compiler cannot keep a
//! 32-arm dispatch and the hash inlined into the caller's loop. A
//! [`Kernel`] is that choice made once, when the filter is built: a
//! pair of function pointers, each monomorphic in the hash, `k` and the
//! walk, with the hash inlined. One predicted indirect call per key
//! replaces the dispatch (measured: about 2 ns a key at n = 1e6, see
//! `benches/benches/standard.rs`). The positions are
//! [`Probes::ms_walk`](crate::Probes::ms_walk)'s, bit for bit; the
//! `kernel_matches_probes` test checks that.

use bloomlab_core::bits::{set_in, try_set_old_in};
use bloomlab_core::prefetch_l2;
use bloomlab_hash::Funnel;

use crate::config::{MsHash, Probes};

/// `fn(seed, m, words, key)`: whether every probe of `key` is set.
pub(crate) type QueryFn = fn(u64, u64, &[u64], &[u8]) -> bool;
/// `fn(seed, m, words, key)`: sets the probes; whether any bit changed.
pub(crate) type InsertFn = fn(u64, u64, &mut [u64], &[u8]) -> bool;
/// `fn(seed, m, words, key)`: sets the probes, without the answer.
pub(crate) type AddFn = fn(u64, u64, &mut [u64], &[u8]);

/// [`QueryFn`] for a key that is one little-endian word (a `u64` or
/// `i64`, see [`bloomlab_hash::Funnel::as_le_word`]), passed in a
/// register.
pub(crate) type QueryWordFn = fn(u64, u64, &[u64], u64) -> bool;
/// [`InsertFn`] for a one-word key.
pub(crate) type InsertWordFn = fn(u64, u64, &mut [u64], u64) -> bool;
/// [`AddFn`] for a one-word key.
pub(crate) type AddWordFn = fn(u64, u64, &mut [u64], u64);

/// The classic filter's loops for one-word keys.
pub(crate) type WordKernel = Kernel<QueryWordFn, InsertWordFn, AddWordFn>;

/// A filter's kernels for keys given as bytes and for one-word keys:
/// the same positions, bit for bit. A one-word key skips writing its
/// bytes to memory and the kernel's test of their length, which at
/// n = 1e6 is about 1 ns of a 15 ns query
/// (`benches/benches/standard.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kernels<B = Kernel, W = WordKernel> {
    pub(crate) bytes: B,
    pub(crate) word: W,
}

/// Largest `k` with a kernel.
pub(crate) const MAX_KERNEL_K: u32 = 16;

/// Probes of a query tested without a branch between them: on a
/// non-member the first probes decide, and a branch on each would be
/// mispredicted about half of the time (and on a filter larger than the
/// cache only resolved after the miss); four at once cost a few loads
/// and leave one well-predicted branch. Filters of
/// [`bloomlab_core::QUERY_BRANCH_MIN_BYTES`] or more, past the caches,
/// have no head ([`query_branching`]).
pub(crate) const BRANCH_FREE: u32 = 4;

/// A filter's chosen probe loops (the classic filter's by default; the
/// blocked filter's are `Kernel<blocked_kernel::QueryFn, ..>`).
///
/// `add` is `insert` without its answer, a loop of its own: an insert
/// must load each word to tell whether a bit changed, and at n = 1e6 the
/// loaded words kept live across the loop cost about 10 ns a key (27.6
/// against 17.9 ns, `standard/insert/1e6` in `benches/benches/standard.rs`).
/// A call through a pointer cannot drop an answer its caller ignores, as
/// inlined code can.
#[derive(Clone, Copy)]
pub(crate) struct Kernel<Q = QueryFn, I = InsertFn, A = AddFn> {
    pub(crate) query: Q,
    pub(crate) insert: I,
    pub(crate) add: A,
}

// A kernel is a function of the filter's configuration, which the
// filters compare themselves.
impl<Q, I, A> PartialEq for Kernel<Q, I, A> {
    fn eq(&self, _: &Kernel<Q, I, A>) -> bool {
        true
    }
}

impl<Q, I, A> Eq for Kernel<Q, I, A> {}

impl<Q, I, A> std::fmt::Debug for Kernel<Q, I, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Kernel")
    }
}

/// The hash that starts a multiply-shift walk ([`Probes::ms_walk`]), as a
/// type. Filters that build their own probe loops (the counting
/// filter's) take it as a type parameter, so that the hash is inlined
/// into each loop instead of called through a [`StartFn`]. Which type a
/// configuration needs is [`Probes::ms_hash`]'s answer.
///
/// ```
/// use bloomlab_standard::{Config, MsHash, MsStart, Probes, Xxh3x128Start};
///
/// let p = Probes::new(&Config::default(), 7, 1000)?;
/// assert_eq!(p.ms_hash(), Some((MsHash::Xxh3x128, true)));
/// let (x, y) = Xxh3x128Start::start(p.seed(), b"key");
/// assert_eq!(p.ms_start(b"key"), Some((x, y, true)));
/// # Ok::<(), bloomlab_standard::Error>(())
/// ```
pub trait MsStart: sealed::Sealed {
    /// The walk's start `(x, y)` from `(seed, key)`, with the seed as
    /// [`Probes::seed`] gives it.
    fn start(seed: u64, key: &[u8]) -> (u64, u64);

    /// [`MsStart::start`] of a one-word key's eight little-endian bytes,
    /// taken by value: no byte of it is written to memory.
    ///
    /// ```
    /// use bloomlab_standard::{MsStart, Xxh3x128Start};
    ///
    /// let k = 0x0102_0304_0506_0708u64;
    /// for seed in [0, 7] {
    ///     assert_eq!(
    ///         Xxh3x128Start::start_word(seed, k),
    ///         Xxh3x128Start::start(seed, &k.to_le_bytes()),
    ///     );
    /// }
    /// ```
    fn start_word(seed: u64, key: u64) -> (u64, u64);
}

mod sealed {
    /// Only this crate's hashes start a walk: the positions they give
    /// are part of the file formats.
    pub trait Sealed {}
    impl Sealed for super::Xxh3x64Start {}
    impl Sealed for super::Xxh3x128Start {}
    impl Sealed for super::Fold128Start {}
    impl Sealed for super::Fold64Start {}
}

/// [`MsHash::Xxh3x64`]'s start: xxh3-64, the step a 64-bit mix of it.
#[derive(Debug, Clone, Copy)]
pub struct Xxh3x64Start;

/// [`MsHash::Xxh3x128`]'s start: the two halves of xxh3-128.
#[derive(Debug, Clone, Copy)]
pub struct Xxh3x128Start;

/// [`MsHash::Fold128`]'s start: the two halves of fold-128.
#[derive(Debug, Clone, Copy)]
pub struct Fold128Start;

/// [`MsHash::Fold64`]'s start: fold-64, the step
/// [`bloomlab_hash::fold::fold64_step`] of it.
#[derive(Debug, Clone, Copy)]
pub struct Fold64Start;

impl MsStart for Xxh3x64Start {
    #[inline(always)]
    fn start(seed: u64, key: &[u8]) -> (u64, u64) {
        // As for `Xxh3x128Start`.
        let h = xxh3_64_key(seed, key);
        (h, bloomlab_hash::strategy::mix64(h))
    }

    #[inline(always)]
    fn start_word(seed: u64, key: u64) -> (u64, u64) {
        let h = xxh3_64_word(key, seed);
        (h, bloomlab_hash::strategy::mix64(h))
    }
}

impl MsStart for Xxh3x128Start {
    #[inline(always)]
    fn start(seed: u64, key: &[u8]) -> (u64, u64) {
        let v = xxh3_128_key(seed, key);
        (v as u64, (v >> 64) as u64)
    }

    #[inline(always)]
    fn start_word(seed: u64, key: u64) -> (u64, u64) {
        let v = xxh3_128_word(key, seed);
        (v as u64, (v >> 64) as u64)
    }
}

impl MsStart for Fold128Start {
    #[inline(always)]
    fn start(seed: u64, key: &[u8]) -> (u64, u64) {
        fold128_key(seed, key)
    }

    #[inline(always)]
    fn start_word(seed: u64, key: u64) -> (u64, u64) {
        fold128_word(key, seed)
    }
}

impl MsStart for Fold64Start {
    #[inline(always)]
    fn start(seed: u64, key: &[u8]) -> (u64, u64) {
        let h = fold64_key(seed, key);
        (h, fold64_step(h))
    }

    #[inline(always)]
    fn start_word(seed: u64, key: u64) -> (u64, u64) {
        let h = fold64_word(key, seed);
        (h, fold64_step(h))
    }
}

// The starts' hashes, shared with the other filters' probe loops.
pub(crate) use bloomlab_hash::fold::{fold64_step, fold64_word, fold128_word};
pub(crate) use bloomlab_hash::inline::{
    fold64_key, fold128_key, xxh3_64_key, xxh3_64_word, xxh3_128_key,
    xxh3_128_word,
};

/// A walk's start `(x, y)` from `(seed, key)`: see [`Probes::ms_starter`].
pub type StartFn = fn(u64, &[u8]) -> (u64, u64);

/// The [`StartFn`] of a hash.
pub(crate) fn starter(hash: MsHash) -> StartFn {
    match hash {
        MsHash::Xxh3x64 => Xxh3x64Start::start,
        MsHash::Xxh3x128 => Xxh3x128Start::start,
        MsHash::Fold128 => Fold128Start::start,
        MsHash::Fold64 => Fold64Start::start,
    }
}

/// Lemire's multiply-shift: `x` mapped to `[0, m)`.
#[inline(always)]
pub(crate) fn reduce(x: u64, m: u64) -> u64 {
    ((u128::from(x) * u128::from(m)) >> 64) as u64
}

/// One step of the (enhanced, if `E`) double-hashing walk after probe `i`.
#[inline(always)]
pub(crate) fn step<const E: bool>(x: &mut u64, y: &mut u64, i: u32) {
    *x = x.wrapping_add(*y);
    if E {
        *y = y.wrapping_add(u64::from(i) + 1);
    }
}

/// Bit `p` of `words`, as 0 or 1 in the low bit (other bits garbage).
#[inline(always)]
pub(crate) fn bit(words: &[u64], p: u64) -> u64 {
    words[(p >> 6) as usize] >> (p & 63)
}

/// Prefetches the word of the probe at hash `x` (see [`reduce`]).
#[inline(always)]
pub(crate) fn prefetch_probe(words: &[u64], m: u64, x: u64) {
    prefetch_l2(words, (reduce(x, m) >> 6) as usize);
}

/// Keys a [`query_many`] pass holds: enough that the misses of a pass,
/// all in flight together, hide the latency of the pass before.
pub(crate) const ROUND_BATCH: usize = 256;

/// Probes of every key tested in [`query_many`]'s first pass.
const FIRST_PASS: u32 = 2;

/// Whether every probe of each walk is set, for a batch of keys in two
/// passes. The first tests the first two probes of every key, without a
/// branch on the bits, and keeps the keys that passed (at the optimal
/// fill about a quarter of the non-members); the second tests the
/// remaining probes of the survivors.
///
/// With `prefetch` (a large filter, [`bloomlab_core::worth_prefetching`])
/// each pass reads only lines prefetched before it reads any: the caller
/// prefetches the first two probes of each walk (`x` and `x + y`) as it
/// hashes the keys, and the second pass prefetches the rest. Without the
/// prefetches, the misses in flight are those of the loads that fit in
/// the core's out-of-order window, a few keys' worth; with them, as many
/// as the memory system takes.
#[inline(always)]
pub(crate) fn query_many<const K: u32, const E: bool>(
    words: &[u64],
    m: u64,
    walks: &[(u64, u64)],
    out: &mut [bool],
    prefetch: bool,
) {
    let n = walks.len().min(out.len()).min(ROUND_BATCH);
    out[..n].fill(false);
    let first = K.min(FIRST_PASS);
    let mut live = [0u16; ROUND_BATCH];
    let mut alive = 0;
    for (idx, &(x, y)) in walks[..n].iter().enumerate() {
        let mut all = 1;
        for i in 0..first {
            all &= bit(words, reduce(probe_at::<E>(x, y, i), m));
        }
        live[alive] = idx as u16;
        alive += (all & 1) as usize;
    }
    if !prefetch {
        // The rest as `query` does: its head without branches, then one
        // probe at a time.
        for &idx in &live[..alive] {
            let (x, y) = walks[usize::from(idx)];
            let mut all = 1;
            let head = K.min(FIRST_PASS + BRANCH_FREE);
            for i in first..head {
                all &= bit(words, reduce(probe_at::<E>(x, y, i), m));
            }
            out[usize::from(idx)] = all & 1 == 1
                && (head..K).all(|i| {
                    bit(words, reduce(probe_at::<E>(x, y, i), m)) & 1 == 1
                });
        }
        return;
    }
    // The survivors' other probes (a member needs them all), prefetched
    // before any is tested.
    for &idx in &live[..alive] {
        let (x, y) = walks[usize::from(idx)];
        for i in first..K {
            prefetch_probe(words, m, probe_at::<E>(x, y, i));
        }
    }
    for &idx in &live[..alive] {
        let (x, y) = walks[usize::from(idx)];
        let mut all = 1;
        for i in first..K {
            all &= bit(words, reduce(probe_at::<E>(x, y, i), m));
        }
        out[usize::from(idx)] = all & 1 == 1;
    }
}

/// Keys in a round of [`query_many_adaptive`] that prefetches every
/// probe (and in its first round).
pub(crate) const DENSE_ROUND: usize = 64;

/// The walk's start of a key, through its one-word form where it has one.
#[inline(always)]
pub(crate) fn start_key<H: MsStart, T: Funnel>(
    seed: u64,
    key: &T,
) -> (u64, u64) {
    match key.as_le_word() {
        Some(word) => H::start_word(seed, word),
        None => key.with_bytes(|b| H::start(seed, b)),
    }
}

/// `contains` of each key into `out`, for a filter large enough to
/// prefetch for ([`bloomlab_core::worth_prefetching`]), in rounds of two
/// kinds, each chosen by the answers of the round before:
///
/// * after a round of mostly non-members (under two in five found), a
///   round of [`ROUND_BATCH`] keys as [`query_many`] takes them: the first
///   two probes of every key prefetched as it is hashed and tested, the
///   rest only for the keys that passed (about a quarter of the
///   non-members at the optimal fill);
/// * after a round of mostly members, a round of [`DENSE_ROUND`] keys
///   that prefetches every probe of each key as it is hashed, keeping the
///   positions, then tests them all without a branch: a member needs
///   every probe, and its misses then overlap the hashing of the keys
///   after it rather than waiting for a second pass.
///
/// The first round is a short one of the first kind. Answers are those of
/// `contains` whichever kind a round is.
///
/// Measured on the project's machine in a one-off loop (a design
/// measurement, not a bench: 12 MB filter, n = 1e7, k = 7, rounds timed
/// in turn three times, 2026-11-25): members 12.7-14.6 ns a key with
/// every probe prefetched against 17.8-20.5 in two passes, non-members
/// 12.7-16.0 against 8.9-12.1; the two cross near two in five members.
pub(crate) fn query_many_adaptive<
    H: MsStart,
    T: Funnel,
    const K: u32,
    const E: bool,
>(
    seed: u64,
    words: &[u64],
    m: u64,
    keys: &[T],
    out: &mut [bool],
) {
    let n = keys.len().min(out.len());
    let mut walks = [(0u64, 0u64); ROUND_BATCH];
    // The dense rounds' positions, `K` a key, in a row.
    let mut positions = [0u64; DENSE_ROUND * MAX_KERNEL_K as usize];
    let mut at = 0;
    let mut dense = false;
    while at < n {
        let len = if dense || at == 0 { DENSE_ROUND } else { ROUND_BATCH };
        let len = len.min(n - at);
        let (keys, out) = (&keys[at..at + len], &mut out[at..at + len]);
        let found = if dense {
            query_dense::<H, T, K, E>(
                seed,
                words,
                m,
                keys,
                out,
                &mut positions,
            )
        } else {
            for (w, key) in walks.iter_mut().zip(keys) {
                let (x, y) = start_key::<H, T>(seed, key);
                // `query_many`'s first pass reads probes 0 and 1.
                prefetch_probe(words, m, x);
                prefetch_probe(words, m, x.wrapping_add(y));
                *w = (x, y);
            }
            query_many::<K, E>(words, m, &walks[..len], out, true);
            out.iter().filter(|&&o| o).count()
        };
        dense = 5 * found >= 2 * len;
        at += len;
    }
}

/// The dense round of [`query_many_adaptive`] (at most [`DENSE_ROUND`]
/// keys): every probe of each key prefetched as it is hashed, its
/// position kept in `positions`, then all tested without a branch.
/// Returns how many were found.
#[inline(always)]
fn query_dense<H: MsStart, T: Funnel, const K: u32, const E: bool>(
    seed: u64,
    words: &[u64],
    m: u64,
    keys: &[T],
    out: &mut [bool],
    positions: &mut [u64; DENSE_ROUND * MAX_KERNEL_K as usize],
) -> usize {
    const { assert!(K >= 1 && K <= MAX_KERNEL_K, "kernels are for k in 1..=16") };
    let rows = positions.chunks_exact_mut(K as usize);
    for (p, key) in rows.zip(keys) {
        let (mut x, mut y) = start_key::<H, T>(seed, key);
        for i in 0..K {
            let q = reduce(x, m);
            p[i as usize] = q;
            prefetch_l2(words, (q >> 6) as usize);
            step::<E>(&mut x, &mut y, i);
        }
    }
    let mut found = 0;
    for (p, o) in positions.chunks_exact(K as usize).zip(out.iter_mut()) {
        let mut all = 1;
        for &q in p {
            all &= bit(words, q);
        }
        *o = all & 1 == 1;
        found += (all & 1) as usize;
    }
    found
}

/// Probe `i` of the walk from `(x, y)` in closed form: `i` steps of
/// [`step`] add `i·y` and, if enhanced, `(i³ - i) / 6` (the sum of the
/// increments `1 + 2 + .. + j` for `j < i`), all modulo 2^64.
#[inline(always)]
pub(crate) fn probe_at<const E: bool>(x: u64, y: u64, i: u32) -> u64 {
    let i = u64::from(i);
    let x = x.wrapping_add(y.wrapping_mul(i));
    if E { x.wrapping_add((i * i * i - i) / 6) } else { x }
}

/// The first `min(K, BRANCH_FREE)` probes of a walk, without branches;
/// leaves `(x, y)` at the next probe. Returns 1 if all are set.
#[inline(always)]
pub(crate) fn query_head<const K: u32, const E: bool>(
    words: &[u64],
    m: u64,
    x: &mut u64,
    y: &mut u64,
) -> u64 {
    let mut all = 1;
    for i in 0..K.min(BRANCH_FREE) {
        all &= bit(words, reduce(*x, m));
        step::<E>(x, y, i);
    }
    all & 1
}

/// The probes after the head, stopping at the first clear bit.
#[inline(always)]
pub(crate) fn query_tail<const K: u32, const E: bool>(
    words: &[u64],
    m: u64,
    mut x: u64,
    mut y: u64,
) -> bool {
    for i in K.min(BRANCH_FREE)..K {
        if bit(words, reduce(x, m)) & 1 == 0 {
            return false;
        }
        step::<E>(&mut x, &mut y, i);
    }
    true
}

/// Whether every probe of the walk from `(x, y)` is set.
#[inline(always)]
pub(crate) fn query<const K: u32, const E: bool>(
    words: &[u64],
    m: u64,
    mut x: u64,
    mut y: u64,
) -> bool {
    query_head::<K, E>(words, m, &mut x, &mut y) == 1
        && query_tail::<K, E>(words, m, x, y)
}

/// Whether every probe of the walk from `(x, y)` is set, each tested
/// with a branch: the query of a filter past the caches
/// ([`bloomlab_core::QUERY_BRANCH_MIN_BYTES`]).
#[inline(always)]
pub(crate) fn query_branching<const K: u32, const E: bool>(
    words: &[u64],
    m: u64,
    mut x: u64,
    mut y: u64,
) -> bool {
    for i in 0..K {
        if bit(words, reduce(x, m)) & 1 == 0 {
            return false;
        }
        step::<E>(&mut x, &mut y, i);
    }
    true
}

/// Sets every probe of the walk from `(x, y)`; whether any bit changed.
#[inline(always)]
pub(crate) fn set<const K: u32, const E: bool>(
    bits: &mut [u64],
    m: u64,
    mut x: u64,
    mut y: u64,
) -> bool {
    // 1 while every probed bit was already set. A position is below `m`
    // by construction, so `None` does not occur; returning there (rather
    // than panicking) keeps `all` one register (see
    // `BitArray::try_set_old`).
    let mut all = 1;
    for i in 0..K {
        match try_set_old_in(bits, reduce(x, m)) {
            Some(old) => all &= old,
            None => return all == 0,
        }
        step::<E>(&mut x, &mut y, i);
    }
    all == 0
}

/// Sets every probe of each walk, all of them prefetched before the first
/// is set, so that the batch's misses overlap; returns how many walks
/// changed a bit (as [`set`] of each in turn would).
#[inline(always)]
pub(crate) fn insert_many<const K: u32, const E: bool>(
    bits: &mut [u64],
    m: u64,
    walks: &[(u64, u64)],
) -> usize {
    for &(x, y) in walks {
        for i in 0..K {
            prefetch_probe(bits, m, probe_at::<E>(x, y, i));
        }
    }
    walks.iter().filter(|&&(x, y)| set::<K, E>(bits, m, x, y)).count()
}

/// Sets every probe of the walk from `(x, y)`, without the answer: one
/// read-modify-write a probe, nothing kept.
#[inline(always)]
pub(crate) fn set_all<const K: u32, const E: bool>(
    bits: &mut [u64],
    m: u64,
    mut x: u64,
    mut y: u64,
) {
    for i in 0..K {
        set_in(bits, reduce(x, m));
        step::<E>(&mut x, &mut y, i);
    }
}

fn key_query<H: MsStart, const K: u32, const E: bool, const FAR: bool>(
    seed: u64,
    m: u64,
    words: &[u64],
    key: &[u8],
) -> bool {
    let (x, y) = H::start(seed, key);
    if FAR {
        query_branching::<K, E>(words, m, x, y)
    } else {
        query::<K, E>(words, m, x, y)
    }
}

fn key_insert<H: MsStart, const K: u32, const E: bool>(
    seed: u64,
    m: u64,
    bits: &mut [u64],
    key: &[u8],
) -> bool {
    let (x, y) = H::start(seed, key);
    set::<K, E>(bits, m, x, y)
}

fn key_add<H: MsStart, const K: u32, const E: bool>(
    seed: u64,
    m: u64,
    bits: &mut [u64],
    key: &[u8],
) {
    let (x, y) = H::start(seed, key);
    set_all::<K, E>(bits, m, x, y);
}

// The same for a one-word key, passed in a register: no length to test.
fn word_query<H: MsStart, const K: u32, const E: bool, const FAR: bool>(
    seed: u64,
    m: u64,
    words: &[u64],
    key: u64,
) -> bool {
    let (x, y) = H::start_word(seed, key);
    if FAR {
        query_branching::<K, E>(words, m, x, y)
    } else {
        query::<K, E>(words, m, x, y)
    }
}

fn word_insert<H: MsStart, const K: u32, const E: bool>(
    seed: u64,
    m: u64,
    bits: &mut [u64],
    key: u64,
) -> bool {
    let (x, y) = H::start_word(seed, key);
    set::<K, E>(bits, m, x, y)
}

fn word_add<H: MsStart, const K: u32, const E: bool>(
    seed: u64,
    m: u64,
    bits: &mut [u64],
    key: u64,
) {
    let (x, y) = H::start_word(seed, key);
    set_all::<K, E>(bits, m, x, y);
}

/// Both kernels of hash `H`, `k = K` and walk `E`; their queries branch
/// on every probe if `far` (see [`for_probes`]).
fn kernels<H: MsStart, const K: u32, const E: bool>(
    far: bool,
) -> Option<Kernels> {
    let (key, word): (QueryFn, QueryWordFn) = if far {
        (key_query::<H, K, E, true>, word_query::<H, K, E, true>)
    } else {
        (key_query::<H, K, E, false>, word_query::<H, K, E, false>)
    };
    Some(Kernels {
        bytes: Kernel {
            query: key,
            insert: key_insert::<H, K, E>,
            add: key_add::<H, K, E>,
        },
        word: Kernel {
            query: word,
            insert: word_insert::<H, K, E>,
            add: word_add::<H, K, E>,
        },
    })
}

/// `$f::<k, e>$args` for `k` up to [`MAX_KERNEL_K`], else `$other`;
/// `$f::<A, B>$args` calls `$f::<A, B, k, e>$args`.
macro_rules! unrolled {
    ($k:expr, $e:expr, $f:ident::<$($g:ty),+> $args:tt, $other:expr) => {
        $crate::kernel::unrolled!(@generic $k, $e, $f [$($g),+] $args, $other;
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    };
    ($k:expr, $e:expr, $f:ident $args:tt, $other:expr) => {
        $crate::kernel::unrolled!(@arms $k, $e, $f $args, $other;
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    };
    (@arms $k:expr, $e:expr, $f:ident $args:tt, $other:expr;
        $($n:literal)*) => {
        match ($k, $e) {
            $(
                ($n, true) => $f::<$n, true> $args,
                ($n, false) => $f::<$n, false> $args,
            )*
            _ => $other,
        }
    };
    (@generic $k:expr, $e:expr, $f:ident $gs:tt $args:tt,
        $other:expr; $($n:literal)*) => {
        match ($k, $e) {
            $(
                ($n, true) =>
                    $crate::kernel::unrolled!(@call $f $gs $n, true, $args),
                ($n, false) =>
                    $crate::kernel::unrolled!(@call $f $gs $n, false, $args),
            )*
            _ => $other,
        }
    };
    (@call $f:ident [$($g:ty),+] $n:literal, $e:literal, $args:tt) => {
        $f::<$($g,)+ $n, $e> $args
    };
}
pub(crate) use unrolled;

/// The kernels of `probes` over `bytes` of bits, if its configuration
/// has them: from [`bloomlab_core::QUERY_BRANCH_MIN_BYTES`] on, queries
/// test every probe with a branch ([`query_branching`]).
pub(crate) fn for_probes(probes: &Probes, bytes: usize) -> Option<Kernels> {
    let (hash, e) = probes.ms_hash()?;
    let k = probes.k();
    let far = bytes >= bloomlab_core::QUERY_BRANCH_MIN_BYTES;
    match hash {
        MsHash::Xxh3x64 => unrolled!(k, e, kernels_x64(far), None),
        MsHash::Xxh3x128 => unrolled!(k, e, kernels_x128(far), None),
        MsHash::Fold128 => unrolled!(k, e, kernels_fold(far), None),
        MsHash::Fold64 => unrolled!(k, e, kernels_fold64(far), None),
    }
}

// One instance per hash, so that `unrolled!` can name them with `K, E`.
fn kernels_x64<const K: u32, const E: bool>(far: bool) -> Option<Kernels> {
    kernels::<Xxh3x64Start, K, E>(far)
}

fn kernels_x128<const K: u32, const E: bool>(far: bool) -> Option<Kernels> {
    kernels::<Xxh3x128Start, K, E>(far)
}

fn kernels_fold<const K: u32, const E: bool>(far: bool) -> Option<Kernels> {
    kernels::<Fold128Start, K, E>(far)
}

fn kernels_fold64<const K: u32, const E: bool>(far: bool) -> Option<Kernels> {
    kernels::<Fold64Start, K, E>(far)
}

#[cfg(test)]
mod tests {
    use super::{probe_at, step};

    /// `probe_at` is `i` steps of the walk, for both walks and random
    /// starts (wrapping included).
    #[test]
    fn probe_at_is_the_walk() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..1000 {
            s = bloomlab_hash::strategy::mix64(s);
            let (x0, y0) = (s, bloomlab_hash::strategy::mix64(!s));
            let (mut x, mut y, mut xe, mut ye) = (x0, y0, x0, y0);
            for i in 0..64 {
                assert_eq!(probe_at::<false>(x0, y0, i), x);
                assert_eq!(probe_at::<true>(x0, y0, i), xe);
                step::<false>(&mut x, &mut y, i);
                step::<true>(&mut xe, &mut ye, i);
            }
        }
    }
}
