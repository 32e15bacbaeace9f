// `bloomlab build`, `query` and `inspect`: Guava's bytes and answers from
// an items file (testdata/guava/filters.json), both formats, bad input.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{bloomlab, fails_with, json_lines};

const GUAVA: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/guava/filters.json"
));

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("bloomlab-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The case `name` of Guava's reference vectors.
pub(crate) fn case(name: &str) -> Value {
    let v: Value = serde_json::from_str(GUAVA).unwrap();
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap()
        .clone()
}

/// An item of the vectors as the items file spells it.
pub(crate) fn item_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn write_lines(path: &Path, items: &[Value]) {
    let text: String = items.iter().map(|i| item_text(i) + "\n").collect();
    std::fs::write(path, text).unwrap();
}

/// Runs `bloomlab build ARGS --input ITEMS --out OUT`; expects success.
fn build_ok(args: &[&str], items: &Path, out: &Path) {
    bloomlab()
        .arg("build")
        .args(args)
        .arg("--input")
        .arg(items)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// items file -> `build --preset guava` -> Guava's exact bytes ->
/// `query` -> Guava's exact answers, for a string and a long filter, and
/// for both of Guava's strategies.
#[test]
fn guava_round_trip_through_the_cli() {
    for (name, funnel, strategy) in [
        ("string_item_100_mitz64", "utf8", "guava-mitz64"),
        ("long_seq_500_mitz32", "long", "guava-mitz32"),
        ("string_md5_1000_mitz64", "utf8", "guava-mitz64"),
    ] {
        let c = case(name);
        let dir = scratch(name);
        let items = dir.join("items.txt");
        write_lines(&items, c["items"].as_array().unwrap());
        let out = dir.join("filter.guava");
        let n = c["expectedInsertions"].to_string();
        let p = c["fpp"].to_string();
        let guava = ["--variant", "standard", "--preset", "guava"];
        let sizing = ["--n", &n, "--p", &p];
        let hashing = ["--strategy", strategy, "--funnel", funnel];
        build_ok(&[&guava[..], &hashing, &sizing].concat(), &items, &out);
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(
            hex(&bytes),
            c["serializedHex"].as_str().unwrap(),
            "{name}"
        );

        let probes = c["probes"].as_array().unwrap();
        let probe_file = dir.join("probes.txt");
        let probe_items: Vec<Value> =
            probes.iter().map(|p| p["item"].clone()).collect();
        write_lines(&probe_file, &probe_items);
        let answers = json_lines(&[
            "query",
            "--filter",
            out.to_str().unwrap(),
            "--funnel",
            funnel,
            "--input",
            probe_file.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(answers.len(), probes.len());
        for (a, p) in answers.iter().zip(probes) {
            assert_eq!(a["item"].as_str().unwrap(), item_text(&p["item"]));
            assert_eq!(
                a["result"], p["mightContain"],
                "{name}: {}",
                p["item"]
            );
        }

        let info =
            &json_lines(&["inspect", out.to_str().unwrap(), "--json"])[0];
        assert_eq!(info["format"], "guava");
        assert_eq!(info["strategy"], strategy);
        assert_eq!(info["m"], c["bitSize"]);
        assert_eq!(info["bits_set"], c["bitCount"]);
        assert_eq!(info["estimated_count"], c["approximateElementCount"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Plain text output is `item<TAB>true|false`, one line per probe.
#[test]
fn query_prints_item_tab_answer() {
    let dir = scratch("tab");
    let items = dir.join("items.txt");
    std::fs::write(&items, "a\nb\nc\n").unwrap();
    let out = dir.join("f.bin");
    build_ok(
        &["--variant", "standard", "--n", "100", "--p", "0.001"],
        &items,
        &out,
    );
    let got = bloomlab()
        .args(["query", "--filter", out.to_str().unwrap(), "a", "b", "zzz"])
        .output()
        .unwrap();
    assert!(got.status.success());
    let text = String::from_utf8(got.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[..2], ["a\ttrue", "b\ttrue"]);
    // 100 bits per item at p = 0.001: "zzz" is absent unless a 1-in-1000
    // false positive; the fixed hash makes the answer deterministic.
    assert_eq!(lines[2], "zzz\tfalse");
    let _ = std::fs::remove_dir_all(&dir);
}

/// How many of the items `bloomlab query` finds in the filter (each
/// answered once).
fn members_found(filter: &Path, items: &Path) -> usize {
    let answers = json_lines(&[
        "query",
        "--filter",
        filter.to_str().unwrap(),
        "--input",
        items.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(
        answers.len(),
        std::fs::read_to_string(items).unwrap().lines().count()
    );
    answers.iter().filter(|a| a["result"] == true).count()
}

/// Every layout and format combination that exists round-trips, and
/// `inspect` says which one it read.
#[test]
fn native_format_for_each_layout() {
    let dir = scratch("native");
    let items = dir.join("items.txt");
    let keys: Vec<String> = (0..500).map(|i| format!("key-{i}")).collect();
    std::fs::write(&items, keys.join("\n")).unwrap();
    // Without `--hash`, each layout takes the library's default family.
    for (variant, extra, hash) in [
        (
            "standard",
            vec!["--hash", "murmur3-x64-128", "--strategy", "double"],
            "murmur3-x64-128",
        ),
        ("standard", vec!["--reduction", "modulo", "--seed", "7"], "xxh3-128"),
        ("blocked", vec!["--block-bits", "256"], "xxh3-64"),
        ("blocked", vec!["--hash", "xxh3-128"], "xxh3-128"),
    ] {
        let out = dir.join(format!("{variant}.bin"));
        let shape = ["--variant", variant, "--m", "8192", "--k", "5"];
        build_ok(&[&shape[..], &extra].concat(), &items, &out);
        let info =
            &json_lines(&["inspect", out.to_str().unwrap(), "--json"])[0];
        assert_eq!(info["format"], "native");
        assert_eq!(info["variant"], variant);
        assert_eq!(info["hash"], hash, "{variant} {extra:?}");
        assert_eq!(
            (info["m"].as_u64(), info["k"].as_u64()),
            (Some(8192), Some(5))
        );
        assert_eq!(members_found(&out, &items), 500, "{variant}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `inspect` prints every variant's memory, in text as in JSON: m bits
/// (or m counters of 4 bits) rounded up to whole words.
#[test]
fn inspect_prints_bytes_of_memory_for_every_variant() {
    let dir = scratch("memory");
    let items = dir.join("items.txt");
    std::fs::write(&items, "a\nb\nc\n").unwrap();
    // m = 1000 bits is 16 words of 64 bits; 1000 counters of 4 bits, 63.
    for (variant, bytes) in [
        ("standard", 128),
        ("blocked", 128),
        ("partitioned", 128),
        ("counting", 504),
    ] {
        let out = dir.join(format!("{variant}.bin"));
        let k = if variant == "partitioned" { "4" } else { "5" };
        let m = if variant == "blocked" { "1024" } else { "1000" };
        build_ok(&["--variant", variant, "--m", m, "--k", k], &items, &out);
        let out_s = out.to_str().unwrap();
        let info = &json_lines(&["inspect", out_s, "--json"])[0];
        assert_eq!(info["bytes_of_memory"], bytes, "{variant}");
        let text = bloomlab().args(["inspect", out_s]).output().unwrap();
        let text = String::from_utf8(text.stdout).unwrap();
        let line = format!("\nbytes of memory: {bytes}\n");
        assert!(text.contains(&line), "{variant}: {line:?} not in {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `inspect` names how every variant hashes: the partitioned filter's
/// seed and reduction, a scalable filter's hash, seed, strategy, pairing
/// and preset (recognised from its settings).
#[test]
fn inspect_names_seed_hash_and_preset_of_partitioned_and_scalable() {
    let dir = scratch("inspect-hashing");
    let items = dir.join("items.txt");
    std::fs::write(&items, "a\nb\nc\n").unwrap();
    let out = dir.join("f.bin");
    let out_s = out.to_str().unwrap();
    let inspect = |args: &[&str]| {
        build_ok(args, &items, &out);
        let text = bloomlab().args(["inspect", out_s]).output().unwrap();
        let text = String::from_utf8(text.stdout).unwrap();
        (json_lines(&["inspect", out_s, "--json"]).remove(0), text)
    };
    let partitioned =
        ["--variant", "partitioned", "--n", "100", "--p", "0.01"];
    let (v, text) =
        inspect(&[&partitioned[..], &["--seed", "12345"]].concat());
    assert_eq!(v["seed"], 12345);
    assert_eq!(v["strategy"], "enhanced-double");
    assert_eq!(v["reduction"], "multiply-shift");
    assert_eq!(v["constructor"], Value::Null);
    assert!(text.contains("\nseed: 12345\nstrategy: enhanced-double\n"));
    assert!(text.contains("\nreduction: multiply-shift\n"), "{text}");

    let scalable = ["--variant", "scalable", "--preset"];
    let (v, text) = inspect(
        &[&scalable[..], &["redisbloom", "--preset-args", "0.01,100"]]
            .concat(),
    );
    assert_eq!(v["preset"], "redisbloom");
    assert_eq!(v["hash"], "murmur64a");
    assert_eq!(v["seed"], 0);
    assert_eq!(v["strategy"], "double");
    assert_eq!(v["pairing"], "chained");
    assert_eq!(v["reduction"], "modulo");
    assert!(
        text.contains("\npreset: redisbloom\nhash: murmur64a\n"),
        "{text}"
    );
    for (preset, args) in
        [("almeida", "1000,0.01"), ("pybloom-live", "1000,0.01,2")]
    {
        let (v, _) = inspect(
            &[&scalable[..], &[preset, "--preset-args", args]].concat(),
        );
        assert_eq!(v["preset"], preset);
    }
    // Presets are recognised by their settings: partitioned layers with
    // the library's growth and tightening are Almeida et al.'s fast
    // growth; its default blocked layers are no preset.
    let own = ["--variant", "scalable", "--n", "1000", "--p", "0.01"];
    let partitioned = [&own[..], &["--layer-layout", "partitioned"]].concat();
    assert_eq!(inspect(&partitioned).0["preset"], "almeida-fast");
    let (v, text) = inspect(&own);
    assert_eq!(v["preset"], Value::Null);
    assert_eq!(v["hash"], "xxh3-64");
    assert!(!text.contains("preset:"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--out` writes where a shell's `>` would: through a symbolic link
/// (replacing the file, not the link), keeping an existing file's
/// permissions, into a pipe in place; a folder is refused by name.
#[cfg(unix)]
#[test]
fn out_follows_links_keeps_permissions_and_writes_pipes() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let dir = scratch("out-kinds");
    let items = dir.join("items.txt");
    std::fs::write(&items, "a\nb\nc\n").unwrap();
    let args = ["--variant", "standard", "--n", "100", "--p", "0.01"];
    let reference = dir.join("reference.bin");
    build_ok(&args, &items, &reference);
    let want = std::fs::read(&reference).unwrap();

    let file = dir.join("private.bin");
    std::fs::write(&file, b"old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))
        .unwrap();
    let link = dir.join("link.bin");
    std::os::unix::fs::symlink("private.bin", &link).unwrap();
    build_ok(&args, &items, &link);
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(&file).unwrap(), want);
    let mode = file.metadata().unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    // A dangling link: the file is created where it points.
    let dangling = dir.join("dangling.bin");
    std::os::unix::fs::symlink("new.bin", &dangling).unwrap();
    build_ok(&args, &items, &dangling);
    assert_eq!(std::fs::read(dir.join("new.bin")).unwrap(), want);

    let fifo = dir.join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        build_ok(&args, &items, &fifo);
        assert_eq!(reader.join().unwrap(), want);
        assert!(fifo.metadata().unwrap().file_type().is_fifo());
    }

    let sub = dir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let mut refs = vec!["build"];
    refs.extend_from_slice(&args);
    let sub_s = format!("{}/", sub.display());
    refs.extend_from_slice(&["--input", items.to_str().unwrap(), "--out"]);
    refs.push(&sub_s);
    fails_with(&refs, 1, "is a folder; name a file to write");
    assert_eq!(std::fs::read_dir(&sub).unwrap().count(), 0);
    // A folder that cannot hold the temporary file is named as such.
    let inside_a_file = format!("{}/x.bin", items.display());
    *refs.last_mut().unwrap() = &inside_a_file;
    fails_with(&refs, 1, "cannot create a temporary file in this folder");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bad input: one clear line, exit 1, and an existing output untouched.
#[test]
fn bad_input_never_clobbers_a_good_file() {
    let dir = scratch("bad");
    let items = dir.join("items.txt");
    std::fs::write(&items, "1\n2\nnot-a-number\n").unwrap();
    let out = dir.join("keep.bin");
    std::fs::write(&out, b"precious").unwrap();
    let build = |extra: &[&str]| {
        let mut args = vec!["build", "--variant", "standard"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&[
            "--input",
            items.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--funnel", "long", "--n", "10", "--p", "0.1"], "line 3"),
        (vec!["--n", "10", "--p", "1.5"], "p = 1.5"),
        (vec!["--n", "10"], "give either"),
        (
            vec!["--m", "100", "--k", "3", "--hash", "md5"],
            "unknown hash family",
        ),
        (
            vec!["--preset", "redis", "--n", "10", "--p", "0.1"],
            "unknown preset",
        ),
        (
            vec![
                "--preset", "guava", "--n", "10", "--p", "0.1", "--hash",
                "xxh64",
            ],
            "drop --hash",
        ),
        (vec!["--format", "guava", "--n", "10", "--p", "0.1"], "Guava"),
    ];
    for (extra, needle) in cases {
        let args = build(&extra);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        fails_with(&refs, 1, needle);
        assert_eq!(std::fs::read(&out).unwrap(), b"precious", "{extra:?}");
    }
    // A scalable filter's hashing and size follow from its layout, n and
    // p: the refusal names the flags given.
    let (i, o) = (items.to_str().unwrap(), out.to_str().unwrap());
    fails_with(
        &[
            "build",
            "--variant",
            "scalable",
            "--n",
            "10",
            "--p",
            "0.1",
            "--hash",
            "fold-128",
            "--k",
            "3",
            "--input",
            i,
            "--out",
            o,
        ],
        1,
        "--hash, --k do not apply to a scalable filter",
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
    // A file that is not a filter, and a truncated one.
    fails_with(&["inspect", items.to_str().unwrap()], 1, "not a Bloom filter");
    std::fs::write(&items, "a\n").unwrap();
    let good = dir.join("good.bin");
    bloomlab()
        .args(["build", "--variant", "standard", "--n", "10", "--p", "0.1"])
        .args([
            "--input",
            items.to_str().unwrap(),
            "--out",
            good.to_str().unwrap(),
        ])
        .assert()
        .success();
    let bytes = std::fs::read(&good).unwrap();
    let cut = dir.join("cut.bin");
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let out =
        bloomlab().args(["inspect", cut.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    fails_with(
        &["query", "--filter", "/nonexistent/f.bin", "x"],
        1,
        "reading",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

const HUTOOL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/hutool/filters.json"
));

/// items file -> `build --variant partitioned --preset hutool-*` ->
/// `query` answers identical to hutool 5.8.34's `contains`, and the count
/// of `add` calls that returned true.
#[test]
fn hutool_presets_through_the_cli() {
    let v: Value = serde_json::from_str(HUTOOL).unwrap();
    let mut checked = 0;
    for c in v["cases"].as_array().unwrap() {
        let ctor = c["constructor"].as_str().unwrap();
        // The custom-filter constructor has no --preset-args form.
        if ctor.matches("new ").count() > 1 {
            continue;
        }
        let preset = match c["type"].as_str().unwrap() {
            "BitMapBloomFilter" => "hutool-bitmap",
            _ => "hutool-bitset",
        };
        let args: String = ctor
            .split_once('(')
            .unwrap()
            .1
            .trim_end_matches(')')
            .replace(' ', "");
        let dir = scratch(&format!("hutool-{checked}"));
        let items = dir.join("items.txt");
        write_lines(&items, c["items"].as_array().unwrap());
        let out = dir.join("f.bin");
        let summary = json_lines(&[
            "build",
            "--variant",
            "partitioned",
            "--preset",
            preset,
            "--preset-args",
            &args,
            "--input",
            items.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--json",
        ]);
        let adds = c["addResults"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a.as_bool().unwrap())
            .count();
        assert_eq!(summary[0]["inserts_changing_bits"], adds, "{ctor}");
        let probes = c["probes"].as_array().unwrap();
        let probe_file = dir.join("probes.txt");
        let items: Vec<Value> =
            probes.iter().map(|p| p["item"].clone()).collect();
        write_lines(&probe_file, &items);
        let answers = json_lines(&[
            "query",
            "--filter",
            out.to_str().unwrap(),
            "--input",
            probe_file.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(answers.len(), probes.len());
        for (a, p) in answers.iter().zip(probes) {
            assert_eq!(a["result"], p["contains"], "{ctor}: {}", p["item"]);
        }
        let info =
            &json_lines(&["inspect", out.to_str().unwrap(), "--json"])[0];
        assert_eq!(info["variant"], "partitioned");
        assert_eq!(info["preset"], preset);
        assert_eq!(info["constructor"].as_str().unwrap(), ctor);
        checked += 1;
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert_eq!(checked, 5);
    // hutool throws for BitMapBloomFilter(4) (size 0); bloomlab says so.
    let dir = scratch("hutool-bad");
    let items = dir.join("items.txt");
    std::fs::write(&items, "a\n").unwrap();
    let out = dir.join("f.bin");
    let out_s = out.to_str().unwrap();
    let items_s = items.to_str().unwrap();
    for (args, needle) in [
        (vec!["--preset", "hutool-bitmap", "--preset-args", "4"], "hutool"),
        (vec!["--preset", "hutool-bitset", "--preset-args", "1,2"], "C,N,K"),
        (vec!["--preset", "hutool-bitmap", "--preset-args", "x"], "Java int"),
        (
            vec![
                "--preset",
                "hutool-bitmap",
                "--preset-args",
                "5",
                "--hash",
                "xxh64",
            ],
            "drop --hash",
        ),
    ] {
        let mut a = vec!["build", "--variant", "partitioned"];
        a.extend(args);
        a.extend(["--input", items_s, "--out", out_s]);
        fails_with(&a, 1, needle);
        assert!(!out.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The general partitioned filter: both sizings, round trip, inspect.
#[test]
fn partitioned_filter_through_the_cli() {
    let dir = scratch("partitioned");
    let items = dir.join("items.txt");
    let keys: Vec<String> = (0..300).map(|i| format!("k{i}")).collect();
    std::fs::write(&items, keys.join("\n")).unwrap();
    for extra in
        [vec!["--n", "300", "--p", "0.01"], vec!["--m", "3500", "--k", "7"]]
    {
        let out = dir.join("p.bin");
        let mut a = vec!["build", "--variant", "partitioned"];
        a.extend(extra.iter().copied());
        a.extend([
            "--input",
            items.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        bloomlab().args(&a).assert().success();
        let info =
            &json_lines(&["inspect", out.to_str().unwrap(), "--json"])[0];
        assert_eq!(info["variant"], "partitioned");
        assert_eq!(
            info["m"].as_u64().unwrap() % info["k"].as_u64().unwrap(),
            0
        );
        let answers = json_lines(&[
            "query",
            "--filter",
            out.to_str().unwrap(),
            "--input",
            items.to_str().unwrap(),
            "--json",
        ]);
        assert!(answers.iter().all(|a| a["result"] == true));
    }
    fails_with(
        &[
            "build",
            "--variant",
            "partitioned",
            "--m",
            "100",
            "--k",
            "7",
            "--input",
            items.to_str().unwrap(),
            "--out",
            dir.join("x").to_str().unwrap(),
        ],
        1,
        "multiple of k",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `build --variant counting`: every width round-trips, `inspect` shows
/// the counter width and the statistics, bad widths are refused.
#[test]
fn counting_filter_through_the_cli() {
    let dir = scratch("counting");
    let items = dir.join("items.txt");
    let keys: Vec<String> = (0..400).map(|i| format!("c{i}")).collect();
    std::fs::write(&items, keys.join("\n")).unwrap();
    for bits in ["2", "4", "8"] {
        let out = dir.join(format!("c{bits}.bin"));
        bloomlab()
            .args([
                "build",
                "--variant",
                "counting",
                "--n",
                "400",
                "--p",
                "0.01",
            ])
            .args(["--counter-bits", bits])
            .args(["--input", items.to_str().unwrap()])
            .args(["--out", out.to_str().unwrap()])
            .assert()
            .success();
        let info =
            &json_lines(&["inspect", out.to_str().unwrap(), "--json"])[0];
        assert_eq!(info["variant"], "counting");
        assert_eq!(info["counter_bits"].to_string(), bits);
        assert_eq!(info["inserts"], 400);
        // m counters of `bits` bits, in whole 64-bit words.
        let m = info["m"].as_u64().unwrap();
        let bytes = (m * bits.parse::<u64>().unwrap()).div_ceil(64) * 8;
        assert_eq!(info["bytes_of_memory"].as_u64(), Some(bytes));
        let answers = json_lines(&[
            "query",
            "--filter",
            out.to_str().unwrap(),
            "--input",
            items.to_str().unwrap(),
            "--json",
        ]);
        assert!(answers.iter().all(|a| a["result"] == true), "{bits}");
    }
    let out = dir.join("x.bin");
    fails_with(
        &[
            "build",
            "--variant",
            "counting",
            "--n",
            "10",
            "--p",
            "0.1",
            "--counter-bits",
            "3",
            "--input",
            items.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        1,
        "3",
    );
    fails_with(
        &[
            "build",
            "--variant",
            "standard",
            "--n",
            "10",
            "--p",
            "0.1",
            "--counter-bits",
            "4",
            "--input",
            items.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        1,
        "counting",
    );
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

const REDISBLOOM: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/redisbloom/filters.json"
));

/// `build --variant scalable --preset redisbloom --preset-args
/// error,capacity[,expansion][,nonscaling]` builds what `BF.RESERVE` and
/// `BF.ADD` of each item build: same add replies, BF.CARD, BF.INFO
/// capacity, filters and size, and `query` answers as `BF.EXISTS`.
#[test]
fn redisbloom_preset_through_the_cli() {
    let v: Value = serde_json::from_str(REDISBLOOM).unwrap();
    let hex_of = |item: &Value| match item {
        Value::String(s) => hex(s.as_bytes()),
        obj => obj["hex"].as_str().unwrap().to_string(),
    };
    let mut checked = 0;
    for c in v["cases"].as_array().unwrap() {
        if c["createdBy"] != "BF.RESERVE" {
            continue;
        }
        let cmd: Vec<&str> = c["reserve"]["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        let mut args = vec![cmd[2].to_string(), cmd[3].to_string()];
        let mut rest = cmd[4..].iter();
        while let Some(word) = rest.next() {
            match *word {
                "EXPANSION" => args.push(rest.next().unwrap().to_string()),
                "NONSCALING" => args.push("nonscaling".into()),
                other => panic!("unexpected reserve word {other}"),
            }
        }
        let dir = scratch(&format!("redis-{checked}"));
        let items = dir.join("items.hex");
        let lines: String = c["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| hex_of(i) + "\n")
            .collect();
        std::fs::write(&items, lines).unwrap();
        let out = dir.join("f.bin");
        let mut build = vec![
            "build",
            "--variant",
            "scalable",
            "--preset",
            "redisbloom",
            "--funnel",
            "bytes",
            "--input",
            items.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--json",
        ];
        let joined = args.join(",");
        build.extend(["--preset-args", &joined]);
        let replies = c["addReplies"].as_array().unwrap();
        if replies.iter().any(|r| !r.is_u64()) {
            // A full non-scaling filter: RedisBloom's error, nothing saved.
            fails_with(&build, 1, "ERR non scaling filter is full");
            assert!(!out.exists());
            checked += 1;
            let _ = std::fs::remove_dir_all(&dir);
            continue;
        }
        let summary = &json_lines(&build)[0];
        let ones = replies.iter().filter(|r| r.as_u64() == Some(1)).count();
        assert_eq!(summary["inserts_changing_bits"], ones, "{}", c["name"]);
        let info =
            &json_lines(&["inspect", out.to_str().unwrap(), "--json"])[0];
        let want = &c["info"];
        assert_eq!(info["items"], c["card"], "{}", c["name"]);
        assert_eq!(info["capacity"], want["Capacity"], "{}", c["name"]);
        assert_eq!(
            info["filters"], want["Number of filters"],
            "{}",
            c["name"]
        );
        assert_eq!(info["redis_size"], want["Size"], "{}", c["name"]);
        let probes = c["probes"].as_array().unwrap();
        let probe_file = dir.join("probes.hex");
        let lines: String =
            probes.iter().map(|p| hex_of(&p["item"]) + "\n").collect();
        std::fs::write(&probe_file, lines).unwrap();
        let answers = json_lines(&[
            "query",
            "--filter",
            out.to_str().unwrap(),
            "--funnel",
            "bytes",
            "--input",
            probe_file.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(answers.len(), probes.len());
        for (a, p) in answers.iter().zip(probes) {
            assert_eq!(
                a["result"],
                p["exists"] == 1,
                "{}: {}",
                c["name"],
                p["item"]
            );
        }
        checked += 1;
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert_eq!(checked, 10);
}

/// A scalable filter grows past its initial capacity; `inspect` lists each
/// layer; bad preset arguments are one clear line.
#[test]
fn scalable_filter_grows_through_the_cli() {
    let dir = scratch("scalable");
    let items = dir.join("items.txt");
    let keys: Vec<String> = (0..5000).map(|i| format!("s{i}")).collect();
    std::fs::write(&items, keys.join("\n")).unwrap();
    let items_s = items.to_str().unwrap();
    for extra in [
        vec!["--n", "500", "--p", "0.01"],
        vec!["--preset", "almeida", "--preset-args", "500,0.01"],
        vec!["--preset", "pybloom-live", "--preset-args", "500,0.01,2"],
    ] {
        let out = dir.join("s.bin");
        let mut a = vec!["build", "--variant", "scalable"];
        a.extend(extra.iter().copied());
        a.extend(["--input", items_s, "--out", out.to_str().unwrap()]);
        bloomlab().args(&a).assert().success();
        let info =
            &json_lines(&["inspect", out.to_str().unwrap(), "--json"])[0];
        assert_eq!(info["variant"], "scalable");
        let layers = info["layers"].as_array().unwrap();
        assert!(layers.len() >= 3, "{extra:?}: {info}");
        let counted: u64 =
            layers.iter().map(|l| l["count"].as_u64().unwrap()).sum();
        assert_eq!(Some(counted), info["items"].as_u64());
        assert_eq!(layers[0]["capacity"], 500);
        let answers = json_lines(&[
            "query",
            "--filter",
            out.to_str().unwrap(),
            "--input",
            items_s,
            "--json",
        ]);
        assert!(answers.iter().all(|a| a["result"] == true), "{extra:?}");
    }
    let out = dir.join("x.bin");
    let out_s = out.to_str().unwrap();
    for (extra, needle) in [
        (
            vec!["--preset", "redisbloom", "--preset-args", "1.5,100"],
            "ERR error rate",
        ),
        (
            vec!["--preset", "redisbloom", "--preset-args", "0.01"],
            "error,capacity",
        ),
        (
            vec!["--preset", "almeida", "--preset-args", "x,0.01"],
            "initial capacity",
        ),
        (vec!["--n", "100"], "--n N0 --p P"),
        (vec!["--n", "100", "--p", "0.01", "--k", "3"], "initial capacity"),
    ] {
        let mut a = vec!["build", "--variant", "scalable"];
        a.extend(extra.iter().copied());
        a.extend(["--input", items_s, "--out", out_s]);
        fails_with(&a, 1, needle);
        assert!(!out.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--layer-layout`, `--growth` and `--tightening` reach the file:
/// `inspect` shows them, `query` finds every item; bad values and
/// combinations are one line and leave no file.
#[test]
fn scalable_layout_growth_tightening_through_the_cli() {
    let dir = scratch("scalable-tuned");
    let items = dir.join("items.txt");
    let keys: Vec<String> = (0..3000).map(|i| format!("t{i}")).collect();
    std::fs::write(&items, keys.join("\n")).unwrap();
    let items_s = items.to_str().unwrap();
    let out = dir.join("t.bin");
    let out_s = out.to_str().unwrap();
    let base = ["build", "--input", items_s, "--out", out_s];
    let tuned = [
        "--layer-layout",
        "partitioned",
        "--growth",
        "2",
        "--tightening",
        "0.5",
    ];
    let scalable = ["--variant", "scalable", "--n", "200", "--p", "0.01"];
    bloomlab().args(base).args(scalable).args(tuned).assert().success();
    let info = &json_lines(&["inspect", out_s, "--json"])[0];
    assert_eq!(info["layer_layout"], "partitioned", "{info}");
    assert_eq!(info["expansion"], 2, "{info}");
    assert_eq!(info["tightening"], 0.5, "{info}");
    let layers = info["layers"].as_array().unwrap();
    assert!(layers.len() >= 3, "{info}");
    // Growth 2 and tightening 0.5 from P0 = 0.01 * (1 - 0.5).
    assert_eq!(layers[1]["capacity"], 400);
    assert_eq!(layers[1]["error"], 0.0025);
    let text = bloomlab().args(["inspect", out_s]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    // `key: value` lines, as every variant's, then one line per layer.
    for line in [
        "format: native\nvariant: scalable\nhash: xxh3-64\nseed: 0\n",
        "\nreduction: multiply-shift\nlayer layout: partitioned\n",
        "\nexpansion: 2\ntightening: 0.5\n",
        &format!(
            "\nexpected fpp: {:e}\n",
            info["expected_fpp"].as_f64().unwrap()
        ),
        "\nlayer 1: capacity 400 error 0.0025 ",
    ] {
        assert!(text.contains(line), "{line:?} not in {text}");
    }
    let answers = json_lines(&[
        "query", "--filter", out_s, "--input", items_s, "--json",
    ]);
    assert_eq!(answers.len(), keys.len());
    assert!(answers.iter().all(|a| a["result"] == true));
    std::fs::remove_file(&out).unwrap();

    // Without the flags: the library's defaults.
    bloomlab().args(base).args(scalable).assert().success();
    let info = &json_lines(&["inspect", out_s, "--json"])[0];
    assert_eq!(info["layer_layout"], "blocked");
    assert_eq!(info["expansion"], 4);
    assert_eq!(info["tightening"], 0.75);
    std::fs::remove_file(&out).unwrap();

    for (args, needle) in [
        (&["--layer-layout", "split"][..], "unknown layer-layout `split`"),
        (&["--growth", "0"], "--growth 0"),
        (&["--tightening", "1"], "--tightening 1"),
        (&["--tightening", "0"], "--tightening 0"),
        (&["--tightening", "-0.5"], "--tightening -0.5"),
        (&["--tightening", "1.5"], "strictly between 0 and 1"),
    ] {
        let a = [&base[..], &scalable, args].concat();
        fails_with(&a, 1, needle);
        assert!(!out.exists(), "{args:?}");
    }
    for args in [
        // Blocked layers take at most 64 probes: P0 = 2.5e-20 needs 66.
        &["--p", "1e-19"][..],
        &["--p", "1e-19", "--layer-layout", "blocked"],
    ] {
        let a = [&base[..], &["--variant", "scalable", "--n", "200"], args]
            .concat();
        fails_with(&a, 1, "--layer-layout standard or partitioned");
        assert!(!out.exists(), "{args:?}");
    }
    // A first layer too large for any layout: the fix is a smaller --n;
    // nothing has grown yet, and --m is no scalable filter's flag.
    for (n, p, needle) in [
        (
            "18446744073709551615",
            "0.5",
            "cannot be built: layer too large; lower --n",
        ),
        (
            "100000000000000",
            "0.01",
            "for the first layer; lower --n (its capacity) or raise --p",
        ),
    ] {
        for layout in ["blocked", "partitioned"] {
            let a = [
                &base[..],
                &["--variant", "scalable", "--n", n, "--p", p],
                &["--layer-layout", layout],
            ]
            .concat();
            fails_with(&a, 1, needle);
        }
    }
    // A chain that only fails at a later layer fails at that item: each
    // layer of 10 items has 1% of the error before it, which underflows
    // f64 after ~160 layers.
    let underflow = [
        "--variant",
        "scalable",
        "--n",
        "10",
        "--p",
        "0.01",
        "--layer-layout",
        "standard",
        "--growth",
        "1",
        "--tightening",
        "0.01",
    ];
    fails_with(
        &[&base[..], &underflow].concat(),
        1,
        "raise --p, --tightening or --growth (fewer, looser layers)",
    );
    assert!(!out.exists());
    // Presets fix these settings; other variants do not have them.
    let almeida = "--variant scalable --preset almeida --preset-args \
                   200,0.01 --growth 2";
    let redisbloom = "--variant scalable --preset redisbloom --preset-args \
                      0.01,200 --layer-layout standard";
    let standard = "--variant standard --n 200 --p 0.01 --tightening 0.5";
    let blocked = "--variant blocked --m 4096 --k 8 --layer-layout blocked";
    let guava = "--variant standard --preset guava --n 200 --p 0.01 \
                 --growth 2";
    for (args, needle) in [
        (almeida, "preset almeida fixes the layer layout, growth and"),
        (redisbloom, "preset redisbloom fixes the layer layout"),
        (standard, "--tightening is for variant scalable, not standard"),
        (blocked, "--layer-layout is for variant scalable, not blocked"),
        (guava, "--growth is for variant scalable, not standard"),
    ] {
        let a: Vec<&str> =
            base.iter().copied().chain(args.split_whitespace()).collect();
        fails_with(&a, 1, needle);
        assert!(!out.exists(), "{args}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--block-scheme parquet-split-block`: Parquet's split blocks (k = 8,
/// 256-bit blocks), kept in the file and shown by `inspect`; a scheme
/// the build does not know, or one given to another variant, is one
/// clear error.
#[test]
fn blocked_split_scheme_round_trips() {
    let dir = scratch("split-scheme");
    let items = dir.join("items.txt");
    let keys: Vec<String> = (0..500).map(|i| format!("key-{i}")).collect();
    std::fs::write(&items, keys.join("\n")).unwrap();
    let out = dir.join("split.bin");
    let build = |variant: &str, scheme: &str| {
        bloomlab()
            .args(["build", "--variant", variant, "--n", "500", "--p", "0.01"])
            .args(["--block-scheme", scheme, "--input"])
            .arg(&items)
            .arg("--out")
            .arg(&out)
            .assert()
    };
    build("blocked", "parquet-split-block").success();
    let info = &json_lines(&["inspect", out.to_str().unwrap(), "--json"])[0];
    assert_eq!(info["variant"], "blocked");
    assert_eq!(info["strategy"], "parquet-split-block");
    assert_eq!(info["k"].as_u64(), Some(8));
    assert_eq!(info["m"].as_u64().map(|m| m % 256), Some(0));
    assert_eq!(members_found(&out, &items), 500);
    let before = std::fs::read(&out).unwrap();
    let err = build("blocked", "nope").failure();
    let text = String::from_utf8_lossy(&err.get_output().stderr).into_owned();
    assert!(text.contains("parquet-split-block"), "{text}");
    let err = build("standard", "parquet-split").failure();
    let text = String::from_utf8_lossy(&err.get_output().stderr).into_owned();
    assert!(text.contains("--block-scheme are for blocked filters"), "{text}");
    assert_eq!(std::fs::read(&out).unwrap(), before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `build` reports the filter's expected false-positive rate (as
/// `inspect` computes it), and warns on stderr, still writing the file,
/// when more distinct items arrive than the filter was sized for and
/// its rate is above the target; not for duplicates, not at its
/// capacity, not for a scalable filter.
#[test]
fn build_warns_when_the_items_outnumber_the_capacity() {
    let dir = scratch("overfull");
    let items = dir.join("items.txt");
    let keys: Vec<String> = (0..1000).map(|i| format!("key-{i}")).collect();
    std::fs::write(&items, keys.join("\n")).unwrap();
    // 5 distinct items, each 20 times.
    let repeated = dir.join("repeated.txt");
    let dups: Vec<&str> =
        keys[..5].iter().cycle().take(100).map(|s| s.as_str()).collect();
    std::fs::write(&repeated, dups.join("\n")).unwrap();
    let out = dir.join("f.bin");
    let build = |input: &Path, extra: &[&str]| {
        let o = bloomlab()
            .arg("build")
            .args(extra)
            .arg("--input")
            .arg(input)
            .arg("--out")
            .arg(&out)
            .arg("--json")
            .output()
            .unwrap();
        assert!(o.status.success(), "{extra:?}");
        let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
        (summary, String::from_utf8(o.stderr).unwrap())
    };
    let std_args =
        |n: &'static str| ["--variant", "standard", "--n", n, "--p", "0.01"];

    let (summary, err) = build(&items, &std_args("100"));
    assert!(
        err.starts_with("warning: 1000 distinct items, more than the 100"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--n 1000 or more"), "{err}");
    // The file is written all the same, and says the same rate.
    let info = json_lines(&["inspect", out.to_str().unwrap(), "--json"]);
    assert_eq!(summary["expected_fpp"], info[0]["expected_fpp"]);
    // Ten times the capacity: far above the 1% target.
    assert!(summary["expected_fpp"].as_f64().unwrap() > 0.5, "{summary}");

    let guava = [
        "--variant",
        "standard",
        "--preset",
        "guava",
        "--preset-args",
        "10,0.01",
    ];
    let (_, err) = build(&items, &guava);
    assert!(err.contains("--preset-args expectedInsertions 1000"), "{err}");

    // A few items over, where the rounding up to whole words left room:
    // the rate is still under the target, so no warning. n = 0 is sized
    // as 1, and the warning says so.
    let (summary, err) = build(&repeated, &std_args("3"));
    assert_eq!(err, "");
    assert!(summary["expected_fpp"].as_f64().unwrap() < 0.01, "{summary}");
    let (_, err) = build(&items, &std_args("0"));
    assert!(err.contains("than the 1 the filter is sized for"), "{err}");

    for (input, args) in [
        (&items, &std_args("1000")[..]),
        (&repeated, &std_args("10")[..]),
        (&items, &["--variant", "scalable", "--n", "100", "--p", "0.01"][..]),
        (&items, &["--variant", "standard", "--m", "1000", "--k", "3"][..]),
    ] {
        let (summary, err) = build(input, args);
        assert_eq!(err, "", "{args:?}");
        assert!(summary["expected_fpp"].as_f64().unwrap() > 0.0, "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `bloomlab query ... | head -1` is not an error: when the reader
/// closes the pipe, the command stops quietly with exit code 0, in text
/// and in `--json`.
#[test]
fn query_into_a_closed_pipe_is_not_an_error() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    let dir = scratch("pipe");
    let items = dir.join("items.txt");
    // Far more output than a pipe buffers (64 KiB), so the writer is
    // still writing when the reader has gone.
    let keys: Vec<String> = (0..200_000).map(|i| i.to_string()).collect();
    std::fs::write(&items, keys.join("\n")).unwrap();
    let filter = dir.join("f.bin");
    build_ok(
        &["--variant", "standard", "--n", "1000", "--p", "0.01"],
        &items,
        &filter,
    );
    for json in [false, true] {
        let mut child = std::process::Command::new(
            assert_cmd::cargo::cargo_bin("bloomlab"),
        )
        .env_remove("RUST_BACKTRACE")
        .args(["query", "--filter", filter.to_str().unwrap()])
        .arg("--input")
        .arg(&items)
        .args(json.then_some("--json"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // The reader is dropped here: the pipe is closed.
        assert!(first.starts_with(if json {
            "{\"item\":\"0\""
        } else {
            "0\t"
        }));
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "json {json}: {err}");
        assert_eq!(err, "", "json {json}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--input -` reads the items (or probes) from standard input: the same
/// filter, byte for byte, as from a file, and the same answers; a bad
/// line is named by its number in "standard input".
#[test]
fn items_from_standard_input() {
    let dir = scratch("stdin");
    let text = "alice\nbob\ncarol\n";
    let items = dir.join("items.txt");
    std::fs::write(&items, text).unwrap();
    let (from_file, from_stdin) = (dir.join("a.bin"), dir.join("b.bin"));
    let sized = ["--variant", "standard", "--n", "100", "--p", "0.01"];
    build_ok(&sized, &items, &from_file);
    bloomlab()
        .arg("build")
        .args(sized)
        .args(["--input", "-", "--out"])
        .arg(&from_stdin)
        .write_stdin(text)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&from_file).unwrap(),
        std::fs::read(&from_stdin).unwrap()
    );
    let answers = bloomlab()
        .args(["query", "--filter", from_stdin.to_str().unwrap()])
        .args(["--input", "-"])
        .write_stdin("bob\nzzz-not-there\n")
        .output()
        .unwrap();
    assert!(answers.status.success());
    assert_eq!(
        String::from_utf8(answers.stdout).unwrap(),
        "bob\ttrue\nzzz-not-there\tfalse\n"
    );

    let o = bloomlab()
        .arg("build")
        .args(sized)
        .args(["--funnel", "long", "--input", "-", "--out"])
        .arg(&from_stdin)
        .write_stdin("1\nx\n")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.starts_with("error: standard input line 2: "), "{err}");
    // The good file from before is left as it was.
    assert_eq!(
        std::fs::read(&from_file).unwrap(),
        std::fs::read(&from_stdin).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The text summary of a build counts the items read and, apart, the
/// inserts that changed the filter: a repeated item changes a standard
/// filter's bits once, while every insert into a counting filter moves
/// its counters.
#[test]
fn build_summary_counts_inserts_that_changed_the_filter() {
    let dir = scratch("summary");
    let items = dir.join("items.txt");
    std::fs::write(&items, "alice\nbob\nalice\nbob\ncarol\n").unwrap();
    for (variant, changed) in [("standard", 3), ("counting", 5)] {
        let out = dir.join(format!("{variant}.bin"));
        let o = bloomlab()
            .args(["build", "--variant", variant, "--n", "100", "--p", "0.01"])
            .arg("--input")
            .arg(&items)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        let line = String::from_utf8(o.stdout).unwrap();
        let want = format!("5 items ({changed} inserts changed it)");
        assert!(line.contains(&want), "{variant}: {line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--format guava` for a filter Guava could not have made fails before
/// any item is read into it, says why and what to use instead, and
/// writes nothing.
#[test]
fn guava_format_of_a_non_guava_filter_is_refused_up_front() {
    let dir = scratch("notguava");
    let items = dir.join("items.txt");
    std::fs::write(&items, "a\nb\n").unwrap();
    let out = dir.join("f.bin");
    let (items, out_s) = (items.to_str().unwrap(), out.to_str().unwrap());
    let sized =
        ["--n", "100", "--p", "0.01", "--input", items, "--out", out_s];
    for (variant, needle) in [
        (
            "standard",
            "--format guava: the filter is not Guava-compatible: family \
             xxh3-128 (Guava uses murmur3-x64-128); build with --preset guava",
        ),
        ("blocked", "Guava's format holds no blocked filter"),
        ("counting", "Guava's format holds only standard filters"),
    ] {
        let mut args =
            vec!["build", "--variant", variant, "--format", "guava"];
        args.extend(sized);
        fails_with(&args, 1, needle);
        assert!(!out.exists(), "{variant}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Output into a closed pipe (`bloomlab inspect F | head -0`) ends the
/// command quietly with success, as for `list`; `println!` used to panic
/// (exit 101, "failed printing to stdout").
#[test]
fn a_closed_stdout_is_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let items = dir.path().join("items.txt");
    std::fs::write(&items, "a\nb\n").unwrap();
    let filter = dir.path().join("f.bf");
    let (f, i) = (filter.to_str().unwrap(), items.to_str().unwrap());
    let build = ["build", "--variant", "standard", "--n", "10", "--p", "0.01"];
    let verbs: [Vec<&str>; 3] = [
        [&build[..], &["--input", i, "--out", f]].concat(),
        vec!["inspect", f],
        vec!["theory", "--m", "64", "--n", "10", "--k", "3"],
    ];
    for args in verbs {
        // A pipe whose reading end is closed before the command writes.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_bloomlab"))
            .args(&args)
            .env_remove("RUST_BACKTRACE")
            .stdout(writer)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// `build --help` names every preset that `build` accepts, as the error
/// for an unknown one does.
#[test]
fn build_help_names_every_preset() {
    let help = bloomlab().args(["build", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let (_, preset) = help.split_once("--preset <PRESET>").unwrap();
    let preset = preset.split("\n      --").next().unwrap();
    let dir = scratch("presets");
    let input = dir.join("items.txt");
    std::fs::write(&input, "a\n").unwrap();
    let unknown = bloomlab()
        .args(["build", "--variant", "standard", "--preset", "nope"])
        .args(["--n", "10", "--p", "0.1", "--input"])
        .arg(&input)
        .arg("--out")
        .arg(dir.join("f.bin"))
        .output()
        .unwrap();
    let err = String::from_utf8(unknown.stderr).unwrap();
    for name in [
        "guava",
        "hutool-bitmap",
        "hutool-bitset",
        "redisbloom",
        "almeida",
        "pybloom-live",
    ] {
        assert!(preset.contains(name), "{name} not in --preset's help");
        assert!(err.contains(name), "{name} not in {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `build --help`'s default hash for each variant is the one a build
/// without `--hash` uses.
#[test]
fn build_help_gives_each_variants_default_hash() {
    let help = bloomlab().args(["build", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let (_, hash) = help.split_once("--hash <FAMILY>").unwrap();
    let hash = hash.split("\n      --").next().unwrap().replace('\n', " ");
    let hash = hash.split_whitespace().collect::<Vec<_>>().join(" ");
    let dir = scratch("default-hash");
    let items = dir.join("items.txt");
    std::fs::write(&items, "a\n").unwrap();
    let out = dir.join("f.bin");
    for (variants, family) in [
        ("standard and counting", "xxh3-128"),
        ("blocked and partitioned", "xxh3-64"),
    ] {
        let clause = format!("{family} for {variants} filters");
        assert!(hash.contains(&clause), "{clause:?} not in {hash:?}");
        for variant in variants.split(" and ") {
            let args = ["--variant", variant, "--n", "10", "--p", "0.1"];
            build_ok(&args, &items, &out);
            let info =
                json_lines(&["inspect", out.to_str().unwrap(), "--json"]);
            assert_eq!(info[0]["hash"], family, "{variant}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A flag the asked-for filter does not use is refused, presets
/// included, rather than dropped from the build without a word.
#[test]
fn flags_a_filter_does_not_use_are_refused() {
    let dir = scratch("unused-flags");
    let items = dir.join("items.txt");
    std::fs::write(&items, "a\nb\n").unwrap();
    let (i, o) = (items.to_str().unwrap(), dir.join("f.bin"));
    let o = o.to_str().unwrap();
    let guava = [
        "--variant",
        "standard",
        "--preset",
        "guava",
        "--n",
        "100",
        "--p",
        "0.01",
    ];
    let bitset = [
        "--variant",
        "partitioned",
        "--preset",
        "hutool-bitset",
        "--preset-args",
        "1000,100,3",
    ];
    let redis = [
        "--variant",
        "scalable",
        "--preset",
        "redisbloom",
        "--preset-args",
        "0.01,100",
    ];
    let plain = |v| ["--variant", v, "--n", "100", "--p", "0.01"];
    let cases: Vec<(Vec<&str>, &[&str], &str)> = vec![
        (guava.to_vec(), &["--m", "10", "--k", "10"], "drop --m and --k"),
        (
            guava.to_vec(),
            &["--counter-bits", "8"],
            "not standard (preset guava)",
        ),
        (
            guava.to_vec(),
            &["--block-bits", "512"],
            "not standard (preset guava)",
        ),
        (
            bitset.to_vec(),
            &["--counter-bits", "8"],
            "not partitioned (preset hutool-bitset)",
        ),
        (
            bitset.to_vec(),
            &["--block-scheme", "parquet-split-block"],
            "are for blocked filters",
        ),
        (
            redis.to_vec(),
            &["--counter-bits", "8"],
            "--counter-bits does not apply to a scalable",
        ),
        (
            plain("standard").to_vec(),
            &["--block-bits", "512"],
            "not standard; drop them",
        ),
        (
            plain("partitioned").to_vec(),
            &["--counter-bits", "8"],
            "not partitioned; drop it",
        ),
        (
            plain("counting").to_vec(),
            &["--block-bits", "512"],
            "not counting; drop them",
        ),
    ];
    for (base, extra, needle) in cases {
        let args = [&["build"], &base[..], extra, &["--input", i, "--out", o]]
            .concat();
        fails_with(&args, 1, needle);
        assert!(!dir.join("f.bin").exists(), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
