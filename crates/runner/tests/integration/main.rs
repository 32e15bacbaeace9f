//! Integration tests of the `bloomlab` binary: one module per verb.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// The counting variant under churn: columns, no false negatives.
mod counting;
// Experiment files: good ones parse and run, bad ones fail in one line.
mod experiment;
// `bloomlab build`, `query`, `inspect`: Guava's bytes, both formats.
mod filters;
// `bloomlab hash`: reference values, input order, errors.
mod hash;
// `bloomlab list`: the registry, by name.
mod list;
// `build`, `query`, `inspect` with `--redis`: a real redis-server.
mod redis;
// `bloomlab run` and `bloomlab report`: outputs, determinism, safety.
mod run;
// The scalable variant growing: columns, layer layouts, FPR at or under
// the target.
mod scalable;
// `bloomlab theory`: every quantity it documents, and errors.
mod theory;
// `bloomlab verify`: passes on upheld invariants, exits 1 on a miss.
mod verify;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// The `bloomlab` binary built by cargo for this test run.
pub(crate) fn bloomlab() -> Command {
    let mut cmd = Command::cargo_bin("bloomlab").unwrap();
    // With RUST_BACKTRACE set, errors print their chain and backtrace.
    cmd.env_remove("RUST_BACKTRACE").env_remove("RUST_LIB_BACKTRACE");
    cmd
}

/// Runs `bloomlab ARGS`, expects success, parses each stdout line as JSON.
pub(crate) fn json_lines(args: &[&str]) -> Vec<Value> {
    let out = bloomlab().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "bloomlab {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs `bloomlab ARGS`, expects exit code `code` and a one-line error on
/// stderr that mentions `needle`.
pub(crate) fn fails_with(args: &[&str], code: i32, needle: &str) {
    let out = bloomlab().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(code), "bloomlab {args:?}");
    assert!(out.stdout.is_empty(), "no output on failure: {args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    if code == 1 {
        // Our own errors are one line; clap's usage errors add usage help.
        assert_eq!(err.trim_end().lines().count(), 1, "{err:?}");
        assert!(err.starts_with("error: "), "{err:?}");
        // Each cause once: an operating-system error is not repeated by
        // an error that prints its source in its own message.
        assert!(err.matches("(os error").count() <= 1, "{err:?}");
    }
}

/// Runs `bloomlab run --quiet EXP --out OUT EXTRA...`; its output,
/// whatever its exit status.
pub(crate) fn run_output(
    exp: &Path,
    out: &Path,
    extra: &[&str],
) -> std::process::Output {
    bloomlab()
        .args(["run", "--quiet"])
        .arg(exp)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// [`run_output`], expecting success.
pub(crate) fn run_into(exp: &Path, out: &Path, extra: &[&str]) {
    let o = run_output(exp, out, extra);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// An experiment run in a temporary directory (removed on drop).
pub(crate) struct Ran {
    _dir: tempfile::TempDir,
    /// The output folder.
    pub(crate) out: PathBuf,
    /// Its `results.csv`.
    pub(crate) csv: String,
}

/// Runs the experiment `toml` in a fresh directory; expects success.
pub(crate) fn run_experiment(toml: &str) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment::write(dir.path(), "e.toml", toml);
    let out = dir.path().join("out");
    run_into(&exp, &out, &[]);
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    Ran { _dir: dir, out, csv }
}

/// A results CSV as one map per row, by column name.
pub(crate) fn rows(csv: &str) -> Vec<HashMap<String, String>> {
    let mut lines = csv.lines();
    let header: Vec<String> =
        lines.next().unwrap().split(',').map(str::to_string).collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}
