// `bloomlab verify`: passes on upheld invariants, exits 1 on a miss.

use crate::bloomlab;
use crate::experiment::{tiny, write};

#[test]
fn verify_passes_when_invariants_hold() {
    let dir = tempfile::tempdir().unwrap();
    let exp = write(dir.path(), "ok.toml", &tiny("", ""));
    let o = bloomlab().args(["verify", "-q"]).arg(&exp).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(stdout.contains("invariant no-false-negatives (0): held"));
}

#[test]
fn verify_fails_on_an_impossible_fpr_bound() {
    let dir = tempfile::tempdir().unwrap();
    let text = tiny("", "").replace(
        "fpr-consistent = 5.0",
        "fpr-consistent = 5.0\nfpr-at-most = 1e-9",
    );
    let exp = write(dir.path(), "bad.toml", &text);
    let o = bloomlab().args(["verify", "-q"]).arg(&exp).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.starts_with("error: tiny: 1 invariant(s) failed: fpr-at-most"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}
