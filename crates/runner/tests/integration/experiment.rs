// Experiment files: good ones parse and run, bad ones fail in one line.

use std::path::{Path, PathBuf};

use crate::{bloomlab, fails_with};

/// A tiny valid experiment; `extra` is appended to the `[[grid]]` table
/// and `top` to the top level.
pub(crate) fn tiny(top: &str, grid: &str) -> String {
    format!(
        "name = \"tiny\"\ndescription = \"A tiny experiment for tests.\"\n\
         seed = 11\n{top}\n\
         [queries]\nper-filter = 5000\n\n\
         [invariants]\nno-false-negatives = true\nfpr-consistent = 5.0\n\n\
         [[grid]]\nvariant = [\"standard\", \"blocked\"]\nn = [500]\n\
         bits-per-element = [6, 10]\ntrials = 3\n{grid}\n"
    )
}

/// A grid entry whose one trial fails as it runs (plans accept any `fpp`
/// in (0, 1); the sizing it asks for needs more hash functions than a
/// filter may have). A filter too large to allocate is a plan error.
pub(crate) const FAILING_POINT: &str = "\n[[grid]]\nvariant = [\"counting\"]\n\
    n = [1000]\nfpp = [1e-300]\n";

/// An experiment whose every trial fails: [`FAILING_POINT`] alone.
pub(crate) fn all_failing() -> String {
    format!(
        "name = \"doomed\"\ndescription = \"Nothing runs.\"\nseed = 1\n\
         [queries]\nper-filter = 5000\n\
         [invariants]\nno-false-negatives = true\n{FAILING_POINT}"
    )
}

/// Writes `text` to `dir/name` and returns the path.
pub(crate) fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs `text` and expects a one-line plan error mentioning `needle`, and
/// no output.
pub(crate) fn bad(text: &str, needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "x.toml", text);
    let out = dir.path().join("out");
    fails_with(
        &["run", path.to_str().unwrap(), "--out", out.to_str().unwrap()],
        1,
        needle,
    );
    assert!(!out.exists(), "a rejected experiment wrote output");
}

#[test]
fn unknown_key_is_reported_with_line_and_column() {
    let text = tiny("", "").replace("seed = 11", "seed = 11\nbogus = 1");
    bad(&text, "x.toml:4:1: unknown field `bogus`");
    let text = tiny("", "colour = [\"red\"]");
    bad(&text, "unknown field `colour`");
}

/// A missing required field says what to add, not only its name.
#[test]
fn missing_queries_table_says_what_to_add() {
    let text = tiny("", "");
    let start = text.find("[queries]").unwrap();
    let end = start + text[start..].find("\n[").unwrap() + 1;
    let without = format!("{}{}", &text[..start], &text[end..]);
    bad(&without, "missing field `queries`; add a `[queries]` table");
    bad(&text.replace("seed = 11", ""), "missing field `seed` (experiments");
}

#[test]
fn fpp_outside_zero_one_is_rejected() {
    let text =
        tiny("", "").replace("bits-per-element = [6, 10]", "fpp = [1.5]");
    bad(&text, "fpp = 1.5 must be in (0, 1)");
}

#[test]
fn zero_n_is_rejected() {
    bad(
        &tiny("", "").replace("n = [500]", "n = [0]"),
        "n = 0 must be at least 1",
    );
}

#[test]
fn empty_grid_is_rejected() {
    let text = tiny("", "");
    let no_grid = &text[..text.find("[[grid]]").unwrap()];
    bad(no_grid, "the grid is empty");
    bad(&text.replace("n = [500]", "n = []"), "`n` is an empty list");
}

#[test]
fn missing_key_file_is_rejected() {
    bad(
        &tiny("", "key-set = [\"file:nope.txt\"]"),
        "key file `file:nope.txt`",
    );
}

/// A key file with too few keys for a point's `n` is a plan error, found
/// before anything runs or is written, not a row of failed trials.
#[test]
fn a_key_file_too_short_for_n_is_rejected_up_front() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "few.txt", "a\nb\nc\nb\n");
    let text = tiny("", "key-set = [\"file:few.txt\"]")
        .replace("n = [500]", "n = [3]");
    let path = write(dir.path(), "x.toml", &text);
    let out = dir.path().join("out");
    fails_with(
        &["run", path.to_str().unwrap(), "--out", out.to_str().unwrap()],
        1,
        "key file `file:few.txt` has 3 distinct keys; n = 3 needs at least 4",
    );
    assert!(!out.exists(), "a rejected experiment wrote output");
}

/// An experiment file that cannot be read: one line naming it and the
/// operating system's reason, once, from `run` and `verify` alike.
#[test]
fn unreadable_experiment_file_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.toml");
    let missing = missing.to_str().unwrap();
    let folder = dir.path().to_str().unwrap();
    for verb in ["run", "verify"] {
        fails_with(&[verb, missing], 1, "nope.toml: ");
        fails_with(&[verb, folder], 1, "(os error");
    }
}

#[test]
fn unknown_names_are_rejected() {
    bad(&tiny("", "family = [\"md4\"]"), "md4");
    bad(&tiny("", "strategy = [\"triple\"]"), "triple");
    bad(&tiny("", "key-set = [\"emails\"]"), "unknown key set `emails`");
    let text = tiny("", "").replace("\"blocked\"]", "\"scalable\"]");
    bad(&text, "the scalable variant is sized by its target error");
    bad(&tiny("", "scalable-preset = [\"redis\"]"), "unknown scalable-preset");
    bad(&tiny("", "tightening = [1.5]"), "tightening = 1.5 must be in");
    bad(&tiny("", "counter-bits = [3]"), "counter-bits = 3 must be 2, 4 or 8");
    bad(&tiny("", "churn = [-0.5]"), "churn = -0.5 must be in");
    let text = tiny("", "").replace("\"blocked\"]", "\"cuckoo\"]");
    bad(&text, "unknown variant `cuckoo`");
    bad(&tiny("charts = [\"pie\"]", ""), "unknown chart `pie`");
}

#[test]
fn bad_name_and_budget_are_rejected() {
    bad(&tiny("", "").replace("\"tiny\"", "\"Tiny Run\""), "must match");
    let text = tiny("", "")
        .replace("per-filter = 5000", "target-relative-half-width = 0.1");
    bad(&text, "needs max");
}

#[test]
fn a_key_file_works_and_invalid_combinations_become_err_rows() {
    let dir = tempfile::tempdir().unwrap();
    let keys: String =
        (0..3000).map(|i| format!("user{i}@example.com\n")).collect();
    write(dir.path(), "keys.txt", &keys);
    let text = tiny(
        "",
        "key-set = [\"file:keys.txt\", \"uuid\"]\n\
         family = [\"xxh3-64\", \"fnv1a-64\"]\n\
         strategy = [\"independent\"]",
    );
    let path = write(dir.path(), "k.toml", &text);
    let out = dir.path().join("out");
    let o = bloomlab()
        .args(["run", "-q", path.to_str().unwrap(), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    // fnv1a-64 has no seed, so `independent` cannot use it: err rows.
    let errs =
        csv.lines().filter(|l| l.contains("needs a seeded family")).count();
    // standard x fnv1a-64 x 2 key sets x 2 loads x 3 trials.
    assert_eq!(errs, 2 * 2 * 3, "{csv}");
    assert!(csv.contains(",file:keys.txt,"));
}

/// A grid whose axes multiply to more points than a plan may have is
/// refused at once, before it is enumerated (this one has 10^12 points
/// and used to loop for hours), with what to change.
#[test]
fn a_huge_grid_product_is_refused_before_it_is_enumerated() {
    let list = |f: &dyn Fn(u32) -> String| {
        (1..=100).map(f).collect::<Vec<_>>().join(", ")
    };
    let grid = format!(
        "[[grid]]\nvariant = [\"counting\"]\nn = [{}]\n\
         bits-per-element = [{}]\nchurn = [{}]\ncounter-bits = [2, 4, 8]\n\
         k = [{}]\ntrials = 1\n",
        list(&|i| i.to_string()),
        list(&|i| i.to_string()),
        list(&|i| format!("{}.5", i - 1)),
        (1..=64).map(|k| k.to_string()).collect::<Vec<_>>().join(", "),
    );
    let text = format!(
        "name = \"big\"\ndescription = \"d\"\nseed = 1\n\
         [queries]\nper-filter = 1000\n{grid}"
    );
    let start = std::time::Instant::now();
    bad(&text, "100 × 100 × 64 × 3 × 100 points, more than the 100000");
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
    bad(&text, "shorten some lists or split the experiment");
}

/// Trials beyond what a plan may hold are refused in one line (4·10^9
/// trials used to abort the process allocating 64 GB of tasks).
#[test]
fn a_huge_trial_count_is_refused() {
    bad(
        &tiny("", "").replace("trials = 3", "trials = 4000000000"),
        "the plan builds 16000000000 filters (points × trials), more than \
         1000000: lower trials or split the experiment",
    );
}

/// A filter too large to build is a plan error, before any trial tries
/// to allocate it (m = 2^41 bits here), and so is an n past 2^40.
#[test]
fn a_filter_too_large_to_build_is_refused_before_allocating() {
    let grid = |variant: &str, n: &str, sizing: &str| {
        format!(
            "name = \"big\"\ndescription = \"d\"\nseed = 1\n\
             [queries]\nper-filter = 1000\n[[grid]]\nvariant = [\"{variant}\"]\n\
             n = [{n}]\n{sizing}\n"
        )
    };
    bad(
        &grid("standard", "1099511627776", "bits-per-element = [2]"),
        "needs a filter of 2199023255552 bits, more than the 2^40",
    );
    bad(
        &grid("counting", "274877906944", "bits-per-element = [2]"),
        "needs a filter of 2199023255552 bits, more than the 2^40 \
         (1099511627776) a point may use: lower n or the bits per element \
         (raise fpp)",
    );
    bad(
        &grid("standard", "1099511627777", "bits-per-element = [1]"),
        "n = 1099511627777 must be at most 2^40",
    );
}

/// `--threads` is bounded: 0 or a hundred thousand threads is refused
/// before any is started.
#[test]
fn threads_out_of_range_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "x.toml", &tiny("", ""));
    let path = path.to_str().unwrap();
    for verb in ["run", "verify"] {
        for n in ["0", "100000"] {
            fails_with(
                &[verb, path, "--threads", n],
                2,
                "must be from 1 to 1024",
            );
        }
    }
}

/// A preset that belongs elsewhere says where: a scalable preset goes in
/// `scalable-preset`, hutool's are `bloomlab build`'s.
#[test]
fn a_preset_from_elsewhere_says_where_it_goes() {
    let with = |p: &str| tiny("", &format!("preset = [\"{p}\"]"));
    bad(&with("redisbloom"), "give it as scalable-preset = [\"redisbloom\"]");
    bad(
        &with("hutool-bitset"),
        "is for `bloomlab build --variant partitioned`",
    );
    bad(
        &with("nope"),
        "unknown preset `nope` (known: none, guava, guava-mitz32)",
    );
}

/// A value of the wrong shape for `k` or `fpr-under-target` says what
/// the field takes, not serde's "did not match any variant".
#[test]
fn a_wrongly_shaped_k_or_under_target_says_what_it_takes() {
    bad(&tiny("", "k = 7"), "k must be \"optimal\" or a list of k values");
    let under = tiny("", "").replace(
        "[invariants]\n",
        "[invariants]\nfpr-under-target = \"yes\"\n",
    );
    bad(&under, "fpr-under-target must be true, false or a list");
}
