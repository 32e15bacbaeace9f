//! RedisBloom's recorded outputs, reproduced case by case.

use bloomlab_core::Filter;
use bloomlab_scalable::{Error, ScalableBloomFilter, redis};
use serde_json::Value;

const FILTERS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/redisbloom/filters.json"
));

fn data() -> Value {
    serde_json::from_str(FILTERS).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2));
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn item(v: &Value) -> Vec<u8> {
    match v {
        Value::String(s) => s.as_bytes().to_vec(),
        Value::Object(o) => unhex(o["hex"].as_str().unwrap()),
        other => panic!("bad item {other}"),
    }
}

fn build(case: &Value) -> ScalableBloomFilter {
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

fn check_probes(name: &str, f: &ScalableBloomFilter, case: &Value) {
    for p in case["probes"].as_array().unwrap() {
        let want = p["exists"].as_u64().unwrap() == 1;
        assert_eq!(f.contains(&item(&p["item"])), want, "{name}: {p}");
    }
}

fn dump_of(case: &Value) -> Vec<(i64, Vec<u8>)> {
    case["scandump"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e[0].as_i64().unwrap(), unhex(e[1].as_str().unwrap())))
        .collect()
}

#[test]
fn every_case_reproduced() {
    let d = data();
    let cases = d["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 11);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut f = build(case);
        let items = case["items"].as_array().unwrap();
        let replies = case["addReplies"].as_array().unwrap();
        assert_eq!(items.len(), replies.len());
        for (i, (it, want)) in items.iter().zip(replies).enumerate() {
            let got = match f.add(&item(it)) {
                Ok(true) => Value::from(1),
                Ok(false) => Value::from(0),
                Err(e @ Error::Full) => Value::from(e.to_string()),
                Err(e) => panic!("{name}: item {i}: {e}"),
            };
            assert_eq!(&got, want, "{name}: add reply {i}");
        }
        assert_eq!(f.len(), case["card"].as_u64().unwrap(), "{name}: card");
        let info = &case["info"];
        let fi = f.info();
        assert_eq!(fi.capacity, info["Capacity"].as_u64().unwrap(), "{name}");
        assert_eq!(fi.redis_size, info["Size"].as_u64().unwrap(), "{name}");
        assert_eq!(
            fi.filters as u64,
            info["Number of filters"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            fi.items,
            info["Number of items inserted"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            fi.expansion,
            info["Expansion rate"].as_u64(),
            "{name}: expansion"
        );
        assert_eq!(case["infoFields"]["CAPACITY"], info["Capacity"]);
        let debug: Vec<String> = case["debug"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        assert_eq!(f.redis_debug(), debug, "{name}: BF.DEBUG");
        let counts: Vec<u64> = case["setBitCounts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        let got: Vec<u64> = f.layers().iter().map(|l| l.bits_set()).collect();
        assert_eq!(got, counts, "{name}: set bits");
        assert_eq!(f.bits_set(), counts.iter().sum::<u64>());

        // SCANDUMP, byte for byte.
        let want = dump_of(case);
        let dump = f.redis_scandump().unwrap();
        assert_eq!(dump.len(), want.len(), "{name}: dump length");
        for (j, (g, w)) in dump.iter().zip(&want).enumerate() {
            assert_eq!(g.0, w.0, "{name}: dump iterator {j}");
            assert_eq!(hex(&g.1), hex(&w.1), "{name}: dump chunk {j}");
        }
        let h = redis::parse_header(&want[0].1).unwrap();
        assert_eq!(h.size, case["header"]["size"].as_u64().unwrap());
        assert_eq!(
            u64::from(h.growth),
            case["header"]["growth"].as_u64().unwrap()
        );

        check_probes(name, &f, case);

        // LOADCHUNK of the recorded dump answers the same and dumps the
        // same bytes.
        let loaded = ScalableBloomFilter::from_redis_scandump(&want).unwrap();
        check_probes(name, &loaded, case);
        assert_eq!(loaded.redis_scandump().unwrap(), want, "{name}");
        assert_eq!(loaded.redis_debug(), debug, "{name}");
        assert_eq!(loaded.info().redis_size, fi.redis_size);
        assert_eq!(loaded.layers(), f.layers(), "{name}: loaded layers");
    }
}

/// A loaded scaling filter keeps growing as RedisBloom would.
#[test]
fn loaded_filter_grows_like_the_original() {
    let d = data();
    for case in d["cases"].as_array().unwrap() {
        let mut f = build(case);
        for it in case["items"].as_array().unwrap() {
            let _ = f.add(&item(it));
        }
        let dump = f.redis_scandump().unwrap();
        let mut g = ScalableBloomFilter::from_redis_scandump(&dump).unwrap();
        for i in 0..3000u32 {
            let key = format!("more-{i}");
            let a = f.add(key.as_bytes()).map_err(|e| e.to_string());
            let b = g.add(key.as_bytes()).map_err(|e| e.to_string());
            assert_eq!(a, b);
        }
        assert_eq!(f.redis_scandump().unwrap(), g.redis_scandump().unwrap());
    }
}

#[test]
fn sizing_grid() {
    let d = data();
    let rows = d["sizing"].as_array().unwrap();
    assert_eq!(rows.len(), 304);
    for row in rows {
        let cmd: Vec<&str> = row["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        let error: f64 = cmd[2].parse().unwrap();
        let capacity: u64 = cmd[3].parse().unwrap();
        let nonscaling = cmd.contains(&"NONSCALING");
        let f = ScalableBloomFilter::redisbloom_reserve(
            error, capacity, None, nonscaling,
        )
        .unwrap();
        let l = &f.layers()[0];
        let what = format!("{cmd:?}");
        assert_eq!(
            format!("{:016x}", l.error().to_bits()),
            row["linkErrorBits"].as_str().unwrap(),
            "{what}"
        );
        assert_eq!(
            format!("{:016x}", l.bits_per_entry().to_bits()),
            row["bpeBits"].as_str().unwrap(),
            "{what}"
        );
        assert_eq!(l.bits(), row["bits"].as_u64().unwrap(), "{what}");
        assert_eq!(l.bytes(), row["bytes"].as_u64().unwrap(), "{what}");
        assert_eq!(u64::from(l.k()), row["hashes"].as_u64().unwrap());
        assert_eq!(l.capacity(), row["entries"].as_u64().unwrap());
        let header = f.redis_header().unwrap();
        let opts = u32::from_le_bytes(header[12..16].try_into().unwrap());
        let growth = u32::from_le_bytes(header[16..20].try_into().unwrap());
        assert_eq!(u64::from(opts), row["options"].as_u64().unwrap());
        assert_eq!(u64::from(growth), row["growth"].as_u64().unwrap());
        assert_eq!(f.redis_debug()[1], row["debug"].as_str().unwrap());
    }
}

#[test]
fn single_item_filters_set_the_recorded_bits() {
    let d = data();
    for e in d["murmur64a"].as_array().unwrap() {
        let bytes = match e["bytesHex"].as_str() {
            Some(h) => unhex(h),
            None => item(&e["input"]),
        };
        assert_eq!(bytes.len() as u64, e["byteLength"].as_u64().unwrap());
        for s in e["singleItemFilters"].as_array().unwrap() {
            let cmd: Vec<&str> = s["command"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap())
                .collect();
            let (error, capacity) = (cmd[cmd.len() - 3], cmd[cmd.len() - 2]);
            let mut f = ScalableBloomFilter::redisbloom_reserve(
                error.parse().unwrap(),
                capacity.parse().unwrap(),
                None,
                true,
            )
            .unwrap();
            assert!(f.add(&bytes).unwrap());
            let l = &f.layers()[0];
            assert_eq!(l.bits(), s["bits"].as_u64().unwrap());
            let set: Vec<u64> = l.bit_array().ones().collect();
            let want: Vec<u64> = s["setBits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            assert_eq!(set, want, "{}", e["input"]);
        }
    }
}

/// The refusal a constructor returned, as its reply text.
pub(crate) fn msg(r: Result<ScalableBloomFilter, Error>) -> String {
    r.map(|_| ()).unwrap_err().to_string()
}

#[test]
fn reserve_errors_are_redisbloom_replies() {
    let r = ScalableBloomFilter::redisbloom_reserve;
    assert_eq!(
        msg(r(0.0, 100, None, false)),
        "ERR error rate must be in the range (0.000000, 1.000000)"
    );
    assert_eq!(
        msg(r(1.0, 100, None, false)),
        "ERR error rate must be in the range (0.000000, 1.000000)"
    );
    assert_eq!(
        msg(r(0.01, 0, None, false)),
        "ERR capacity must be in the range [1, 1073741824]"
    );
    assert_eq!(
        msg(r(0.01, (1 << 30) + 1, None, false)),
        "ERR capacity must be in the range [1, 1073741824]"
    );
    assert_eq!(
        msg(r(0.01, 100, Some(32769), false)),
        "ERR expansion must be in the range [0, 32768]"
    );
    assert_eq!(
        msg(r(0.01, 100, Some(4), true)),
        "Nonscaling filters cannot expand"
    );
    // EXPANSION 0: non-scaling, growth stored as 0.
    let f = r(0.01, 100, Some(0), false).unwrap();
    assert_eq!(f.info().expansion, None);
    assert_eq!(&f.redis_header().unwrap()[16..20], &[0, 0, 0, 0]);
    assert_eq!(f.layers()[0].error(), 0.01);
}

#[test]
fn scandump_chunks_large_arrays_and_odd_iterators() {
    // One 17,971,992-byte link dumps as 16 MiB + the rest.
    let f =
        ScalableBloomFilter::redisbloom_reserve(0.01, 15_000_000, None, true)
            .unwrap();
    assert_eq!(f.layers()[0].bytes(), 17_971_992);
    let d = f.redis_scandump().unwrap();
    let its: Vec<i64> = d.iter().map(|c| c.0).collect();
    assert_eq!(its, [1, 16_777_217, 17_971_993, 0]);
    assert_eq!(d[2].1.len(), 1_194_776);
    assert_eq!(f.redis_scandump_chunk(-5).unwrap(), (0, vec![]));
    assert_eq!(f.redis_scandump_chunk(17_971_993).unwrap(), (0, vec![]));
    let (next, mid) = f.redis_scandump_chunk(11).unwrap();
    assert_eq!(next, 11 + 16 * 1024 * 1024);
    assert_eq!(mid.len(), 16 * 1024 * 1024);
    // A loaded dump that is too short, or whose header is bad, is refused.
    let small = ScalableBloomFilter::redisbloom().unwrap();
    let mut dump = small.redis_scandump().unwrap();
    dump[1].1.pop();
    assert!(ScalableBloomFilter::from_redis_scandump(&dump).is_err());
    let mut dump = small.redis_scandump().unwrap();
    dump[0].1[12] = 0x30; // unknown options
    assert!(ScalableBloomFilter::from_redis_scandump(&dump).is_err());
    let mut dump = small.redis_scandump().unwrap();
    dump[0].1.truncate(50);
    assert!(ScalableBloomFilter::from_redis_scandump(&dump).is_err());
    let empty: Vec<(i64, Vec<u8>)> = vec![];
    assert!(ScalableBloomFilter::from_redis_scandump(&empty).is_err());
}

/// A dump is read only when its chunks cover every link's bytes exactly
/// once: equal totals are not enough. The last link's chunk replaced by
/// its first half sent twice (or its second half twice) has the right
/// total, and the bytes never sent would read as 0, answering "absent"
/// for items that were added.
#[test]
fn chunks_must_cover_each_link_exactly_once() {
    let mut f = ScalableBloomFilter::redisbloom_reserve(0.01, 20, None, false)
        .unwrap();
    for i in 1..=100 {
        f.add(format!("item{i}").as_bytes()).unwrap();
    }
    let dump = f.redis_scandump().unwrap();
    assert!(dump.len() >= 4, "a header, several links and the end");
    let (end, last) = dump[dump.len() - 2].clone();
    let start = end - last.len() as i64; // the iterator before it
    let half = last.len() / 2;
    let refused = |chunks: Vec<(i64, Vec<u8>)>| -> String {
        let mut forged = dump[..dump.len() - 2].to_vec();
        forged.extend(chunks);
        forged.push((0, vec![]));
        match ScalableBloomFilter::from_redis_scandump(&forged) {
            Err(Error::BadDump(why)) => why,
            other => panic!("accepted: {other:?}"),
        }
    };
    let link = f.layers().len() - 1;
    let first = (start + half as i64, last[..half].to_vec());
    let why = refused(vec![first.clone(), first]);
    assert_eq!(
        why,
        format!(
            "link {link}'s bytes from 0 come twice (the chunk with \
             iterator {} overlaps another)",
            start + half as i64
        )
    );
    let second = (end, last[half..].to_vec());
    let why = refused(vec![second.clone(), second]);
    assert_eq!(why, format!("link {link}'s bytes from 0 are in no chunk"));
    // The same chunks in another order, or split, still read.
    let mut split = dump[..dump.len() - 2].to_vec();
    split.push((end, last[half..].to_vec()));
    split.push((start + half as i64, last[..half].to_vec()));
    split.push((0, vec![]));
    let g = ScalableBloomFilter::from_redis_scandump(&split).unwrap();
    assert_eq!(g.layers(), f.layers());
}

/// Link sizes are summed with overflow checks: nine links whose sizes
/// add up to exactly 2^64 bytes panicked in debug builds and in release
/// ones wrapped to 0, matched a dump without data and were allocated.
#[test]
fn link_sizes_that_overflow_are_refused() {
    let bpe = 9.585058377367446f64;
    let mut h = Vec::new();
    h.extend_from_slice(&0u64.to_le_bytes()); // size
    h.extend_from_slice(&9u32.to_le_bytes()); // links
    h.extend_from_slice(&5u32.to_le_bytes()); // options
    h.extend_from_slice(&2u32.to_le_bytes()); // growth
    for i in 0..9 {
        let bytes: u64 = if i < 8 { (1 << 61) - 8 } else { 64 };
        h.extend_from_slice(&bytes.to_le_bytes());
        h.extend_from_slice(&(bytes * 8).to_le_bytes());
        h.extend_from_slice(&0u64.to_le_bytes());
        h.extend_from_slice(&0.01f64.to_le_bytes());
        h.extend_from_slice(&bpe.to_le_bytes());
        h.extend_from_slice(&7u32.to_le_bytes());
        h.extend_from_slice(&100u64.to_le_bytes());
        h.push(0);
    }
    assert_eq!(redis::parse_header(&h).unwrap().links.len(), 9);
    let dump = vec![(1, h), (0, vec![])];
    let e = ScalableBloomFilter::from_redis_scandump(&dump);
    let Err(Error::BadDump(why)) = &e else { panic!("{e:?}") };
    assert!(why.contains("past 2^64"), "{why}");
}

#[test]
fn format_g_matches_c() {
    let g = redis::format_g;
    assert_eq!(g(0.005), "0.005");
    assert_eq!(g(0.000625), "0.000625");
    assert_eq!(g(6.25e-05), "6.25e-05");
    assert_eq!(g(0.25), "0.25");
    assert_eq!(g(1e-10), "1e-10");
    assert_eq!(g(0.1 / 3.0), "0.0333333");
    assert_eq!(g(1234567.0), "1.23457e+06");
    assert_eq!(g(100000.0), "100000");
}

#[test]
fn non_redis_filters_have_no_scandump() {
    let f = ScalableBloomFilter::new(100, 0.01).unwrap();
    assert!(!f.is_redisbloom());
    assert!(matches!(f.redis_scandump(), Err(Error::NotRedisBloom(_))));
}

/// A recorded (current-layout) header rewritten in an older layout, as
/// RedisBloom's `dumpedChainHeader`/`dumpedChainLink` were laid out
/// before: 2.2.0 (`growth` kept, 49-byte links with a 32-bit `entries`)
/// or pre-2.2 (no `growth`, 49-byte links).
fn older_header(current: &[u8], keep_growth: bool) -> Vec<u8> {
    let n = u32::from_le_bytes(current[8..12].try_into().unwrap()) as usize;
    assert_eq!(current.len(), 20 + 53 * n);
    let mut out = current[..if keep_growth { 20 } else { 16 }].to_vec();
    for i in 0..n {
        let link = &current[20 + 53 * i..20 + 53 * (i + 1)];
        // bytes, bits, size, error, bpe, hashes: unchanged (44 bytes).
        out.extend_from_slice(&link[..44]);
        let entries = u64::from_le_bytes(link[44..52].try_into().unwrap());
        out.extend_from_slice(&u32::try_from(entries).unwrap().to_le_bytes());
        out.push(link[52]); // n2
    }
    out
}

/// Dumps in RedisBloom's older header layouts are read: the same bits
/// and answers as the recorded dump, growth 2 for the layout without the
/// field, and written back in the current layout.
#[test]
fn older_header_layouts_are_read() {
    let d = data();
    for case in d["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let want = dump_of(case);
        let current = ScalableBloomFilter::from_redis_scandump(&want).unwrap();
        for (keep_growth, layout) in [
            (true, redis::HeaderLayout::Expansion32),
            (false, redis::HeaderLayout::Legacy),
        ] {
            let mut dump = want.clone();
            dump[0].1 = older_header(&want[0].1, keep_growth);
            let n = current.layers().len();
            let fixed = if keep_growth { 20 } else { 16 };
            assert_eq!(dump[0].1.len(), fixed + 49 * n);
            let h = redis::parse_header(&dump[0].1).unwrap();
            assert_eq!(h.layout, layout, "{name}");
            let recorded = redis::parse_header(&want[0].1).unwrap().growth;
            if !keep_growth && recorded != 2 && n > 1 {
                // Before 2.2 every chain grew by 2: links that grow by
                // another factor cannot have been written in that layout.
                let e = ScalableBloomFilter::from_redis_scandump(&dump);
                let Err(Error::BadDump(why)) = e else {
                    panic!("{name}: {e:?}");
                };
                assert!(why.contains("the config grows it to"), "{why}");
                continue;
            }
            let g = ScalableBloomFilter::from_redis_scandump(&dump).unwrap();
            check_probes(name, &g, case);
            assert_eq!(g.layers(), current.layers(), "{name}: {layout:?}");
            let back = g.redis_scandump().unwrap();
            assert_eq!(back[0].1.len(), 20 + 53 * n);
            if keep_growth || recorded == 2 {
                // Nothing lost: byte for byte the recorded dump.
                assert_eq!(back, want, "{name}: {layout:?}");
            }
            if !keep_growth {
                assert_eq!(h.growth, 2, "{name}");
            }
        }
    }
}

/// Headers bloomlab cannot reproduce are refused, saying what they are.
#[test]
fn unsupported_headers_say_what_they_are() {
    let d = data();
    let case = &d["cases"].as_array().unwrap()[0];
    let want = dump_of(case);
    let header = &want[0].1;
    let refused = |h: Vec<u8>| -> String {
        let mut dump = want.clone();
        dump[0].1 = h;
        match ScalableBloomFilter::from_redis_scandump(&dump) {
            Err(Error::BadDump(why)) => why,
            other => panic!("accepted: {other:?}"),
        }
    };
    // 32-bit hashing: options without FORCE64 (here NOROUND only).
    let mut h = header.clone();
    h[12..16].copy_from_slice(&1u32.to_le_bytes());
    assert!(refused(h).contains("32-bit MurmurHash2"));
    // Power-of-two sizes: FORCE64 without NOROUND.
    let mut h = header.clone();
    h[12..16].copy_from_slice(&4u32.to_le_bytes());
    assert!(refused(h).contains("power-of-two"));
    // A power-of-two link (n2 ≠ 0).
    let mut h = header.clone();
    h[20 + 52] = 10;
    assert!(refused(h).contains("power-of-two link"));
    // A length no layout has.
    let mut h = header.clone();
    h.push(0);
    assert!(refused(h).contains("matches no RedisBloom layout"));
    // The same checks hold in the older layouts.
    let mut h = older_header(header, false);
    h[12..16].copy_from_slice(&1u32.to_le_bytes());
    assert!(refused(h).contains("32-bit MurmurHash2"));
    // Too short to hold even the chain fields.
    assert!(refused(header[..15].to_vec()).contains("header of 15 bytes"));
}

/// Every recorded dump, read and saved in bloomlab's own format, reads
/// back: its links grow as the native reader's chain check requires.
#[test]
fn recorded_dumps_round_trip_through_the_native_format() {
    let d = data();
    for case in d["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let g =
            ScalableBloomFilter::from_redis_scandump(&dump_of(case)).unwrap();
        let back = ScalableBloomFilter::read(&g.to_bytes().unwrap());
        assert_eq!(back.as_ref().ok(), Some(&g), "{name}: {back:?}");
    }
}

/// A dump whose links were forged is refused before anything is
/// allocated for them: a link's capacity that its bits cannot hold (the
/// next link would be sized from it), or links that do not grow by the
/// header's growth.
#[test]
fn forged_links_are_refused() {
    let d = data();
    let case = &d["cases"].as_array().unwrap()[4];
    let want = dump_of(case);
    assert!(ScalableBloomFilter::from_redis_scandump(&want).is_ok());
    let n = u32::from_le_bytes(want[0].1[8..12].try_into().unwrap());
    assert!(n > 1, "a chain of several links");
    for (link, entries) in [(0usize, 1u64 << 30), (1, 1 << 40)] {
        let mut dump = want.clone();
        let at = 20 + 53 * link + 44;
        dump[0].1[at..at + 8].copy_from_slice(&entries.to_le_bytes());
        let e = ScalableBloomFilter::from_redis_scandump(&dump);
        let Err(Error::BadDump(why)) = &e else {
            panic!("link {link}: {e:?}");
        };
        assert!(why.starts_with(&format!("layer {link} ")), "{why}");
    }
}
