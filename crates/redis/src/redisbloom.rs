//! RedisBloom interop: a RedisBloom filter's `BF.SCANDUMP` read into a
//! [`ScalableBloomFilter`], and a RedisBloom-preset filter loaded into a
//! server with `BF.LOADCHUNK`.
//!
//! The chunk logic is pure ([`ScandumpReader`], [`LoadChunks`],
//! [`scandump_with`], [`loadchunk_with`]) and tested with the bytes a
//! live RedisBloom produced; [`scandump`] and [`loadchunk`] only add the
//! commands.

use bloomlab_scalable::ScalableBloomFilter;
use bloomlab_scalable::redis::parse_header;
use redis::{Connection, ErrorKind, RedisError};

use crate::{Error, Result};

/// Reads a `BF.SCANDUMP` sequence reply by reply, checking each before
/// keeping it: the header must come first with iterator 1, later
/// iterators must grow, every chunk but the closing `(0, "")` must hold
/// bytes, and the chunks may not hold more bytes than the header's
/// arrays (so a misbehaving server cannot make it loop or grow without
/// bound).
///
/// ```
/// use bloomlab_redis::ScandumpReader;
/// use bloomlab_scalable::ScalableBloomFilter;
///
/// let mut f = ScalableBloomFilter::redisbloom()?;
/// f.add(b"x")?;
/// let mut r = ScandumpReader::new();
/// while let Some(iter) = r.next_iter() {
///     // What `BF.SCANDUMP key iter` would reply.
///     let (next, data) = f.redis_scandump_chunk(iter)?;
///     r.push(next, data)?;
/// }
/// assert_eq!(r.finish()?, f);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ScandumpReader {
    chunks: Vec<(i64, Vec<u8>)>,
    /// The iterator to ask for next.
    iter: i64,
    /// The header's array bytes, once it is read.
    total: u64,
    received: u64,
    done: bool,
}

fn bad_dump(reason: String) -> Error {
    Error::Scalable(bloomlab_scalable::Error::BadDump(reason))
}

impl ScandumpReader {
    /// A reader expecting the header (iterator 0).
    pub fn new() -> ScandumpReader {
        ScandumpReader::default()
    }

    /// The iterator of the next `BF.SCANDUMP`, or `None` once the closing
    /// reply was read.
    pub fn next_iter(&self) -> Option<i64> {
        (!self.done).then_some(self.iter)
    }

    /// Takes the reply `(next, data)` to `BF.SCANDUMP key`
    /// [`ScandumpReader::next_iter`].
    pub fn push(&mut self, next: i64, data: Vec<u8>) -> Result<()> {
        if self.done {
            return Err(bad_dump("a chunk after the closing reply".into()));
        }
        if self.iter == 0 {
            if next != 1 {
                return Err(bad_dump(format!(
                    "the header comes with iterator 1, not {next}"
                )));
            }
            let header = parse_header(&data)?;
            self.total = header
                .links
                .iter()
                .try_fold(0u64, |a, l| a.checked_add(l.bytes))
                .ok_or_else(|| bad_dump("array sizes overflow".into()))?;
        } else if next == 0 {
            if !data.is_empty() {
                return Err(bad_dump(format!(
                    "{} bytes with the closing iterator 0",
                    data.len()
                )));
            }
            if self.received != self.total {
                return Err(bad_dump(format!(
                    "the dump ended after {} of {} bytes",
                    self.received, self.total
                )));
            }
            self.done = true;
            self.chunks.push((0, data));
            return Ok(());
        } else {
            if next <= self.iter || data.is_empty() {
                return Err(bad_dump(format!(
                    "iterator {} followed by {next} with {} bytes",
                    self.iter,
                    data.len()
                )));
            }
            let received = self.received.saturating_add(data.len() as u64);
            if received > self.total {
                return Err(bad_dump(format!(
                    "{received} bytes of chunks, the header's arrays hold {}",
                    self.total
                )));
            }
            self.received = received;
        }
        self.iter = next;
        self.chunks.push((next, data));
        Ok(())
    }

    /// The filter, once the closing reply was read.
    pub fn finish(self) -> Result<ScalableBloomFilter> {
        if !self.done {
            return Err(bad_dump(format!(
                "incomplete: next iterator {}",
                self.iter
            )));
        }
        Ok(ScalableBloomFilter::from_redis_scandump(&self.chunks)?)
    }
}

/// Reads a dump through `fetch(iter) -> (next, data)` (one
/// `BF.SCANDUMP key iter` each) until the closing reply.
///
/// ```
/// use bloomlab_redis::scandump_with;
/// use bloomlab_scalable::ScalableBloomFilter;
///
/// let mut f = ScalableBloomFilter::redisbloom_reserve(0.01, 50, None, false)?;
/// for i in 0..200u64 {
///     f.add(&i.to_le_bytes())?;
/// }
/// // A recorded (or simulated) server: here the filter itself.
/// let g = scandump_with(|iter| Ok(f.redis_scandump_chunk(iter)?))?;
/// assert_eq!(g, f);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn scandump_with(
    mut fetch: impl FnMut(i64) -> Result<(i64, Vec<u8>)>,
) -> Result<ScalableBloomFilter> {
    let mut r = ScandumpReader::new();
    while let Some(iter) = r.next_iter() {
        let (next, data) = fetch(iter)?;
        r.push(next, data)?;
    }
    r.finish()
}

/// Reads RedisBloom filter `key` from a live server with `BF.SCANDUMP
/// key iter` until the iterator is 0, into a [`ScalableBloomFilter`] (the
/// RedisBloom preset, bit for bit). A server without the module gives
/// [`Error::NoRedisBloom`]; RedisBloom's own refusals (no such key, not a
/// Bloom filter) are [`Error::Redis`].
pub fn scandump(
    conn: &mut Connection,
    key: &str,
) -> Result<ScalableBloomFilter> {
    scandump_with(|iter| {
        redis::cmd("BF.SCANDUMP")
            .arg(key)
            .arg(iter)
            .query::<(i64, Vec<u8>)>(conn)
            .map_err(|e| module_error(e, "BF.SCANDUMP"))
    })
}

/// The `BF.LOADCHUNK key iter data` arguments that restore a filter, in
/// order: the header with iterator 1, then each array chunk (at most 16
/// MiB) with the iterator `BF.SCANDUMP` gives it. Made one at a time, so
/// a large filter is not copied whole.
#[derive(Debug)]
pub struct LoadChunks<'a> {
    filter: &'a ScalableBloomFilter,
    iter: i64,
}

impl<'a> LoadChunks<'a> {
    /// The chunks of `filter`; an error if it is not a RedisBloom-preset
    /// filter (see [`ScalableBloomFilter::is_redisbloom`]).
    pub fn new(filter: &'a ScalableBloomFilter) -> Result<LoadChunks<'a>> {
        filter.redis_header()?;
        Ok(LoadChunks { filter, iter: 0 })
    }
}

impl Iterator for LoadChunks<'_> {
    type Item = Result<(i64, Vec<u8>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.iter < 0 {
            return None;
        }
        match self.filter.redis_scandump_chunk(self.iter) {
            Ok((0, _)) => {
                self.iter = -1;
                None
            }
            Ok((next, data)) => {
                self.iter = next;
                Some(Ok((next, data)))
            }
            Err(e) => {
                self.iter = -1;
                Some(Err(e.into()))
            }
        }
    }
}

/// Loads `filter` through `send(iter, data)` (one `BF.LOADCHUNK key iter
/// data` each), stopping at the first error.
///
/// ```
/// use bloomlab_redis::loadchunk_with;
/// use bloomlab_scalable::ScalableBloomFilter;
///
/// let f = ScalableBloomFilter::redisbloom()?;
/// let mut sent = Vec::new();
/// loadchunk_with(&f, |iter, data| {
///     sent.push((iter, data.len()));
///     Ok(())
/// })?;
/// // The header (20 + 53 bytes for one layer), then the layer's array.
/// assert_eq!(sent, [(1, 73), (1 + 144, 144)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn loadchunk_with(
    filter: &ScalableBloomFilter,
    mut send: impl FnMut(i64, &[u8]) -> Result<()>,
) -> Result<()> {
    for chunk in LoadChunks::new(filter)? {
        let (iter, data) = chunk?;
        send(iter, &data)?;
    }
    Ok(())
}

/// Loads `filter` (a RedisBloom-preset filter, e.g. built with
/// [`ScalableBloomFilter::redisbloom_reserve`] or read by [`scandump`])
/// into a live server as RedisBloom filter `key`, with `BF.LOADCHUNK`.
/// Other filters give [`Error::Scalable`] (`NotRedisBloom`) before any
/// command; a server without the module gives [`Error::NoRedisBloom`] at
/// the first command, having changed nothing. RedisBloom refuses a
/// header for a key that exists. If the server fails after the header,
/// the key holds an incomplete filter, as with RedisBloom's own clients.
pub fn loadchunk(
    conn: &mut Connection,
    key: &str,
    filter: &ScalableBloomFilter,
) -> Result<()> {
    loadchunk_with(filter, |iter, data| {
        redis::cmd("BF.LOADCHUNK")
            .arg(key)
            .arg(iter)
            .arg(data)
            .query::<()>(conn)
            .map_err(|e| module_error(e, "BF.LOADCHUNK"))
    })
}

/// [`Error::NoRedisBloom`] for Redis's "unknown command" reply.
fn module_error(e: RedisError, command: &'static str) -> Error {
    let unknown = e.kind() == ErrorKind::ResponseError
        && e.detail().is_some_and(|d| d.starts_with("unknown command"));
    if unknown { Error::NoRedisBloom { command } } else { Error::Redis(e) }
}
