//! The multiply-shift walks of a filter addressed by one family and a
//! double-hashing strategy, with the hash inlined.
//!
//! [`Indexer`] serves every family, strategy and reduction: it calls the
//! family's hash through a pointer, for any key length, and matches on
//! the strategy for each key. For the default hashing (xxh3-64, enhanced
//! double hashing, multiply-shift) and its 128-bit and `fold-128`
//! siblings, an [`MsWalk`] gives the same bits with the hash inlined (an
//! 8-byte key, a funnelled `u64`, takes XXH3's short path with its length
//! known), one loop unrolled for each `k` up to 16 (chosen when the
//! filter is made, as the standard filter's kernels are) and no per-key
//! match. At n = 1e6 (1.2 MB) this took one-key inserts from 30.2 to
//! 15.4 ns a key (through `add`, without an answer) and queries from
//! 24.8 to 17.9 (`benches/benches/partitioned.rs`, blocks of three runs
//! at 09:05 and 09:23 on 2026-11-27). The test `walk_matches_the_indexer`
//! (integration tests) checks the positions against the indexer's.

use bloomlab_core::BitArray;
use bloomlab_hash::fold::{fold64_step, fold64_word, fold128_word};
use bloomlab_hash::inline;
use bloomlab_hash::strategy::mix64;
use bloomlab_hash::{Family, Funnel, Indexer, Reduction, Strategy};

/// The hash that starts a walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// xxh3-64; the step is a 64-bit mix of it.
    Xxh3x64,
    /// The two halves of xxh3-128.
    Xxh3x128,
    /// The two halves of fold-128.
    Fold128,
    /// fold-64; the step is its `Family::step`.
    Fold64,
}

/// The probes of an [`Indexer`] with a 64- or 128-bit family of
/// [`Start`], (enhanced) double hashing and multiply-shift, slice by
/// slice: probe `i` is bit `i·s + ((x_i · s) >> 64)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MsWalk {
    start: Start,
    enhanced: bool,
    seed: u64,
    k: u32,
    s: u64,
    /// Whole-key loops for this `k`, hash and walk (up to
    /// [`MAX_KERNEL_K`] slices).
    kernel: Option<Kernel>,
}

/// `fn(seed, s, words, key)`: whether every slice's bit is set.
type QueryFn = fn(u64, u64, &[u64], &[u8]) -> bool;
/// `fn(seed, s, bits, key)`: sets every slice's bit; whether any changed.
type InsertFn = fn(u64, u64, &mut BitArray, &[u8]) -> bool;
/// `fn(seed, s, bits, key)`: sets every slice's bit.
type AddFn = fn(u64, u64, &mut BitArray, &[u8]);
/// [`QueryFn`] of a one-word key (a `u64` or `i64`, see
/// [`Funnel::as_le_word`](bloomlab_hash::Funnel::as_le_word)), passed in
/// a register.
type QueryWordFn = fn(u64, u64, &[u64], u64) -> bool;
/// [`InsertFn`] of a one-word key.
type InsertWordFn = fn(u64, u64, &mut BitArray, u64) -> bool;
/// [`AddFn`] of a one-word key.
type AddWordFn = fn(u64, u64, &mut BitArray, u64);

/// Loops monomorphic in the hash, `k` and the walk, chosen once when the
/// filter is made: unrolled, with no loop counter or per-key match, they
/// leave the core's window room for more keys' loads (a query at n = 1e6
/// is bound by them). `add` is `insert` without its answer: to tell
/// whether a bit changed, `insert` keeps each word it read, and at
/// n = 1e6 those words, live across the unrolled loop, cost several
/// nanoseconds a key.
#[derive(Clone, Copy)]
struct Kernel {
    query: QueryFn,
    insert: InsertFn,
    add: AddFn,
    query_word: QueryWordFn,
    insert_word: InsertWordFn,
    add_word: AddWordFn,
}

// A kernel is a function of the walk's fields, which the walk compares.
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

/// Largest `k` with a kernel.
const MAX_KERNEL_K: u32 = 16;

impl MsWalk {
    /// The walk of `ix`, or `None` when it has no inlined form.
    pub(crate) fn of(ix: &Indexer) -> Option<MsWalk> {
        if ix.reduction() != Reduction::MultiplyShift {
            return None;
        }
        let enhanced = match ix.strategy() {
            Strategy::EnhancedDouble => true,
            Strategy::Double => false,
            _ => return None,
        };
        let start = match ix.hasher().family() {
            Family::Xxh3_64 => Start::Xxh3x64,
            Family::Xxh3_128 => Start::Xxh3x128,
            Family::Fold128 => Start::Fold128,
            Family::Fold64 => Start::Fold64,
            _ => return None,
        };
        let k = ix.k();
        let kernel = match start {
            Start::Xxh3x64 => kernel::<Xxh3x64>(k, enhanced),
            Start::Xxh3x128 => kernel::<Xxh3x128>(k, enhanced),
            Start::Fold128 => kernel::<Fold>(k, enhanced),
            Start::Fold64 => kernel::<Fold64>(k, enhanced),
        };
        Some(MsWalk {
            start,
            enhanced,
            seed: ix.hasher().seed(),
            k,
            s: ix.m(),
            kernel,
        })
    }

    /// Whether every slice's bit of `key` is set in `words`.
    #[inline]
    pub(crate) fn contains(&self, words: &[u64], key: &[u8]) -> bool {
        match self.kernel {
            Some(kn) => (kn.query)(self.seed, self.s, words, key),
            None => self.contains_from(words, self.start(key)),
        }
    }

    /// [`MsWalk::contains`] of a one-word key.
    #[inline]
    pub(crate) fn contains_word(&self, words: &[u64], key: u64) -> bool {
        match self.kernel {
            Some(kn) => (kn.query_word)(self.seed, self.s, words, key),
            None => self.contains_from(words, self.start(&key.to_le_bytes())),
        }
    }

    /// Sets every slice's bit of `key`; whether any changed.
    #[inline]
    pub(crate) fn insert(&self, bits: &mut BitArray, key: &[u8]) -> bool {
        match self.kernel {
            Some(kn) => (kn.insert)(self.seed, self.s, bits, key),
            None => self.insert_from(bits, self.start(key)),
        }
    }

    /// [`MsWalk::insert`] of a one-word key.
    #[inline]
    pub(crate) fn insert_word(&self, bits: &mut BitArray, key: u64) -> bool {
        match self.kernel {
            Some(kn) => (kn.insert_word)(self.seed, self.s, bits, key),
            None => self.insert_from(bits, self.start(&key.to_le_bytes())),
        }
    }

    /// Sets every slice's bit of `key`.
    #[inline]
    pub(crate) fn add(&self, bits: &mut BitArray, key: &[u8]) {
        match self.kernel {
            Some(kn) => (kn.add)(self.seed, self.s, bits, key),
            None => {
                self.insert_from(bits, self.start(key));
            }
        }
    }

    /// [`MsWalk::add`] of a one-word key.
    #[inline]
    pub(crate) fn add_word(&self, bits: &mut BitArray, key: u64) {
        match self.kernel {
            Some(kn) => (kn.add_word)(self.seed, self.s, bits, key),
            None => {
                self.insert_from(bits, self.start(&key.to_le_bytes()));
            }
        }
    }

    /// The walk from `start` without a kernel (more slices than
    /// [`MAX_KERNEL_K`]).
    fn contains_from(&self, words: &[u64], start: (u64, u64)) -> bool {
        let mut all = 1;
        self.each_from(start, |p| all &= words[(p >> 6) as usize] >> (p & 63));
        all & 1 == 1
    }

    fn insert_from(&self, bits: &mut BitArray, start: (u64, u64)) -> bool {
        let mut changed = 0;
        self.each_from(start, |p| changed |= bits.set_diff(p));
        changed != 0
    }

    /// The walk's start `(x, y)`: the pair the indexer takes from the
    /// key's digest.
    #[inline(always)]
    pub(crate) fn start(&self, key: &[u8]) -> (u64, u64) {
        match self.start {
            Start::Xxh3x64 => Xxh3x64::start(self.seed, key),
            Start::Xxh3x128 => Xxh3x128::start(self.seed, key),
            Start::Fold128 => Fold::start(self.seed, key),
            Start::Fold64 => Fold64::start(self.seed, key),
        }
    }

    /// [`MsWalk::start`] of a typed key, through its one-word form where
    /// it has one.
    #[inline(always)]
    pub(crate) fn start_key<T: Funnel + ?Sized>(&self, key: &T) -> (u64, u64) {
        match key.as_le_word() {
            Some(w) => match self.start {
                Start::Xxh3x64 => Xxh3x64::start_word(self.seed, w),
                Start::Xxh3x128 => Xxh3x128::start_word(self.seed, w),
                Start::Fold128 => Fold::start_word(self.seed, w),
                Start::Fold64 => Fold64::start_word(self.seed, w),
            },
            None => key.with_bytes(|b| self.start(b)),
        }
    }

    /// Calls `f` with the bit of every slice, in order, from the start
    /// `(x, y)`.
    #[inline(always)]
    pub(crate) fn each_from(
        &self,
        (mut x, mut y): (u64, u64),
        mut f: impl FnMut(u64),
    ) {
        let s = self.s;
        let mut base = 0;
        for i in 0..self.k {
            f(base + reduce(x, s));
            base += s;
            step(&mut x, &mut y, i, self.enhanced);
        }
    }
}

/// Lemire's multiply-shift: `x` mapped to `[0, s)`.
#[inline(always)]
fn reduce(x: u64, s: u64) -> u64 {
    ((u128::from(x) * u128::from(s)) >> 64) as u64
}

/// One step of the (enhanced, if `e`) double-hashing walk after probe
/// `i`, as the indexer takes it.
#[inline(always)]
fn step(x: &mut u64, y: &mut u64, i: u32, e: bool) {
    *x = x.wrapping_add(*y);
    if e {
        *y = y.wrapping_add(u64::from(i) + 1);
    }
}

/// A walk's start from `(seed, key)`, inlined into the kernels.
trait StartHash {
    fn start(seed: u64, key: &[u8]) -> (u64, u64);

    /// [`StartHash::start`] of a one-word key's eight little-endian
    /// bytes.
    fn start_word(seed: u64, key: u64) -> (u64, u64);
}

struct Xxh3x64;
struct Xxh3x128;
struct Fold;
struct Fold64;

impl StartHash for Xxh3x64 {
    #[inline(always)]
    fn start(seed: u64, key: &[u8]) -> (u64, u64) {
        let h = inline::xxh3_64_key(seed, key);
        (h, mix64(h))
    }

    #[inline(always)]
    fn start_word(seed: u64, key: u64) -> (u64, u64) {
        let h = inline::xxh3_64_word(key, seed);
        (h, mix64(h))
    }
}

impl StartHash for Xxh3x128 {
    #[inline(always)]
    fn start(seed: u64, key: &[u8]) -> (u64, u64) {
        let v = inline::xxh3_128_key(seed, key);
        (v as u64, (v >> 64) as u64)
    }

    #[inline(always)]
    fn start_word(seed: u64, key: u64) -> (u64, u64) {
        let v = inline::xxh3_128_word(key, seed);
        (v as u64, (v >> 64) as u64)
    }
}

impl StartHash for Fold {
    #[inline(always)]
    fn start(seed: u64, key: &[u8]) -> (u64, u64) {
        inline::fold128_key(seed, key)
    }

    #[inline(always)]
    fn start_word(seed: u64, key: u64) -> (u64, u64) {
        fold128_word(key, seed)
    }
}

impl StartHash for Fold64 {
    #[inline(always)]
    fn start(seed: u64, key: &[u8]) -> (u64, u64) {
        let h = inline::fold64_key(seed, key);
        (h, fold64_step(h))
    }

    #[inline(always)]
    fn start_word(seed: u64, key: u64) -> (u64, u64) {
        let h = fold64_word(key, seed);
        (h, fold64_step(h))
    }
}

#[inline(always)]
fn query_at<const K: u32, const E: bool>(
    (mut x, mut y): (u64, u64),
    s: u64,
    words: &[u64],
) -> bool {
    let mut all = 1;
    for i in 0..K {
        // Every slice without a branch between them: the loads are
        // independent, so their misses overlap.
        let p = u64::from(i) * s + reduce(x, s);
        all &= words[(p >> 6) as usize] >> (p & 63);
        step(&mut x, &mut y, i, E);
    }
    all & 1 == 1
}

#[inline(always)]
fn insert_at<const K: u32, const E: bool>(
    (mut x, mut y): (u64, u64),
    s: u64,
    bits: &mut BitArray,
) -> bool {
    // 1 while every probed bit was already set; `None` does not occur
    // (slice `i` ends below `m`), and returning there keeps `all` in a
    // register (see `BitArray::try_set_old`).
    let mut all = 1;
    for i in 0..K {
        match bits.try_set_old(u64::from(i) * s + reduce(x, s)) {
            Some(old) => all &= old,
            None => return all == 0,
        }
        step(&mut x, &mut y, i, E);
    }
    all == 0
}

#[inline(always)]
fn add_at<const K: u32, const E: bool>(
    (mut x, mut y): (u64, u64),
    s: u64,
    bits: &mut BitArray,
) {
    for i in 0..K {
        bits.set(u64::from(i) * s + reduce(x, s));
        step(&mut x, &mut y, i, E);
    }
}

fn query_k<H: StartHash, const K: u32, const E: bool>(
    seed: u64,
    s: u64,
    words: &[u64],
    key: &[u8],
) -> bool {
    query_at::<K, E>(H::start(seed, key), s, words)
}

fn insert_k<H: StartHash, const K: u32, const E: bool>(
    seed: u64,
    s: u64,
    bits: &mut BitArray,
    key: &[u8],
) -> bool {
    insert_at::<K, E>(H::start(seed, key), s, bits)
}

fn add_k<H: StartHash, const K: u32, const E: bool>(
    seed: u64,
    s: u64,
    bits: &mut BitArray,
    key: &[u8],
) {
    add_at::<K, E>(H::start(seed, key), s, bits);
}

fn query_word_k<H: StartHash, const K: u32, const E: bool>(
    seed: u64,
    s: u64,
    words: &[u64],
    key: u64,
) -> bool {
    query_at::<K, E>(H::start_word(seed, key), s, words)
}

fn insert_word_k<H: StartHash, const K: u32, const E: bool>(
    seed: u64,
    s: u64,
    bits: &mut BitArray,
    key: u64,
) -> bool {
    insert_at::<K, E>(H::start_word(seed, key), s, bits)
}

fn add_word_k<H: StartHash, const K: u32, const E: bool>(
    seed: u64,
    s: u64,
    bits: &mut BitArray,
    key: u64,
) {
    add_at::<K, E>(H::start_word(seed, key), s, bits);
}

/// The kernel of hash `H` for `k` slices and walk `e`, for `k` up to
/// [`MAX_KERNEL_K`].
fn kernel<H: StartHash>(k: u32, e: bool) -> Option<Kernel> {
    macro_rules! pick {
        ($($n:literal)+) => {
            match (k, e) {
                $(
                    ($n, true) => Some(Kernel {
                        query: query_k::<H, $n, true>,
                        insert: insert_k::<H, $n, true>,
                        add: add_k::<H, $n, true>,
                        query_word: query_word_k::<H, $n, true>,
                        insert_word: insert_word_k::<H, $n, true>,
                        add_word: add_word_k::<H, $n, true>,
                    }),
                    ($n, false) => Some(Kernel {
                        query: query_k::<H, $n, false>,
                        insert: insert_k::<H, $n, false>,
                        add: add_k::<H, $n, false>,
                        query_word: query_word_k::<H, $n, false>,
                        insert_word: insert_word_k::<H, $n, false>,
                        add_word: add_word_k::<H, $n, false>,
                    }),
                )+
                _ => None,
            }
        };
    }
    const { assert!(MAX_KERNEL_K == 16) };
    pick!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}
