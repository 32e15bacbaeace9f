//! The error type of `bloomlab-counting`.

use bloomlab_core::framing;

/// What went wrong in `bloomlab-counting`: bad parameters, a delete the
/// filter can prove wrong, incompatible filters, or a serialized filter
/// that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A hashing choice was refused (unknown name, bad seed, a strategy
    /// that cannot be combined with the family or reduction).
    #[error(transparent)]
    Hash(#[from] bloomlab_hash::Error),
    /// Sizing or storage was refused (bad `n` or `p`, too many hash
    /// functions, a filter too large for this machine).
    #[error(transparent)]
    Core(#[from] bloomlab_core::Error),
    /// An error of `bloomlab-standard` with no counterpart here (building
    /// the standard filter of [`crate::CountingBloomFilter::to_standard`]).
    #[error(transparent)]
    Standard(bloomlab_standard::Error),
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
    /// `remove` of a key that is certainly not in the filter: one of its
    /// counters is zero (or, when two probes of the key share a counter,
    /// below the number of probes on it). Nothing was changed.
    #[error(
        "cannot remove a key that is not in the filter: counter {counter} \
         (probe {probe} of the key) is {value}"
    )]
    NotPresent {
        /// The counter that proves the key absent.
        counter: u64,
        /// Which of the key's probes found it (0-based).
        probe: u32,
        /// Its value when the probe reached it.
        value: u64,
    },
    /// Union of filters that differ in a parameter.
    #[error("incompatible filters: {what} differs ({left} versus {right})")]
    Incompatible {
        /// The parameter that differs (`m`, `k`, `counter bits`, ...).
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
    /// The input does not start with bloomlab's magic.
    #[error("not a bloomlab file (unrecognised first bytes {0})")]
    UnknownFormat(String),
    /// A file of a format version this build cannot read.
    #[error("unsupported bloomlab format version {0} (this build reads 1)")]
    UnsupportedVersion(u16),
    /// A bloomlab file of another variant (standard, partitioned, ...).
    #[error(
        "filter variant {0} is not a counting filter (variant 2); read it \
         with the crate of its variant"
    )]
    WrongVariant(u8),
    /// A field of a serialized filter holds an impossible value.
    #[error("corrupt filter: {field} = {value}: {reason}")]
    Corrupt {
        /// The field.
        field: &'static str,
        /// The value read.
        value: String,
        /// Why it is impossible.
        reason: &'static str,
    },
    /// The checksum does not match the contents.
    #[error(
        "checksum mismatch: stored {stored:#018x}, computed {computed:#018x}"
    )]
    Checksum {
        /// Checksum stored in the file.
        stored: u64,
        /// Checksum of the bytes read.
        computed: u64,
    },
    /// Reading or writing a stream failed.
    // The message includes the inner error's, so it is not also
    // `source()`: a reporter walking the chain would say it twice.
    #[error("I/O error: {0}")]
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

    pub(crate) fn corrupt(
        field: &'static str,
        value: impl ToString,
        reason: &'static str,
    ) -> Error {
        Error::Corrupt { field, value: value.to_string(), reason }
    }
}

/// Errors of `bloomlab-standard` (its probes, and the standard filter of
/// [`crate::CountingBloomFilter::to_standard`]) become this crate's own
/// variants where there is one.
impl From<bloomlab_standard::Error> for Error {
    fn from(e: bloomlab_standard::Error) -> Error {
        use bloomlab_standard::Error as S;
        match e {
            S::Hash(e) => Error::Hash(e),
            S::Core(e) => Error::Core(e),
            S::InvalidParameter { name, value, reason } => {
                Error::InvalidParameter { name, value, reason }
            }
            S::Truncated { what, offset, needed, available } => {
                Error::Truncated { what, offset, needed, available }
            }
            S::Corrupt { field, value, reason } => {
                Error::Corrupt { field, value, reason }
            }
            S::Io(e) => Error::Io(e),
            other => Error::Standard(other),
        }
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
                Error::Corrupt { field: what, value, reason }
            }
            F::InvalidParameter { name, value, reason } => {
                Error::InvalidParameter { name, value, reason }
            }
            F::Io(e) => Error::Io(e),
        }
    }
}
