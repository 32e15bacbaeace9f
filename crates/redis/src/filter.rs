//! [`RedisBloomFilter`]: the classic filter's bits in a Redis string.

use std::io;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use bloomlab_core::BitArray;
use bloomlab_hash::Funnel;
use bloomlab_standard::{BloomFilter, Config};
use redis::Connection;

use crate::handle::{Handle, Kind, Op, bytes_of, words_of};
use crate::scripts::SCRIPTS;
use crate::{Error, Result};

/// The value of the config hash's `variant` field.
pub const VARIANT: &str = "standard";

/// The largest `m`: Redis bit offsets stop at `2^32 - 1` (a string of
/// 512 MiB).
pub const MAX_BITS: u64 = 1 << 32;

/// Connection settings. [`connect`] returns within `connect_timeout`,
/// and every call on the connection it makes fails with
/// [`Error::Redis`] (a timeout) once the server leaves it waiting
/// `response_timeout` for a reply or for room to write: a frozen or
/// silent server cannot hold it longer per reply. (A server that
/// trickles a reply out a byte at a time resets that clock with each
/// byte.) Each operation of [`RedisBloomFilter`] and
/// [`RedisCountingBloomFilter`](crate::RedisCountingBloomFilter) waits
/// for one reply, or two more when a restarted server makes it reload
/// its script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// How long to wait for the TCP connection and the handshake.
    pub connect_timeout: Duration,
    /// How long to wait for each reply, and for each write; `None`
    /// waits forever.
    pub response_timeout: Option<Duration>,
}

impl Default for Options {
    /// 5 s to connect, 30 s per reply.
    fn default() -> Options {
        Options {
            connect_timeout: Duration::from_secs(5),
            response_timeout: Some(Duration::from_secs(30)),
        }
    }
}

/// `url` as it may be shown: the password of its user info and the
/// value of a `pass` or `password` query parameter (how `redis+unix`
/// URLs carry one) replaced by `***`. The user info is taken up to the
/// last `@`, so a password holding `/`, `?` or `@` unescaped is hidden
/// too; [`connect`]'s own messages name the server this way.
///
/// ```
/// use bloomlab_redis::redact_url;
///
/// assert_eq!(redact_url("redis://bob:s3cr/t@h:6379/0"), "redis://bob:***@h:6379/0");
/// assert_eq!(
///     redact_url("redis+unix:///run/r.sock?db=1&pass=s3cret"),
///     "redis+unix:///run/r.sock?db=1&pass=***",
/// );
/// assert_eq!(redact_url("redis://h:6379/"), "redis://h:6379/");
/// ```
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (user, rest) = match rest.rfind('@') {
        Some(at) => {
            let user = &rest[..at];
            let user = match user.split_once(':') {
                Some((name, _)) => format!("{name}:***@"),
                None => format!("{user}@"),
            };
            (user, &rest[at + 1..])
        }
        None => (String::new(), rest),
    };
    let rest = match rest.split_once('?') {
        Some((path, query)) => {
            let params: Vec<String> = query
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some((k, _))
                        if k.eq_ignore_ascii_case("pass")
                            || k.eq_ignore_ascii_case("password") =>
                    {
                        format!("{k}=***")
                    }
                    _ => p.to_owned(),
                })
                .collect();
            format!("{path}?{}", params.join("&"))
        }
        None => rest.to_owned(),
    };
    format!("{scheme}://{user}{rest}")
}

/// Opens a connection to `url` (`redis://host:port/db`) with the
/// timeouts of `options`. Errors name the server by [`redact_url`]. After a call fails with a timeout or an I/O
/// error, open a new connection: the old one may still hold a late reply.
pub fn connect(url: &str, options: &Options) -> Result<Connection> {
    let client = redis::Client::open(url)?;
    let timeout = options.connect_timeout;
    // redis-rs gives each reply of its handshake (two `CLIENT SETINFO`s)
    // the whole timeout, so a server that accepts but never answers
    // would hold us twice as long. Connect on a helper thread and stop
    // waiting at the deadline; the thread ends on its own timeout.
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name("bloomlab-redis-connect".to_owned())
        .spawn(move || {
            let _ = tx.send(client.get_connection_with_timeout(timeout));
        })
        .map_err(redis::RedisError::from)?;
    let conn = match rx.recv_timeout(timeout) {
        Ok(conn) => conn?,
        Err(_) => {
            return Err(Error::Redis(
                io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "no connection to {} within {timeout:?}",
                        redact_url(url)
                    ),
                )
                .into(),
            ));
        }
    };
    conn.set_read_timeout(options.response_timeout)?;
    conn.set_write_timeout(options.response_timeout)?;
    Ok(conn)
}

/// The Redis bit offset of bloomlab bit `i`.
///
/// bloomlab numbers the bits of each byte from the least significant
/// (bit `i` is bit `i & 63` of little-endian word `i >> 6`, so bit
/// `i & 7` of byte `i >> 3`); `SETBIT`/`GETBIT` number them from the
/// most significant. The string's bytes are therefore the filter's words
/// in little-endian order, and only the offset inside a byte flips.
///
/// ```
/// use bloomlab_redis::redis_offset;
///
/// assert_eq!(redis_offset(0), 7);
/// assert_eq!(redis_offset(7), 0);
/// assert_eq!(redis_offset(9), 14);
/// ```
#[inline]
pub fn redis_offset(i: u64) -> u64 {
    (i & !7) | (7 - (i & 7))
}

/// The key of the bits string of filter `name`: `{name}:bits`.
pub fn bits_key(name: &str) -> String {
    format!("{{{name}}}:bits")
}

/// The scratch key of dense batch inserts, `{name}:tmp`: it exists only
/// while a script runs.
fn scratch_key(name: &str) -> String {
    format!("{{{name}}}:tmp")
}

/// A classic Bloom filter whose bits live in Redis, shared by every
/// client that opens the same name.
///
/// The bits are the string `{name}:bits`, holding the in-memory
/// [`BloomFilter`]'s bit array (bit `i` at Redis offset
/// [`redis_offset`]`(i)`); the parameters are the hash `{name}:config`
/// (fields `variant`, `version`, `m`, `k`, `family`, `seed`, `strategy`,
/// `reduction`). Both keys share the hash tag `{name}`, so they live in
/// one Redis Cluster slot; so does `{name}:tmp`, scratch space of dense
/// batch inserts that exists only inside their script (a batch finding
/// anything there is refused with [`Error::KeyInUse`]).
///
/// Keys are hashed here, into the same positions as a [`BloomFilter`]
/// with the same [`Config`], `m` and `k`; every operation then runs one
/// Lua script, one round trip, that checks the config hash against this
/// handle's parameters and sets or reads the bits atomically. A filter
/// deleted and re-created with other parameters since
/// [`RedisBloomFilter::open`] gives [`Error::ConfigChanged`] and is not
/// touched.
///
/// A handle owns its connection; threads or processes sharing a filter
/// each open their own handle.
pub struct RedisBloomFilter {
    h: Handle,
}

impl std::fmt::Debug for RedisBloomFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.h.debug("RedisBloomFilter", f)
    }
}

/// A batch insert sends a mask of the bitmap (and gets the old bits
/// back) instead of setting each probe once the bitmap is at most this
/// many bytes per probe. Measured (Redis 7.0), a probe's `SETBIT` costs
/// about what ~100 bytes of mask and old bits moved through the script
/// do, so at 32 the dense path is about three times cheaper; and the
/// mask, which is what the AOF and replicas receive, is no larger than
/// the ~50 bytes per new bit that per-probe `SETBIT`s would log.
const DENSE_INSERT_BYTES_PER_PROBE: u64 = 32;

/// A batch query reads the bitmap instead of each probe once it is at
/// most this many bytes per probe. Reads log nothing, so only speed sets
/// the bar: measured (Redis 7.0), a byte read through the script costs
/// ~2.3 ns and a probe's `GETBIT` 430-560 ns (non-members stop early,
/// but pay the per-key work). It was 128 until 2026-11-27, when the
/// redis bench's batches of 1,000 keys (171 bytes a probe on its 1.2 MB
/// filter) were measured both ways in one session: members 3,560 ns a
/// key sparse against 1,985 dense (the pipelined `BITFIELD` client
/// 2,730 and 2,795), non-members 2,313 against 1,919; batches of 10,000
/// keys, dense either way, level (220 and 229).
const DENSE_QUERY_BYTES_PER_PROBE: u64 = 256;

const KIND: Kind = Kind {
    variant: VARIANT,
    suffix: "bits",
    max_m: MAX_BITS,
    max_m_reason: "Redis bitmaps hold at most 2^32 bits",
};

impl RedisBloomFilter {
    /// Creates filter `name` with `m` bits, `k` probes and `config`, its
    /// bits all clear (the string is allocated at full size). If it
    /// exists with the same parameters, opens it (its bits untouched);
    /// with other parameters, fails with [`Error::AlreadyExists`].
    pub fn create(
        conn: Connection,
        name: &str,
        config: Config,
        m: u64,
        k: u32,
    ) -> Result<RedisBloomFilter> {
        let mut h = Handle::new(conn, name, &KIND, config, m, k)?;
        let last = redis_offset(m - 1);
        let _: i64 = h.run(Op::Create, &SCRIPTS.create, |inv| {
            inv.arg(last);
        })?;
        Ok(RedisBloomFilter { h })
    }

    /// Checks what [`RedisBloomFilter::create`] checks before it
    /// connects: the name, `m` (at most [`MAX_BITS`]), `k` (1 to
    /// [`MAX_K`](crate::MAX_K)) and the hashing, so a program can refuse
    /// bad parameters before it needs a server.
    ///
    /// ```
    /// use bloomlab_redis::{Config, RedisBloomFilter};
    ///
    /// assert!(RedisBloomFilter::check("urls", Config::default(), 9_600, 7).is_ok());
    /// assert!(RedisBloomFilter::check("{urls}", Config::default(), 9_600, 7).is_err());
    /// assert!(RedisBloomFilter::check("urls", Config::default(), 1 << 33, 7).is_err());
    /// ```
    pub fn check(name: &str, config: Config, m: u64, k: u32) -> Result<()> {
        Handle::check(name, &KIND, config, m, k).map(drop)
    }

    /// Creates filter `name` for `n` items at false-positive rate `p`,
    /// sized as Guava sizes it (as [`BloomFilter::new`]); see
    /// [`RedisBloomFilter::create`].
    pub fn create_for_rate(
        conn: Connection,
        name: &str,
        config: Config,
        n: u64,
        p: f64,
    ) -> Result<RedisBloomFilter> {
        let (m, k) = bloomlab_standard::Size::Rate { n, p }.resolve()?;
        RedisBloomFilter::create(conn, name, config, m, k)
    }

    /// Opens the existing filter `name`, reading its parameters.
    /// Errors: [`Error::NotFound`], [`Error::WrongType`],
    /// [`Error::Orphan`], [`Error::BadConfig`].
    pub fn open(conn: Connection, name: &str) -> Result<RedisBloomFilter> {
        Ok(RedisBloomFilter { h: Handle::open(conn, name, &KIND)? })
    }

    /// Stores `filter` as filter `name`: creates it with the filter's
    /// parameters, or checks that it has them ([`Error::AlreadyExists`]
    /// otherwise), then replaces its bits with the filter's, atomically.
    pub fn import(
        conn: Connection,
        name: &str,
        filter: &BloomFilter,
    ) -> Result<RedisBloomFilter> {
        let (m, k) = (filter.bits(), filter.hash_count());
        let mut h = Handle::new(conn, name, &KIND, filter.config(), m, k)?;
        let bytes = to_redis_bytes(filter.bit_array());
        let _: i64 = h.run(Op::Create, &SCRIPTS.import, |inv| {
            inv.arg(bytes);
        })?;
        Ok(RedisBloomFilter { h })
    }

    /// Reads the bits into an in-memory [`BloomFilter`] with the same
    /// parameters: it answers `contains` as this filter does, and can be
    /// written in bloomlab's format ([`bloomlab_standard::write_native`])
    /// or, for Guava's configurations, Guava's
    /// ([`bloomlab_standard::guava::write_guava`]).
    pub fn export(&mut self) -> Result<BloomFilter> {
        let bytes: Option<Vec<u8>> =
            self.h.run(Op::Use, &SCRIPTS.export, |_| {})?;
        let m = self.bits();
        let words = words_of(
            &self.h.name,
            &bytes.unwrap_or_default(),
            m.div_ceil(8),
            m.div_ceil(64),
        )?;
        let bits =
            BitArray::from_words(m, words).map_err(|e| Error::BadBits {
                name: self.h.name.clone(),
                reason: format!("bits set beyond m = {m}: {e}"),
            })?;
        Ok(BloomFilter::from_bit_array(
            self.h.config,
            self.hash_count(),
            bits,
        )?)
    }

    /// Inserts a typed key (funnelled as Guava would); returns whether
    /// any bit changed.
    pub fn insert<T: Funnel + ?Sized>(&mut self, key: &T) -> Result<bool> {
        self.h.pack(&[key], redis_offset);
        Ok(self.h.per_key(&SCRIPTS.insert, 1)?[0] != 0)
    }

    /// Inserts a key given as bytes; returns whether any bit changed.
    pub fn insert_bytes(&mut self, key: &[u8]) -> Result<bool> {
        self.insert(key)
    }

    /// Whether a typed key may have been inserted.
    pub fn contains<T: Funnel + ?Sized>(&mut self, key: &T) -> Result<bool> {
        self.h.pack(&[key], redis_offset);
        Ok(self.h.per_key(&SCRIPTS.contains, 1)?[0] != 0)
    }

    /// Whether a key given as bytes may have been inserted.
    pub fn contains_bytes(&mut self, key: &[u8]) -> Result<bool> {
        self.contains(key)
    }

    /// Inserts many keys in one round trip, atomically (all or none);
    /// returns how many inserts changed a bit, counted as if the keys
    /// were inserted one after another.
    ///
    /// A sparse batch runs a script that sets each probe's bit. A dense
    /// one (a bitmap of at most 32 bytes per probe, e.g. 5,000 keys with
    /// k = 7 into a 1 MB filter) sends a mask of the batch's bits that
    /// the script ORs in with `BITOP` (through the scratch key
    /// `{name}:tmp`, created and deleted inside the script), replying
    /// the old bits; its cost then grows with the bitmap, not the
    /// batch. Either way the server runs the whole batch or, if the
    /// check fails, nothing. Batches of 10^3 to 10^4 keys suit both: the
    /// server serves no one else while it runs one.
    ///
    /// ```no_run
    /// use bloomlab_redis::{Config, Options, RedisBloomFilter, connect};
    ///
    /// let conn = connect("redis://127.0.0.1:6379/", &Options::default())?;
    /// let mut f = RedisBloomFilter::create_for_rate(
    ///     conn, "seen", Config::default(), 1_000_000, 0.01,
    /// )?;
    /// let keys: Vec<u64> = (0..10_000).collect();
    /// assert_eq!(f.insert_many(&keys)?, 10_000);
    /// // Inserted again, no key changes a bit.
    /// assert_eq!(f.insert_many(&keys)?, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert_many<T: Funnel>(&mut self, keys: &[T]) -> Result<usize> {
        if keys.is_empty() {
            return Ok(0);
        }
        self.h.pack_slice(keys, redis_offset);
        if self.h.dense(DENSE_INSERT_BYTES_PER_PROBE) {
            let scratch = scratch_key(&self.h.name);
            return self.h.dense_insert(&scratch);
        }
        let out = self.h.per_key(&SCRIPTS.insert, keys.len())?;
        Ok(out.into_iter().filter(|&c| c != 0).count())
    }

    /// Answers [`RedisBloomFilter::contains`] for many keys in one round
    /// trip, from one consistent state of the filter. A dense batch (a
    /// bitmap of at most 256 bytes per probe) reads the whole bitmap and
    /// looks the probes up here; a sparse one runs a script that reads
    /// each probe.
    pub fn contains_many<T: Funnel>(
        &mut self,
        keys: &[T],
    ) -> Result<Vec<bool>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.h.pack_slice(keys, redis_offset);
        if self.h.dense(DENSE_QUERY_BYTES_PER_PROBE) {
            return self.h.dense_contains();
        }
        let out = self.h.per_key(&SCRIPTS.contains, keys.len())?;
        Ok(out.into_iter().map(|c| c != 0).collect())
    }

    /// Deletes the filter's two keys, after checking that the filter
    /// still has this handle's parameters.
    pub fn delete(mut self) -> Result<()> {
        let _: i64 = self.h.run(Op::Use, &SCRIPTS.delete, |_| {})?;
        Ok(())
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        &self.h.name
    }

    /// The key of the bits string, `{name}:bits`.
    pub fn bits_key(&self) -> &str {
        &self.h.data_key
    }

    /// The key of the config hash, `{name}:config`.
    pub fn config_key(&self) -> &str {
        &self.h.config_key
    }

    /// The hashing configuration.
    pub fn config(&self) -> Config {
        self.h.config
    }

    /// Number of bits, `m`.
    pub fn bits(&self) -> u64 {
        self.h.indexer.m()
    }

    /// Probes per key, `k`.
    pub fn hash_count(&self) -> u32 {
        self.h.indexer.k()
    }

    /// The key's bit positions in probe order, as
    /// [`BloomFilter::positions`] gives them (bloomlab's numbering; see
    /// [`redis_offset`]).
    pub fn positions<T: Funnel + ?Sized>(&self, key: &T) -> Vec<u64> {
        key.with_bytes(|b| self.h.indexer.indices(b))
    }

    /// The connection, for other commands.
    pub fn connection(&mut self) -> &mut Connection {
        &mut self.h.conn
    }

    /// Gives up the connection.
    pub fn into_connection(self) -> Connection {
        self.h.conn
    }
}

/// The bits string of `bits`: its words in little-endian order, cut to
/// `ceil(m / 8)` bytes.
pub fn to_redis_bytes(bits: &BitArray) -> Vec<u8> {
    bytes_of(bits.words(), bits.bit_len().div_ceil(8))
}
