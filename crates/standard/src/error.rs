//! The error type of `bloomlab-standard`.

use bloomlab_core::framing;

/// What went wrong in `bloomlab-standard`: bad parameters, incompatible
/// filters, or a serialized filter that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A hashing choice was refused (unknown name, bad seed, a strategy
    /// that cannot be combined with the family or reduction).
    #[error(transparent)]
    Hash(#[from] bloomlab_hash::Error),
    /// Sizing or storage was refused (bad `n` or `p`, zero bits, too many
    /// hash functions, a filter too large for this machine).
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
    /// Union or intersection of filters that differ in a parameter.
    #[error("incompatible filters: {what} differs ({left} versus {right})")]
    Incompatible {
        /// The parameter that differs (`m`, `k`, `family`, ...).
        what: &'static str,
        /// This filter's value.
        left: String,
        /// The other filter's value.
        right: String,
    },
    /// The filter cannot be written in Guava's format.
    #[error("the filter is not Guava-compatible: {reason}")]
    NotGuavaCompatible {
        /// Which parameter rules it out.
        reason: String,
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
    /// A Guava strategy ordinal other than 0 (MITZ_32) or 1 (MITZ_64).
    #[error(
        "unknown Guava strategy ordinal {0} (0 = MURMUR128_MITZ_32, \
         1 = MURMUR128_MITZ_64)"
    )]
    UnknownGuavaStrategy(i8),
    /// The input starts with neither bloomlab's magic nor a Guava header.
    #[error("not a Bloom filter file (unrecognised first bytes {0})")]
    UnknownFormat(String),
    /// A native file of a format version this build cannot read.
    #[error("unsupported bloomlab format version {0} (this build reads 1)")]
    UnsupportedVersion(u16),
    /// A native file of a variant this crate does not read: another
    /// bloomlab crate's (named in the message), or unknown.
    #[error("{}", other_variant(*.0))]
    UnknownVariant(u8),
    /// A file holds a filter of another layout than the reader's
    /// (`BloomFilter::read` of a blocked filter, or the reverse).
    #[error(
        "the file holds a {found} filter, not a {expected} one: read it \
         with {hint} (or read_any, which takes either)"
    )]
    WrongLayout {
        /// The layout the reader makes.
        expected: &'static str,
        /// The layout the file holds.
        found: &'static str,
        /// The reader for what the file holds.
        hint: &'static str,
    },
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
    /// The checksum of a native file does not match its contents.
    #[error(
        "checksum mismatch: stored {stored:#018x}, computed {computed:#018x}"
    )]
    Checksum {
        /// Checksum stored in the file.
        stored: u64,
        /// Checksum of the bytes read.
        computed: u64,
    },
    /// An item could not be parsed for the chosen funnel.
    #[error("cannot read {item:?} as a {funnel} item: {reason}")]
    BadItem {
        /// The funnel's name.
        funnel: &'static str,
        /// The item as given.
        item: String,
        /// What is wrong with it.
        reason: String,
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

/// What a native file of variant `v`, not this crate's, holds, and which
/// crate reads it (the variant bytes of each crate's `FORMAT.md`).
fn other_variant(v: u8) -> String {
    let owner = match v {
        2 => Some(("counting", "bloomlab-counting")),
        3 => Some(("partitioned", "bloomlab-partitioned")),
        4 => Some(("scalable", "bloomlab-scalable")),
        _ => None,
    };
    match owner {
        Some((what, krate)) => format!(
            "the file holds a {what} filter (variant {v}), not a standard or \
             blocked one: read it with {krate}"
        ),
        None => format!("unknown filter variant {v}"),
    }
}
