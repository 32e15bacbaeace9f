//! The runner library's errors.

use std::path::PathBuf;

/// What can go wrong while loading, running or reporting an experiment.
///
/// Every variant prints as one line that names the file and the problem.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The experiment file is not valid TOML or does not match the schema
    /// (unknown key, wrong type); `line` and `column` are 1-based.
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        /// The experiment file.
        path: String,
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The experiment parses but asks for something impossible (p outside
    /// (0, 1), n = 0, an empty grid, an unknown name, a missing key file).
    #[error("{path}: {message}")]
    Invalid {
        /// The experiment file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing a file failed.
    // The message includes the I/O error's, so it is not also `source()`
    // (a field named `source` would be): a reporter walking the chain
    // would say it twice.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// No temporary file could be made in an output's folder: outputs
    /// are written under a temporary name there and renamed into place.
    #[error(
        "{}: cannot create a temporary file in this folder ({error}); outputs are written under a temporary name first and renamed, so the folder must be writable",
        dir.display()
    )]
    TempFile {
        /// The output's folder.
        dir: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// A results file could not be read or written as CSV or JSON.
    #[error("{}: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A chart could not be drawn.
    #[error("chart {chart}: {message}")]
    Chart {
        /// The chart's file stem.
        chart: String,
        /// What went wrong.
        message: String,
    },
}

impl Error {
    /// An [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, error: std::io::Error) -> Error {
        Error::Io { path: path.into(), error }
    }
}

/// The runner library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::Error;

    /// A file's I/O error prints its path and the operating system's
    /// reason once, also through a reporter that walks the chain (the
    /// command line's `{:#}`).
    #[test]
    fn io_errors_say_the_reason_once() {
        let reason = std::io::Error::from(std::io::ErrorKind::NotFound);
        let text = reason.to_string();
        let e = Error::io("x.toml", reason);
        assert_eq!(e.to_string(), format!("x.toml: {text}"));
        let chain = anyhow::Error::new(e).context("experiment default");
        assert_eq!(
            format!("{chain:#}"),
            format!("experiment default: x.toml: {text}")
        );
    }
}
