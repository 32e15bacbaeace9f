//! The error type of `bloomlab-hash`.

/// What went wrong in `bloomlab-hash`: an unknown name, or a combination
/// of family, seed, strategy and parameters that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No hash family of that name; the message lists the known ones.
    #[error("unknown hash family {name:?}; known families: {known}")]
    UnknownFamily {
        /// The name asked for.
        name: String,
        /// Every registered name, comma separated.
        known: String,
    },
    /// No index strategy of that name.
    #[error("unknown index strategy {name:?}; known strategies: {known}")]
    UnknownStrategy {
        /// The name asked for.
        name: String,
        /// Every registered name, comma separated.
        known: String,
    },
    /// No range reduction of that name.
    #[error("unknown range reduction {name:?}; known reductions: {known}")]
    UnknownReduction {
        /// The name asked for.
        name: String,
        /// Every registered name, comma separated.
        known: String,
    },
    /// The family takes no seed, or not one this large.
    #[error("hash family {family} {reason} (seed {seed} given)")]
    BadSeed {
        /// Family name.
        family: &'static str,
        /// The seed as given.
        seed: i128,
        /// Why the seed cannot be used.
        reason: &'static str,
    },
    /// The strategy cannot be combined with this family or reduction.
    #[error("index strategy {strategy} cannot be used with {with}: {reason}")]
    Unsupported {
        /// Strategy name.
        strategy: &'static str,
        /// The family or reduction it was combined with.
        with: &'static str,
        /// Why not, and what to use instead.
        reason: &'static str,
    },
    /// `k` or `m` out of range.
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// `k` or `m`.
        name: &'static str,
        /// The value given.
        value: u64,
        /// What the value must satisfy.
        reason: &'static str,
    },
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
