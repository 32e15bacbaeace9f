use std::process::{Command, Stdio};
use std::thread;

use bloomlab_redis::{Config, RedisBloomFilter, connect};
use bloomlab_standard::BloomFilter;

use crate::common::{RedisServer, options};

const M: u64 = 200_000;
const K: u32 = 7;

/// Items of writer `w`: disjoint between writers.
fn items(w: u64, n: u64) -> Vec<u64> {
    (0..n).map(|i| (w << 32) | i).collect()
}

/// Inserts writer `w`'s items: half in batches, half one by one.
fn insert_all(f: &mut RedisBloomFilter, w: u64, n: u64) {
    let xs = items(w, n);
    let (batched, single) = xs.split_at(xs.len() / 2);
    for chunk in batched.chunks(250) {
        f.insert_many(chunk).unwrap();
    }
    for x in single {
        f.insert(x).unwrap();
    }
}

/// The bits that the writers' items set, built in memory.
fn expected(writers: u64, n: u64) -> BloomFilter {
    let mut f = BloomFilter::with_config(Config::default(), M, K).unwrap();
    for w in 0..writers {
        f.insert_many(&items(w, n));
    }
    f
}

/// Checks the shared filter: no false negatives, and exactly the bits of
/// a sequential in-memory build (OR is order-independent).
fn check(server: &RedisServer, name: &str, writers: u64, n: u64) {
    let mut f = RedisBloomFilter::open(server.conn(), name).unwrap();
    for w in 0..writers {
        let xs = items(w, n);
        let found = f.contains_many(&xs).unwrap();
        let missing = found.iter().filter(|&&c| !c).count();
        assert_eq!(missing, 0, "writer {w}: {missing} false negatives");
    }
    assert_eq!(f.export().unwrap(), expected(writers, n));
}

#[test]
fn threads_inserting_disjoint_sets_lose_nothing() {
    let server = RedisServer::start();
    let name = "threads";
    RedisBloomFilter::create(server.conn(), name, Config::default(), M, K)
        .unwrap();
    let (writers, n) = (8u64, 2_000u64);
    thread::scope(|s| {
        for w in 0..writers {
            let url = server.url();
            s.spawn(move || {
                let conn = connect(&url, &options()).unwrap();
                let mut f = RedisBloomFilter::open(conn, name).unwrap();
                insert_all(&mut f, w, n);
            });
        }
    });
    check(&server, name, writers, n);
}

/// Environment variable that turns `child_process_inserter` into a
/// writer: `URL NAME WRITER N`.
const CHILD_ENV: &str = "BLOOMLAB_REDIS_TEST_CHILD";

#[test]
fn processes_inserting_disjoint_sets_lose_nothing() {
    let server = RedisServer::start();
    let name = "processes";
    RedisBloomFilter::create(server.conn(), name, Config::default(), M, K)
        .unwrap();
    let (writers, n) = (4u64, 2_000u64);
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..writers)
        .map(|w| {
            Command::new(&exe)
                .args(["concurrency::child_process_inserter", "--exact"])
                .args(["--test-threads", "1", "--nocapture"])
                .env(CHILD_ENV, format!("{} {name} {w} {n}", server.url()))
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        let status = c.wait().unwrap();
        assert!(status.success(), "a writer process failed: {status}");
    }
    check(&server, name, writers, n);
}

/// A writer process of `processes_inserting_disjoint_sets_lose_nothing`;
/// does nothing unless started by it.
#[test]
fn child_process_inserter() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let parts: Vec<&str> = spec.split(' ').collect();
    let [url, name, w, n] = parts[..] else {
        panic!("bad {CHILD_ENV}: {spec:?}");
    };
    let conn = connect(url, &options()).unwrap();
    let mut f = RedisBloomFilter::open(conn, name).unwrap();
    insert_all(&mut f, w.parse().unwrap(), n.parse().unwrap());
}
