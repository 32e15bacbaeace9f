use bloomlab_redis::{
    Error, LoadChunks, ScandumpReader, loadchunk, loadchunk_with, scandump,
    scandump_with,
};
use bloomlab_scalable::ScalableBloomFilter;
use redis::Commands;
use serde_json::Value;

use crate::common::RedisServer;

const FILTERS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/redisbloom/filters.json"
));

/// The recorded RedisBloom cases (`testdata/redisbloom/filters.json`).
pub(crate) fn cases() -> Vec<Value> {
    let d: Value = serde_json::from_str(FILTERS).unwrap();
    let cases = d["cases"].as_array().unwrap().clone();
    assert_eq!(cases.len(), 11);
    cases
}

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2));
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// An item of a case: a string, or `{"hex": ...}` bytes.
pub(crate) fn item(v: &Value) -> Vec<u8> {
    match v {
        Value::String(s) => s.as_bytes().to_vec(),
        Value::Object(o) => unhex(o["hex"].as_str().unwrap()),
        other => panic!("bad item {other}"),
    }
}

/// The filter the case's `BF.RESERVE` (or `BF.ADD`'s auto-create) makes.
pub(crate) fn reserve(case: &Value) -> ScalableBloomFilter {
    match &case["reserve"] {
        Value::Null => ScalableBloomFilter::redisbloom().unwrap(),
        r => ScalableBloomFilter::redisbloom_reserve(
            r["errorRate"].as_f64().unwrap(),
            r["capacity"].as_u64().unwrap(),
            r["expansion"].as_u64().map(|e| e as u32),
            r["nonscaling"].as_bool().unwrap(),
        )
        .unwrap(),
    }
}

/// The case's recorded `BF.SCANDUMP` replies, iterator 0 to the end.
pub(crate) fn dump_of(case: &Value) -> Vec<(i64, Vec<u8>)> {
    case["scandump"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e[0].as_i64().unwrap(), unhex(e[1].as_str().unwrap())))
        .collect()
}

/// A server that replays `dump`, checking that each `BF.SCANDUMP` asks
/// for the iterator the previous reply gave.
fn replay(
    dump: &[(i64, Vec<u8>)],
) -> impl FnMut(i64) -> Result<(i64, Vec<u8>), Error> + '_ {
    let mut at = 0;
    let mut expect = 0;
    move |iter| {
        assert_eq!(iter, expect, "asked for the wrong iterator");
        let (next, data) = dump[at].clone();
        at += 1;
        expect = next;
        Ok((next, data))
    }
}

/// Each recorded dump, fed reply by reply, gives the filter
/// `from_redis_scandump` reads, which dumps the same bytes and answers
/// the recorded probes.
#[test]
fn scandump_reads_every_recorded_dump() {
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let dump = dump_of(&case);
        let f = scandump_with(replay(&dump)).unwrap();
        assert_eq!(
            f,
            ScalableBloomFilter::from_redis_scandump(&dump).unwrap(),
            "{name}"
        );
        assert_eq!(f.redis_scandump().unwrap(), dump, "{name}");
        assert_eq!(f.len(), case["card"].as_u64().unwrap(), "{name}");
        assert_eq!(
            f.layers().len() as u64,
            case["header"]["nfilters"].as_u64().unwrap(),
            "{name}"
        );
        for p in case["probes"].as_array().unwrap() {
            let want = p["exists"].as_u64().unwrap() == 1;
            assert_eq!(f.contains(&item(&p["item"])), want, "{name}: {p}");
        }
    }
}

/// The `BF.LOADCHUNK` arguments of a filter are RedisBloom's dump minus
/// its closing `(0, "")`, whether the filter was read from the dump or
/// rebuilt by replaying the case's `BF.ADD`s.
#[test]
fn loadchunk_sends_the_recorded_chunks() {
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let dump = dump_of(&case);
        assert_eq!(dump.last().unwrap(), &(0, Vec::new()), "{name}");
        let want = &dump[..dump.len() - 1];
        let mut replayed = reserve(&case);
        for it in case["items"].as_array().unwrap() {
            // A full non-scaling filter refuses some; RedisBloom did too.
            let _ = replayed.add(&item(it));
        }
        let read = ScalableBloomFilter::from_redis_scandump(&dump).unwrap();
        for f in [&replayed, &read] {
            let mut sent = Vec::new();
            loadchunk_with(f, |iter, data| {
                sent.push((iter, data.to_vec()));
                Ok(())
            })
            .unwrap();
            assert_eq!(sent, want, "{name}");
            let chunks: Vec<_> =
                LoadChunks::new(f).unwrap().map(|c| c.unwrap()).collect();
            assert_eq!(chunks, want, "{name}");
        }
    }
}

/// A layer larger than 16 MiB is dumped and loaded in several chunks;
/// the reader puts them back together.
#[test]
fn large_layers_travel_in_chunks() {
    // 15e6 items at 1 %: 143.8e6 bits, 18 MB, two chunks.
    let mut f =
        ScalableBloomFilter::redisbloom_reserve(0.01, 15_000_000, None, true)
            .unwrap();
    for i in 0..1_000u64 {
        f.add(&i.to_le_bytes()).unwrap();
    }
    let chunks: Vec<_> =
        LoadChunks::new(&f).unwrap().map(|c| c.unwrap()).collect();
    assert_eq!(chunks.len(), 3, "a header and two chunks");
    assert_eq!(chunks[1].1.len(), 16 * 1024 * 1024);
    let mut dump = chunks;
    dump.push((0, Vec::new()));
    let g = scandump_with(replay(&dump)).unwrap();
    assert_eq!(g, f);
}

fn bad_dump(e: &Error) -> bool {
    matches!(e, Error::Scalable(bloomlab_scalable::Error::BadDump(_)))
}

/// Misbehaving servers: typed errors, no endless loop, nothing kept
/// beyond the header's sizes.
#[test]
fn malformed_dumps_are_typed_errors() {
    let case = &cases()[4];
    let dump = dump_of(case);
    let header = dump[0].1.clone();
    let (iter1, data1) = dump[1].clone();

    // An iterator that does not advance.
    let mut calls = 0;
    let e = scandump_with(|iter| {
        calls += 1;
        Ok(if iter == 0 { (1, header.clone()) } else { (1, vec![1]) })
    })
    .unwrap_err();
    assert!(bad_dump(&e), "{e}");
    assert_eq!(calls, 2);

    // More bytes than the header's arrays, sent in small steps.
    let mut calls = 0u64;
    let e = scandump_with(|iter| {
        calls += 1;
        Ok(if iter == 0 {
            (1, header.clone())
        } else {
            (iter + 64, vec![0; 64])
        })
    })
    .unwrap_err();
    assert!(bad_dump(&e), "{e}");
    let total: u64 = bloomlab_scalable::redis::parse_header(&header)
        .unwrap()
        .links
        .iter()
        .map(|l| l.bytes)
        .sum();
    assert!(calls <= total / 64 + 2, "{calls} calls for {total} bytes");

    // The header must come first, with iterator 1.
    let mut r = ScandumpReader::new();
    assert!(bad_dump(&r.push(2, header.clone()).unwrap_err()));
    let mut r = ScandumpReader::new();
    assert!(bad_dump(&r.push(1, vec![0; 7]).unwrap_err()));

    // An end before every byte came, bytes with the end, a reply after
    // the end, and a reader finished early.
    let mut r = ScandumpReader::new();
    r.push(1, header.clone()).unwrap();
    assert!(bad_dump(&r.push(0, Vec::new()).unwrap_err()));
    let mut r = ScandumpReader::new();
    r.push(1, header.clone()).unwrap();
    r.push(iter1, data1.clone()).unwrap();
    assert!(r.next_iter().is_some());
    let early = r.clone().finish().unwrap_err();
    assert!(bad_dump(&early), "{early}");
    assert!(bad_dump(&r.clone().push(0, vec![1]).unwrap_err()));
    // The case has several layers: finish them, then close.
    for (next, data) in &dump[2..dump.len() - 1] {
        r.push(*next, data.clone()).unwrap();
    }
    r.push(0, Vec::new()).unwrap();
    assert_eq!(r.next_iter(), None);
    assert!(bad_dump(&r.clone().push(5, vec![1]).unwrap_err()));
    assert_eq!(
        r.finish().unwrap(),
        ScalableBloomFilter::from_redis_scandump(&dump).unwrap()
    );
}

/// A filter without a RedisBloom form is refused before any command.
#[test]
fn other_filters_are_refused_before_any_command() {
    let f = ScalableBloomFilter::new(100, 0.01).unwrap();
    let mut sent = 0;
    let e = loadchunk_with(&f, |_, _| {
        sent += 1;
        Ok(())
    })
    .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Scalable(bloomlab_scalable::Error::NotRedisBloom(_))
        ),
        "{e}"
    );
    assert_eq!(sent, 0);
    assert!(LoadChunks::new(&f).is_err());
}

/// Plain redis-server (no module): both directions fail with the typed,
/// clear error, change nothing, and leave the connection usable.
#[test]
fn plain_redis_has_no_redisbloom() {
    let server = RedisServer::start();
    let mut c = server.conn();
    let _: () = c.set("other", "untouched").unwrap();
    let e = scandump(&mut c, "bf").unwrap_err();
    assert!(
        matches!(e, Error::NoRedisBloom { command: "BF.SCANDUMP" }),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "the server has no RedisBloom module (BF.SCANDUMP unknown)"
    );
    let mut f = ScalableBloomFilter::redisbloom().unwrap();
    f.add(b"x").unwrap();
    let e = loadchunk(&mut c, "bf", &f).unwrap_err();
    assert!(
        matches!(e, Error::NoRedisBloom { command: "BF.LOADCHUNK" }),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "the server has no RedisBloom module (BF.LOADCHUNK unknown)"
    );
    // A non-preset filter fails before talking to the server.
    let other = ScalableBloomFilter::new(100, 0.01).unwrap();
    let e = loadchunk(&mut c, "bf", &other).unwrap_err();
    assert!(matches!(e, Error::Scalable(_)), "{e:?}");
    // Nothing changed.
    let size: u64 = redis::cmd("DBSIZE").query(&mut c).unwrap();
    assert_eq!(size, 1);
    let exists: bool = c.exists("bf").unwrap();
    assert!(!exists);
    let other: String = c.get("other").unwrap();
    assert_eq!(other, "untouched");
    let pong: String = redis::cmd("PING").query(&mut c).unwrap();
    assert_eq!(pong, "PONG");
}
