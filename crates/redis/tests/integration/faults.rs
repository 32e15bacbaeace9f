//! A server killed, frozen or never answering: typed errors within the
//! timeouts, and after a restart from the append-only file, every batch
//! that returned `Ok` is there and the one that failed is all there or
//! not there at all. Also: errors leave the filter (and the scratch key)
//! untouched on both batch paths.

use std::net::TcpListener;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use bloomlab_counting::{CounterWidth, CountingBloomFilter};
use bloomlab_redis::{
    Config, Error, Options, RedisBloomFilter, RedisCountingBloomFilter,
    RedisScalableBloomFilter, bits_key, config_key, connect,
};
use bloomlab_scalable::Config as ScalableConfig;
use bloomlab_standard::BloomFilter;
use redis::Commands;

use crate::common::RedisServer;

/// Timeouts of the fault tests: short, so a hang shows as a failure
/// quickly.
fn short() -> Options {
    Options {
        connect_timeout: Duration::from_millis(500),
        response_timeout: Some(Duration::from_millis(500)),
    }
}

/// Slack on top of a timeout for a loaded test machine (the timer itself
/// is the kernel's; this covers scheduling).
const SLACK: Duration = Duration::from_secs(2);

/// The error of a `connect` that must fail.
fn connect_err(url: &str, options: &Options) -> Error {
    match connect(url, options) {
        Ok(_) => panic!("connected to {url}"),
        Err(e) => e,
    }
}

/// The keys of batch `b`: disjoint between batches.
fn batch(b: u64, size: u64) -> Vec<u64> {
    (0..size).map(|i| (b << 32) | i).collect()
}

/// What a writer saw: the batches that returned `Ok` (with the count
/// each returned), then the one that failed, its error and how long the
/// failing call took.
struct Outcome {
    ok: Vec<(u64, usize)>,
    failed: u64,
    error: Error,
    took: Duration,
}

/// Runs `insert` on batches 0, 1, ... until one fails; tells `started`
/// when each call begins.
fn write_until_error(
    started: &mpsc::Sender<u64>,
    mut insert: impl FnMut(&[u64]) -> bloomlab_redis::Result<usize>,
    size: u64,
) -> Outcome {
    let mut ok = Vec::new();
    // Bounded so a server that never dies cannot hang the test.
    for b in 0..10_000 {
        let keys = batch(b, size);
        let _ = started.send(b);
        let t = Instant::now();
        match insert(&keys) {
            Ok(changed) => ok.push((b, changed)),
            Err(error) => {
                return Outcome { ok, failed: b, error, took: t.elapsed() };
            }
        }
    }
    panic!("the server was never killed");
}

/// Waits until the writer starts batch `at`, lets it run `delay` into
/// it, then kills the server.
fn kill_during(
    server: &mut RedisServer,
    started: &mpsc::Receiver<u64>,
    at: u64,
    delay: Duration,
) {
    while started.recv_timeout(SLACK * 10).unwrap() < at {}
    thread::sleep(delay);
    server.kill();
}

/// The kill test for a standard filter of `m` bits, batches of `size`.
fn standard_killed_mid_run(m: u64, size: u64) {
    let (config, k) = (Config::default(), 7);
    let mut server = RedisServer::start_durable();
    let url = server.url();
    RedisBloomFilter::create(server.conn(), "f", config, m, k).unwrap();
    let (tx, rx) = mpsc::channel();
    let writer = thread::spawn(move || {
        let conn = connect(&url, &short()).unwrap();
        let mut f = RedisBloomFilter::open(conn, "f").unwrap();
        write_until_error(&tx, |keys| f.insert_many(keys), size)
    });
    // A few milliseconds into the sixth batch: with these sizes the
    // server is usually inside the batch's script then.
    kill_during(&mut server, &rx, 5, Duration::from_millis(3));
    let out = writer.join().unwrap();
    assert!(matches!(out.error, Error::Redis(_)), "{}", out.error);
    assert!(out.took < short().response_timeout.unwrap() + SLACK);
    assert!(out.ok.len() >= 5, "only {} batches went in", out.ok.len());

    server.restart();
    let mut f = RedisBloomFilter::open(server.conn(), "f").unwrap();
    let got = f.export().unwrap();
    // Absent: the Ok batches only. Present: those and the failed batch.
    // Each Ok batch counted the keys that changed a bit as the in-memory
    // filter does.
    let mut absent = BloomFilter::with_config(config, m, k).unwrap();
    for &(b, changed) in &out.ok {
        assert_eq!(absent.insert_many(&batch(b, size)), changed, "batch {b}");
    }
    let mut present = absent.clone();
    present.insert_many(&batch(out.failed, size));
    // Every bit of the Ok batches survived.
    let words = |f: &BloomFilter| f.bit_array().words().to_vec();
    let lost = words(&absent)
        .iter()
        .zip(words(&got))
        .map(|(a, g)| (a & !g).count_ones())
        .sum::<u32>();
    assert_eq!(lost, 0, "bits of Ok batches are gone");
    // The failed batch sets bits the Ok ones do not, so "half of it"
    // would differ from both.
    let new_bits = present.bit_count() - absent.bit_count();
    assert!(new_bits > 0);
    assert!(
        got == absent || got == present,
        "batch {} is half there: {} of its {new_bits} new bits are set",
        out.failed,
        got.bit_count().saturating_sub(absent.bit_count()),
    );
    // No false negatives, through the same batch path; and nothing of a
    // dense batch's scratch key survives.
    for &(b, _) in &out.ok {
        let found = f.contains_many(&batch(b, size)).unwrap();
        assert!(found.iter().all(|&x| x), "batch {b} lost keys");
    }
    let mut c = server.conn();
    assert!(!c.exists::<_, bool>("{f}:tmp").unwrap());
    eprintln!(
        "m = {m}, batches of {size}: {} Ok batches kept; the failed batch \
         is {} after {:?}: {}",
        out.ok.len(),
        if got == present { "all there" } else { "absent" },
        out.took,
        out.error,
    );
}

/// Sparse batches (2,000 keys into 2^24 bits): one `SETBIT` per probe
/// inside the script, which takes a few milliseconds.
#[test]
fn killed_mid_run_sparse_batches_are_all_or_nothing() {
    standard_killed_mid_run(1 << 24, 2_000);
}

/// Dense batches (2,000 keys into 2^20 bits): a mask ORed in by `BITOP`
/// in the script that also replies the old bits.
#[test]
fn killed_mid_run_dense_batches_are_all_or_nothing() {
    standard_killed_mid_run(1 << 20, 2_000);
}

fn counting_local(m: u64, k: u32) -> CountingBloomFilter {
    CountingBloomFilter::with_config(
        Config::default(),
        CounterWidth::Four,
        m,
        k,
    )
    .unwrap()
}

/// The counting filter: its counters after the restart are those of the
/// Ok batches, or of those and the whole failed batch.
#[test]
fn killed_mid_run_counting_batches_are_all_or_nothing() {
    let (m, k, size) = (1 << 20, 5, 1_000);
    let mut server = RedisServer::start_durable();
    let url = server.url();
    RedisCountingBloomFilter::create(
        server.conn(),
        "c",
        Config::default(),
        m,
        k,
    )
    .unwrap();
    let (tx, rx) = mpsc::channel();
    let writer = thread::spawn(move || {
        let conn = connect(&url, &short()).unwrap();
        let mut f = RedisCountingBloomFilter::open(conn, "c").unwrap();
        write_until_error(&tx, |keys| f.insert_many(keys), size)
    });
    kill_during(&mut server, &rx, 5, Duration::from_millis(3));
    let out = writer.join().unwrap();
    assert!(matches!(out.error, Error::Redis(_)), "{}", out.error);
    assert!(out.took < short().response_timeout.unwrap() + SLACK);

    server.restart();
    let mut f = RedisCountingBloomFilter::open(server.conn(), "c").unwrap();
    let got = f.export_words().unwrap();
    let mut absent = counting_local(m, k);
    for &(b, changed) in &out.ok {
        let keys = batch(b, size);
        let local = keys.iter().filter(|&key| absent.insert(key)).count();
        assert_eq!(local, changed, "batch {b}");
    }
    let mut present = absent.clone();
    for key in batch(out.failed, size) {
        present.insert(&key);
    }
    assert_ne!(absent.words(), present.words());
    assert!(
        got == absent.words() || got == present.words(),
        "counting batch {} is half there",
        out.failed
    );
}

/// A frozen server (SIGSTOP): a call fails on the read timeout, a batch
/// too big for the socket buffers on the write timeout; after SIGCONT
/// the server runs what it had received, all of it or none.
#[test]
fn a_stopped_server_times_out_and_stays_all_or_nothing() {
    let (config, m, k) = (Config::default(), 1 << 20, 7);
    let server = RedisServer::start();
    let open = |name: &str| {
        let conn = connect(&server.url(), &short()).unwrap();
        RedisBloomFilter::open(conn, name).unwrap()
    };
    RedisBloomFilter::create(server.conn(), "s", config, m, k).unwrap();
    // 2^27 bits: a batch of 100,000 keys is sparse there, ~9 MB of
    // decimal offsets, more than the loopback socket buffers hold here
    // (4 MB to send; the receiver's grows only as the frozen server
    // reads), so the write blocks. Were the buffers bigger, the read
    // would time out instead: either way within the timeout.
    RedisBloomFilter::create(server.conn(), "w", config, 1 << 27, k).unwrap();
    let (mut f, mut w) = (open("s"), open("w"));
    f.insert_many(&batch(0, 500)).unwrap();
    let timeout = short().response_timeout.unwrap();
    let is_timeout =
        |e: &Error| matches!(e, Error::Redis(r) if r.is_timeout());

    server.stop();
    // The request fits the kernel's buffers; the reply never comes.
    let t = Instant::now();
    let e = f.insert_many(&batch(1, 500)).unwrap_err();
    let took = t.elapsed();
    assert!(is_timeout(&e), "not a timeout: {e}");
    assert!(took >= timeout - Duration::from_millis(50), "{took:?}");
    assert!(took < timeout + SLACK, "{took:?}");
    let big = batch(2, 100_000);
    let t = Instant::now();
    let e = w.insert_many(&big).unwrap_err();
    let took = t.elapsed();
    assert!(is_timeout(&e), "not a timeout: {e}");
    // The client hashes and encodes the 100,000 keys first (~1.3 s in an
    // unoptimized build): this bound only tells a timeout from a hang.
    assert!(took < timeout + SLACK * 5, "{took:?}");
    // A new connection: the handshake gets no reply either.
    let t = Instant::now();
    let e = connect_err(&server.url(), &short());
    assert!(is_timeout(&e), "not a timeout: {e}");
    assert!(t.elapsed() < short().connect_timeout + SLACK);
    drop(w);
    server.resume();

    // The server holds batch 1 whole: it may run it on resuming.
    let got =
        RedisBloomFilter::open(server.conn(), "s").unwrap().export().unwrap();
    let mut absent = BloomFilter::with_config(config, m, k).unwrap();
    absent.insert_many(&batch(0, 500));
    let mut present = absent.clone();
    present.insert_many(&batch(1, 500));
    assert!(got == absent || got == present, "batch 1 is half there");
    // And nothing of the cut-off batch reached filter "w".
    let mut c = server.conn();
    let set: u64 =
        redis::cmd("BITCOUNT").arg(bits_key("w")).query(&mut c).unwrap();
    assert_eq!(set, 0);
}

/// A listener that accepts TCP connections but never says a word:
/// `connect` fails within its timeout. (redis-rs waits the whole timeout
/// for each of its two handshake replies; `connect` must still stop at
/// one timeout, so the slack here is less than a timeout.)
#[test]
fn a_silent_listener_times_out() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("redis://{}/", listener.local_addr().unwrap());
    // Accept and hold connections (until `done` drops), so the peer is a
    // live socket, not a full backlog.
    let (done, held_until) = mpsc::channel::<()>();
    let held = thread::spawn(move || {
        let mut streams = Vec::new();
        for s in listener.incoming().take(2) {
            streams.push(s.unwrap());
        }
        let _ = held_until.recv();
    });
    let options =
        Options { connect_timeout: Duration::from_secs(1), ..short() };
    for _ in 0..2 {
        let t = Instant::now();
        let e = connect_err(&url, &options);
        let took = t.elapsed();
        assert!(matches!(&e, Error::Redis(r) if r.is_timeout()), "{e}");
        assert!(
            took >= options.connect_timeout - Duration::from_millis(50),
            "{took:?}"
        );
        assert!(
            took < options.connect_timeout + Duration::from_millis(500),
            "{took:?}"
        );
    }
    drop(done);
    held.join().unwrap();
}

/// The keys of filter `name`, with their types.
fn keys_of(c: &mut redis::Connection, name: &str) -> Vec<(String, String)> {
    let mut keys: Vec<String> = c.keys(format!("{{{name}}}:*")).unwrap();
    keys.sort();
    keys.into_iter()
        .map(|k| {
            let t: String = redis::cmd("TYPE").arg(&k).query(c).unwrap();
            (k, t)
        })
        .collect()
}

/// A failed check leaves everything as it was, on both batch paths
/// (api.rs checks the error types; this checks the keys afterwards):
/// a filter re-created with other parameters, a bits key of another
/// type, a deleted filter.
#[test]
fn failed_batches_change_nothing() {
    let server = RedisServer::start();
    let mut c = server.conn();
    let config = Config::default();
    // (m, batch size): 2^20 bits and 1,000 keys is dense, 2^24 sparse.
    for (m, size) in [(1u64 << 20, 1_000u64), (1 << 24, 1_000)] {
        let keys = batch(7, size);
        let mut old =
            RedisBloomFilter::create(server.conn(), "e", config, m, 7)
                .unwrap();
        old.insert_many(&batch(0, size)).unwrap();
        RedisBloomFilter::open(server.conn(), "e").unwrap().delete().unwrap();
        RedisBloomFilter::create(server.conn(), "e", config, m, 6).unwrap();
        let before: Vec<u8> = c.get(bits_key("e")).unwrap();
        let e = old.insert_many(&keys).unwrap_err();
        assert!(matches!(e, Error::ConfigChanged { .. }), "{e}");
        let e = old.contains_many(&keys).unwrap_err();
        assert!(matches!(e, Error::ConfigChanged { .. }), "{e}");
        let after: Vec<u8> = c.get(bits_key("e")).unwrap();
        assert!(before == after, "m = {m}: the new filter's bits changed");
        let names = |v: &[(String, String)]| {
            v.iter().map(|(k, t)| format!("{k}={t}")).collect::<Vec<_>>()
        };
        assert_eq!(
            names(&keys_of(&mut c, "e")),
            ["{e}:bits=string", "{e}:config=hash"]
        );

        // The bits key replaced by a list.
        let mut f = RedisBloomFilter::open(server.conn(), "e").unwrap();
        let _: () = c.del(bits_key("e")).unwrap();
        let _: () = c.rpush(bits_key("e"), "x").unwrap();
        let e = f.insert_many(&keys).unwrap_err();
        assert!(matches!(e, Error::WrongType { .. }), "{e}");
        let e = f.contains_many(&keys).unwrap_err();
        assert!(matches!(e, Error::WrongType { .. }), "{e}");
        let list: Vec<String> = c.lrange(bits_key("e"), 0, -1).unwrap();
        assert_eq!(list, ["x"]);
        assert_eq!(
            names(&keys_of(&mut c, "e")),
            ["{e}:bits=list", "{e}:config=hash"]
        );

        // The filter deleted: nothing is created.
        let _: () = c.del(&[bits_key("e"), config_key("e")]).unwrap();
        let e = f.insert_many(&keys).unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }), "{e}");
        let e = f.contains_many(&keys).unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }), "{e}");
        assert!(keys_of(&mut c, "e").is_empty());
    }

    // The counting filter: deleted, then its counters of another type.
    let mut f =
        RedisCountingBloomFilter::create(server.conn(), "n", config, 4096, 4)
            .unwrap();
    let keys = batch(0, 100);
    f.insert_many(&keys).unwrap();
    let _: () = c.del("{n}:counters").unwrap();
    let _: () = c.hset("{n}:counters", "a", "b").unwrap();
    let e = f.insert_many(&keys).unwrap_err();
    assert!(matches!(e, Error::WrongType { .. }), "{e}");
    let e = f.contains_many(&keys).unwrap_err();
    assert!(matches!(e, Error::WrongType { .. }), "{e}");
    let e = f.remove(&keys[0]).unwrap_err();
    assert!(matches!(e, Error::WrongType { .. }), "{e}");
    let _: () = c.del(&["{n}:counters", "{n}:config"]).unwrap();
    let e = f.insert_many(&keys).unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e}");
    let e = f.remove(&keys[0]).unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e}");
    assert!(keys_of(&mut c, "n").is_empty());
}

/// A server that refuses to allocate a filter's bits (a string past its
/// `proto-max-bulk-len`, here lowered to 1 MB): `create` fails and leaves
/// no key behind, so a second `create` fails too, instead of finding a
/// config without its bits and answering `Ok`; a scalable batch that
/// needs a layer the server refuses changes nothing, though the layer
/// before it could be allocated.
#[test]
fn refused_allocations_leave_nothing_behind() {
    let server = RedisServer::start();
    let mut c = server.conn();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("proto-max-bulk-len")
        .arg("1mb")
        .query(&mut c)
        .unwrap();
    // The server's refusal of a bit offset past 1 MB, not another error
    // (a command of more than 1 MB would be one: the connection closed).
    let refused = |e: &Error| {
        matches!(e, Error::Redis(_)) && e.to_string().contains("out of range")
    };
    let config = Config::default();
    for _ in 0..2 {
        let e =
            RedisBloomFilter::create(server.conn(), "big", config, 1 << 24, 7)
                .unwrap_err();
        assert!(refused(&e), "{e}");
        let e = RedisCountingBloomFilter::create(
            server.conn(),
            "bigc",
            config,
            1 << 22,
            7,
        )
        .unwrap_err();
        assert!(refused(&e), "{e}");
        let e = RedisScalableBloomFilter::create(
            server.conn(),
            "bigs",
            ScalableConfig::new(10_000_000, 0.01),
        )
        .unwrap_err();
        assert!(refused(&e), "{e}");
        let left: Vec<String> = c.keys("*").unwrap();
        assert!(left.is_empty(), "{left:?}");
    }
    // Layers of 10, 3,000 and 900,000 keys: the third (about 10^7 bits)
    // is past 1 MB, the batch's arguments are not.
    let grows = ScalableConfig::new(10, 0.01).growth(300);
    let mut f =
        RedisScalableBloomFilter::create(server.conn(), "g", grows).unwrap();
    f.insert_many(&batch(0, 5)).unwrap();
    let before = keys_of(&mut c, "g");
    let chain: Vec<(String, String)> = c.hgetall("{g}:chain").unwrap();
    let layer: Vec<u8> = c.get("{g}:layer:0").unwrap();
    let e = f.insert_many(&batch(1, 3_100)).unwrap_err();
    assert!(refused(&e), "{e}");
    assert_eq!(keys_of(&mut c, "g"), before);
    let chain_after: Vec<(String, String)> = c.hgetall("{g}:chain").unwrap();
    assert_eq!(chain_after, chain);
    let layer_after: Vec<u8> = c.get("{g}:layer:0").unwrap();
    assert!(layer_after == layer, "layer 0 changed");
    // A batch that fits the layers the server allows goes in.
    assert!(f.insert_many(&batch(2, 2_000)).unwrap() > 1_900);
    assert_eq!(keys_of(&mut c, "g").len(), before.len() + 1);
}
