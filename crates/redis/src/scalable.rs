//! [`RedisScalableBloomFilter`]: a scalable filter's chain of layers in
//! Redis strings, grown atomically inside the Lua scripts.

use bloomlab_core::BitArray;
use bloomlab_hash::{Family, Funnel, Reduction};
use bloomlab_scalable::{
    Config as ScalableConfig, LayerSpec, Layout, Pairing, Probe, Prober,
    ScalableBloomFilter, Sizing,
};
use redis::{Connection, RedisError, Script, Value};

use crate::handle::{
    CONFIG_VERSION, Op, bytes_of, check_name, config_key, script_error,
};
use crate::scalable_scripts::{FIELDS, SCRIPTS};
use crate::{Error, MAX_BITS, Result, redis_offset};

/// The value of a scalable filter's `variant` config field.
pub const SCALABLE_VARIANT: &str = "scalable";

/// The key of the chain hash of scalable filter `name`: `{name}:chain`.
///
/// ```
/// assert_eq!(bloomlab_redis::chain_key("urls"), "{urls}:chain");
/// ```
pub fn chain_key(name: &str) -> String {
    format!("{{{name}}}:chain")
}

/// The key of layer `index` (from 0) of scalable filter `name`:
/// `{name}:layer:<index>`.
///
/// ```
/// assert_eq!(bloomlab_redis::layer_key("urls", 3), "{urls}:layer:3");
/// ```
pub fn layer_key(name: &str, index: usize) -> String {
    format!("{{{name}}}:layer:{index}")
}

/// The most layers a Redis scalable filter has. With growth `s ≥ 2` the
/// capacities overflow 64 bits long before; the limit bounds what a
/// corrupt (or hostile) chain hash can make a client allocate, and the
/// keys of one script call.
pub const MAX_LAYERS: usize = 1024;

/// A scalable Bloom filter (a growing chain of layers) whose layers live
/// in Redis, shared by every client that opens the same name.
///
/// Layer `i` is the string `{name}:layer:<i>`, holding the bits of layer
/// `i` of the in-memory [`ScalableBloomFilter`] with the same
/// [`ScalableConfig`] (bit `j` at Redis offset [`redis_offset`]`(j)`).
/// The parameters are the hash `{name}:config` (`variant`, `version`,
/// `n0`, `error`, `first-error`, `tightening`, `growth`, `scaling`,
/// `half-fill`, `layout`, `sizing`, `family`, `seed`, `pairing`,
/// `probe`, `reduction`); the chain's state is the hash `{name}:chain`:
/// `layers` (the layer count), `skipped`, and per layer `capacity:<i>`,
/// `bits:<i>`, `modulus:<i>`, `k:<i>`, `count:<i>` (items newly set in
/// it) and `ones:<i>` (bits set). All keys share the hash tag `{name}`.
///
/// Semantics are the in-memory filter's `add`, key after key: a key that
/// any layer reports present is not inserted again (it is counted as
/// skipped); other keys go to the newest layer; when that layer is full
/// (its count reached its capacity, or half its bits are set with
/// [`ScalableConfig::full_at_half_fill`]) a new layer is created first,
/// inside the same Lua script, so concurrent clients never grow the
/// chain twice. Layer `i` has the capacity, error, bits and `k` of the
/// in-memory filter's layer `i`, and [`RedisScalableBloomFilter::export`]
/// gives that filter bit for bit.
///
/// Keys are hashed here, once, and the client sends each key's positions
/// in every layer it knows of; when another client has grown the chain,
/// or a batch must open a layer the client sent no positions for, the
/// script changes nothing and the client retries with more layers (see
/// `scalable_scripts.rs` for why positions are not computed in Lua). A
/// batch is atomic: every key is inserted, or (on an error) none.
///
/// ```no_run
/// use bloomlab_redis::{Options, RedisScalableBloomFilter, connect};
/// use bloomlab_scalable::Config;
///
/// let conn = connect("redis://127.0.0.1:6379/", &Options::default())?;
/// // Starts at 1,000 items, 1 % overall, doubling as it fills.
/// let mut f = RedisScalableBloomFilter::create(
///     conn, "seen", Config::new(1_000, 0.01),
/// )?;
/// let keys: Vec<u64> = (0..10_000).collect();
/// for batch in keys.chunks(1_000) {
///     f.insert_many(batch)?; // one round trip (two when a layer is added)
/// }
/// assert!(f.contains(&42u64)?);
/// assert!(f.info()?.layers.len() > 1);
/// let local = f.export()?; // the same chain in memory
/// assert!(local.contains(&42u64.to_le_bytes()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RedisScalableBloomFilter {
    conn: Connection,
    name: String,
    config: ScalableConfig,
    prober: Prober,
    fields: [String; 16],
    config_key: String,
    chain_key: String,
    /// `{name}:layer:<i>` for every layer in `specs`.
    layer_keys: Vec<String>,
    /// The shapes of the first layers, as far as computed.
    specs: Vec<LayerSpec>,
    /// The layer count last seen in Redis.
    layers: usize,
    /// Reusable buffers: the keys' pairs, the packed offsets.
    pairs: Vec<(u64, u64)>,
    buf: Vec<u8>,
}

impl std::fmt::Debug for RedisScalableBloomFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisScalableBloomFilter")
            .field("name", &self.name)
            .field("config", &self.config)
            .field("layers", &self.layers)
            .finish_non_exhaustive()
    }
}

/// A scalable filter's state as stored in Redis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScalableInfo {
    /// Items newly inserted: the sum of the layers' counts.
    pub items: u64,
    /// Inserts that found the key (apparently) present.
    pub skipped: u64,
    /// The layers, oldest first.
    pub layers: Vec<ScalableLayerInfo>,
}

/// One layer in [`ScalableInfo`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScalableLayerInfo {
    /// Items it holds before the chain grows.
    pub capacity: u64,
    /// Its bits.
    pub bits: u64,
    /// Its modulus: `bits`, one slice of a partitioned layer, or the
    /// number of blocks of a blocked one.
    pub modulus: u64,
    /// Probes per key.
    pub k: u32,
    /// Items newly set in it.
    pub count: u64,
    /// Bits set.
    pub bits_set: u64,
}

impl RedisScalableBloomFilter {
    fn new(
        conn: Connection,
        name: &str,
        config: ScalableConfig,
    ) -> Result<RedisScalableBloomFilter> {
        check_name(name)?;
        let prober = Prober::new(&config)?;
        let mut f = RedisScalableBloomFilter {
            conn,
            name: name.to_owned(),
            fields: config_fields(&config),
            config,
            prober,
            config_key: config_key(name),
            chain_key: chain_key(name),
            layer_keys: Vec::new(),
            specs: Vec::new(),
            layers: 1,
            pairs: Vec::new(),
            buf: Vec::new(),
        };
        f.ensure_specs(1)?;
        Ok(f)
    }

    /// Checks what [`RedisScalableBloomFilter::create`] checks before it
    /// connects: the name, the configuration, and that the first layer
    /// fits a Redis string.
    pub fn check(name: &str, config: &ScalableConfig) -> Result<()> {
        check_name(name)?;
        Prober::new(config)?;
        let first = config.layer_specs(0)?;
        first.first().map_or(Ok(()), |s| check_layer(0, s.bits))
    }

    /// Creates scalable filter `name` with `config` and its first layer
    /// (allocated at full size, all clear). If it exists with the same
    /// parameters, opens it (untouched); with other parameters, fails with
    /// [`Error::AlreadyExists`].
    pub fn create(
        conn: Connection,
        name: &str,
        config: ScalableConfig,
    ) -> Result<RedisScalableBloomFilter> {
        let mut f = RedisScalableBloomFilter::new(conn, name, config)?;
        let _: i64 = f.call(Op::Create, &SCRIPTS.create, 1, &[])?;
        Ok(f)
    }

    /// Opens the existing scalable filter `name`, reading its parameters.
    /// Errors: [`Error::NotFound`], [`Error::WrongType`],
    /// [`Error::Orphan`], [`Error::BadConfig`].
    pub fn open(
        mut conn: Connection,
        name: &str,
    ) -> Result<RedisScalableBloomFilter> {
        check_name(name)?;
        let reply: Vec<Option<String>> = SCRIPTS
            .open
            .key(config_key(name))
            .key(chain_key(name))
            .invoke(&mut conn)
            .map_err(|e| script_error(e, name, Op::Use))?;
        if reply.len() != FIELDS.len() + 1 {
            return Err(Error::UnexpectedReply {
                what: "open",
                detail: format!("{} fields", reply.len()),
            });
        }
        let config = parse_config(name, &reply[..FIELDS.len()])?;
        let mut f = RedisScalableBloomFilter::new(conn, name, config)?;
        // The handle sends its own rendering of the fields; a hash written
        // otherwise (by hand) would never match, so say so now.
        for (i, (mine, stored)) in f.fields.iter().zip(&reply).enumerate() {
            if Some(mine) != stored.as_ref() {
                return Err(Error::BadConfig {
                    name: name.to_owned(),
                    field: FIELDS[i],
                    value: stored.clone().unwrap_or_default(),
                    reason: format!("not in canonical form ({mine:?})"),
                });
            }
        }
        let layers = reply[FIELDS.len()].as_deref().ok_or_else(|| {
            Error::BadConfig {
                name: name.to_owned(),
                field: "layers",
                value: "(missing)".to_owned(),
                reason: format!("the chain hash {} is missing", f.chain_key),
            }
        })?;
        f.layers = match layers.parse::<usize>() {
            Ok(n) if (1..=MAX_LAYERS).contains(&n) => n,
            _ => {
                return Err(Error::BadConfig {
                    name: name.to_owned(),
                    field: "layers",
                    value: layers.to_owned(),
                    reason: format!("not a layer count in 1..={MAX_LAYERS}"),
                });
            }
        };
        Ok(f)
    }

    /// Stores `filter` as scalable filter `name`: creates it with the
    /// filter's parameters, or checks that it has them
    /// ([`Error::AlreadyExists`] otherwise), then replaces the whole chain
    /// with the filter's layers, atomically. Every layer must be the one
    /// the config grows ([`ScalableConfig::layer_specs`]); a filter read
    /// from a RedisBloom dump whose layers were sized otherwise is
    /// refused with [`Error::InvalidParameter`].
    pub fn import(
        conn: Connection,
        name: &str,
        filter: &ScalableBloomFilter,
    ) -> Result<RedisScalableBloomFilter> {
        let mut f =
            RedisScalableBloomFilter::new(conn, name, *filter.config())?;
        let n = filter.layers().len();
        f.ensure_specs(n)?;
        for (i, (l, s)) in filter.layers().iter().zip(&f.specs).enumerate() {
            let same = l.capacity() == s.capacity
                && l.error().to_bits() == s.error.to_bits()
                && l.bits() == s.bits
                && l.k() == s.k
                && l.bits_per_entry().to_bits() == s.bits_per_entry.to_bits();
            if !same {
                return Err(Error::InvalidParameter {
                    name: "filter",
                    value: format!("layer {i}"),
                    reason: "its layers must be the ones its config grows",
                });
            }
        }
        // N, N counts, N ones, skipped, N bits strings.
        let mut extra: Vec<Vec<u8>> = vec![n.to_string().into_bytes()];
        for l in filter.layers() {
            extra.push(l.count().to_string().into_bytes());
        }
        for l in filter.layers() {
            extra.push(l.bits_set().to_string().into_bytes());
        }
        extra.push(filter.skipped().to_string().into_bytes());
        for l in filter.layers() {
            let a = l.bit_array();
            extra.push(bytes_of(a.words(), a.bit_len().div_ceil(8)));
        }
        let refs: Vec<&[u8]> = extra.iter().map(Vec::as_slice).collect();
        let mut p = n;
        loop {
            let reply: Vec<i64> =
                f.call(Op::Create, &SCRIPTS.import, p, &refs)?;
            match stale(&reply, p, "import")? {
                Some(need) => p = need,
                None => break,
            }
        }
        f.layers = n;
        Ok(f)
    }

    /// Reads the chain into an in-memory [`ScalableBloomFilter`] with the
    /// same parameters: the same layers, bits, counts and skipped count
    /// (so it answers `contains` as this filter does, and can be written
    /// in bloomlab's format or, for the RedisBloom preset, as RedisBloom's
    /// dump).
    pub fn export(&mut self) -> Result<ScalableBloomFilter> {
        let bad =
            |detail: String| Error::UnexpectedReply { what: "export", detail };
        let mut p = self.layers;
        let (reply, head) = loop {
            let reply: Vec<Value> =
                self.call(Op::Use, &SCRIPTS.export, p, &[])?;
            if reply.len() < 2 {
                return Err(bad(format!("{} values", reply.len())));
            }
            let head = ints(&reply[..2], "export")?;
            match stale(&head, p, "export")? {
                Some(need) => p = need,
                None => break (reply, head),
            }
        };
        let n = usize::try_from(head[0]).map_err(|e| bad(e.to_string()))?;
        if n < 1 || n > p || reply.len() != 2 + 3 * n {
            return Err(bad(format!("{} values for {n} layers", reply.len())));
        }
        let skipped =
            u64::try_from(head[1]).map_err(|e| bad(e.to_string()))?;
        let mut layers = Vec::with_capacity(n);
        for (i, spec) in self.specs[..n].iter().enumerate() {
            let r = &reply[2 + 3 * i..5 + 3 * i];
            let cv = ints(&r[..2], "export")?;
            let count =
                u64::try_from(cv[0]).map_err(|e| bad(e.to_string()))?;
            let ones = u64::try_from(cv[1]).map_err(|e| bad(e.to_string()))?;
            let bytes: Vec<u8> =
                redis::from_redis_value(&r[2]).map_err(Error::Redis)?;
            let bits = spec.bits;
            let words = crate::handle::words_of(
                &self.name,
                &bytes,
                bits.div_ceil(8),
                bits.div_ceil(64),
            )?;
            let array = BitArray::from_words(bits, words).map_err(|e| {
                Error::BadBits {
                    name: self.name.clone(),
                    reason: format!("layer {i}: bits beyond {bits}: {e}"),
                }
            })?;
            if array.count_ones() != ones {
                return Err(Error::BadBits {
                    name: self.name.clone(),
                    reason: format!(
                        "layer {i} has {} bits set, the chain says {ones}",
                        array.count_ones()
                    ),
                });
            }
            layers.push((array, count));
        }
        self.layers = n;
        Ok(ScalableBloomFilter::from_layers(self.config, layers, skipped)?)
    }

    /// The chain's state: items, skipped inserts, and each layer's shape,
    /// count and bits set. Every stored shape is checked against the
    /// config's formula ([`Error::BadConfig`] if one differs).
    pub fn info(&mut self) -> Result<ScalableInfo> {
        let mut inv = SCRIPTS.info.prepare_invoke();
        inv.key(&self.config_key).key(&self.chain_key);
        for f in &self.fields {
            inv.arg(f);
        }
        let reply: Vec<String> = inv
            .invoke(&mut self.conn)
            .map_err(|e| map_error(e, &self.name, Op::Use))?;
        let bad =
            |detail: String| Error::UnexpectedReply { what: "info", detail };
        let num = |s: &str| -> Result<u64> {
            s.parse().map_err(|_| bad(format!("{s:?} is not a number")))
        };
        let n = match reply.first() {
            Some(s) => {
                usize::try_from(num(s)?).map_err(|e| bad(e.to_string()))?
            }
            None => return Err(bad("an empty reply".into())),
        };
        if n < 1 || reply.len() != 2 + 6 * n {
            return Err(bad(format!("{} values for {n} layers", reply.len())));
        }
        self.ensure_specs(n)?;
        let mut layers = Vec::with_capacity(n);
        let mut items = 0u64;
        for i in 0..n {
            let r = &reply[2 + 6 * i..8 + 6 * i];
            let k = num(&r[3])?;
            let l = ScalableLayerInfo {
                capacity: num(&r[0])?,
                bits: num(&r[1])?,
                modulus: num(&r[2])?,
                k: u32::try_from(k).map_err(|e| bad(e.to_string()))?,
                count: num(&r[4])?,
                bits_set: num(&r[5])?,
            };
            let s = &self.specs[i];
            if (l.capacity, l.bits, l.modulus, l.k)
                != (s.capacity, s.bits, s.modulus, s.k)
            {
                return Err(Error::BadConfig {
                    name: self.name.clone(),
                    field: "layer",
                    value: format!("{i}: {l:?}"),
                    reason: format!("the config grows layer {i} as {s:?}"),
                });
            }
            items = items.saturating_add(l.count);
            layers.push(l);
        }
        self.layers = n;
        Ok(ScalableInfo { items, skipped: num(&reply[1])?, layers })
    }

    /// Adds a typed key (funnelled as Guava would), as the in-memory
    /// filter's `add`: `true` if it was newly inserted, `false` if some
    /// layer already reports it present (nothing inserted).
    /// [`Error::Full`] if the filter does not scale and is full.
    pub fn insert<T: Funnel + ?Sized>(&mut self, key: &T) -> Result<bool> {
        self.pairs.clear();
        let pair = key.with_bytes(|b| self.prober.pair(b));
        self.pairs.push(pair);
        Ok(self.insert_pairs()?[0] != 0)
    }

    /// Adds a key given as bytes; see [`RedisScalableBloomFilter::insert`].
    pub fn insert_bytes(&mut self, key: &[u8]) -> Result<bool> {
        self.insert(key)
    }

    /// Adds many keys, in order, in one round trip (one more each time a
    /// layer the handle did not know of is involved), atomically: on an
    /// error nothing is inserted. Returns how many were newly inserted.
    pub fn insert_many<T: Funnel>(&mut self, keys: &[T]) -> Result<usize> {
        if keys.is_empty() {
            return Ok(0);
        }
        self.pairs_of(keys);
        let out = self.insert_pairs()?;
        Ok(out.into_iter().filter(|&c| c != 0).count())
    }

    /// Whether a typed key may have been inserted (some layer has all its
    /// bits).
    pub fn contains<T: Funnel + ?Sized>(&mut self, key: &T) -> Result<bool> {
        self.pairs.clear();
        let pair = key.with_bytes(|b| self.prober.pair(b));
        self.pairs.push(pair);
        Ok(self.contains_pairs()?[0] != 0)
    }

    /// Whether a key given as bytes may have been inserted.
    pub fn contains_bytes(&mut self, key: &[u8]) -> Result<bool> {
        self.contains(key)
    }

    /// Answers [`RedisScalableBloomFilter::contains`] for many keys in one
    /// round trip (two if the chain grew since this handle last saw it).
    pub fn contains_many<T: Funnel>(
        &mut self,
        keys: &[T],
    ) -> Result<Vec<bool>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.pairs_of(keys);
        let out = self.contains_pairs()?;
        Ok(out.into_iter().map(|c| c != 0).collect())
    }

    /// Deletes the filter's keys (config, chain, every layer), after
    /// checking that it still has this handle's parameters.
    pub fn delete(mut self) -> Result<()> {
        let mut p = self.layers;
        loop {
            let reply: Vec<i64> =
                self.call(Op::Use, &SCRIPTS.delete, p, &[])?;
            match stale(&reply, p, "delete")? {
                Some(need) => p = need,
                None => return Ok(()),
            }
        }
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameters.
    pub fn config(&self) -> &ScalableConfig {
        &self.config
    }

    /// The key of the config hash, `{name}:config`.
    pub fn config_key(&self) -> &str {
        &self.config_key
    }

    /// The key of the chain hash, `{name}:chain`.
    pub fn chain_key(&self) -> &str {
        &self.chain_key
    }

    /// The layer count this handle last saw in Redis (the chain may have
    /// grown since; [`RedisScalableBloomFilter::info`] reads it).
    pub fn layers_seen(&self) -> usize {
        self.layers
    }

    /// The connection, for other commands.
    pub fn connection(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// Gives up the connection.
    pub fn into_connection(self) -> Connection {
        self.conn
    }

    /// Makes `specs` and `layer_keys` cover `p` layers; an error if a
    /// layer cannot be built or does not fit a Redis string.
    fn ensure_specs(&mut self, p: usize) -> Result<()> {
        if self.specs.len() >= p {
            return Ok(());
        }
        if p > MAX_LAYERS {
            return Err(bloomlab_scalable::Error::CannotGrow(format!(
                "a Redis scalable filter has at most {MAX_LAYERS} layers"
            ))
            .into());
        }
        let specs = self.config.layer_specs(p - 1)?;
        for (i, s) in specs.iter().enumerate().skip(self.specs.len()) {
            check_layer(i, s.bits)?;
            self.layer_keys.push(layer_key(&self.name, i));
        }
        self.specs = specs;
        Ok(())
    }

    fn pairs_of<T: Funnel>(&mut self, keys: &[T]) {
        self.pairs.clear();
        let prober = &self.prober;
        self.pairs
            .extend(keys.iter().map(|k| k.with_bytes(|b| prober.pair(b))));
    }

    /// Packs every key's Redis offsets in layers `0..p` into `buf`.
    fn pack(&mut self, p: usize) {
        self.buf.clear();
        let (prober, buf) = (&self.prober, &mut self.buf);
        for &pair in &self.pairs {
            for s in &self.specs[..p] {
                prober.positions(pair, s.modulus, s.k, |i| {
                    // i < bits <= 2^32 (ensure_specs), and so is its
                    // offset, which stays inside i's byte.
                    let o = redis_offset(i) as u32;
                    buf.extend_from_slice(&o.to_le_bytes());
                });
            }
        }
    }

    fn insert_pairs(&mut self) -> Result<Vec<i64>> {
        let n = self.pairs.len();
        let mut p = if self.config.scaling { self.layers.max(1) } else { 1 };
        loop {
            self.ensure_specs(p)?;
            self.pack(p);
            let buf = std::mem::take(&mut self.buf);
            let reply = self.call(Op::Use, &SCRIPTS.insert, p, &[&buf]);
            self.buf = buf;
            let reply: Vec<i64> = reply?;
            match reply.first() {
                Some(-2) => {
                    let need = need_of(&reply, p, "insert")?;
                    p = self.lookahead(need, n);
                }
                Some(-1) => p = need_of(&reply, p, "insert")?,
                _ => return self.answers(reply, n, "insert"),
            }
        }
    }

    fn contains_pairs(&mut self) -> Result<Vec<i64>> {
        let n = self.pairs.len();
        let mut p = self.layers.max(1);
        loop {
            self.ensure_specs(p)?;
            self.pack(p);
            let buf = std::mem::take(&mut self.buf);
            let reply = self.call(Op::Use, &SCRIPTS.contains, p, &[&buf]);
            self.buf = buf;
            let reply: Vec<i64> = reply?;
            match stale(&reply, p, "contains")? {
                Some(need) => p = need,
                None => return self.answers(reply, n, "contains"),
            }
        }
    }

    /// `{layers, per key}`: records the layer count, returns the answers.
    fn answers(
        &mut self,
        mut reply: Vec<i64>,
        n: usize,
        what: &'static str,
    ) -> Result<Vec<i64>> {
        let layers = reply.first().copied().unwrap_or_default();
        let layers = usize::try_from(layers).unwrap_or_default();
        if layers < 1 || reply.len() != n + 1 {
            return Err(Error::UnexpectedReply {
                what,
                detail: format!("{} values for {n} keys", reply.len()),
            });
        }
        self.layers = layers;
        reply.remove(0);
        Ok(reply)
    }

    /// Layers to send when a batch of `n` keys needs layer `need - 1`,
    /// just created: enough for every key to be new if layers fill by
    /// count, so one retry usually does. Not capped at a few more: with
    /// small layers (growth 1) a cap made a batch retry once per few
    /// layers, each retry resending every layer's positions (3,000 items
    /// into layers of 10 need 300 layers: 37 retries at 8 more a retry,
    /// one without the cap).
    fn lookahead(&mut self, need: usize, n: usize) -> usize {
        let mut p = need;
        let mut room = match self.ensure_specs(p) {
            Ok(()) => self.specs[p - 1].capacity,
            // The retry reports the error.
            Err(_) => return p,
        };
        while room < n as u64 && p < MAX_LAYERS {
            if self.ensure_specs(p + 1).is_err() {
                break;
            }
            room = room.saturating_add(self.specs[p].capacity);
            p += 1;
        }
        p
    }

    /// Runs a chain script with `KEYS = [config, chain, layers 0..p]` and
    /// `ARGV = fields ++ [p] ++ shapes of layers 0..p ++ extra`.
    fn call<T: redis::FromRedisValue>(
        &mut self,
        op: Op,
        script: &Script,
        p: usize,
        extra: &[&[u8]],
    ) -> Result<T> {
        self.ensure_specs(p)?;
        let mut inv = script.prepare_invoke();
        inv.key(&self.config_key).key(&self.chain_key);
        for k in &self.layer_keys[..p] {
            inv.key(k);
        }
        for f in &self.fields {
            inv.arg(f);
        }
        inv.arg(p);
        for s in &self.specs[..p] {
            inv.arg(s.capacity).arg(s.bits).arg(s.modulus).arg(s.k);
        }
        for e in extra {
            inv.arg(*e);
        }
        inv.invoke(&mut self.conn).map_err(|e| map_error(e, &self.name, op))
    }
}

/// `Some(L)` if the reply is `{-1, L}` or `{-2, L}` ("send `L` layers"),
/// `None` for any other reply.
fn stale(
    reply: &[i64],
    p: usize,
    what: &'static str,
) -> Result<Option<usize>> {
    match reply.first() {
        Some(-1 | -2) => need_of(reply, p, what).map(Some),
        _ => Ok(None),
    }
}

/// The `L` of a `{-1 | -2, L}` reply, which must exceed the `p` sent (so
/// every retry sends more layers, and the loop ends).
fn need_of(reply: &[i64], p: usize, what: &'static str) -> Result<usize> {
    match reply {
        [_, need] if usize::try_from(*need).is_ok_and(|n| n > p) => {
            Ok(*need as usize)
        }
        _ => Err(Error::UnexpectedReply {
            what,
            detail: format!("{reply:?} after sending {p} layers"),
        }),
    }
}

/// The integers of a reply's values (integers or numeric strings).
fn ints(values: &[Value], what: &'static str) -> Result<Vec<i64>> {
    values
        .iter()
        .map(|v| {
            redis::from_redis_value(v).map_err(|e| Error::UnexpectedReply {
                what,
                detail: e.to_string(),
            })
        })
        .collect()
}

/// Maps the scalable scripts' own error codes, then the shared ones.
fn map_error(e: RedisError, name: &str, op: Op) -> Error {
    let detail = e.detail().unwrap_or_default().trim().to_owned();
    match e.code() {
        Some("BLOOMLAB_FULL") => {
            let mut w = detail.split(' ');
            let at = w.next().and_then(|s| s.parse().ok());
            let capacity = w.next().and_then(|s| s.parse().ok());
            match (at, capacity) {
                (Some(at), Some(capacity)) => {
                    Error::Full { name: name.to_owned(), capacity, at }
                }
                _ => Error::Redis(e),
            }
        }
        Some("BLOOMLAB_CHAIN") => Error::BadConfig {
            name: name.to_owned(),
            field: "chain",
            value: detail,
            reason: "the chain hash or a layer is missing or incomplete"
                .to_owned(),
        },
        Some("BLOOMLAB_LAYER") => Error::BadConfig {
            name: name.to_owned(),
            field: "layer",
            value: detail,
            reason: "a stored layer is not the one the config grows (index, \
                     field, stored, expected)"
                .to_owned(),
        },
        _ => script_error(e, name, op),
    }
}

// The names of the config's enums in the config hash. The matches are
// exhaustive, so a new variant does not compile until it has a name; the
// lists are what `open` recognises (a unit test checks they agree).
fn layout_name(v: Layout) -> &'static str {
    match v {
        Layout::Standard => "standard",
        Layout::Partitioned => "partitioned",
        Layout::Blocked => "blocked",
    }
}
const LAYOUTS: [Layout; 3] =
    [Layout::Standard, Layout::Partitioned, Layout::Blocked];

fn sizing_name(v: Sizing) -> &'static str {
    match v {
        Sizing::RedisBloom => "redisbloom",
        Sizing::HalfFill => "half-fill",
        Sizing::Pybloom => "pybloom",
    }
}
const SIZINGS: [Sizing; 3] =
    [Sizing::RedisBloom, Sizing::HalfFill, Sizing::Pybloom];

fn pairing_name(v: Pairing) -> &'static str {
    match v {
        Pairing::Chained => "chained",
        Pairing::Single => "single",
    }
}
const PAIRINGS: [Pairing; 2] = [Pairing::Chained, Pairing::Single];

fn probe_name(v: Probe) -> &'static str {
    match v {
        Probe::Double => "double",
        Probe::EnhancedDouble => "enhanced-double",
        Probe::MixedDouble => "mixed-double",
    }
}
const PROBES: [Probe; 3] =
    [Probe::Double, Probe::EnhancedDouble, Probe::MixedDouble];

/// The variant of `all` named `s`.
fn pick<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    s: &str,
) -> Option<T> {
    all.iter().copied().find(|&v| name(v) == s)
}

/// The config hash's values, in [`FIELDS`] order. Floats are written as
/// Rust's shortest round-trip form, so they read back bit for bit.
fn config_fields(c: &ScalableConfig) -> [String; 16] {
    [
        SCALABLE_VARIANT.to_owned(),
        CONFIG_VERSION.to_string(),
        c.initial_capacity.to_string(),
        format!("{:?}", c.error),
        format!("{:?}", c.first_error),
        format!("{:?}", c.tightening),
        c.growth.to_string(),
        u8::from(c.scaling).to_string(),
        u8::from(c.full_at_half_fill).to_string(),
        layout_name(c.layout).to_owned(),
        sizing_name(c.sizing).to_owned(),
        c.family.name().to_owned(),
        c.seed.to_string(),
        pairing_name(c.pairing).to_owned(),
        probe_name(c.probe).to_owned(),
        c.reduction.name().to_owned(),
    ]
}

/// Reads the config fields (in [`FIELDS`] order) back into a config.
fn parse_config(
    name: &str,
    values: &[Option<String>],
) -> Result<ScalableConfig> {
    let get = |i: usize| -> Result<&str> {
        values.get(i).and_then(|v| v.as_deref()).ok_or_else(|| {
            Error::BadConfig {
                name: name.to_owned(),
                field: FIELDS[i],
                value: "(missing)".to_owned(),
                reason: "the field is missing".to_owned(),
            }
        })
    };
    let bad = |i: usize, reason: String| Error::BadConfig {
        name: name.to_owned(),
        field: FIELDS[i],
        value: values.get(i).cloned().flatten().unwrap_or_default(),
        reason,
    };
    let num = |i: usize| -> Result<u64> {
        get(i)?.parse().map_err(|e| bad(i, format!("{e}")))
    };
    let float = |i: usize| -> Result<f64> {
        get(i)?.parse().map_err(|e| bad(i, format!("{e}")))
    };
    let flag = |i: usize| -> Result<bool> {
        match get(i)? {
            "0" => Ok(false),
            "1" => Ok(true),
            _ => Err(bad(i, "expected 0 or 1".to_owned())),
        }
    };
    let unknown = |i: usize| bad(i, "unknown name".to_owned());
    if get(0)? != SCALABLE_VARIANT {
        return Err(bad(0, format!("expected {SCALABLE_VARIANT:?}")));
    }
    if get(1)? != CONFIG_VERSION.to_string() {
        return Err(bad(
            1,
            format!("this version reads version {CONFIG_VERSION}"),
        ));
    }
    let layout =
        pick(&LAYOUTS, layout_name, get(9)?).ok_or_else(|| unknown(9))?;
    let sizing =
        pick(&SIZINGS, sizing_name, get(10)?).ok_or_else(|| unknown(10))?;
    let pairing =
        pick(&PAIRINGS, pairing_name, get(13)?).ok_or_else(|| unknown(13))?;
    let probe =
        pick(&PROBES, probe_name, get(14)?).ok_or_else(|| unknown(14))?;
    let family =
        Family::from_name(get(11)?).map_err(|e| bad(11, e.to_string()))?;
    let reduction =
        Reduction::from_name(get(15)?).map_err(|e| bad(15, e.to_string()))?;
    let config = ScalableConfig {
        initial_capacity: num(2)?,
        error: float(3)?,
        first_error: float(4)?,
        tightening: float(5)?,
        growth: num(6)?,
        scaling: flag(7)?,
        full_at_half_fill: flag(8)?,
        layout,
        sizing,
        family,
        seed: num(12)?,
        pairing,
        probe,
        reduction,
    };
    config.validate().map_err(|e| {
        // Blame the field the refused parameter is stored in.
        let field = match &e {
            bloomlab_scalable::Error::InvalidParameter { name, .. } => {
                match *name {
                    "p" => 3,
                    "p0" => 4,
                    "r" => 5,
                    "s" => 6,
                    "sizing" => 10,
                    "family" => 11,
                    _ => 2,
                }
            }
            bloomlab_scalable::Error::Hash(_) => 12,
            _ => 2,
        };
        bad(field, e.to_string())
    })?;
    Ok(config)
}

/// Layer `i` of `bits` bits must fit one Redis string.
fn check_layer(i: usize, bits: u64) -> Result<()> {
    if bits > MAX_BITS {
        return Err(bloomlab_scalable::Error::CannotGrow(format!(
            "layer {i} needs {bits} bits; a Redis string holds at most 2^32"
        ))
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// Every config survives the config hash: rendered, parsed back,
    /// rendered again, the same strings and the same config.
    #[test]
    fn config_fields_round_trip() {
        let mut configs = Vec::new();
        for &layout in &LAYOUTS {
            for &sizing in &SIZINGS {
                for &pairing in &PAIRINGS {
                    for &probe in &PROBES {
                        let mut c = ScalableConfig::new(1000, 0.01)
                            .layout(layout)
                            .sizing(sizing)
                            .tightening(0.85)
                            .growth(3)
                            .full_at_half_fill(true);
                        c.pairing = pairing;
                        c.probe = probe;
                        if pairing == Pairing::Chained {
                            c = c.hash(Family::Murmur64A, 7);
                        }
                        configs.push(c);
                    }
                }
            }
        }
        configs.push(ScalableConfig::new(1, 1e-12).non_scaling());
        let mut checked = 0;
        for c in configs {
            if c.validate().is_err() {
                continue; // e.g. blocked layers with other sizings
            }
            let fields = config_fields(&c);
            let values: Vec<Option<String>> =
                fields.iter().cloned().map(Some).collect();
            let back = parse_config("t", &values).unwrap();
            assert_eq!(back, c);
            assert_eq!(config_fields(&back), fields);
            checked += 1;
        }
        assert!(checked >= 25, "{checked}");
    }
}
