//! `bloomlab-redis` against what a plain Redis client does, on the same
//! local `redis-server` (started here on a random port, no persistence)
//! in the same run: batch inserts and queries of `u64` keys into a
//! filter for n = 1e6 at p = 0.01 (m = 9,585,088 bits, k = 7, bloomlab's
//! default config), in items per second.
//!
//! * `bloomlab`: [`RedisBloomFilter::insert_many`] /
//!   [`RedisBloomFilter::contains_many`], one call (one script, one round
//!   trip) per batch. At 10,000 keys a batch takes the dense path (the
//!   1.2 MB bitmap is 17 bytes per probe, under the thresholds of 32 for
//!   inserts and 128 for queries: a mask ORed in with `BITOP`; a query
//!   reads the bitmap); at 1,000 (171 bytes per probe) the sparse one (a
//!   `SETBIT` / `GETBIT` per probe inside the script).
//! * `bitfield`: the best a plain client does per item: one `BITFIELD key
//!   SET u1 <offset> 1 ...` with k `SET`s per item (`GET`s to query),
//!   all of a batch's commands in one pipeline; it counts changed items
//!   from the replies as `insert_many` does.
//! * `naive`: one `SETBIT` (`GETBIT`, stopping at the first clear bit)
//!   round trip per bit; measured on 20 keys per iteration, it is slow.
//!
//! Both bloomlab and `bitfield` get batches of 10,000 and 1,000 keys,
//! hashed with the same indexer (the baselines use bloomlab's bit
//! positions, so they set the same bits). Inserts cycle through the
//! 1e6 keys, each contender into its own bitmap; queries run on
//! bloomlab's bitmap after all 1e6 keys are in: `contains` asks for
//! members (every probe set, the costly case for early exits),
//! `contains-absent` for 1e6 other keys (about 1% false positives).
//!
//! After criterion's report, a summary prints each contender's items/s
//! over all its timed iterations and the ratios the targets
//! name (bloomlab >= `bitfield`, >= 20x `naive`).
//!
//! Skipped, with a message, when `redis-server` is not installed.
//!
//! `cargo bench -p bloomlab-benches --bench redis`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::hint::black_box;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bloomlab_hash::Indexer;
use bloomlab_redis::redis::{self, Connection};
use bloomlab_redis::{
    Config, Options, RedisBloomFilter, bits_key, connect, redis_offset,
};
use criterion::{BenchmarkId, Criterion, Throughput};

const N: u64 = 1_000_000;
const P: f64 = 0.01;
/// The batch sizes: 10,000 (dense path) and 1,000 (sparse path).
const BATCHES: [usize; 2] = [10_000, 1_000];
/// Keys per iteration of the naive client.
const NAIVE_KEYS: usize = 20;

/// Items and time per contender, over all timed iterations.
static TOTALS: Mutex<BTreeMap<String, (u64, Duration)>> =
    Mutex::new(BTreeMap::new());

fn record(name: &str, items: u64, took: Duration) {
    let mut totals = TOTALS.lock().unwrap();
    let e = totals.entry(name.to_owned()).or_default();
    e.0 += items;
    e.1 += took;
}

/// A `redis-server` on 127.0.0.1, killed on drop.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    /// Starts one, or `None` if `redis-server` is not installed.
    fn start() -> Option<Server> {
        let installed = Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !installed {
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .args(["--daemonize", "no", "--loglevel", "warning"])
            .arg("--dir")
            .arg(std::env::temp_dir())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let server =
            Server { child, url: format!("redis://127.0.0.1:{port}/") };
        let started = Instant::now();
        while server.conn_opt().is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "redis-server on port {port} did not answer"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(server)
    }

    fn conn_opt(&self) -> Option<Connection> {
        let mut c = connect(&self.url, &Options::default()).ok()?;
        let pong: String = redis::cmd("PING").query(&mut c).ok()?;
        (pong == "PONG").then_some(c)
    }

    fn conn(&self) -> Connection {
        connect(&self.url, &Options::default()).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Keys `from..to`: distinct (an odd multiplier is a bijection on
/// `u64`), so `0..N` (members) and `N..2N` (non-members) are disjoint.
fn key_set(from: u64, to: u64) -> Vec<u64> {
    (from..to).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect()
}

/// The next `size` keys from `cursor`, wrapping around.
fn next<'a>(keys: &'a [u64], cursor: &mut usize, size: usize) -> &'a [u64] {
    if *cursor + size > keys.len() {
        *cursor = 0;
    }
    let batch = &keys[*cursor..*cursor + size];
    *cursor += size;
    batch
}

/// What the plain clients compute per key: bloomlab's bit positions, as
/// Redis offsets.
struct Positions {
    indexer: Indexer,
    buf: Vec<u64>,
}

impl Positions {
    fn of(&mut self, key: u64) -> &[u64] {
        self.buf.clear();
        let buf = &mut self.buf;
        // u64 keys are their 8 little-endian bytes (bloomlab's funnel).
        self.indexer.for_each_index(&key.to_le_bytes(), |i| {
            buf.push(redis_offset(i));
        });
        &self.buf
    }
}

/// One pipeline of `BITFIELD key SET u1 o 1 ...`, one command per key;
/// returns how many keys changed a bit.
fn bitfield_insert(
    c: &mut Connection,
    pos: &mut Positions,
    key: &str,
    batch: &[u64],
) -> usize {
    let mut p = redis::pipe();
    for &k in batch {
        let cmd = p.cmd("BITFIELD").arg(key);
        for &o in pos.of(k) {
            cmd.arg("SET").arg("u1").arg(o).arg(1);
        }
    }
    let old: Vec<Vec<u8>> = p.query(c).unwrap();
    old.iter().filter(|bits| bits.contains(&0)).count()
}

/// One pipeline of `BITFIELD key GET u1 o ...`, one command per key.
fn bitfield_contains(
    c: &mut Connection,
    pos: &mut Positions,
    key: &str,
    batch: &[u64],
) -> usize {
    let mut p = redis::pipe();
    for &k in batch {
        let cmd = p.cmd("BITFIELD").arg(key);
        for &o in pos.of(k) {
            cmd.arg("GET").arg("u1").arg(o);
        }
    }
    let bits: Vec<Vec<u8>> = p.query(c).unwrap();
    bits.iter().filter(|b| b.iter().all(|&x| x == 1)).count()
}

/// A `SETBIT` round trip per bit.
fn naive_insert(
    c: &mut Connection,
    pos: &mut Positions,
    key: &str,
    batch: &[u64],
) -> usize {
    let mut changed = 0;
    for &k in batch {
        let mut fresh = false;
        for &o in pos.of(k) {
            let old: u8 =
                redis::cmd("SETBIT").arg(key).arg(o).arg(1).query(c).unwrap();
            fresh |= old == 0;
        }
        changed += usize::from(fresh);
    }
    changed
}

/// A `GETBIT` round trip per bit, stopping at a clear one.
fn naive_contains(
    c: &mut Connection,
    pos: &mut Positions,
    key: &str,
    batch: &[u64],
) -> usize {
    let mut found = 0;
    for &k in batch {
        let mut all = true;
        for &o in pos.of(k) {
            let bit: u8 =
                redis::cmd("GETBIT").arg(key).arg(o).query(c).unwrap();
            if bit == 0 {
                all = false;
                break;
            }
        }
        found += usize::from(all);
    }
    found
}

fn main() {
    let Some(server) = Server::start() else {
        eprintln!(
            "redis bench skipped: redis-server is not installed \
             (apt-get install -y redis-server)"
        );
        return;
    };
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();

    let config = Config::default();
    let mut f = RedisBloomFilter::create_for_rate(
        server.conn(),
        "bench",
        config,
        N,
        P,
    )
    .unwrap();
    let (m, k) = (f.bits(), f.hash_count());
    assert_eq!((m, k), (9_585_088, 7));
    let new_positions = || Positions {
        indexer: Indexer::new(
            config.family,
            config.seed,
            config.strategy,
            config.reduction,
            k,
            m,
        )
        .unwrap(),
        buf: Vec::new(),
    };
    let mut pos = new_positions();
    let keys = key_set(0, N);
    for &key in &keys[..100] {
        let ours: Vec<u64> =
            f.positions(&key).into_iter().map(redis_offset).collect();
        assert_eq!(pos.of(key), ours, "the baselines set other bits");
    }
    // The baselines' bitmap, allocated whole as bloomlab's is.
    let base = bits_key("baseline");
    let mut c = server.conn();
    let _: u8 = redis::cmd("SETBIT")
        .arg(&base)
        .arg(m - 1)
        .arg(0)
        .query(&mut c)
        .unwrap();
    eprintln!(
        "redis bench: n = {N}, p = {P}: m = {m} bits ({} KiB), k = {k}",
        m.div_ceil(8) / 1024
    );

    let mut g = criterion.benchmark_group("redis-insert");
    for size in BATCHES {
        g.throughput(Throughput::Elements(size as u64));
        let mut cursor = 0;
        g.bench_function(BenchmarkId::new("bloomlab", size), |b| {
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    let batch = next(&keys, &mut cursor, size);
                    black_box(f.insert_many(batch).unwrap());
                }
                let took = t.elapsed();
                record(
                    &format!("insert/bloomlab/{size}"),
                    iters * size as u64,
                    took,
                );
                took
            });
        });
        let mut cursor = 0;
        g.bench_function(BenchmarkId::new("bitfield", size), |b| {
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    let batch = next(&keys, &mut cursor, size);
                    black_box(bitfield_insert(&mut c, &mut pos, &base, batch));
                }
                let took = t.elapsed();
                record(
                    &format!("insert/bitfield/{size}"),
                    iters * size as u64,
                    took,
                );
                took
            });
        });
    }
    g.throughput(Throughput::Elements(NAIVE_KEYS as u64));
    let mut cursor = 0;
    g.bench_function(BenchmarkId::new("naive", NAIVE_KEYS), |b| {
        b.iter_custom(|iters| {
            let t = Instant::now();
            for _ in 0..iters {
                let batch = next(&keys, &mut cursor, NAIVE_KEYS);
                black_box(naive_insert(&mut c, &mut pos, &base, batch));
            }
            let took = t.elapsed();
            record("insert/naive", iters * NAIVE_KEYS as u64, took);
            took
        });
    });
    g.finish();

    // Queries run on a full filter: all 1e6 keys in.
    for batch in keys.chunks(10_000) {
        f.insert_many(batch).unwrap();
    }
    let ours = bits_key("bench");
    let others = key_set(N, 2 * N);
    for (group, probes, members) in
        [("contains", &keys, true), ("contains-absent", &others, false)]
    {
        let mut g = criterion.benchmark_group(format!("redis-{group}"));
        // Members must all be found; of the non-members, about p are.
        let check = |found: usize, size: usize| {
            if members {
                assert_eq!(found, size, "a false negative");
            }
        };
        for size in BATCHES {
            g.throughput(Throughput::Elements(size as u64));
            let mut cursor = 0;
            g.bench_function(BenchmarkId::new("bloomlab", size), |b| {
                b.iter_custom(|iters| {
                    let t = Instant::now();
                    for _ in 0..iters {
                        let batch = next(probes, &mut cursor, size);
                        let found = f.contains_many(batch).unwrap();
                        check(found.iter().filter(|&&x| x).count(), size);
                    }
                    let took = t.elapsed();
                    record(
                        &format!("{group}/bloomlab/{size}"),
                        iters * size as u64,
                        took,
                    );
                    took
                });
            });
            let mut cursor = 0;
            g.bench_function(BenchmarkId::new("bitfield", size), |b| {
                b.iter_custom(|iters| {
                    let t = Instant::now();
                    for _ in 0..iters {
                        let batch = next(probes, &mut cursor, size);
                        let found =
                            bitfield_contains(&mut c, &mut pos, &ours, batch);
                        check(found, size);
                    }
                    let took = t.elapsed();
                    record(
                        &format!("{group}/bitfield/{size}"),
                        iters * size as u64,
                        took,
                    );
                    took
                });
            });
        }
        g.throughput(Throughput::Elements(NAIVE_KEYS as u64));
        let mut cursor = 0;
        g.bench_function(BenchmarkId::new("naive", NAIVE_KEYS), |b| {
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    let batch = next(probes, &mut cursor, NAIVE_KEYS);
                    let found = naive_contains(&mut c, &mut pos, &ours, batch);
                    check(found, NAIVE_KEYS);
                }
                let took = t.elapsed();
                record(
                    &format!("{group}/naive"),
                    iters * NAIVE_KEYS as u64,
                    took,
                );
                took
            });
        });
        g.finish();
    }
    criterion.final_summary();
    summary();
}

/// Items/s per contender and the ratios of the targets.
fn summary() {
    let totals = TOTALS.lock().unwrap();
    let rate = |name: &str| {
        totals
            .get(name)
            .map(|&(items, took)| items as f64 / took.as_secs_f64())
    };
    println!("\nredis summary (items/s over all timed iterations):");
    for (name, &(items, took)) in totals.iter() {
        println!(
            "  {name:<24} {:>12.0} items/s  ({items} items in {took:.2?})",
            items as f64 / took.as_secs_f64()
        );
    }
    for op in ["insert", "contains", "contains-absent"] {
        let naive = rate(&format!("{op}/naive"));
        for size in BATCHES {
            let ours = rate(&format!("{op}/bloomlab/{size}"));
            let plain = rate(&format!("{op}/bitfield/{size}"));
            if let (Some(ours), Some(plain), Some(naive)) =
                (ours, plain, naive)
            {
                println!(
                    "  {op} batch {size}: bloomlab / bitfield = {:.2}, \
                     bloomlab / naive = {:.1}",
                    ours / plain,
                    ours / naive
                );
            }
        }
    }
}
