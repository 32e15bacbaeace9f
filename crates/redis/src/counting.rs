//! [`RedisCountingBloomFilter`]: 4-bit counters in a Redis string,
//! saturating inside Redis.

use bloomlab_core::BitArray;
use bloomlab_counting::{CounterWidth, CountingBloomFilter};
use bloomlab_hash::Funnel;
use bloomlab_standard::{BloomFilter, Config};
use redis::Connection;

use crate::handle::{Handle, Kind, Op, bytes_of, words_of};
use crate::scripts::SCRIPTS;
use crate::{Error, Result};

/// The value of a counting filter's `variant` config field.
pub const COUNTING_VARIANT: &str = "counting-u4";

/// The most counters a Redis counting filter holds: `BITFIELD` offsets
/// stop at `2^32 - 1` bits, 4 bits a counter.
pub const MAX_COUNTERS: u64 = 1 << 30;

/// The largest value of a counter; a counter there is saturated.
pub const COUNTER_MAX: u64 = 15;

const KIND: Kind = Kind {
    variant: COUNTING_VARIANT,
    suffix: "counters",
    max_m: MAX_COUNTERS,
    max_m_reason: "a Redis counting filter holds at most 2^30 counters",
};

/// The `BITFIELD u4` index (`#j`) of bloomlab counter `i`.
///
/// bloomlab packs counter `i` into bits `4·(i mod 16)..` of little-endian
/// word `i / 16`, so even counters are the low nibble of their byte;
/// `BITFIELD` numbers from the most significant bit, so `#j` for even `j`
/// is the high nibble. Swapping the two counters of each byte makes the
/// Redis string byte for byte the in-memory filter's words.
///
/// ```
/// use bloomlab_redis::counter_index;
///
/// assert_eq!((counter_index(0), counter_index(1)), (1, 0));
/// assert_eq!(counter_index(6), 7);
/// ```
#[inline]
pub fn counter_index(i: u64) -> u64 {
    i ^ 1
}

/// The Redis bit offset of bloomlab counter `i`, `4 · counter_index(i)`:
/// scripts pass it to `BITFIELD ... u4` as is (below 2^32 for every
/// `i < MAX_COUNTERS`), which saves building `#j` strings in Lua.
#[inline]
fn counter_bit(i: u64) -> u64 {
    4 * counter_index(i)
}

/// A counting Bloom filter (4-bit counters, with remove) whose counters
/// live in Redis, shared by every client that opens the same name.
///
/// Counters are the string `{name}:counters` (counter `i` of the
/// in-memory [`CountingBloomFilter`] with [`CounterWidth::Four`] at
/// `BITFIELD u4 #`[`counter_index`]`(i)`), parameters the hash
/// `{name}:config` as for [`crate::RedisBloomFilter`] (variant
/// `counting-u4`). Keys are placed as the in-memory filter with the
/// same [`Config`], `m` and `k` places them; each operation is one Lua
/// script, one round trip, checking the parameters first.
///
/// Counters behave as the in-memory filter's: an increment of a counter
/// at 15 is lost (`OVERFLOW SAT`), a saturated counter is never
/// decremented, and removing a key with a zero counter fails with
/// [`Error::NotPresent`] and changes nothing. As in memory, removing a
/// key that was never inserted but is a false positive succeeds and may
/// create false negatives: only remove keys you inserted.
pub struct RedisCountingBloomFilter {
    h: Handle,
}

impl std::fmt::Debug for RedisCountingBloomFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.h.debug("RedisCountingBloomFilter", f)
    }
}

impl RedisCountingBloomFilter {
    /// Creates filter `name` with `m` counters, `k` probes and `config`,
    /// all counters zero; idempotent for equal parameters,
    /// [`Error::AlreadyExists`] for others.
    pub fn create(
        conn: Connection,
        name: &str,
        config: Config,
        m: u64,
        k: u32,
    ) -> Result<RedisCountingBloomFilter> {
        let mut h = Handle::new(conn, name, &KIND, config, m, k)?;
        let last = m.div_ceil(2) * 8 - 1;
        let _: i64 = h.run(Op::Create, &SCRIPTS.create, |inv| {
            inv.arg(last);
        })?;
        Ok(RedisCountingBloomFilter { h })
    }

    /// Checks what [`RedisCountingBloomFilter::create`] checks before it
    /// connects: the name, `m` (at most [`MAX_COUNTERS`]), `k` and the
    /// hashing.
    pub fn check(name: &str, config: Config, m: u64, k: u32) -> Result<()> {
        Handle::check(name, &KIND, config, m, k).map(drop)
    }

    /// Opens the existing counting filter `name`.
    pub fn open(
        conn: Connection,
        name: &str,
    ) -> Result<RedisCountingBloomFilter> {
        Ok(RedisCountingBloomFilter { h: Handle::open(conn, name, &KIND)? })
    }

    /// Stores `filter` (4-bit counters) as filter `name`: creates it or
    /// checks its parameters, then replaces its counters, atomically.
    pub fn import(
        conn: Connection,
        name: &str,
        filter: &CountingBloomFilter,
    ) -> Result<RedisCountingBloomFilter> {
        if filter.counter_width() != CounterWidth::Four {
            return Err(Error::InvalidParameter {
                name: "counter width",
                value: filter.counter_width().bits().to_string(),
                reason: "a Redis counting filter has 4-bit counters",
            });
        }
        let (m, k) = (filter.counters(), filter.hash_count());
        let mut h = Handle::new(conn, name, &KIND, filter.config(), m, k)?;
        let bytes = bytes_of(filter.words(), m.div_ceil(2));
        let _: i64 = h.run(Op::Create, &SCRIPTS.import, |inv| {
            inv.arg(bytes);
        })?;
        Ok(RedisCountingBloomFilter { h })
    }

    /// The counters, packed as [`CountingBloomFilter::words`] packs
    /// 4-bit counters (16 a word, counter `i` at bits `4·(i mod 16)` of
    /// word `i / 16`).
    pub fn export_words(&mut self) -> Result<Vec<u64>> {
        let bytes: Option<Vec<u8>> =
            self.h.run(Op::Use, &SCRIPTS.export, |_| {})?;
        let m = self.counters();
        let words = words_of(
            &self.h.name,
            &bytes.unwrap_or_default(),
            m.div_ceil(2),
            m.div_ceil(16),
        )?;
        // No counter beyond m may be set.
        let tail = m % 16;
        if let Some(&last) = words.last()
            && tail != 0
            && last >> (4 * tail) != 0
        {
            return Err(Error::BadBits {
                name: self.h.name.clone(),
                reason: format!("counters set beyond m = {m}"),
            });
        }
        Ok(words)
    }

    /// The standard filter of the non-zero counters: what
    /// [`CountingBloomFilter::to_standard`] gives for the same counters.
    pub fn export_standard(&mut self) -> Result<BloomFilter> {
        let words = self.export_words()?;
        let m = self.counters();
        let mut bits =
            BitArray::new(m).map_err(bloomlab_standard::Error::from)?;
        for (w, &word) in words.iter().enumerate() {
            for c in 0..16u64 {
                let i = w as u64 * 16 + c;
                if i < m && (word >> (4 * c)) & 0xf != 0 {
                    bits.set(i);
                }
            }
        }
        Ok(BloomFilter::from_bit_array(
            self.h.config,
            self.hash_count(),
            bits,
        )?)
    }

    /// Inserts a typed key: increments its counters (saturating at 15);
    /// returns whether any counter changed.
    pub fn insert<T: Funnel + ?Sized>(&mut self, key: &T) -> Result<bool> {
        self.h.pack(&[key], counter_bit);
        Ok(self.h.per_key(&SCRIPTS.counting_insert, 1)?[0] != 0)
    }

    /// Inserts many keys in one round trip, atomically; returns how many
    /// inserts changed a counter.
    pub fn insert_many<T: Funnel>(&mut self, keys: &[T]) -> Result<usize> {
        if keys.is_empty() {
            return Ok(0);
        }
        self.h.pack_slice(keys, counter_bit);
        let out = self.h.per_key(&SCRIPTS.counting_insert, keys.len())?;
        Ok(out.into_iter().filter(|&c| c != 0).count())
    }

    /// Whether a typed key may be in the filter (all its counters are
    /// non-zero).
    pub fn contains<T: Funnel + ?Sized>(&mut self, key: &T) -> Result<bool> {
        Ok(self.count_estimate(key)? != 0)
    }

    /// Answers [`RedisCountingBloomFilter::contains`] for many keys in
    /// one round trip.
    pub fn contains_many<T: Funnel>(
        &mut self,
        keys: &[T],
    ) -> Result<Vec<bool>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.h.pack_slice(keys, counter_bit);
        let out = self.h.per_key(&SCRIPTS.counting_min, keys.len())?;
        Ok(out.into_iter().map(|c| c != 0).collect())
    }

    /// The minimum of the key's counters: an upper bound on its
    /// insertions minus removals (15 means "at least 15").
    pub fn count_estimate<T: Funnel + ?Sized>(
        &mut self,
        key: &T,
    ) -> Result<u64> {
        self.h.pack(&[key], counter_bit);
        let min = self.h.per_key(&SCRIPTS.counting_min, 1)?[0];
        u64::try_from(min).map_err(|_| Error::UnexpectedReply {
            what: "count_estimate",
            detail: format!("counter {min}"),
        })
    }

    /// Removes one occurrence of a typed key: decrements its counters
    /// (skipping saturated ones); returns how many decrements were
    /// skipped. A key with a zero counter is certainly absent:
    /// [`Error::NotPresent`], nothing changed.
    pub fn remove<T: Funnel + ?Sized>(&mut self, key: &T) -> Result<u32> {
        self.h.pack(&[key], counter_bit);
        let reply = self.h.per_key(&SCRIPTS.counting_remove, 1)?[0];
        if let Ok(skipped) = u32::try_from(reply) {
            return Ok(skipped);
        }
        // Refused at probe `-reply - 1`: its counter from the offsets sent.
        let probe =
            reply.checked_neg().and_then(|p| u32::try_from(p - 1).ok());
        let at = probe.and_then(|p| self.h.offset(p as usize));
        match (probe, at) {
            (Some(probe), Some(at)) => Err(Error::NotPresent {
                name: self.h.name.clone(),
                counter: counter_index(at as u64 / 4),
                probe,
            }),
            _ => Err(Error::UnexpectedReply {
                what: "remove",
                detail: format!("{reply} skipped decrements"),
            }),
        }
    }

    /// Removes many keys in one round trip, atomically, as
    /// [`remove`](Self::remove) of each in turn would; returns how many
    /// were removed. A key with a zero counter at its turn (certainly
    /// absent) changes nothing and is not counted; the keys after it are
    /// still removed. The warning on `remove` applies to each key.
    ///
    /// ```no_run
    /// use bloomlab_redis::{Config, Options, RedisCountingBloomFilter, connect};
    ///
    /// let conn = connect("redis://127.0.0.1:6379/", &Options::default())?;
    /// let mut f = RedisCountingBloomFilter::create(
    ///     conn, "sessions", Config::default(), 100_000, 7,
    /// )?;
    /// f.insert_many(&[1u64, 2, 3])?;
    /// assert_eq!(f.remove_many(&[1u64, 2, 99])?, 2);
    /// # Ok::<(), bloomlab_redis::Error>(())
    /// ```
    pub fn remove_many<T: Funnel>(&mut self, keys: &[T]) -> Result<usize> {
        if keys.is_empty() {
            return Ok(0);
        }
        self.h.pack_slice(keys, counter_bit);
        let out = self.h.per_key(&SCRIPTS.counting_remove, keys.len())?;
        Ok(out.into_iter().filter(|&s| s >= 0).count())
    }

    /// Deletes the filter's two keys, after checking its parameters.
    pub fn delete(mut self) -> Result<()> {
        let _: i64 = self.h.run(Op::Use, &SCRIPTS.delete, |_| {})?;
        Ok(())
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        &self.h.name
    }

    /// The key of the counters string, `{name}:counters`.
    pub fn counters_key(&self) -> &str {
        &self.h.data_key
    }

    /// The hashing configuration.
    pub fn config(&self) -> Config {
        self.h.config
    }

    /// Number of counters, `m`.
    pub fn counters(&self) -> u64 {
        self.h.indexer.m()
    }

    /// Probes per key, `k`.
    pub fn hash_count(&self) -> u32 {
        self.h.indexer.k()
    }

    /// Gives up the connection.
    pub fn into_connection(self) -> Connection {
        self.h.conn
    }
}
