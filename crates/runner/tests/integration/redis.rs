// `build`, `query` and `inspect` with `--redis URL --key NAME`, against a
// real redis-server started here: the same answers and description as the
// file commands, Guava's bits, the counting variant, and clear errors.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use bloomlab_redis::redis;
use bloomlab_redis::{Options, RedisBloomFilter, connect};

use crate::filters::{case, item_text};
use crate::{bloomlab, fails_with, json_lines};

/// A `redis-server` on 127.0.0.1 and a free port, without persistence,
/// in its own temporary directory; killed when dropped.
struct Server {
    child: Child,
    port: u16,
    // Holds the server's working directory until the server is gone.
    _dir: tempfile::TempDir,
}

impl Server {
    fn start() -> Server {
        let dir = tempfile::tempdir().unwrap();
        // The free port may be taken by someone else before the server
        // binds it: try a few.
        let mut last = String::new();
        for _ in 0..5 {
            let port = free_port();
            match spawn(dir.path(), port) {
                Ok(child) => return Server { child, port, _dir: dir },
                Err(e) => last = e,
            }
        }
        panic!("could not start redis-server: {last}");
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// A direct connection, to look at or set up keys.
    fn conn(&self) -> redis::Connection {
        connect(&self.url(), &Options::default()).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Starts the server and waits (at most 10 s) for its PONG.
fn spawn(dir: &Path, port: u16) -> Result<Child, String> {
    let mut child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
        .args(["--loglevel", "warning", "--dir"])
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            format!(
                "redis-server: {e} (apt-get install -y redis-server; \
                 scripts/test.sh installs it)"
            )
        })?;
    let url = format!("redis://127.0.0.1:{port}/");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            return Err(format!("redis-server on {port} exited: {status}"));
        }
        let ping = connect(&url, &Options::default())
            .and_then(|mut c| Ok(redis::cmd("PING").query::<String>(&mut c)?));
        if matches!(ping.as_deref(), Ok("PONG")) {
            return Ok(child);
        }
        if started.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("redis-server on {port}: no PONG: {ping:?}"));
        }
        sleep(Duration::from_millis(20));
    }
}

/// `lines` written one per line to `dir/name`.
fn write_lines(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    path
}

/// The arguments as `&str`s.
fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `bloomlab ARGS`, expects success, returns stdout.
fn stdout(args: &[&str]) -> String {
    let out = bloomlab().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "bloomlab {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `inspect` fields that describe the filter itself, whatever holds it.
const SAME_FIELDS: &[&str] = &[
    "variant",
    "m",
    "k",
    "hash",
    "seed",
    "strategy",
    "reduction",
    "bits_set",
    "estimated_count",
    "expected_fpp",
    "bytes_of_memory",
];

/// Standard filters, default and non-default hashing, built from one
/// items file into Redis (several batches) and into a file: the same
/// build summary, byte-identical `query` output (text and JSON), and
/// `inspect` giving the file's fields plus Redis's own.
#[test]
fn standard_filter_in_redis_answers_as_the_file_build() {
    let server = Server::start();
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let items: Vec<String> = (0..1500).map(|i| format!("url-{i}")).collect();
    let items_file = write_lines(dir.path(), "items.txt", &items);
    // Members first, then non-members.
    let probes: Vec<String> = items[..300]
        .iter()
        .cloned()
        .chain((0..2000).map(|i| format!("miss-{i}")))
        .collect();
    let probes_file = write_lines(dir.path(), "probes.txt", &probes);

    let cases: [(&str, &[&str]); 2] = [
        ("default", &["--n", "1500", "--p", "0.01"]),
        (
            "murmur-double",
            &[
                "--hash",
                "murmur3-x64-128",
                "--strategy",
                "double",
                "--reduction",
                "modulo",
                "--seed",
                "7",
                "--m",
                "20000",
                "--k",
                "5",
            ],
        ),
    ];
    for (key, params) in cases {
        let file = dir.path().join(format!("{key}.bin"));
        let mut args = vec!["build", "--variant", "standard"];
        args.extend_from_slice(params);
        args.extend_from_slice(&["--input", s(&items_file), "--json"]);
        let file_summary =
            json_lines(&[args.as_slice(), &["--out", s(&file)]].concat())
                .remove(0);
        let redis_summary = json_lines(
            &[
                args.as_slice(),
                &["--redis", &url, "--key", key, "--batch-size", "97"],
            ]
            .concat(),
        )
        .remove(0);
        assert_eq!(redis_summary["format"], "redis", "{key}");
        assert_eq!(redis_summary["key"], key);
        assert_eq!(redis_summary["redis"], url.as_str());
        for field in ["variant", "items", "inserts_changing_bits", "m", "k"] {
            assert_eq!(redis_summary[field], file_summary[field], "{key}");
        }

        // Answers: byte for byte the file's, as text and as JSON.
        for json in [false, true] {
            let mut q = vec!["query", "--input", s(&probes_file)];
            if json {
                q.push("--json");
            }
            let from_file =
                stdout(&[q.as_slice(), &["--filter", s(&file)]].concat());
            let from_redis = stdout(
                &[
                    q.as_slice(),
                    &["--redis", &url, "--key", key, "--batch-size", "333"],
                ]
                .concat(),
            );
            assert_eq!(from_redis, from_file, "{key} json={json}");
            assert_eq!(from_redis.lines().count(), probes.len());
        }
        let text = stdout(&[
            "query",
            "--filter",
            s(&file),
            "--input",
            s(&probes_file),
        ]);
        let answers: Vec<&str> = text.lines().collect();
        // No false negatives, and the non-members are mostly answered
        // false: 2000 probes at p <= 0.02 give about 40 false positives;
        // 200 is far beyond any plausible count (a binomial tail below
        // 1e-50), so this only fails if the filter answers "true" blindly.
        assert!(answers[..300].iter().all(|l| l.ends_with("\ttrue")));
        let fp =
            answers[300..].iter().filter(|l| l.ends_with("\ttrue")).count();
        assert!(fp < 200, "{key}: {fp} false positives in 2000");

        // inspect --json: the file's fields, plus where it is.
        let from_file = &json_lines(&["inspect", s(&file), "--json"])[0];
        let from_redis =
            &json_lines(&["inspect", "--redis", &url, "--key", key, "--json"])
                [0];
        for field in SAME_FIELDS {
            assert_eq!(from_redis[field], from_file[field], "{key} {field}");
        }
        assert_eq!(from_redis["format"], "redis");
        assert_eq!(from_redis["key"], key);
        assert_eq!(from_redis["redis"], url.as_str());
        let m = from_file["m"].as_u64().unwrap();
        let redis_bytes = from_redis["redis_bytes"].as_u64().unwrap();
        assert!(
            redis_bytes >= m / 8,
            "{key}: {redis_bytes} bytes for {m} bits"
        );

        // inspect text: the file's lines (format aside), then the bytes.
        let file_text = stdout(&["inspect", s(&file)]);
        let redis_text = stdout(&["inspect", "--redis", &url, "--key", key]);
        let body = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| {
                    !l.starts_with("file:")
                        && !l.starts_with("redis:")
                        && !l.starts_with("key:")
                        && !l.starts_with("format:")
                        && !l.starts_with("bytes in redis:")
                })
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(body(&redis_text), body(&file_text), "{key}");
        assert!(redis_text.starts_with(&format!(
            "redis: {url}\nkey: {key}\nformat: redis\n"
        )));
        assert!(
            redis_text.ends_with(&format!("bytes in redis: {redis_bytes}\n")),
            "{redis_text}"
        );
    }
}

/// A second build into an identical filter adds its items; one with
/// other parameters fails in one line and changes nothing.
#[test]
fn identical_filter_is_appended_to_and_other_parameters_refused() {
    let server = Server::start();
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let a: Vec<String> = (0..200).map(|i| format!("a-{i}")).collect();
    let b: Vec<String> = (0..200).map(|i| format!("b-{i}")).collect();
    let fa = write_lines(dir.path(), "a.txt", &a);
    let fb = write_lines(dir.path(), "b.txt", &b);
    let build = |input: &Path, n: &str| {
        vec![
            "build".to_owned(),
            "--redis".to_owned(),
            url.clone(),
            "--key".to_owned(),
            "shared".to_owned(),
            "--n".to_owned(),
            n.to_owned(),
            "--p".to_owned(),
            "0.01".to_owned(),
            "--input".to_owned(),
            s(input).to_owned(),
        ]
    };
    stdout(&strs(&build(&fa, "400")));
    let summary = stdout(&strs(&build(&fb, "400")));
    assert!(
        summary.starts_with(&format!("stored {url} key shared (")),
        "{summary}"
    );
    assert!(summary.contains("standard filter, m = 3840, k = 7, 200 items"));

    // Both shards are in: every item of a and b is present.
    let both = write_lines(
        dir.path(),
        "both.txt",
        &a.iter().chain(&b).cloned().collect::<Vec<_>>(),
    );
    let text = stdout(&[
        "query",
        "--redis",
        &url,
        "--key",
        "shared",
        "--input",
        s(&both),
    ]);
    assert_eq!(text.lines().count(), 400);
    assert!(text.lines().all(|l| l.ends_with("\ttrue")), "{text}");

    let before =
        json_lines(&["inspect", "--redis", &url, "--key", "shared", "--json"]);
    fails_with(
        &strs(&build(&fa, "4000")),
        1,
        "filter \"shared\" already exists with other parameters: m is \
         \"3840\" in Redis, requested \"38400\"",
    );
    // Another variant under the same name is refused too.
    let mut counting = build(&fa, "400");
    counting.extend(["--variant".to_owned(), "counting".to_owned()]);
    fails_with(&strs(&counting), 1, "variant is \"standard\" in Redis");
    let after =
        json_lines(&["inspect", "--redis", &url, "--key", "shared", "--json"]);
    assert_eq!(before, after);
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `--preset guava` into Redis: Guava's bits (exported, they serialize
/// to Guava's bytes), Guava's `mightContain` answers and the Guava file
/// build's, for a string and a long filter and both strategies.
#[test]
fn guava_preset_in_redis_has_guavas_bits_and_answers() {
    let server = Server::start();
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    for (name, funnel, strategy) in [
        ("string_item_100_mitz64", "utf8", "guava-mitz64"),
        ("long_seq_500_mitz32", "long", "guava-mitz32"),
    ] {
        let c = case(name);
        let items: Vec<String> =
            c["items"].as_array().unwrap().iter().map(item_text).collect();
        let items_file = write_lines(dir.path(), "items.txt", &items);
        let n = c["expectedInsertions"].to_string();
        let p = c["fpp"].to_string();
        let common = [
            "build",
            "--preset",
            "guava",
            "--strategy",
            strategy,
            "--funnel",
            funnel,
            "--n",
            &n,
            "--p",
            &p,
            "--input",
            s(&items_file),
        ];
        let file = dir.path().join(format!("{name}.guava"));
        stdout(
            &[&common[..], &["--variant", "standard", "--out", s(&file)]]
                .concat(),
        );
        // --variant may be left out with --redis: standard.
        stdout(&[&common[..], &["--redis", &url, "--key", name]].concat());

        // The bits in Redis are Guava's: exported, Guava's exact bytes.
        let mut f = RedisBloomFilter::open(server.conn(), name).unwrap();
        let exported = f.export().unwrap();
        assert_eq!(
            hex(&bloomlab_standard::guava::to_guava_bytes(&exported).unwrap()),
            c["serializedHex"].as_str().unwrap(),
            "{name}"
        );

        let probes = c["probes"].as_array().unwrap();
        let probe_items: Vec<String> =
            probes.iter().map(|p| item_text(&p["item"])).collect();
        let probes_file = write_lines(dir.path(), "probes.txt", &probe_items);
        let q = ["query", "--funnel", funnel, "--input", s(&probes_file)];
        let from_redis = stdout(
            &[&q[..], &["--redis", &url, "--key", name, "--batch-size", "7"]]
                .concat(),
        );
        let from_file = stdout(&[&q[..], &["--filter", s(&file)]].concat());
        assert_eq!(from_redis, from_file, "{name}");
        let lines: Vec<&str> = from_redis.lines().collect();
        assert_eq!(lines.len(), probes.len());
        for (line, probe) in lines.iter().zip(probes) {
            let expected = format!(
                "{}\t{}",
                item_text(&probe["item"]),
                probe["mightContain"]
            );
            assert_eq!(*line, expected, "{name}");
        }

        let info = &json_lines(&[
            "inspect", "--redis", &url, "--key", name, "--json",
        ])[0];
        assert_eq!(info["strategy"], strategy);
        assert_eq!(info["hash"], "murmur3-x64-128");
        assert_eq!(info["m"], c["bitSize"]);
        assert_eq!(info["k"], c["numHashFunctions"]);
        assert_eq!(info["bits_set"], c["bitCount"]);
        assert_eq!(info["estimated_count"], c["approximateElementCount"]);
    }
}

/// The counting variant: the same answers and counters as the file
/// build, for a filter sized for its items and an overloaded one whose
/// counters saturate (at 15, in Redis as in memory); `inspect` leaves
/// out the statistics Redis does not keep.
#[test]
fn counting_filter_in_redis_matches_the_file_build() {
    let server = Server::start();
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let items: Vec<String> = (0..600).map(|i| format!("c-{i}")).collect();
    let items_file = write_lines(dir.path(), "items.txt", &items);
    let probes: Vec<String> = items[..100]
        .iter()
        .cloned()
        .chain((0..500).map(|i| format!("other-{i}")))
        .collect();
    let probes_file = write_lines(dir.path(), "probes.txt", &probes);
    let cases: [(&str, &[&str]); 2] = [
        ("sized", &["--n", "600", "--p", "0.01"]),
        // 600 items x 3 probes into 64 counters: about 28 increments
        // each, so most counters saturate.
        ("overloaded", &["--m", "64", "--k", "3", "--counter-bits", "4"]),
    ];
    for (key, params) in cases {
        let file = dir.path().join(format!("{key}.bin"));
        let args = [
            &["build", "--variant", "counting", "--input", s(&items_file)],
            params,
            &["--json"],
        ]
        .concat();
        let file_summary =
            json_lines(&[&args[..], &["--out", s(&file)]].concat()).remove(0);
        let redis_summary = json_lines(
            &[
                &args[..],
                &["--redis", &url, "--key", key, "--batch-size", "50"],
            ]
            .concat(),
        )
        .remove(0);
        assert_eq!(redis_summary["variant"], "counting");
        for field in ["items", "inserts_changing_bits", "m", "k"] {
            assert_eq!(redis_summary[field], file_summary[field], "{key}");
        }

        let q = ["query", "--input", s(&probes_file)];
        assert_eq!(
            stdout(&[&q[..], &["--redis", &url, "--key", key]].concat()),
            stdout(&[&q[..], &["--filter", s(&file)]].concat()),
            "{key}"
        );

        let from_file = &json_lines(&["inspect", s(&file), "--json"])[0];
        let from_redis =
            &json_lines(&["inspect", "--redis", &url, "--key", key, "--json"])
                [0];
        for field in
            SAME_FIELDS.iter().chain(&["counter_bits", "saturated_counters"])
        {
            assert_eq!(from_redis[field], from_file[field], "{key} {field}");
        }
        for untracked in ["inserts", "removes", "saturation_events"] {
            assert!(from_file.get(untracked).is_some());
            assert!(from_redis.get(untracked).is_none(), "{key} {untracked}");
        }
        let saturated = from_redis["saturated_counters"].as_u64().unwrap();
        if key == "overloaded" {
            assert!(saturated > 32, "{saturated} of 64 saturated");
        }
        let text = stdout(&["inspect", "--redis", &url, "--key", key]);
        assert!(text.contains("\nvariant: counting\n"), "{text}");
        assert!(text.contains("\ncounter bits: 4\n"), "{text}");
        assert!(
            text.contains(&format!("\nsaturated counters: {saturated}\n"))
        );
        assert!(!text.contains("\ninserts:"), "{text}");
    }
    // Redis keeps 4-bit counters only.
    fails_with(
        &[
            "build",
            "--redis",
            &url,
            "--key",
            "c8",
            "--variant",
            "counting",
            "--counter-bits",
            "8",
            "--n",
            "10",
            "--p",
            "0.1",
            "--input",
            s(&items_file),
        ],
        1,
        "4-bit counters",
    );
}

/// The scalable variant: a chain grown in Redis, batch by batch, is the
/// file build's chain (same layers, counts, skipped inserts, answers),
/// for the default growth and the RedisBloom preset; a full non-scaling
/// filter refuses the batch that overflows it.
#[test]
fn scalable_filter_in_redis_matches_the_file_build() {
    let server = Server::start();
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    // 3000 items, 60 of them repeated: repeats are skipped, not inserted.
    let items: Vec<String> = (0..3000)
        .map(|i| format!("s-{}", if i % 50 == 49 { i - 1 } else { i }))
        .collect();
    let items_file = write_lines(dir.path(), "items.txt", &items);
    let probes: Vec<String> = items[..200]
        .iter()
        .cloned()
        .chain((0..2000).map(|i| format!("none-{i}")))
        .collect();
    let probes_file = write_lines(dir.path(), "probes.txt", &probes);
    let cases: [(&str, &[&str]); 3] = [
        ("grown", &["--n", "200", "--p", "0.01"]),
        // Layout, growth and tightening are stored with the chain.
        (
            "tuned",
            &[
                "--n",
                "200",
                "--p",
                "0.01",
                "--layer-layout",
                "partitioned",
                "--growth",
                "2",
                "--tightening",
                "0.5",
            ],
        ),
        (
            "redisbloom",
            &["--preset", "redisbloom", "--preset-args", "0.01,300,3"],
        ),
    ];
    for (key, params) in cases {
        let file = dir.path().join(format!("{key}.bin"));
        let args = [
            &["build", "--variant", "scalable", "--input", s(&items_file)],
            params,
            &["--json"],
        ]
        .concat();
        let file_summary =
            json_lines(&[&args[..], &["--out", s(&file)]].concat()).remove(0);
        // Batches of 128 cross layer boundaries inside a batch.
        let redis_summary = json_lines(
            &[
                &args[..],
                &["--redis", &url, "--key", key, "--batch-size", "128"],
            ]
            .concat(),
        )
        .remove(0);
        for field in ["variant", "items", "inserts_changing_bits", "m", "k"] {
            assert_eq!(redis_summary[field], file_summary[field], "{key}");
        }

        let q = ["query", "--input", s(&probes_file)];
        assert_eq!(
            stdout(&[&q[..], &["--redis", &url, "--key", key]].concat()),
            stdout(&[&q[..], &["--filter", s(&file)]].concat()),
            "{key}"
        );

        let mut from_file =
            json_lines(&["inspect", s(&file), "--json"]).remove(0);
        let mut from_redis =
            json_lines(&["inspect", "--redis", &url, "--key", key, "--json"])
                .remove(0);
        let layers = from_redis["layers"].as_array().unwrap().len();
        assert!(layers >= 3, "{key}: {layers} layers");
        // Every repeat is skipped, and so is any false positive.
        let skipped = from_redis["skipped"].as_u64().unwrap();
        assert!(skipped >= 60, "{key}: {skipped} skipped");
        assert!(from_redis["redis_bytes"].as_u64().unwrap() > 0);
        // Everything else is the file's, layer by layer.
        for (v, own) in [
            (&mut from_file, &["format", "file", "file_bytes"][..]),
            (&mut from_redis, &["format", "redis", "key", "redis_bytes"][..]),
        ] {
            for field in own {
                assert!(v.as_object_mut().unwrap().remove(*field).is_some());
            }
        }
        assert_eq!(from_redis, from_file, "{key}");
        if key == "tuned" {
            assert_eq!(from_redis["layer_layout"], "partitioned");
            assert_eq!(from_redis["expansion"], 2);
            assert_eq!(from_redis["tightening"], 0.5);
        }
    }

    // Non-scaling, 1000 items: the batch holding item 1001 is refused
    // whole, the batches before it stay.
    fails_with(
        &[
            "build",
            "--redis",
            &url,
            "--key",
            "capped",
            "--variant",
            "scalable",
            "--preset",
            "redisbloom",
            "--preset-args",
            "0.01,1000,nonscaling",
            "--batch-size",
            "400",
            "--input",
            s(&items_file),
        ],
        1,
        "after storing 800 items, inserting items 801..=1200",
    );
    let info = &json_lines(&[
        "inspect", "--redis", &url, "--key", "capped", "--json",
    ])[0];
    // 800 lines stored: inserted or skipped (16 are repeats).
    let (items, skipped) =
        (info["items"].as_u64().unwrap(), info["skipped"].as_u64().unwrap());
    assert_eq!(items + skipped, 800);
    assert!(skipped >= 16);
}

/// A closed port, a server that never answers, a bad URL, a missing
/// filter, a key of another type, unsupported variants, and flags that
/// do not go together: a clear error, never a hang or a panic.
#[test]
fn redis_errors_are_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let items = write_lines(dir.path(), "items.txt", &["x".to_owned()]);
    let build = |url: &str| {
        vec![
            "build".to_owned(),
            "--redis".to_owned(),
            url.to_owned(),
            "--key".to_owned(),
            "f".to_owned(),
            "--n".to_owned(),
            "10".to_owned(),
            "--p".to_owned(),
            "0.1".to_owned(),
            "--input".to_owned(),
            s(&items).to_owned(),
        ]
    };

    // Nothing listens on a port just freed.
    let closed = format!("redis://127.0.0.1:{}/", free_port());
    fails_with(&strs(&build(&closed)), 1, &format!("connecting to {closed}"));
    fails_with(
        &["query", "--redis", &closed, "--key", "f", "x"],
        1,
        "Connection refused",
    );
    fails_with(
        &["inspect", "--redis", &closed, "--key", "f"],
        1,
        "Connection refused",
    );

    // A listener that accepts connections (the kernel's backlog) but
    // never answers: bounded by --redis-timeout-ms.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_url =
        format!("redis://127.0.0.1:{}/", silent.local_addr().unwrap().port());
    let started = Instant::now();
    fails_with(
        &[
            "query",
            "--redis",
            &silent_url,
            "--key",
            "f",
            "--redis-timeout-ms",
            "300",
            "x",
        ],
        1,
        "no answer within 300 ms (--redis-timeout-ms)",
    );
    // The whole connection attempt is bounded by the 300 ms (plus the
    // process's start); 5 s would mean the default timeout or a hang.
    assert!(started.elapsed() < Duration::from_secs(5));
    drop(silent);

    fails_with(&strs(&build("not-a-url")), 1, "connecting to not-a-url");
    // Parameters are checked before connecting: the name, m past a
    // Redis string, k past 255.
    let mut braces = build(&closed);
    braces[4] = "a{b}".to_owned();
    fails_with(&strs(&braces), 1, "without braces");
    for verb in [&["query", "x"][..], &["inspect"][..]] {
        let args = [&["--redis", &closed, "--key", "a{b}"][..], &verb[1..]];
        fails_with(
            &[&[verb[0]][..], &args.concat()].concat(),
            1,
            "without braces",
        );
    }
    fails_with(
        &["build", "--redis", &closed, "--key", "f", "--m", "8589934592"]
            .iter()
            .chain(&["--k", "3", "--input", s(&items)])
            .copied()
            .collect::<Vec<_>>(),
        1,
        "at most 2^32 bits",
    );
    // A password holding '/', or carried as a query parameter, is not
    // printed either.
    for url in [
        closed.replace("127.0.0.1", ":hun/ter2@127.0.0.1"),
        format!("{closed}?password=hunter2"),
    ] {
        let out = bloomlab().args(strs(&build(&url))).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(!err.contains("hunter2") && !err.contains("ter2"), "{err}");
    }
    // A password is not printed.
    fails_with(
        &strs(&build(&closed.replace("127.0.0.1", ":hunter2@127.0.0.1"))),
        1,
        ":***@127.0.0.1",
    );
    let out = bloomlab()
        .args(strs(&build(&closed.replace("127.0.0.1", ":hunter2@127.0.0.1"))))
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("hunter2"));

    let server = Server::start();
    let url = server.url();
    fails_with(
        &["query", "--redis", &url, "--key", "nothing", "x"],
        1,
        "no Redis filter named \"nothing\"",
    );
    fails_with(
        &["inspect", "--redis", &url, "--key", "nothing"],
        1,
        "no Redis filter named \"nothing\"",
    );
    let mut conn = server.conn();
    redis::cmd("SET")
        .arg("{str}:config")
        .arg("a string")
        .query::<()>(&mut conn)
        .unwrap();
    fails_with(
        &["query", "--redis", &url, "--key", "str", "x"],
        1,
        "holds a Redis string, not a bloomlab filter's hash",
    );
    // A config hash naming a variant this build does not know.
    redis::cmd("HSET")
        .arg("{odd}:config")
        .arg("variant")
        .arg("cuckoo")
        .query::<()>(&mut conn)
        .unwrap();
    fails_with(
        &["inspect", "--redis", &url, "--key", "odd"],
        1,
        "its variant is \"cuckoo\", which this bloomlab cannot use",
    );
    fails_with(
        &[&strs(&build(&url))[..], &["--variant", "blocked"]].concat(),
        1,
        "variant \"blocked\" is not supported with --redis",
    );
    fails_with(
        &[&strs(&build(&url))[..], &["--preset", "redisbloom"]].concat(),
        1,
        "preset \"redisbloom\" is not available with --redis",
    );
    // The scalable-only flags: refused with another variant, checked by
    // the library with variant scalable, before anything is created.
    fails_with(
        &[&strs(&build(&url))[..], &["--growth", "2"]].concat(),
        1,
        "--growth is for variant scalable, not standard",
    );
    fails_with(
        &[
            &strs(&build(&url))[..],
            &["--variant", "scalable", "--tightening", "1.5"],
        ]
        .concat(),
        1,
        "--tightening 1.5",
    );
    // None of the refused builds left a key behind (the two set above
    // are the only keys).
    let mut keys: Vec<String> =
        redis::cmd("KEYS").arg("*").query(&mut conn).unwrap();
    keys.sort();
    assert_eq!(keys, ["{odd}:config", "{str}:config"]);

    // Usage errors (clap, exit 2): Redis and a file are exclusive, and
    // the Redis flags need --redis.
    let file = dir.path().join("f.bin");
    fails_with(
        &[&strs(&build(&url))[..], &["--out", s(&file)]].concat(),
        2,
        "cannot be used with",
    );
    fails_with(
        &["query", "--redis", &url, "--key", "f", "--filter", s(&file), "x"],
        2,
        "cannot be used with",
    );
    fails_with(
        &["inspect", "--redis", &url, "--key", "f", s(&file)],
        2,
        "cannot be used with",
    );
    fails_with(&["query", "--redis", &url, "x"], 2, "--key <NAME>");
    fails_with(
        &[
            "build",
            "--variant",
            "standard",
            "--key",
            "f",
            "--n",
            "10",
            "--p",
            "0.1",
            "--input",
            s(&items),
            "--out",
            s(&file),
        ],
        2,
        "cannot be used with",
    );
    fails_with(
        &[
            "build",
            "--variant",
            "standard",
            "--batch-size",
            "10",
            "--n",
            "10",
            "--p",
            "0.1",
            "--input",
            s(&items),
            "--out",
            s(&file),
        ],
        2,
        "cannot be used with",
    );
    fails_with(&["inspect"], 2, "<FILE|--redis <URL>>");
    assert!(!file.exists());
}

/// A `--redis` build reads the filter back to report its expected rate,
/// and warns when the filter, which other builds may share, holds more
/// items than it is sized for: here two shards of 300 items into a filter
/// sized for 200.
#[test]
fn redis_build_reports_the_rate_and_warns_when_overfull() {
    let server = Server::start();
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let shard = |i: usize| {
        let lines: Vec<String> =
            (0..300).map(|j| format!("item-{i}-{j}")).collect();
        write_lines(dir.path(), &format!("s{i}.txt"), &lines)
    };
    let build = |input: &Path| {
        bloomlab()
            .args(["build", "--redis", &url, "--key", "shared"])
            .args(["--n", "500", "--p", "0.01", "--json", "--input"])
            .arg(input)
            .output()
            .unwrap()
    };
    let first = build(&shard(0));
    assert!(first.status.success());
    assert!(first.stderr.is_empty(), "{first:?}");
    let line: serde_json::Value =
        serde_json::from_slice(&first.stdout).unwrap();
    let fpp = line["expected_fpp"].as_f64().unwrap();
    // 300 of 500 items: well under the 1% target.
    assert!(fpp > 0.0 && fpp < 0.01, "{line}");
    let second = build(&shard(1));
    assert!(second.status.success());
    let warning = String::from_utf8_lossy(&second.stderr);
    assert!(
        warning.starts_with("warning: about ")
            && warning.contains(
                "items (estimated from its bits), more than \
                 the 500 the filter is sized for"
            ),
        "{warning}"
    );
    let line: serde_json::Value =
        serde_json::from_slice(&second.stdout).unwrap();
    assert!(line["expected_fpp"].as_f64().unwrap() > 0.01, "{line}");
}
