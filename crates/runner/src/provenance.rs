//! Where a result came from: version, git revision, machine, time.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The runner's version, `CARGO_PKG_VERSION`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git revision bloomlab was built from (`git rev-parse --short=12
/// HEAD` of its source tree at build time, with `-dirty` when tracked
/// files differed), or `None` when it was built outside a git checkout
/// or without git. Recorded by the build script, not asked at run time:
/// that would name the repository the user runs bloomlab in.
pub const GIT_REVISION: Option<&str> = option_env!("BLOOMLAB_GIT_REVISION");

/// [`GIT_REVISION`], owned.
pub fn git_revision() -> Option<String> {
    GIT_REVISION.map(str::to_owned)
}

/// `VERSION` and the git revision, as results rows carry it:
/// `0.1.0 (abc123def456)`.
pub fn version_string(rev: Option<&str>) -> String {
    match rev {
        Some(r) => format!("{VERSION} ({r})"),
        None => VERSION.to_string(),
    }
}

/// The machine a run used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Logical cores available.
    pub cores: usize,
    /// Operating system (`std::env::consts::OS`).
    pub os: String,
    /// CPU architecture.
    pub arch: String,
}

impl Machine {
    /// This machine.
    pub fn current() -> Machine {
        Machine {
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
        }
    }
}

/// Now, UTC, RFC 3339 to the second (`2026-11-01T12:34:56Z`).
pub fn timestamp_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    timestamp(secs)
}

/// A Unix time as RFC 3339 UTC.
pub fn timestamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339() {
        assert_eq!(timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(timestamp(1_700_000_000), "2023-11-14T22:13:20Z");
    }
}
