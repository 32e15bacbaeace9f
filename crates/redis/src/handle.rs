//! What every Redis filter handle holds: the connection, the two keys,
//! the parameters as the config hash stores them, and the script runner
//! that checks them.

use bloomlab_hash::{Family, Funnel, Indexer, Reduction, Strategy};
use bloomlab_standard::Config;
use redis::{
    Cmd, Connection, ErrorKind, RedisError, RedisWrite, Script,
    ScriptInvocation, ToRedisArgs,
};

use crate::scripts::{FIELDS, SCRIPTS};
use crate::{Error, Result};

/// The config hash's format version this crate writes and reads.
pub const CONFIG_VERSION: u32 = 1;

/// The key of the config hash of filter `name`: `{name}:config`.
pub fn config_key(name: &str) -> String {
    format!("{{{name}}}:config")
}

/// Which operation a script error came from: `create` and `import`
/// report a difference as [`Error::AlreadyExists`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Create,
    Use,
}

/// A filter's connection, keys and checked parameters.
pub(crate) struct Handle {
    pub(crate) conn: Connection,
    pub(crate) name: String,
    pub(crate) config_key: String,
    pub(crate) data_key: String,
    pub(crate) config: Config,
    pub(crate) indexer: Indexer,
    /// The values of the config fields, in `FIELDS` order.
    fields: [String; 8],
    /// The reusable buffer of packed offsets.
    pub(crate) buf: Vec<u8>,
    /// The reusable mask of a dense batch (see [`Handle::dense_insert`]).
    mask: Vec<u8>,
}

/// What distinguishes the filter kinds sharing this code.
pub(crate) struct Kind {
    /// The `variant` field.
    pub(crate) variant: &'static str,
    /// The data key's suffix, after `{name}:`.
    pub(crate) suffix: &'static str,
    /// The largest `m`.
    pub(crate) max_m: u64,
    /// Why `m` is limited.
    pub(crate) max_m_reason: &'static str,
}

/// The largest `k` a Redis filter accepts.
pub const MAX_K: u32 = 255;

impl Handle {
    pub(crate) fn new(
        conn: Connection,
        name: &str,
        kind: &Kind,
        config: Config,
        m: u64,
        k: u32,
    ) -> Result<Handle> {
        let indexer = Handle::check(name, kind, config, m, k)?;
        let fields = [
            kind.variant.to_owned(),
            CONFIG_VERSION.to_string(),
            m.to_string(),
            k.to_string(),
            config.family.name().to_owned(),
            config.seed.to_string(),
            config.strategy.name().to_owned(),
            config.reduction.name().to_owned(),
        ];
        Ok(Handle {
            conn,
            name: name.to_owned(),
            config_key: config_key(name),
            data_key: format!("{{{name}}}:{}", kind.suffix),
            config,
            indexer,
            fields,
            buf: Vec::new(),
            mask: Vec::new(),
        })
    }

    /// Checks a filter's name and parameters without a server, as
    /// creating it would; the indexer they make.
    pub(crate) fn check(
        name: &str,
        kind: &Kind,
        config: Config,
        m: u64,
        k: u32,
    ) -> Result<Indexer> {
        check_name(name)?;
        if m > kind.max_m {
            return Err(Error::InvalidParameter {
                name: "m",
                value: m.to_string(),
                reason: kind.max_m_reason,
            });
        }
        if k > MAX_K {
            return Err(Error::InvalidParameter {
                name: "k",
                value: k.to_string(),
                reason: "a Redis filter takes at most 255 probes",
            });
        }
        Ok(Indexer::new(
            config.family,
            config.seed,
            config.strategy,
            config.reduction,
            k,
            m,
        )?)
    }

    /// Opens the existing filter `name` of this kind, reading its
    /// parameters.
    pub(crate) fn open(
        mut conn: Connection,
        name: &str,
        kind: &Kind,
    ) -> Result<Handle> {
        check_name(name)?;
        let ck = config_key(name);
        let dk = format!("{{{name}}}:{}", kind.suffix);
        let reply: Vec<Option<String>> = SCRIPTS
            .open
            .key(&ck)
            .key(&dk)
            .invoke(&mut conn)
            .map_err(|e| script_error(e, name, Op::Use))?;
        if reply.len() != FIELDS.len() + 1 {
            return Err(Error::UnexpectedReply {
                what: "open",
                detail: format!("{} fields", reply.len()),
            });
        }
        let data_type = reply[FIELDS.len()].clone().unwrap_or_default();
        let get = |i: usize| -> Result<&str> {
            reply[i].as_deref().ok_or_else(|| Error::BadConfig {
                name: name.to_owned(),
                field: FIELDS[i],
                value: "(missing)".to_owned(),
                reason: "the field is missing".to_owned(),
            })
        };
        let bad = |i: usize, reason: String| Error::BadConfig {
            name: name.to_owned(),
            field: FIELDS[i],
            value: reply[i].clone().unwrap_or_default(),
            reason,
        };
        if get(0)? != kind.variant {
            return Err(bad(0, format!("expected {:?}", kind.variant)));
        }
        if data_type == "none" {
            return Err(Error::Lost { key: dk, config: ck });
        }
        if get(1)? != CONFIG_VERSION.to_string() {
            return Err(bad(
                1,
                format!("this version reads version {CONFIG_VERSION}"),
            ));
        }
        let m: u64 = get(2)?.parse().map_err(|e| bad(2, format!("{e}")))?;
        let k: u32 = get(3)?.parse().map_err(|e| bad(3, format!("{e}")))?;
        let family =
            Family::from_name(get(4)?).map_err(|e| bad(4, e.to_string()))?;
        let seed: i128 =
            get(5)?.parse().map_err(|e| bad(5, format!("{e}")))?;
        let strategy =
            Strategy::from_name(get(6)?).map_err(|e| bad(6, e.to_string()))?;
        let reduction = Reduction::from_name(get(7)?)
            .map_err(|e| bad(7, e.to_string()))?;
        let config = Config { family, seed, strategy, reduction };
        // Values that parse but that no handle could use (k = 0, m past
        // the kind's limit, a strategy the reduction does not take) are
        // the config's fault, not the caller's.
        let handle = Handle::new(conn, name, kind, config, m, k).map_err(
            |e| match e {
                Error::InvalidParameter { name: field, value, reason } => {
                    Error::BadConfig {
                        name: name.to_owned(),
                        field,
                        value,
                        reason: reason.to_owned(),
                    }
                }
                Error::Hash(bloomlab_hash::Error::InvalidParameter {
                    name: field,
                    value,
                    reason,
                }) => Error::BadConfig {
                    name: name.to_owned(),
                    field,
                    value: value.to_string(),
                    reason: reason.to_owned(),
                },
                e => Error::BadConfig {
                    name: name.to_owned(),
                    field: "config",
                    value: format!(
                        "m = {m}, k = {k}, strategy = {}, reduction = {}",
                        strategy.name(),
                        reduction.name()
                    ),
                    reason: e.to_string(),
                },
            },
        )?;
        // The handle sends its own rendering of the fields, which a
        // script compares byte for byte: a hash written otherwise (by
        // hand: `+9600`, `XXH3-128`) would fail every call, so say so now.
        for (i, (mine, stored)) in handle.fields.iter().zip(&reply).enumerate()
        {
            if Some(mine) != stored.as_ref() {
                return Err(bad(
                    i,
                    format!("not in canonical form ({mine:?})"),
                ));
            }
        }
        Ok(handle)
    }

    pub(crate) fn debug(
        &self,
        what: &str,
        f: &mut std::fmt::Formatter<'_>,
    ) -> std::fmt::Result {
        f.debug_struct(what)
            .field("name", &self.name)
            .field("config", &self.config)
            .field("m", &self.indexer.m())
            .field("k", &self.indexer.k())
            .finish_non_exhaustive()
    }

    /// Packs `map(position)` of every probe of `keys` into `self.buf`, as
    /// little-endian `u32`s.
    pub(crate) fn pack<T: Funnel + ?Sized>(
        &mut self,
        keys: &[&T],
        map: fn(u64) -> u64,
    ) {
        self.buf.clear();
        let (indexer, buf) = (&self.indexer, &mut self.buf);
        for key in keys {
            key.with_bytes(|b| {
                indexer.for_each_index(b, |i| {
                    // i < m, and every kind's m keeps map(i) below 2^32.
                    let o = map(i) as u32;
                    buf.extend_from_slice(&o.to_le_bytes());
                })
            });
        }
    }

    /// As [`Handle::pack`] for a slice of keys.
    pub(crate) fn pack_slice<T: Funnel>(
        &mut self,
        keys: &[T],
        map: fn(u64) -> u64,
    ) {
        self.buf.clear();
        let (indexer, buf) = (&self.indexer, &mut self.buf);
        for key in keys {
            key.with_bytes(|b| {
                indexer.for_each_index(b, |i| {
                    let o = map(i) as u32;
                    buf.extend_from_slice(&o.to_le_bytes());
                })
            });
        }
    }

    /// The `i`-th offset packed in `self.buf`, if there is one.
    pub(crate) fn offset(&self, i: usize) -> Option<usize> {
        offsets(&self.buf).nth(i)
    }

    /// Runs `script` over the packed offsets of `n` keys: `KEYS =
    /// [config, data]`, `ARGV` = the fields, `k`, then every offset in
    /// `self.buf` as its own decimal argument; expects one integer per
    /// key.
    pub(crate) fn per_key(
        &mut self,
        script: &Script,
        n: usize,
    ) -> Result<Vec<i64>> {
        let mut cmd = redis::cmd("EVALSHA");
        cmd.arg(script.get_hash())
            .arg(2)
            .arg(&self.config_key)
            .arg(&self.data_key)
            .arg(&self.fields[..])
            .arg(self.indexer.k())
            .arg(Offsets(&self.buf));
        let reply: Vec<i64> = self.eval(script, &cmd)?;
        if reply.len() != n {
            return Err(Error::UnexpectedReply {
                what: "a batch",
                detail: format!("{} answers for {n} keys", reply.len()),
            });
        }
        Ok(reply)
    }

    /// Sends `cmd`, an `EVALSHA` of `script`; on `NOSCRIPT` (a restarted
    /// or flushed server) loads the script and sends it once more.
    fn eval<T: redis::FromRedisValue>(
        &mut self,
        script: &Script,
        cmd: &Cmd,
    ) -> Result<T> {
        let reply = match cmd.query(&mut self.conn) {
            Err(e) if e.kind() == ErrorKind::NoScriptError => script
                .load(&mut self.conn)
                .and_then(|_| cmd.query(&mut self.conn)),
            reply => reply,
        };
        reply.map_err(|e| script_error(e, &self.name, Op::Use))
    }

    /// Whether a batch of the probes in `self.buf` is dense enough to
    /// move the whole bitmap rather than touch each probe: the bitmap's
    /// `ceil(m / 8)` bytes are at most `bytes_per_probe` per probe.
    pub(crate) fn dense(&self, bytes_per_probe: u64) -> bool {
        let probes = (self.buf.len() / 4) as u64;
        self.indexer.m().div_ceil(8) <= probes.saturating_mul(bytes_per_probe)
    }

    /// The dense batch insert of a bit filter (offsets in `self.buf` are
    /// Redis bit offsets, `k` per key): one
    /// [`DENSE_INSERT`](crate::scripts::Scripts::dense_insert) script
    /// that checks the config, replies the old bits the batch can touch,
    /// and ORs in a mask of the batch's bits. Returns how many keys
    /// changed a bit, counted as if inserted one by one (replayed here on
    /// the old bits).
    pub(crate) fn dense_insert(&mut self, scratch: &str) -> Result<usize> {
        let len = self.mask_len()?;
        self.mask.clear();
        self.mask.resize(len, 0);
        // The mask ends at the batch's last byte: BITOP pads the shorter
        // operand with zeros.
        let mut end = 0;
        for o in offsets(&self.buf) {
            if let Some(byte) = self.mask.get_mut(o >> 3) {
                *byte |= 0x80 >> (o & 7);
                end = end.max((o >> 3) + 1);
            }
        }
        if end == 0 {
            return Ok(0);
        }
        let script = &SCRIPTS.dense_insert;
        let mut cmd = redis::cmd("EVALSHA");
        cmd.arg(script.get_hash())
            .arg(3)
            .arg(&self.config_key)
            .arg(&self.data_key)
            .arg(scratch)
            .arg(&self.fields[..])
            .arg(&self.mask[..end]);
        let mut old: Vec<u8> = self.eval(script, &cmd)?;
        if old.len() > end {
            return Err(Error::UnexpectedReply {
                what: "a dense batch",
                detail: format!("{} old bytes for {end}", old.len()),
            });
        }
        old.resize(end, 0);
        let k = self.indexer.k() as usize;
        let mut changed = 0;
        for key in self.buf.chunks_exact(4 * k) {
            let mut fresh = false;
            for o in offsets(key) {
                if let Some(byte) = old.get_mut(o >> 3) {
                    fresh |= *byte & (0x80 >> (o & 7)) == 0;
                    *byte |= 0x80 >> (o & 7);
                }
            }
            changed += usize::from(fresh);
        }
        Ok(changed)
    }

    /// The dense batch query of a bit filter: one
    /// [`DENSE_CONTAINS`](crate::scripts::Scripts::dense_contains)
    /// script checks the config and replies the bits; each key's probes
    /// are looked up here. Answers one `bool` per key.
    pub(crate) fn dense_contains(&mut self) -> Result<Vec<bool>> {
        let len = self.mask_len()?;
        let script = &SCRIPTS.dense_contains;
        let mut cmd = redis::cmd("EVALSHA");
        cmd.arg(script.get_hash())
            .arg(2)
            .arg(&self.config_key)
            .arg(&self.data_key)
            .arg(&self.fields[..])
            .arg(len.saturating_sub(1));
        let bits: Vec<u8> = self.eval(script, &cmd)?;
        if bits.len() > len {
            return Err(Error::UnexpectedReply {
                what: "a dense query",
                detail: format!("{} bytes for {len}", bits.len()),
            });
        }
        let k = self.indexer.k() as usize;
        Ok(self
            .buf
            .chunks_exact(4 * k)
            .map(|key| {
                offsets(key).all(|o| {
                    bits.get(o >> 3)
                        .is_some_and(|b| b & (0x80 >> (o & 7)) != 0)
                })
            })
            .collect())
    }

    /// `ceil(m / 8)` as a length in memory.
    fn mask_len(&self) -> Result<usize> {
        let bytes = self.indexer.m().div_ceil(8);
        usize::try_from(bytes).map_err(|_| Error::InvalidParameter {
            name: "m",
            value: self.indexer.m().to_string(),
            reason: "the bitmap does not fit in this machine's memory",
        })
    }

    /// Runs a script with `KEYS = [config, data]`, `ARGV = fields ++
    /// extra`, mapping its `BLOOMLAB_*` errors.
    pub(crate) fn run<T: redis::FromRedisValue>(
        &mut self,
        op: Op,
        script: &Script,
        extra: impl FnOnce(&mut ScriptInvocation<'_>),
    ) -> Result<T> {
        let mut inv = script.prepare_invoke();
        inv.key(&self.config_key).key(&self.data_key);
        for f in &self.fields {
            inv.arg(f);
        }
        extra(&mut inv);
        inv.invoke(&mut self.conn).map_err(|e| script_error(e, &self.name, op))
    }
}

/// Checks a filter name without a server: it is the hash tag of the
/// filter's keys, so it must be non-empty and hold no braces.
///
/// ```
/// assert!(bloomlab_redis::check_name("users").is_ok());
/// assert!(bloomlab_redis::check_name("a{b}").is_err());
/// assert!(bloomlab_redis::check_name("").is_err());
/// ```
pub fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.contains(['{', '}']) {
        return Err(Error::InvalidParameter {
            name: "name",
            value: format!("{name:?}"),
            reason: "a filter name must be non-empty, without braces \
                     (it is the keys' hash tag)",
        });
    }
    Ok(())
}

/// Maps a script's `BLOOMLAB_*` error reply to a typed error.
///
/// A key name may hold spaces (a filter's name may), and so may a value
/// someone wrote into a config hash, so the replies put a key last and
/// give a stored value's length in bytes before it: words are split off
/// the front only as far as they cannot hold a space.
pub(crate) fn script_error(e: RedisError, name: &str, op: Op) -> Error {
    let detail = e.detail().unwrap_or_default().to_owned();
    match e.code() {
        Some("BLOOMLAB_NOFILTER") => {
            Error::NotFound { name: name.to_owned(), key: detail }
        }
        Some("BLOOMLAB_ORPHAN") => {
            Error::Orphan { key: detail, config: config_key(name) }
        }
        Some("BLOOMLAB_SCRATCH") => {
            Error::KeyInUse { key: detail, role: "batch inserts" }
        }
        Some("BLOOMLAB_NEXT_LAYER") => {
            Error::KeyInUse { key: detail, role: "next layer" }
        }
        Some("BLOOMLAB_LOST") => {
            Error::Lost { key: detail, config: config_key(name) }
        }
        Some("BLOOMLAB_WRONGTYPE") => {
            let mut words = detail.splitn(3, ' ');
            let expected =
                if words.next() == Some("hash") { "hash" } else { "string" };
            let found = words.next().unwrap_or_default().to_owned();
            let key = words.next().unwrap_or_default().to_owned();
            Error::WrongType { key, found, expected }
        }
        Some("BLOOMLAB_CONFIG") => {
            let (field, stored, value) = config_difference(&detail);
            let name = name.to_owned();
            match op {
                Op::Create => Error::AlreadyExists {
                    name,
                    field,
                    stored,
                    requested: value,
                },
                Op::Use => Error::ConfigChanged {
                    name,
                    field,
                    stored,
                    expected: value,
                },
            }
        }
        _ => Error::Redis(e),
    }
}

/// `(field, stored, client's)` of a `BLOOMLAB_CONFIG` reply's detail,
/// `FIELD LEN STORED CLIENT`, where `LEN` is the stored value's length
/// in bytes. A detail not of that shape (which only a script of another
/// version would send) is kept whole as the stored value.
fn config_difference(detail: &str) -> (String, String, String) {
    let mut words = detail.splitn(3, ' ');
    let field = words.next().unwrap_or_default().to_owned();
    let len = words.next().and_then(|w| w.parse::<usize>().ok());
    let rest = words.next().unwrap_or_default();
    let split = len.and_then(|n| {
        Some((rest.get(..n)?, rest.get(n..)?.strip_prefix(' ')?))
    });
    match split {
        Some((stored, client)) => {
            (field, stored.to_owned(), client.to_owned())
        }
        None => (field, rest.to_owned(), String::new()),
    }
}

/// Words from a data string, little-endian, zero-extended to `words`
/// words (Redis reads missing bytes as zero); an error if the string is
/// longer than `max_bytes`.
pub(crate) fn words_of(
    name: &str,
    bytes: &[u8],
    max_bytes: u64,
    words: u64,
) -> Result<Vec<u64>> {
    let bad =
        |reason: String| Error::BadBits { name: name.to_owned(), reason };
    if bytes.len() as u64 > max_bytes {
        return Err(bad(format!(
            "{} bytes, at most {max_bytes} expected",
            bytes.len()
        )));
    }
    let words = usize::try_from(words)
        .map_err(|_| bad(format!("{words} words do not fit in memory")))?;
    let mut v = vec![0u64; words];
    for (w, chunk) in v.iter_mut().zip(bytes.chunks(8)) {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        *w = u64::from_le_bytes(b);
    }
    Ok(v)
}

/// The bytes of `words`, little-endian, cut to `len` bytes.
pub(crate) fn bytes_of(words: &[u64], len: u64) -> Vec<u8> {
    let mut out: Vec<u8> =
        words.iter().flat_map(|w| w.to_le_bytes()).collect();
    out.truncate(usize::try_from(len).unwrap_or(usize::MAX));
    out
}

/// The offsets packed in `buf` (little-endian `u32`s).
fn offsets(buf: &[u8]) -> impl Iterator<Item = usize> + '_ {
    buf.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize)
}

/// Packed offsets written as one decimal argument each.
struct Offsets<'a>(&'a [u8]);

impl ToRedisArgs for Offsets<'_> {
    fn write_redis_args<W: ?Sized + RedisWrite>(&self, out: &mut W) {
        for c in self.0.chunks_exact(4) {
            u32::from_le_bytes([c[0], c[1], c[2], c[3]]).write_redis_args(out);
        }
    }
}
