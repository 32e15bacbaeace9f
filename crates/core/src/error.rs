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
        Error::InvalidParameter { name, value: param_value(value), reason }
    }
}

/// How an error message prints a parameter's value: as given, except a
/// float whose exact decimal runs long (`1e-300` prints 300 digits with
/// `{}`), which is printed in its shortest form instead. The filter
/// crates' errors use it too.
///
/// ```
/// use bloomlab_core::param_value;
/// assert_eq!(param_value(1e-300), "1e-300");
/// assert_eq!(param_value(0.25), "0.25");
/// assert_eq!(param_value(-1e300), "-1e300");
/// assert_eq!(param_value(u64::MAX), "18446744073709551615");
/// assert_eq!(param_value(i128::MIN), i128::MIN.to_string());
/// assert_eq!(param_value("fold-64"), "fold-64");
/// ```
pub fn param_value(value: impl ToString) -> String {
    let text = value.to_string();
    // A fraction with a long decimal, or digits longer than any integer
    // type prints (i128's 40): a float's `{}`, not an exact integer.
    let long_float =
        (text.len() > 24 && text.contains('.')) || text.len() > 40;
    if long_float && let Ok(x) = text.parse::<f64>() {
        return format!("{x:e}");
    }
    text
}
