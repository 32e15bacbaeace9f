// `bloomlab verify`: passes on upheld invariants, exits 1 on a miss.

use crate::bloomlab;
use crate::experiment::{FAILING_POINT, all_failing, tiny, write};

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

/// A run in which every trial failed checked nothing, so `verify` fails
/// on it (the check `trials-ran`), though the declared invariant "held"
/// on no trial at all; a failed trial beside trials that ran (a sweep
/// keeps the combinations the library refuses as rows with an `err`)
/// does not fail it.
#[test]
fn verify_fails_when_every_trial_fails() {
    let dir = tempfile::tempdir().unwrap();
    let exp = write(dir.path(), "t.toml", &all_failing());
    let o = bloomlab().args(["verify", "-q"]).arg(&exp).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.starts_with(
            "error: doomed: 1 invariant(s) failed: trials-ran (at least one \
             trial): all 1 trials failed; first at point 0 (counting-4bit"
        ),
        "{err}"
    );
    assert!(err.contains("more than the maximum"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");

    let exp = write(dir.path(), "u.toml", &(tiny("", "") + FAILING_POINT));
    let o = bloomlab().args(["verify", "-q"]).arg(&exp).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(!out.contains("trials-ran"), "{out}");
}
