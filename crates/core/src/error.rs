//! The error type of `bloomlab-core`.

/// What went wrong in `bloomlab-core`: a parameter out of its domain, or
/// a sizing that the reference implementation (Guava) refuses too.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter is outside the domain of the formula or structure.
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name as users write it (`m`, `n`, `k`, `p`, ...).
        name: &'static str,
        /// The offending value, printed.
        value: String,
        /// What the value must satisfy.
        reason: &'static str,
    },
    /// The sizing asks for zero bits (Guava: "data length is zero!").
    #[error(
        "the filter would have 0 bits (n = {n}, p = {p}); \
         raise n or lower p"
    )]
    ZeroBits {
        /// Expected insertions.
        n: i64,
        /// Target false-positive probability.
        p: f64,
    },
    /// The sizing needs more hash functions than Guava allows (255).
    #[error(
        "the sizing needs {k} hash functions, more than the maximum of \
         255; raise p"
    )]
    TooManyHashFunctions {
        /// The number of hash functions the sizing asked for.
        k: u64,
    },
    /// The bit array would need more 64-bit words than Guava can index
    /// (2^31 - 1) or than this platform can address.
    #[error(
        "a filter of {bits} bits needs {words} 64-bit words, more than \
         the maximum of {max}"
    )]
    TooLarge {
        /// Requested bits.
        bits: u64,
        /// Words that would be needed.
        words: u64,
        /// The largest word count allowed.
        max: u64,
    },
    /// The allocator refused the memory for the bits.
    #[error(
        "could not allocate {bytes} bytes for a filter of {bits} bits; \
         lower m (or n, or raise p)"
    )]
    AllocationFailed {
        /// Requested bits.
        bits: u64,
        /// Bytes asked of the allocator.
        bytes: u64,
    },
    /// Two bit arrays (or filters) of different shapes were combined.
    #[error("incompatible sizes: {left} bits versus {right} bits")]
    SizeMismatch {
        /// Bits of the left-hand operand.
        left: u64,
        /// Bits of the right-hand operand.
        right: u64,
    },
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Shorthand for [`Error::InvalidParameter`].
    pub(crate) fn invalid(
        name: &'static str,
        value: impl ToString,
        reason: &'static str,
    ) -> Error {
        Error::InvalidParameter { name, value: value.to_string(), reason }
    }
}
