//! The error type of `bloomlab-scalable`.

/// What can go wrong building, growing, reading or writing a scalable
/// filter.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter is outside its domain.
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name (`n0`, `p`, `r`, `s`, ...).
        name: &'static str,
        /// The offending value, printed.
        value: String,
        /// What the value must satisfy.
        reason: &'static str,
    },
    /// `BF.RESERVE` would refuse these arguments; the message is
    /// RedisBloom's reply, verbatim.
    #[error("{0}")]
    Reserve(&'static str),
    /// A non-scaling filter is full and the item is not (apparently)
    /// present: RedisBloom's `ERR non scaling filter is full`.
    #[error("ERR non scaling filter is full")]
    Full,
    /// The next layer cannot be built (its capacity overflows 64 bits,
    /// its error underflows, or its bits cannot be allocated).
    #[error("the filter cannot grow: {0}")]
    CannotGrow(String),
    /// The filter has no RedisBloom representation (layout, hashing or
    /// sizing differ from RedisBloom's).
    #[error("not a RedisBloom-compatible filter: {0}")]
    NotRedisBloom(&'static str),
    /// A `BF.SCANDUMP` sequence is malformed (RedisBloom answers `ERR
    /// received bad data` and friends).
    #[error("bad RedisBloom dump: {0}")]
    BadDump(String),
    /// The file holds another bloomlab variant (standard, blocked,
    /// counting, partitioned) or a Guava filter: the message names it
    /// and the reader that takes it.
    #[error(
        "the file holds {holds}, not a scalable filter (variant 4): read \
         it with {reader}"
    )]
    WrongVariant {
        /// What the file holds (`a standard filter (variant 0)`, ...).
        holds: &'static str,
        /// The reader to use instead.
        reader: &'static str,
    },
    /// A native file is corrupt or does not describe a valid filter.
    #[error("corrupt {what}: {reason}")]
    Corrupt {
        /// The field being read.
        what: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// Framing error of a native file (truncation, I/O, bad names).
    #[error(transparent)]
    Format(#[from] bloomlab_core::framing::Error),
    /// From `bloomlab-core` (bit arrays, theory).
    #[error(transparent)]
    Core(#[from] bloomlab_core::Error),
    /// From `bloomlab-hash` (families, seeds).
    #[error(transparent)]
    Hash(#[from] bloomlab_hash::Error),
}

impl Error {
    pub(crate) fn invalid(
        name: &'static str,
        value: impl std::fmt::Display,
        reason: &'static str,
    ) -> Error {
        Error::InvalidParameter {
            name,
            value: bloomlab_core::param_value(value),
            reason,
        }
    }

    pub(crate) fn corrupt(
        what: &'static str,
        reason: impl Into<String>,
    ) -> Error {
        Error::Corrupt { what, reason: reason.into() }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
