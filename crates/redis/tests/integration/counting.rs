use std::thread;

use bloomlab_counting::{CounterWidth, CountingBloomFilter};
use bloomlab_redis::{
    Config, Error, RedisBloomFilter, RedisCountingBloomFilter, connect,
    counter_index,
};

use crate::common::{RedisServer, options};

fn local(m: u64, k: u32) -> CountingBloomFilter {
    CountingBloomFilter::with_config(
        Config::default(),
        CounterWidth::Four,
        m,
        k,
    )
    .unwrap()
}

#[test]
fn counter_index_swaps_nibbles() {
    for i in 0..32u64 {
        assert_eq!(counter_index(i) / 2, i / 2);
        assert_ne!(counter_index(i) % 2, i % 2);
    }
}

/// Inserts (with saturation), removes (with saturated counters and
/// rejected removes): the counters equal the in-memory filter's word for
/// word after every step.
#[test]
fn counters_equal_the_in_memory_filter() {
    let server = RedisServer::start();
    // Odd m: the last byte holds one counter.
    let (m, k) = (1_001, 5);
    let mut r = RedisCountingBloomFilter::create(
        server.conn(),
        "c",
        Config::default(),
        m,
        k,
    )
    .unwrap();
    let mut l = local(m, k);
    let items: Vec<u64> = (0..120).collect();
    assert_eq!(r.insert_many(&items).unwrap(), items.len());
    for x in &items {
        l.insert(x);
    }
    assert_eq!(r.export_words().unwrap(), l.words());
    // Saturate one key's counters: 20 inserts, the last ones change
    // nothing.
    let hot = "hot";
    let mut changed = Vec::new();
    for _ in 0..20 {
        changed.push(r.insert(hot).unwrap());
        assert_eq!(*changed.last().unwrap(), l.insert(hot));
    }
    assert!(!changed[19], "a saturated key still changed counters");
    assert_eq!(r.count_estimate(hot).unwrap(), 15);
    assert_eq!(r.export_words().unwrap(), l.words());
    // Removes: the hot key's saturated counters are skipped.
    for x in &items[..60] {
        r.remove(x).unwrap();
        l.remove(x).unwrap();
    }
    assert_eq!(r.remove(hot).unwrap(), k);
    l.remove(hot).unwrap();
    assert_eq!(r.export_words().unwrap(), l.words());
    // A certainly absent key: NotPresent, nothing changed, as in memory.
    let absent =
        (0..1_000u64).map(|i| i + 1_000_000).find(|x| !l.contains(x)).unwrap();
    let e = r.remove(&absent).unwrap_err();
    let bloomlab_counting::Error::NotPresent { counter, probe, .. } =
        l.remove(&absent).unwrap_err()
    else {
        panic!("in-memory remove gave another error");
    };
    assert!(
        matches!(&e, Error::NotPresent { counter: c, probe: p, .. }
            if *c == counter && *p == probe),
        "{e}"
    );
    assert_eq!(r.export_words().unwrap(), l.words());
    // Answers and the standard view agree.
    let probes: Vec<u64> = (0..2_000).collect();
    let mut expected = vec![false; probes.len()];
    l.contains_many(&probes, &mut expected);
    assert_eq!(r.contains_many(&probes).unwrap(), expected);
    assert_eq!(r.export_standard().unwrap(), l.to_standard().unwrap());
    for x in &items[60..] {
        assert!(r.contains(x).unwrap(), "false negative {x}");
    }
}

/// `remove_many` in one round trip leaves the counters the in-memory
/// filter's `remove_many` leaves, and counts the same removes: keys
/// removed twice, keys never inserted (refused, the rest still removed),
/// saturated counters (skipped), on a filter small enough that keys
/// share counters.
#[test]
fn remove_many_equals_the_in_memory_filter() {
    let server = RedisServer::start();
    let (m, k) = (601, 5);
    let mut r = RedisCountingBloomFilter::create(
        server.conn(),
        "rm",
        Config::default(),
        m,
        k,
    )
    .unwrap();
    let mut l = local(m, k);
    let items: Vec<u64> = (0..100).chain(0..20).collect();
    r.insert_many(&items).unwrap();
    l.insert_many(&items);
    // A saturated key: 20 inserts.
    let hot = vec![7_777u64; 20];
    r.insert_many(&hot).unwrap();
    l.insert_many(&hot);
    assert_eq!(r.export_words().unwrap(), l.words());
    assert_eq!(r.remove_many::<u64>(&[]).unwrap(), 0);
    let absent: Vec<u64> =
        (1_000_000u64..).filter(|x| !l.contains(x)).take(10).collect();
    // 0..20 three times (inserted twice: the third is refused unless
    // other keys hold its counters up), absent keys between them, the
    // hot key.
    let gone: Vec<u64> = (0..40u64)
        .chain(absent.iter().copied())
        .chain(0..20)
        .chain([7_777])
        .chain(0..20)
        .collect();
    let removed = r.remove_many(&gone).unwrap();
    assert_eq!(removed, l.remove_many(&gone));
    assert_eq!(r.export_words().unwrap(), l.words());
    let refused = l.stats().rejected_removes;
    assert_eq!(removed as u64 + refused, gone.len() as u64);
    assert!(refused >= absent.len() as u64, "{refused}");
    assert!(l.stats().skipped_decrements > 0);
    for x in 40..100u64 {
        assert!(r.contains(&x).unwrap(), "false negative {x}");
    }
}

#[test]
fn import_open_and_typed_errors() {
    let server = RedisServer::start();
    let mut l = local(500, 4);
    for i in 0..50u64 {
        l.insert(&i);
    }
    let mut r =
        RedisCountingBloomFilter::import(server.conn(), "i", &l).unwrap();
    assert_eq!(r.export_words().unwrap(), l.words());
    let mut o = RedisCountingBloomFilter::open(server.conn(), "i").unwrap();
    assert_eq!((o.counters(), o.hash_count()), (500, 4));
    assert_eq!(o.counters_key(), "{i}:counters");
    assert!(o.contains(&7u64).unwrap());
    // Other widths are refused.
    let two = CountingBloomFilter::with_config(
        Config::default(),
        CounterWidth::Two,
        500,
        4,
    )
    .unwrap();
    let e = RedisCountingBloomFilter::import(server.conn(), "t", &two)
        .unwrap_err();
    assert!(matches!(e, Error::InvalidParameter { .. }), "{e}");
    // A standard filter is not a counting filter, and the other way.
    RedisBloomFilter::create(server.conn(), "s", Config::default(), 64, 2)
        .unwrap();
    let e = RedisCountingBloomFilter::open(server.conn(), "s").unwrap_err();
    assert!(
        matches!(e, Error::Orphan { .. } | Error::BadConfig { .. }),
        "{e}"
    );
    let e = RedisBloomFilter::open(server.conn(), "i").unwrap_err();
    assert!(
        matches!(e, Error::Orphan { .. } | Error::BadConfig { .. }),
        "{e}"
    );
    // Re-created with other parameters under an open handle.
    o.delete().unwrap();
    RedisCountingBloomFilter::create(
        server.conn(),
        "i",
        Config::default(),
        500,
        5,
    )
    .unwrap();
    let e = r.insert("x").unwrap_err();
    assert!(
        matches!(&e, Error::ConfigChanged { field, .. } if field == "k"),
        "{e}"
    );
}

/// Threads insert disjoint sets, then remove half of them: no false
/// negatives among the rest, and the counters of a sequential build.
#[test]
fn threads_insert_and_remove() {
    let server = RedisServer::start();
    let (m, k, writers, n) = (100_000u64, 6u32, 6u64, 1_000u64);
    RedisCountingBloomFilter::create(
        server.conn(),
        "t",
        Config::default(),
        m,
        k,
    )
    .unwrap();
    let items =
        |w: u64| (0..n).map(move |i| (w << 32) | i).collect::<Vec<_>>();
    let run = |remove: bool| {
        thread::scope(|s| {
            for w in 0..writers {
                let url = server.url();
                s.spawn(move || {
                    let conn = connect(&url, &options()).unwrap();
                    let mut f =
                        RedisCountingBloomFilter::open(conn, "t").unwrap();
                    let xs = items(w);
                    if remove {
                        for x in xs.iter().step_by(2) {
                            f.remove(x).unwrap();
                        }
                    } else {
                        for chunk in xs.chunks(100) {
                            f.insert_many(chunk).unwrap();
                        }
                    }
                });
            }
        });
    };
    run(false);
    run(true);
    let mut l = local(m, k);
    for w in 0..writers {
        let xs = items(w);
        for x in &xs {
            l.insert(x);
        }
        for x in xs.iter().step_by(2) {
            l.remove(x).unwrap();
        }
    }
    let mut r = RedisCountingBloomFilter::open(server.conn(), "t").unwrap();
    assert_eq!(r.export_words().unwrap(), l.words());
    for w in 0..writers {
        let kept: Vec<u64> = items(w).into_iter().skip(1).step_by(2).collect();
        let found = r.contains_many(&kept).unwrap();
        assert!(found.iter().all(|&f| f), "writer {w}: a false negative");
    }
}

/// Queries read the counters with `BITFIELD_RO`, which Redis lets run
/// where writes may not: on a server at its `maxmemory` (here 1 byte,
/// so every write is refused) a query still answers, and an insert is
/// refused by the server, changing nothing.
#[test]
fn queries_answer_on_a_server_that_refuses_writes() {
    let server = RedisServer::start();
    let mut f = RedisCountingBloomFilter::create(
        server.conn(),
        "full",
        Config::default(),
        500,
        4,
    )
    .unwrap();
    f.insert(&1u64).unwrap();
    let before = f.export_words().unwrap();
    let mut c = server.conn();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory")
        .arg("1")
        .query(&mut c)
        .unwrap();
    assert!(f.contains(&1u64).unwrap());
    assert!(!f.contains(&2u64).unwrap());
    let e = f.insert(&2u64).unwrap_err();
    assert!(e.to_string().contains("OOM"), "{e}");
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory")
        .arg("0")
        .query(&mut c)
        .unwrap();
    assert_eq!(f.export_words().unwrap(), before);
}

/// As for the bit filter: counters deleted under a config are lost
/// contents, an error on use and on open, not a filter of zeros.
#[test]
fn a_lost_counters_key_is_an_error_not_an_empty_filter() {
    let server = RedisServer::start();
    let mut f = RedisCountingBloomFilter::create(
        server.conn(),
        "ev",
        Config::default(),
        500,
        4,
    )
    .unwrap();
    f.insert(&1u64).unwrap();
    let counters = f.counters_key().to_owned();
    let mut c = server.conn();
    let _: () = redis::Commands::del(&mut c, &counters).unwrap();
    let lost =
        |e: &Error| matches!(e, Error::Lost { key, .. } if *key == counters);
    let e = f.contains(&1u64).unwrap_err();
    assert!(lost(&e), "{e}");
    let e = f.insert(&1u64).unwrap_err();
    assert!(lost(&e), "{e}");
    let e = f.remove(&1u64).unwrap_err();
    assert!(lost(&e), "{e}");
    let e = RedisCountingBloomFilter::open(server.conn(), "ev").unwrap_err();
    assert!(lost(&e), "{e}");
}
