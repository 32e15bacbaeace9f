use bloomlab_hash::Strategy;
use bloomlab_redis::{
    Config, Error, RedisBloomFilter, bits_key, config_key, redis_offset,
};
use bloomlab_standard::{BloomFilter, Loaded, guava, read_any, write_native};
use bloomlab_standard::{Format, StandardFilter};
use redis::Commands;

use crate::common::RedisServer;

fn keys(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i}")).collect()
}

/// Configurations with different fast paths and strategies.
fn configs() -> Vec<(Config, u64, u32)> {
    vec![
        (Config::default(), 9_600, 7),
        (Config::guava(Strategy::GuavaMitz64), 7_298, 5),
        (Config::guava(Strategy::GuavaMitz32), 1_000, 3),
        (Config::default().with_strategy(Strategy::Double), 4_099, 4),
        (Config::default().with_seed(42), 64, 1),
    ]
}

#[test]
fn offsets_flip_the_bit_order_inside_each_byte() {
    for i in 0..64u64 {
        let o = redis_offset(i);
        assert_eq!(o / 8, i / 8);
        assert_eq!(o % 8, 7 - i % 8);
        assert_eq!(redis_offset(o), i);
    }
}

/// Inserting into Redis sets exactly the in-memory filter's bits, and
/// the Redis bitmap agrees with the raw `GETBIT`s at the flipped
/// offsets.
#[test]
fn bits_equal_the_in_memory_filter() {
    let server = RedisServer::start();
    for (n, (config, m, k)) in configs().into_iter().enumerate() {
        let name = format!("f{n}");
        let mut r =
            RedisBloomFilter::create(server.conn(), &name, config, m, k)
                .unwrap();
        let mut local = BloomFilter::with_config(config, m, k).unwrap();
        let items = keys(&name, 300);
        for item in &items[..150] {
            let a = r.insert(item.as_str()).unwrap();
            let b = local.insert(item.as_str());
            assert_eq!(a, b, "{item}");
            assert_eq!(
                r.positions(item.as_str()),
                local.positions(item.as_str())
            );
        }
        let exported = r.export().unwrap();
        assert_eq!(exported, local, "{config:?}");
        for item in &items {
            assert_eq!(
                r.contains(item.as_str()).unwrap(),
                local.contains(item.as_str())
            );
        }
        // The raw bitmap: bloomlab bit i is Redis bit redis_offset(i).
        let mut c = server.conn();
        let raw: Vec<u8> = c.get(bits_key(&name)).unwrap();
        assert_eq!(raw.len() as u64, m.div_ceil(8));
        for i in 0..m {
            let byte = raw[(redis_offset(i) / 8) as usize];
            let redis_bit = byte >> (7 - redis_offset(i) % 8) & 1 == 1;
            assert_eq!(redis_bit, local.bit_array().get(i), "bit {i}");
        }
        let bitcount: u64 =
            redis::cmd("BITCOUNT").arg(bits_key(&name)).query(&mut c).unwrap();
        assert_eq!(bitcount, local.bit_count());
    }
}

/// One batch gives the bits and answers of one call per key.
#[test]
fn batches_equal_single_calls() {
    let server = RedisServer::start();
    let config = Config::default();
    let mut single =
        RedisBloomFilter::create(server.conn(), "single", config, 20_000, 7)
            .unwrap();
    let mut batch =
        RedisBloomFilter::create(server.conn(), "batch", config, 20_000, 7)
            .unwrap();
    let items: Vec<u64> = (0..2_000u64).map(|i| i * 7919).collect();
    let mut changed = 0;
    for i in &items[..1_000] {
        changed += usize::from(single.insert(i).unwrap());
    }
    assert_eq!(batch.insert_many(&items[..1_000]).unwrap(), changed);
    assert_eq!(single.export().unwrap(), batch.export().unwrap());
    let answers = batch.contains_many(&items).unwrap();
    assert_eq!(answers.len(), items.len());
    for (i, a) in items.iter().zip(&answers) {
        assert_eq!(single.contains(i).unwrap(), *a);
    }
    assert!(answers[..1_000].iter().all(|&a| a), "a false negative");
    assert_eq!(batch.insert_many::<u64>(&[]).unwrap(), 0);
    assert!(batch.contains_many::<u64>(&[]).unwrap().is_empty());
    // A repeated key in one batch changes bits only the first time.
    assert_eq!(batch.insert_many(&[1u64 << 40, 1 << 40]).unwrap(), 1);
}

/// Batches of thousands of probes on a filter large enough for the
/// sparse scripts (over 32 bytes of bitmap per probe for inserts, over
/// 256 for queries): the bits, the changed count and the answers are the
/// in-memory filter's, a key repeated thousands of probes later
/// included.
#[test]
fn sparse_batches_of_thousands_of_probes() {
    let server = RedisServer::start();
    let config = Config::default();
    let (m, k) = (10_000_000, 7);
    let mut r =
        RedisBloomFilter::create(server.conn(), "sparse", config, m, k)
            .unwrap();
    let mut local = BloomFilter::with_config(config, m, k).unwrap();
    // 1,000 keys of 7 probes (178 bytes per probe); the last key
    // repeats the first, 6,993 probes later.
    let mut items: Vec<u64> = (0..999u64).map(|i| i * 7919 + 1).collect();
    items.push(items[0]);
    let changed = items.iter().filter(|i| local.insert(*i)).count();
    assert_eq!(r.insert_many(&items).unwrap(), changed);
    assert_eq!(changed, 999, "the repeat changes nothing");
    assert_eq!(r.export().unwrap(), local);
    // Queries of 500 keys (357 bytes per probe) are sparse too.
    let probes: Vec<u64> = (0..2_000u64).map(|i| i * 7919 + 1).collect();
    let mut answers = Vec::new();
    for batch in probes.chunks(500) {
        answers.extend(r.contains_many(batch).unwrap());
    }
    for (p, a) in probes.iter().zip(&answers) {
        assert_eq!(local.contains(p), *a, "{p}");
    }
    assert!(answers[..999].iter().all(|&a| a), "a false negative");
}

/// create is idempotent for equal parameters and refuses others; open
/// reads the parameters back.
#[test]
fn create_and_open() {
    let server = RedisServer::start();
    let config = Config::guava(Strategy::GuavaMitz64).with_seed(0);
    let mut a =
        RedisBloomFilter::create(server.conn(), "c", config, 1000, 5).unwrap();
    a.insert("x").unwrap();
    let mut b =
        RedisBloomFilter::create(server.conn(), "c", config, 1000, 5).unwrap();
    assert!(b.contains("x").unwrap(), "re-create cleared the bits");
    let err = RedisBloomFilter::create(server.conn(), "c", config, 1000, 6)
        .unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { field, stored, requested, .. }
            if field == "k" && stored == "5" && requested == "6"),
        "{err}"
    );
    let mut o = RedisBloomFilter::open(server.conn(), "c").unwrap();
    assert_eq!((o.config(), o.bits(), o.hash_count()), (config, 1000, 5));
    assert!(o.contains("x").unwrap());
    assert_eq!(o.bits_key(), "{c}:bits");
    assert_eq!(o.config_key(), "{c}:config");
    for bad in ["", "a{b", "a}b"] {
        let e = RedisBloomFilter::create(server.conn(), bad, config, 10, 1)
            .unwrap_err();
        assert!(matches!(e, Error::InvalidParameter { .. }), "{e}");
    }
    let e = RedisBloomFilter::create(server.conn(), "big", config, 1 << 33, 1)
        .unwrap_err();
    assert!(matches!(e, Error::InvalidParameter { name: "m", .. }), "{e}");
}

/// A filter deleted and re-created with other parameters: every
/// operation of an old handle fails with ConfigChanged and changes
/// nothing.
#[test]
fn recreated_with_other_parameters_is_config_changed() {
    let server = RedisServer::start();
    let config = Config::default();
    let mut old =
        RedisBloomFilter::create(server.conn(), "r", config, 5000, 4).unwrap();
    old.insert("before").unwrap();
    RedisBloomFilter::open(server.conn(), "r").unwrap().delete().unwrap();
    let other = config.with_seed(7);
    let mut new =
        RedisBloomFilter::create(server.conn(), "r", other, 5000, 4).unwrap();
    let is_changed = |e: &Error| {
        matches!(e, Error::ConfigChanged { field, stored, expected, .. }
            if field == "seed" && stored == "7" && expected == "0")
    };
    let e = old.insert("after").unwrap_err();
    assert!(is_changed(&e), "{e}");
    assert!(is_changed(&old.contains("before").unwrap_err()));
    assert!(is_changed(&old.insert_many(&["a", "b"]).unwrap_err()));
    assert!(is_changed(&old.contains_many(&["a"]).unwrap_err()));
    assert!(is_changed(&old.export().unwrap_err()));
    assert_eq!(new.export().unwrap().bit_count(), 0, "the old handle wrote");
    assert!(!new.contains("before").unwrap());
    // Changing m alone is caught too.
    let mut c = server.conn();
    let _: () = c.hset(config_key("r"), "m", "5001").unwrap();
    let e = new.insert("x").unwrap_err();
    assert!(
        matches!(&e, Error::ConfigChanged { field, .. } if field == "m"),
        "{e}"
    );
    let e = old.delete().unwrap_err();
    assert!(matches!(e, Error::ConfigChanged { .. }), "{e}");
}

#[test]
fn missing_filter_and_wrong_types_are_typed_errors() {
    let server = RedisServer::start();
    let e = RedisBloomFilter::open(server.conn(), "nope").unwrap_err();
    assert!(
        matches!(&e, Error::NotFound { name, key }
            if name == "nope" && key == "{nope}:config"),
        "{e}"
    );
    let mut c = server.conn();
    // The config key holding a list.
    let _: () = c.rpush(config_key("l"), "x").unwrap();
    let e = RedisBloomFilter::open(server.conn(), "l").unwrap_err();
    assert!(
        matches!(&e, Error::WrongType { key, found, expected: "hash" }
            if key == "{l}:config" && found == "list"),
        "{e}"
    );
    let e =
        RedisBloomFilter::create(server.conn(), "l", Config::default(), 64, 1)
            .unwrap_err();
    assert!(matches!(e, Error::WrongType { .. }), "{e}");
    // The bits key holding a set, after the filter was made.
    let mut f =
        RedisBloomFilter::create(server.conn(), "s", Config::default(), 64, 2)
            .unwrap();
    let _: () = c.del(bits_key("s")).unwrap();
    let _: () = c.sadd(bits_key("s"), "x").unwrap();
    let e = f.insert("a").unwrap_err();
    assert!(
        matches!(&e, Error::WrongType { key, found, expected: "string" }
            if key == "{s}:bits" && found == "set"),
        "{e}"
    );
    // A bits key without its config.
    let _: () = c.set(bits_key("o"), "abc").unwrap();
    let e = RedisBloomFilter::open(server.conn(), "o").unwrap_err();
    assert!(matches!(e, Error::Orphan { .. }), "{e}");
    let e =
        RedisBloomFilter::create(server.conn(), "o", Config::default(), 64, 1)
            .unwrap_err();
    assert!(matches!(e, Error::Orphan { .. }), "{e}");
    // A filter deleted under a handle.
    let mut g =
        RedisBloomFilter::create(server.conn(), "d", Config::default(), 64, 2)
            .unwrap();
    let _: () = c.del(&[config_key("d"), bits_key("d")]).unwrap();
    let e = g.contains("a").unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e}");
    // A config hash that is not ours.
    let _: () = c.hset(config_key("h"), "variant", "counting").unwrap();
    let e = RedisBloomFilter::open(server.conn(), "h").unwrap_err();
    assert!(matches!(e, Error::BadConfig { field: "variant", .. }), "{e}");
    // Bits longer than m / 8.
    let mut b =
        RedisBloomFilter::create(server.conn(), "b", Config::default(), 64, 2)
            .unwrap();
    let _: () = c.set(bits_key("b"), vec![0u8; 9]).unwrap();
    let e = b.export().unwrap_err();
    assert!(matches!(e, Error::BadBits { .. }), "{e}");
}

/// A filter's name may hold spaces, and a config hash edited by hand
/// may hold values with spaces: errors still name the whole key and the
/// whole values.
#[test]
fn errors_name_keys_and_values_with_spaces() {
    let server = RedisServer::start();
    let mut c = server.conn();
    let e = RedisBloomFilter::open(server.conn(), "my filter").unwrap_err();
    assert!(
        matches!(&e, Error::NotFound { key, .. } if key == "{my filter}:config"),
        "{e}"
    );
    let _: () = c.rpush(config_key("a list"), "x").unwrap();
    let e = RedisBloomFilter::open(server.conn(), "a list").unwrap_err();
    assert!(
        matches!(&e, Error::WrongType { key, found, expected: "hash" }
            if key == "{a list}:config" && found == "list"),
        "{e}"
    );
    let _: () = c.set(bits_key("an orphan"), "abc").unwrap();
    let e = RedisBloomFilter::create(
        server.conn(),
        "an orphan",
        Config::default(),
        64,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::Orphan { key, .. } if key == "{an orphan}:bits"),
        "{e}"
    );
    let mut f = RedisBloomFilter::create(
        server.conn(),
        "my filter",
        Config::default(),
        640,
        3,
    )
    .unwrap();
    let _: () =
        c.hset(config_key("my filter"), "family", "my family").unwrap();
    let e = f.insert("a").unwrap_err();
    assert!(
        matches!(&e, Error::ConfigChanged { field, stored, expected, .. }
            if field == "family" && stored == "my family"
                && expected == "xxh3-128"),
        "{e}"
    );
    let e = RedisBloomFilter::create(
        server.conn(),
        "my filter",
        Config::default(),
        640,
        3,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::AlreadyExists { field, stored, requested, .. }
            if field == "family" && stored == "my family"
                && requested == "xxh3-128"),
        "{e}"
    );
}

/// A config hash written by hand that no handle can use is refused by
/// `open` as a bad config naming the field, not accepted and then
/// refused by every call, nor reported as a caller's bad parameter.
#[test]
fn open_refuses_configs_no_handle_can_use() {
    let server = RedisServer::start();
    let mut c = server.conn();
    for (field, value) in [
        ("family", "XXH3-128"),
        ("m", "+640"),
        ("seed", "00"),
        ("k", "0"),
        ("m", "8589934592"),
        ("strategy", "guava-mitz32"),
    ] {
        let name = format!("{field}={value}");
        RedisBloomFilter::create(
            server.conn(),
            &name,
            Config::default(),
            640,
            3,
        )
        .unwrap();
        let _: () = c.hset(config_key(&name), field, value).unwrap();
        let e = RedisBloomFilter::open(server.conn(), &name).unwrap_err();
        let expected = if field == "strategy" { "config" } else { field };
        assert!(
            matches!(&e, Error::BadConfig { field: f, .. } if *f == expected),
            "{field} = {value}: {e}"
        );
    }
}

/// A server that is gone: a typed error within the timeout, no panic.
#[test]
fn a_dead_server_is_a_redis_error() {
    let server = RedisServer::start();
    let mut f =
        RedisBloomFilter::create(server.conn(), "x", Config::default(), 64, 2)
            .unwrap();
    let url = server.url();
    drop(server);
    let e = f.insert("a").unwrap_err();
    assert!(matches!(e, Error::Redis(_)), "{e}");
    let e = bloomlab_redis::connect(&url, &crate::common::options());
    assert!(matches!(e, Err(Error::Redis(_))), "connected to a dead server");
}

/// Export to bloomlab's format and Guava's, import back: the same
/// filter, the same answers.
#[test]
fn export_import_round_trips_native_and_guava() {
    let server = RedisServer::start();
    // Guava's create(1000, 0.03) with MURMUR128_MITZ_64.
    let mut g = guava::create(1000, 0.03, Strategy::GuavaMitz64).unwrap();
    let items = keys("g", 500);
    for item in &items {
        g.insert(item.as_str());
    }
    let bytes = guava::to_guava_bytes(&g).unwrap();
    let read = guava::read_guava(&bytes).unwrap();
    let mut r = RedisBloomFilter::import(server.conn(), "g", &read).unwrap();
    assert_eq!(r.hash_count(), g.hash_count());
    for item in &items {
        assert!(r.contains(item.as_str()).unwrap());
    }
    let back = r.export().unwrap();
    assert_eq!(back, g);
    assert_eq!(guava::to_guava_bytes(&back).unwrap(), bytes);

    // bloomlab's format, through a filter filled in Redis.
    let mut n = RedisBloomFilter::create(
        server.conn(),
        "n",
        Config::default(),
        10_007,
        6,
    )
    .unwrap();
    n.insert_many(&items).unwrap();
    let mut file = Vec::new();
    write_native(&StandardFilter::Classic(n.export().unwrap()), &mut file)
        .unwrap();
    let Loaded { filter, format } = read_any(&file).unwrap();
    assert_eq!(format, Format::Native);
    let StandardFilter::Classic(loaded) = filter else {
        panic!("not a classic filter");
    };
    // Importing replaces the bits of a filter with equal parameters.
    let mut m = RedisBloomFilter::create(
        server.conn(),
        "m",
        Config::default(),
        10_007,
        6,
    )
    .unwrap();
    m.insert("only-here").unwrap();
    let mut m =
        RedisBloomFilter::import(m.into_connection(), "m", &loaded).unwrap();
    assert_eq!(m.export().unwrap(), loaded);
    assert!(m.contains_many(&items).unwrap().iter().all(|&c| c));
    // And refuses other parameters.
    let e = RedisBloomFilter::import(server.conn(), "g", &loaded).unwrap_err();
    assert!(matches!(e, Error::AlreadyExists { .. }), "{e}");
}

/// A filter whose data key is gone (deleted, expired, evicted) while its
/// config stays has lost its contents: answering from an empty bitmap
/// would call every member absent, so every use is an error naming the
/// key, on both batch paths and on open; delete still clears it up.
#[test]
fn a_lost_bits_key_is_an_error_not_an_empty_filter() {
    let server = RedisServer::start();
    let mut c = server.conn();
    let mut f = RedisBloomFilter::create(
        server.conn(),
        "ev",
        Config::default(),
        64,
        2,
    )
    .unwrap();
    f.insert("a").unwrap();
    let _: () = c.del(bits_key("ev")).unwrap();
    let lost = |e: &Error| {
        matches!(e, Error::Lost { key, config }
            if key == "{ev}:bits" && config == "{ev}:config")
    };
    let e = f.contains("a").unwrap_err();
    assert!(lost(&e), "{e}");
    assert!(e.to_string().contains("delete \"{ev}:config\""), "{e}");
    // 64 bits: any batch is dense, so this takes the other path.
    let keys: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    let e = f.contains_many(&keys).unwrap_err();
    assert!(lost(&e), "{e}");
    let e = f.insert_many(&keys).unwrap_err();
    assert!(lost(&e), "{e}");
    let e = f.export().unwrap_err();
    assert!(lost(&e), "{e}");
    let e = RedisBloomFilter::open(server.conn(), "ev").unwrap_err();
    assert!(lost(&e), "{e}");
    // Nothing was written by the refused calls.
    let exists: bool = c.exists(bits_key("ev")).unwrap();
    assert!(!exists);
    f.delete().unwrap();
    let exists: bool = c.exists(config_key("ev")).unwrap();
    assert!(!exists);
}

/// The dense insert's scratch key, `{name}:tmp`, holding a client's data:
/// the batch is refused, naming the key, and the data and the filter's
/// bits are as they were.
#[test]
fn a_scratch_key_in_use_is_refused_not_overwritten() {
    let server = RedisServer::start();
    let mut c = server.conn();
    let mut f =
        RedisBloomFilter::create(server.conn(), "t", Config::default(), 64, 2)
            .unwrap();
    f.insert("a").unwrap();
    let before = f.export().unwrap();
    let _: () = c.rpush("{t}:tmp", "theirs").unwrap();
    // 64 bits: a batch of 100 keys takes the dense path.
    let keys: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    let e = f.insert_many(&keys).unwrap_err();
    assert!(
        matches!(&e, Error::KeyInUse { key, role: "batch inserts" }
            if key == "{t}:tmp"),
        "{e}"
    );
    let list: Vec<String> = c.lrange("{t}:tmp", 0, -1).unwrap();
    assert_eq!(list, ["theirs"]);
    assert_eq!(f.export().unwrap(), before);
}
