//! The error type of `bloomlab-redis`.

/// What went wrong in `bloomlab-redis`: the server (connection, timeout,
/// a refused command), the filter's keys (missing, of the wrong type,
/// re-created with other parameters) or the parameters themselves.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The connection or a command failed: refused or dropped connection,
    /// a timeout ([`Options`](crate::Options)), an error reply. The
    /// connection should not be reused after an I/O error or a timeout.
    // The message includes the inner error's, so it is not also
    // `source()`: a reporter walking the chain would say it twice.
    #[error("redis: {0}")]
    Redis(redis::RedisError),
    /// The in-memory filter refused the parameters or the bits.
    #[error(transparent)]
    Standard(#[from] bloomlab_standard::Error),
    /// The hashing configuration was refused.
    #[error(transparent)]
    Hash(#[from] bloomlab_hash::Error),
    /// No filter of that name: its config hash does not exist.
    #[error("no Redis filter named {name:?} (key {key:?} does not exist)")]
    NotFound {
        /// The filter's name.
        name: String,
        /// The config key that is missing.
        key: String,
    },
    /// One of the filter's keys holds another Redis type.
    #[error(
        "key {key:?} holds a Redis {found}, not a bloomlab filter's {expected}"
    )]
    WrongType {
        /// The key.
        key: String,
        /// The type Redis reports (`list`, `zset`, ...).
        found: String,
        /// The type the filter needs there (`hash` or `string`).
        expected: &'static str,
    },
    /// The filter's bits key exists but its config hash does not: the
    /// name is taken by something that is not a bloomlab filter.
    #[error("key {key:?} exists without its config hash {config:?}")]
    Orphan {
        /// The bits key.
        key: String,
        /// The config key that is missing.
        config: String,
    },
    /// The filter's config hash exists but its data key does not: it was
    /// deleted, expired or evicted (a server whose `maxmemory-policy`
    /// evicts keys can drop it). Its contents are lost; answering from
    /// nothing would report every member absent, so nothing is answered.
    #[error(
        "the filter's data key {key:?} is gone (deleted, expired or \
         evicted), so its contents are lost; delete {config:?} and build \
         the filter again"
    )]
    Lost {
        /// The data key that is missing.
        key: String,
        /// The filter's config key.
        config: String,
    },
    /// A key the filter reserves holds something it did not write: the
    /// scratch key `{name}:tmp` of a dense batch insert, or the key of a
    /// scalable filter's next layer. Nothing was changed.
    #[error(
        "key {key:?} is reserved for the filter's {role} but holds data; \
         rename or delete it (nothing was changed)"
    )]
    KeyInUse {
        /// The key.
        key: String,
        /// What the filter needs it for.
        role: &'static str,
    },
    /// The filter was deleted and re-created (or edited) with other
    /// parameters since this handle opened it; nothing was changed.
    #[error(
        "filter {name:?} was re-created with other parameters: {field} is \
         {stored:?} in Redis, this handle has {expected:?}"
    )]
    ConfigChanged {
        /// The filter's name.
        name: String,
        /// The first field that differs.
        field: String,
        /// The value in Redis (`(missing)` if absent).
        stored: String,
        /// This handle's value.
        expected: String,
    },
    /// `create` or `import` found a filter of that name with other
    /// parameters; nothing was changed.
    #[error(
        "filter {name:?} already exists with other parameters: {field} is \
         {stored:?} in Redis, requested {requested:?}"
    )]
    AlreadyExists {
        /// The filter's name.
        name: String,
        /// The first field that differs.
        field: String,
        /// The value in Redis (`(missing)` if absent).
        stored: String,
        /// The requested value.
        requested: String,
    },
    /// A counting filter refused to remove a key that is certainly
    /// absent: one of its counters is zero. Nothing changed.
    #[error(
        "filter {name:?}: key not present (probe {probe} found counter \
         {counter} at zero)"
    )]
    NotPresent {
        /// The filter's name.
        name: String,
        /// The zero counter (bloomlab's numbering).
        counter: u64,
        /// Which of the key's probes found it (0-based).
        probe: u32,
    },
    /// The config hash cannot be read as a filter's parameters.
    #[error("filter {name:?}: config field {field} = {value:?}: {reason}")]
    BadConfig {
        /// The filter's name.
        name: String,
        /// The field.
        field: &'static str,
        /// Its value in Redis (`(missing)` if absent).
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The bits in Redis do not fit the filter's `m`.
    #[error("filter {name:?}: bad bits: {reason}")]
    BadBits {
        /// The filter's name.
        name: String,
        /// What is wrong with them.
        reason: String,
    },
    /// A parameter outside what a Redis filter supports.
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: String,
        /// What the value must satisfy.
        reason: &'static str,
    },
    /// The server answered with a reply of an unexpected shape.
    #[error("unexpected reply to {what}: {detail}")]
    UnexpectedReply {
        /// The operation.
        what: &'static str,
        /// What was wrong with the reply.
        detail: String,
    },
    /// A non-scaling scalable filter is full and a key that is not
    /// (apparently) present does not fit; the whole call changed nothing.
    #[error(
        "filter {name:?} is full: it does not scale, and its capacity is \
         {capacity} items (key {number} of the batch, counting from 1, does \
         not fit; nothing of the batch was inserted)",
        number = .at + 1
    )]
    Full {
        /// The filter's name.
        name: String,
        /// Its one layer's capacity.
        capacity: u64,
        /// The position in the batch of the first key that does not fit,
        /// from 0.
        at: usize,
    },
    /// From `bloomlab-scalable`: parameters it refuses, a layer the chain
    /// cannot grow, a RedisBloom dump it cannot read or write.
    #[error(transparent)]
    Scalable(#[from] bloomlab_scalable::Error),
    /// The server does not know a RedisBloom command: the module is not
    /// loaded. Nothing was changed.
    #[error("the server has no RedisBloom module ({command} unknown)")]
    NoRedisBloom {
        /// The command the server refused (`BF.SCANDUMP`, ...).
        command: &'static str,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<redis::RedisError> for Error {
    fn from(e: redis::RedisError) -> Error {
        Error::Redis(e)
    }
}

#[cfg(test)]
mod tests {
    use super::Error;

    /// The client's error is in the message, and not again as a source.
    #[test]
    fn redis_errors_say_the_cause_once() {
        let refused =
            std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        let text = refused.to_string();
        let e = Error::from(redis::RedisError::from(refused));
        assert_eq!(e.to_string(), format!("redis: {text}"));
        assert!(std::error::Error::source(&e).is_none());
    }
}
