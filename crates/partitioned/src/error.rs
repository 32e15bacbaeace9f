//! The error type of `bloomlab-partitioned`.

use bloomlab_core::framing;

/// What went wrong in `bloomlab-partitioned`: bad parameters, a hutool
/// configuration that hutool itself cannot run, incompatible filters, or
/// a serialized filter that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A hashing choice was refused (unknown name, bad seed, a strategy
    /// that cannot be combined with the family or reduction).
    #[error(transparent)]
    Hash(#[from] bloomlab_hash::Error),
    /// Storage or a formula was refused (zero bits, a filter too large
    /// for this machine, a parameter outside a formula's domain).
    #[error(transparent)]
    Core(#[from] bloomlab_core::Error),
    /// A parameter outside its range.
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: String,
        /// What the value must satisfy.
        reason: &'static str,
    },
    /// A hutool configuration that hutool itself cannot run: it would
    /// throw (at construction or on the first `add`/`contains`), or it
    /// would silently build a filter of another size than asked for.
    /// The README's "hutool edge cases" table lists every case.
    #[error("{constructor}: {reason} (hutool: {hutool})")]
    Hutool {
        /// The Java constructor call, e.g. `new BitMapBloomFilter(4)`.
        constructor: String,
        /// Why bloomlab refuses it.
        reason: &'static str,
        /// What hutool 5.8.34 does instead.
        hutool: &'static str,
    },
    /// Union of filters that differ in a parameter.
    #[error("incompatible filters: {what} differs ({left} versus {right})")]
    Incompatible {
        /// The parameter that differs (`slices`, `hashing`, ...).
        what: &'static str,
        /// This filter's value.
        left: String,
        /// The other filter's value.
        right: String,
    },
    /// The input ended before the structure it describes.
    #[error(
        "truncated input: {what} needs {needed} bytes at offset {offset}, \
         only {available} remain"
    )]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Where it starts.
        offset: u64,
        /// Bytes it needs.
        needed: u64,
        /// Bytes left in the input.
        available: u64,
    },
    /// Bytes left over after a complete filter.
    #[error("{extra} trailing bytes after a filter of {expected} bytes")]
    TrailingBytes {
        /// The filter's length.
        expected: u64,
        /// Bytes beyond it.
        extra: u64,
    },
    /// The input does not start with bloomlab's magic `BLOOMLAB`.
    #[error("not a bloomlab filter file (first bytes {0})")]
    UnknownFormat(String),
    /// A file of a format version this build cannot read.
    #[error("unsupported bloomlab format version {0} (this build reads 1)")]
    UnsupportedVersion(u16),
    /// A bloomlab file of another variant (standard, counting, ...).
    #[error(
        "filter variant {0} is not a partitioned filter (variant 3); \
         read it with the crate of its variant"
    )]
    WrongVariant(u8),
    /// A file holds another of this crate's filters than the reader's
    /// (`HutoolBitSet::read` of a general filter's file, ...).
    #[error(
        "the file holds a {found} filter, not a {expected} one: read it \
         with AnyPartitioned::read, which takes any"
    )]
    WrongPreset {
        /// The filter the reader makes.
        expected: &'static str,
        /// The filter the file holds.
        found: &'static str,
    },
    /// A field of a serialized filter holds an impossible value.
    #[error("corrupt input: {what} = {value}: {reason}")]
    Corrupt {
        /// The field.
        what: &'static str,
        /// The value read.
        value: String,
        /// Why it cannot be.
        reason: &'static str,
    },
    /// The stored checksum does not match the bytes.
    #[error(
        "checksum mismatch: stored {stored:#018x}, computed {computed:#018x}"
    )]
    Checksum {
        /// The checksum in the input.
        stored: u64,
        /// The checksum of the bytes before it.
        computed: u64,
    },
    /// Writing failed.
    // The message includes the inner error's, so it is not also
    // `source()`: a reporter walking the chain would say it twice.
    #[error("write failed: {0}")]
    Io(std::io::Error),
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Io(e)
    }
}

impl Error {
    /// Shorthand for [`Error::InvalidParameter`].
    pub(crate) fn invalid(
        name: &'static str,
        value: impl ToString,
        reason: &'static str,
    ) -> Error {
        Error::InvalidParameter {
            name,
            value: bloomlab_core::param_value(value),
            reason,
        }
    }

    /// Shorthand for [`Error::Corrupt`].
    pub(crate) fn corrupt(
        what: &'static str,
        value: impl ToString,
        reason: &'static str,
    ) -> Error {
        Error::Corrupt { what, value: value.to_string(), reason }
    }
}

/// Framing errors become this crate's own variants, which callers match.
impl From<framing::Error> for Error {
    fn from(e: framing::Error) -> Error {
        use framing::Error as F;
        match e {
            F::Truncated { what, offset, needed, available } => {
                Error::Truncated { what, offset, needed, available }
            }
            F::Corrupt { what, value, reason } => {
                Error::Corrupt { what, value, reason }
            }
            F::InvalidParameter { name, value, reason } => {
                Error::InvalidParameter { name, value, reason }
            }
            F::Io(e) => Error::Io(e),
        }
    }
}
