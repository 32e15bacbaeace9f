//! `--redis URL --key NAME`: the filters `build`, `query` and `inspect`
//! keep in Redis instead of a file (`bloomlab-redis`), behind one type.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use bloomlab_counting::{CounterWidth, CountingBloomFilter};
use bloomlab_redis::redis::{self, Connection};
use bloomlab_redis::{
    COUNTING_VARIANT, Config, Options, RedisBloomFilter,
    RedisCountingBloomFilter, RedisScalableBloomFilter, SCALABLE_VARIANT,
    VARIANT, chain_key, config_key, layer_key,
};
use bloomlab_standard::Format;

use crate::cmd::anyfilter::AnyFilter;

/// The flags that name a filter in Redis, shared by `build`, `query` and
/// `inspect` (each makes them exclusive with its file flag).
#[derive(Debug, clap::Args)]
pub(crate) struct RedisArgs {
    /// Use the filter stored in Redis at URL (redis://host:port/db, or
    /// redis://user:password@host:port/db) instead of a file; needs
    /// --key.
    #[arg(long, value_name = "URL", requires = "key")]
    redis: Option<String>,
    /// The filter's name in Redis: its keys are {NAME}:config and
    /// {NAME}:bits ({NAME}:counters, or {NAME}:chain and
    /// {NAME}:layer:N), plus {NAME}:tmp inside batch inserts; one hash
    /// tag, so one Redis Cluster slot (connect to the node serving it:
    /// redirects are not followed).
    #[arg(long, value_name = "NAME", requires = "redis")]
    key: Option<String>,
    /// With --redis: give up connecting, or waiting for any one reply,
    /// after this many milliseconds.
    #[arg(
        long,
        value_name = "MS",
        requires = "redis",
        default_value_t = 5000,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    redis_timeout_ms: u64,
}

impl RedisArgs {
    /// The filter in Redis, if `--redis` was given (clap makes `--redis`
    /// and `--key` come together).
    pub(crate) fn target(&self) -> Option<Target<'_>> {
        match (&self.redis, &self.key) {
            (Some(url), Some(key)) => Some(Target {
                url,
                key,
                timeout: Duration::from_millis(self.redis_timeout_ms),
            }),
            _ => None,
        }
    }
}

/// Where a filter lives in Redis, and how long to wait for it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target<'a> {
    url: &'a str,
    /// The filter's name.
    pub(crate) key: &'a str,
    timeout: Duration,
}

impl Target<'_> {
    /// The URL as printed: without its password.
    pub(crate) fn shown_url(&self) -> String {
        bloomlab_redis::redact_url(self.url)
    }

    /// A connection whose every call fails after the timeout rather than
    /// hang (`bloomlab_redis::connect` sets socket timeouts).
    pub(crate) fn connect(&self) -> Result<Connection> {
        // A bad name is reported even when the server is unreachable.
        bloomlab_redis::check_name(self.key)
            .map_err(|e| anyhow::anyhow!("filter {:?}: {e}", self.key))?;
        let place = format!("connecting to {}", self.shown_url());
        let options = Options {
            connect_timeout: self.timeout,
            response_timeout: Some(self.timeout),
        };
        // The client bounds each step of its handshake by the timeout,
        // not the whole (a silent server costs two timeouts): waiting on
        // a thread bounds the whole. A thread still stuck then ends with
        // the process.
        let url = self.url.to_owned();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("redis-connect".into())
            .spawn(move || {
                let _ = tx.send(bloomlab_redis::connect(&url, &options));
            })
            .with_context(|| format!("{place}: starting a thread"))?;
        match rx.recv_timeout(self.timeout) {
            Ok(conn) => conn.map_err(|e| self.message(&e, &place)),
            Err(_) => bail!(
                "{place}: no answer within {} ms (--redis-timeout-ms)",
                self.timeout.as_millis()
            ),
        }
    }

    /// `e` while doing `what` (a verb) to the filter.
    pub(crate) fn error(
        &self,
        e: bloomlab_redis::Error,
        what: &str,
    ) -> anyhow::Error {
        let place =
            format!("{what} filter {:?} in {}", self.key, self.shown_url());
        self.message(&e, &place)
    }

    /// One line: `e`'s message (`Error::Redis` includes the client's);
    /// a timeout says which flag bounds it, since the socket's message
    /// ("Resource temporarily unavailable") does not.
    fn message(
        &self,
        e: &bloomlab_redis::Error,
        place: &str,
    ) -> anyhow::Error {
        let timeout = matches!(e, bloomlab_redis::Error::Redis(r)
            if r.is_timeout());
        if timeout {
            anyhow::anyhow!(
                "{place}: no answer within {} ms (--redis-timeout-ms): {e}",
                self.timeout.as_millis()
            )
        } else {
            anyhow::anyhow!("{place}: {e}")
        }
    }
}

/// The variants `--redis` stores, with what they need to be created.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Spec {
    /// A classic filter of `m` bits (`RedisBloomFilter`).
    Standard {
        /// Hashing.
        config: Config,
        /// Bits.
        m: u64,
        /// Probes per key.
        k: u32,
    },
    /// A counting filter of `m` 4-bit counters
    /// (`RedisCountingBloomFilter`).
    Counting {
        /// Hashing.
        config: Config,
        /// Counters.
        m: u64,
        /// Probes per key.
        k: u32,
    },
    /// A chain of layers growing as it fills
    /// (`RedisScalableBloomFilter`).
    Scalable(bloomlab_scalable::Config),
}

impl Spec {
    /// Checks the filter's name and parameters as creating it would,
    /// without a server, so a bad one is reported even when the server
    /// cannot be reached.
    pub(crate) fn check(&self, name: &str) -> bloomlab_redis::Result<()> {
        match self {
            Spec::Standard { config, m, k } => {
                RedisBloomFilter::check(name, *config, *m, *k)
            }
            Spec::Counting { config, m, k } => {
                RedisCountingBloomFilter::check(name, *config, *m, *k)
            }
            Spec::Scalable(config) => {
                RedisScalableBloomFilter::check(name, config)
            }
        }
    }
}

/// A filter in Redis of any variant the CLI knows. A new variant is one
/// arm in each `match` below plus its `variant` value in
/// [`RedisFilter::open`].
pub(crate) enum RedisFilter {
    /// `bloomlab_redis::RedisBloomFilter`.
    Standard(RedisBloomFilter),
    /// `bloomlab_redis::RedisCountingBloomFilter`.
    Counting(RedisCountingBloomFilter),
    /// `bloomlab_redis::RedisScalableBloomFilter` (boxed: it is the
    /// largest by far).
    Scalable(Box<RedisScalableBloomFilter>),
}

impl RedisFilter {
    /// Creates the filter, or opens it if it exists with exactly these
    /// parameters (its contents kept); other parameters are the crate's
    /// `AlreadyExists` error and nothing changes.
    pub(crate) fn create(
        conn: Connection,
        name: &str,
        spec: Spec,
    ) -> bloomlab_redis::Result<RedisFilter> {
        Ok(match spec {
            Spec::Standard { config, m, k } => RedisFilter::Standard(
                RedisBloomFilter::create(conn, name, config, m, k)?,
            ),
            Spec::Counting { config, m, k } => RedisFilter::Counting(
                RedisCountingBloomFilter::create(conn, name, config, m, k)?,
            ),
            Spec::Scalable(config) => RedisFilter::Scalable(Box::new(
                RedisScalableBloomFilter::create(conn, name, config)?,
            )),
        })
    }

    /// Opens the existing filter `target.key`, of whichever variant its
    /// config hash names.
    pub(crate) fn open(
        mut conn: Connection,
        target: Target<'_>,
    ) -> Result<Self> {
        let name = target.key;
        let opening = |e| target.error(e, "opening");
        // One read to pick the handle; the handle's own open then checks
        // every field, atomically.
        let variant: redis::RedisResult<Option<String>> = redis::cmd("HGET")
            .arg(config_key(name))
            .arg("variant")
            .query(&mut conn);
        let variant = match variant {
            Ok(v) => v,
            // An error reply (a key of another type): the handle's open
            // below reports it as a typed error.
            Err(e) if e.code().is_some() => None,
            Err(e) => return Err(opening(e.into())),
        };
        Ok(match variant.as_deref() {
            Some(COUNTING_VARIANT) => RedisFilter::Counting(
                RedisCountingBloomFilter::open(conn, name).map_err(opening)?,
            ),
            Some(SCALABLE_VARIANT) => RedisFilter::Scalable(Box::new(
                RedisScalableBloomFilter::open(conn, name).map_err(opening)?,
            )),
            // A missing filter or key of another type: the standard
            // open's typed error says which.
            Some(VARIANT) | None => RedisFilter::Standard(
                RedisBloomFilter::open(conn, name).map_err(opening)?,
            ),
            Some(other) => bail!(
                "opening filter {name:?} in {}: its variant is {other:?}, \
                 which this bloomlab cannot use with --redis (it knows \
                 {VARIANT:?}, {COUNTING_VARIANT:?} and {SCALABLE_VARIANT:?})",
                target.shown_url()
            ),
        })
    }

    /// `standard`, `counting` or `scalable`, as `Filter::variant` names
    /// them.
    pub(crate) fn variant(&self) -> &'static str {
        match self {
            RedisFilter::Standard(_) => "standard",
            RedisFilter::Counting(_) => "counting",
            RedisFilter::Scalable(_) => "scalable",
        }
    }

    /// Bits (counters) and probes per key, as the file build reports
    /// them: for a scalable filter, the bits of every layer and the
    /// newest layer's `k` (one round trip, as the chain may have grown).
    pub(crate) fn shape(&mut self) -> bloomlab_redis::Result<(u64, u32)> {
        Ok(match self {
            RedisFilter::Standard(f) => (f.bits(), f.hash_count()),
            RedisFilter::Counting(f) => (f.counters(), f.hash_count()),
            RedisFilter::Scalable(f) => {
                let info = f.info()?;
                let bits = info.layers.iter().map(|l| l.bits).sum();
                (bits, info.layers.last().map_or(0, |l| l.k))
            }
        })
    }

    /// Inserts `keys` in one round trip, atomically; returns how many
    /// inserts changed the filter, counted as if one after another.
    pub(crate) fn insert_many(
        &mut self,
        keys: &[Vec<u8>],
    ) -> bloomlab_redis::Result<usize> {
        match self {
            RedisFilter::Standard(f) => f.insert_many(keys),
            RedisFilter::Counting(f) => f.insert_many(keys),
            RedisFilter::Scalable(f) => f.insert_many(keys),
        }
    }

    /// Answers `contains` for `keys` in one round trip.
    pub(crate) fn contains_many(
        &mut self,
        keys: &[Vec<u8>],
    ) -> bloomlab_redis::Result<Vec<bool>> {
        match self {
            RedisFilter::Standard(f) => f.contains_many(keys),
            RedisFilter::Counting(f) => f.contains_many(keys),
            RedisFilter::Scalable(f) => f.contains_many(keys),
        }
    }

    /// The filter's contents as the in-memory filter the file commands
    /// use, so `inspect` describes both the same way.
    pub(crate) fn export(&mut self, target: Target<'_>) -> Result<AnyFilter> {
        let reading = |e| target.error(e, "reading");
        Ok(match self {
            RedisFilter::Standard(f) => AnyFilter::Standard(
                f.export().map_err(reading)?.into(),
                Format::Native,
            ),
            RedisFilter::Counting(f) => {
                let words = f.export_words().map_err(reading)?;
                AnyFilter::Counting(counting_from_words(
                    f.config(),
                    f.counters(),
                    f.hash_count(),
                    &words,
                )?)
            }
            RedisFilter::Scalable(f) => {
                AnyFilter::Scalable(f.export().map_err(reading)?)
            }
        })
    }

    /// Fields of the in-memory description that Redis does not keep:
    /// a Redis counting filter counts no inserts or removes, so the
    /// exported filter's statistics would be zeros, not facts.
    pub(crate) fn untracked_fields(&self) -> &'static [&'static str] {
        match self {
            // A scalable chain keeps its counts and skipped inserts.
            RedisFilter::Standard(_) | RedisFilter::Scalable(_) => &[],
            RedisFilter::Counting(_) => &[
                "inserts",
                "removes",
                "rejected_removes",
                "saturation_events",
                "skipped_decrements",
            ],
        }
    }

    /// Bytes the filter's keys take in Redis (`MEMORY USAGE`, summed),
    /// or `None` where the server refuses that command.
    pub(crate) fn redis_bytes(self) -> bloomlab_redis::Result<Option<u64>> {
        let (keys, mut conn) = match self {
            RedisFilter::Standard(f) => (
                vec![f.config_key().to_owned(), f.bits_key().to_owned()],
                f.into_connection(),
            ),
            RedisFilter::Counting(f) => (
                vec![config_key(f.name()), f.counters_key().to_owned()],
                f.into_connection(),
            ),
            RedisFilter::Scalable(f) => {
                let name = f.name().to_owned();
                let layers = (0..f.layers_seen()).map(|i| layer_key(&name, i));
                let keys = [config_key(&name), chain_key(&name)]
                    .into_iter()
                    .chain(layers)
                    .collect();
                (keys, f.into_connection())
            }
        };
        let mut total = 0u64;
        for key in keys {
            let used: redis::RedisResult<Option<u64>> = redis::cmd("MEMORY")
                .arg("USAGE")
                .arg(&key)
                .arg("SAMPLES")
                .arg(0)
                .query(&mut conn);
            match used {
                Ok(n) => total += n.unwrap_or(0),
                // Renamed or disabled by the server's configuration.
                Err(e) if e.code().is_some() => return Ok(None),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(Some(total))
    }
}

/// The in-memory counting filter holding `words` (4-bit counters packed
/// as `CountingBloomFilter::words`), which checks them.
fn counting_from_words(
    config: Config,
    m: u64,
    k: u32,
    words: &[u64],
) -> Result<CountingBloomFilter> {
    Ok(CountingBloomFilter::from_words(
        config,
        CounterWidth::Four,
        m,
        k,
        words.to_vec(),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_not_shown() {
        let redact = bloomlab_redis::redact_url;
        assert_eq!(
            redact("redis://user:secret@host:6379/0"),
            "redis://user:***@host:6379/0"
        );
        assert_eq!(redact("redis://:pw@h/"), "redis://:***@h/");
        assert_eq!(redact("redis://:p/w?x@h/"), "redis://:***@h/");
        assert_eq!(redact("redis://:p@w@h/"), "redis://:***@h/");
        assert_eq!(redact("redis://h:1/"), "redis://h:1/");
        assert_eq!(redact("redis://u@h"), "redis://u@h");
        assert_eq!(
            redact("redis+unix:///r.sock?PASSWORD=x&db=2"),
            "redis+unix:///r.sock?PASSWORD=***&db=2"
        );
        assert_eq!(redact("not a url"), "not a url");
    }

    #[test]
    fn counting_words_are_checked() {
        let config = Config::default();
        let mut f = CountingBloomFilter::with_config(
            config,
            CounterWidth::Four,
            100,
            3,
        )
        .unwrap();
        for i in 0..40u64 {
            f.insert(&i);
        }
        let back = counting_from_words(config, 100, 3, f.words()).unwrap();
        assert_eq!(back.words(), f.words());
        assert_eq!(back.nonzero_counters(), f.nonzero_counters());
        // A counter set beyond m is refused by the reader.
        let mut bad = f.words().to_vec();
        *bad.last_mut().unwrap() |= 0xf << 60;
        assert!(counting_from_words(config, 100, 3, &bad).is_err());
        assert!(counting_from_words(config, 100, 3, &bad[1..]).is_err());
    }
}
