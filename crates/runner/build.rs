//! Records the git revision bloomlab is built from, for the provenance
//! of every run (`bloomlab_runner::provenance::GIT_REVISION`): asking git
//! at run time would name whatever repository the user runs it in.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").current_dir(dir).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
}

fn main() {
    let dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default(),
    );
    let workspace = dir.join("../..");
    // Rerun when the commit, the index or any source changes (a changed
    // source is what makes a build "-dirty"). Only paths that exist: a
    // missing one would rerun this script on every build.
    let mut watched =
        vec![workspace.join("crates"), workspace.join("Cargo.toml")];
    for what in ["HEAD", "index"] {
        if let Some(p) = git(&dir, &["rev-parse", "--git-path", what]) {
            watched.push(dir.join(p));
        }
    }
    for p in watched.iter().filter(|p| p.exists()) {
        println!("cargo::rerun-if-changed={}", p.display());
    }
    let revision = git(&dir, &["rev-parse", "--short=12", "HEAD"])
        .filter(|r| !r.is_empty())
        .map(|rev| {
            // Only the sources count: a run rewriting the committed
            // notebooks-output/ does not make the next build "-dirty".
            let status = [
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                "crates",
                "Cargo.toml",
                "Cargo.lock",
            ];
            let dirty =
                git(&workspace, &status).is_some_and(|s| !s.is_empty());
            if dirty { format!("{rev}-dirty") } else { rev }
        });
    if let Some(rev) = revision {
        println!("cargo::rustc-env=BLOOMLAB_GIT_REVISION={rev}");
    }
}
