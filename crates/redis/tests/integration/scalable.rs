use std::process::{Command, Stdio};
use std::thread;

use bloomlab_redis::{
    Config, Error, RedisBloomFilter, RedisScalableBloomFilter, ScalableInfo,
    connect, layer_key, redis_offset,
};
use bloomlab_scalable::{
    Config as ScalableConfig, Layout, ScalableBloomFilter, Sizing,
};
use redis::Commands;

use crate::common::{RedisServer, options};
use crate::redisbloom::{cases, dump_of, item, reserve};

/// A chain of standard layers doubling in size, errors halving: fixed
/// here, whatever the crate's defaults.
fn doubling(n0: u64, p: f64) -> ScalableConfig {
    ScalableConfig::new(n0, p)
        .layout(Layout::Standard)
        .sizing(Sizing::HalfFill)
        .growth(2)
        .tightening(0.5)
}

/// Configurations with different layouts, sizings, hashing and fullness
/// rules, all starting small so a few thousand keys make many layers.
fn configs() -> Vec<ScalableConfig> {
    vec![
        doubling(40, 0.01),
        doubling(25, 0.05).layout(Layout::Partitioned).growth(3),
        doubling(30, 0.02).sizing(Sizing::Pybloom).tightening(0.8),
        doubling(50, 0.1).full_at_half_fill(true),
        *ScalableBloomFilter::redisbloom_reserve(0.01, 20, Some(2), false)
            .unwrap()
            .config(),
        doubling(64, 0.01).layout(Layout::Blocked),
        // The crate's defaults, whatever they are.
        ScalableConfig::new(16, 0.01),
    ]
}

/// Adds `keys` to the in-memory filter one by one; returns how many were
/// new.
fn add_all(f: &mut ScalableBloomFilter, keys: &[u64]) -> usize {
    keys.iter().filter(|k| f.add(&k.to_le_bytes()).unwrap()).count()
}

/// Inserts in Redis (single keys, small and large batches, duplicates,
/// batches that open several layers) give, after each step, the
/// in-memory filter's answers and, at the end, its layers bit for bit.
#[test]
fn layers_equal_the_in_memory_filter_across_growth() {
    let server = RedisServer::start();
    for (n, config) in configs().into_iter().enumerate() {
        let name = format!("s{n}");
        let mut r =
            RedisScalableBloomFilter::create(server.conn(), &name, config)
                .unwrap();
        let mut local = ScalableBloomFilter::with_config(config).unwrap();
        let keys: Vec<u64> = (0..3_000u64).map(|i| i * 0x9e37_79b9).collect();
        // Single inserts.
        for k in &keys[..30] {
            assert_eq!(
                r.insert(k).unwrap(),
                local.add(&k.to_le_bytes()).unwrap(),
                "{config:?}"
            );
        }
        // Batches of growing size; the last ones open several layers in
        // one call. Each batch repeats a few keys already inserted.
        let mut at = 30;
        for size in [1, 7, 50, 200, 700, 2_000] {
            let end = (at + size).min(keys.len());
            let mut batch = keys[at..end].to_vec();
            batch.extend_from_slice(&keys[at - 3..at]);
            batch.push(keys[at]);
            let before = local.layers().len();
            assert_eq!(
                r.insert_many(&batch).unwrap(),
                add_all(&mut local, &batch),
                "{config:?}: batch of {size}"
            );
            assert!(local.layers().len() >= before);
            at = end;
        }
        assert!(
            local.layers().len() >= 4,
            "{config:?}: {} layers",
            local.layers().len()
        );
        assert_eq!(r.export().unwrap(), local, "{config:?}");
        // Answers for members and non-members, one by one and batched.
        let probes: Vec<u64> =
            (0..4_000u64).map(|i| i * 0x9e37_79b9).collect();
        let want: Vec<bool> =
            probes.iter().map(|p| local.contains(&p.to_le_bytes())).collect();
        assert_eq!(r.contains_many(&probes).unwrap(), want, "{config:?}");
        assert!(want[..at].iter().all(|&w| w), "a false negative");
        for p in &probes[2_990..3_010] {
            assert_eq!(
                r.contains(p).unwrap(),
                local.contains(&p.to_le_bytes())
            );
        }
        // The chain's state, as stored.
        let info = r.info().unwrap();
        assert_eq!(info.items, local.len());
        assert_eq!(info.skipped, local.skipped());
        assert_eq!(info.layers.len(), local.layers().len());
        for (s, l) in info.layers.iter().zip(local.layers()) {
            assert_eq!(
                (s.capacity, s.bits, s.k, s.count, s.bits_set),
                (l.capacity(), l.bits(), l.k(), l.count(), l.bits_set())
            );
        }
        // The raw layer strings: bloomlab bit i at Redis offset
        // redis_offset(i).
        let mut c = server.conn();
        let last = local.layers().len() - 1;
        let raw: Vec<u8> = c.get(layer_key(&name, last)).unwrap();
        let bits = local.layers()[last].bit_array();
        assert_eq!(raw.len() as u64, bits.bit_len().div_ceil(8));
        for i in 0..bits.bit_len() {
            let o = redis_offset(i);
            let redis_bit = raw[(o / 8) as usize] >> (7 - o % 8) & 1 == 1;
            assert_eq!(redis_bit, bits.get(i), "bit {i}");
        }
    }
}

/// The RedisBloom preset in Redis replies to each recorded `BF.ADD` as
/// RedisBloom did, and its export dumps RedisBloom's bytes.
#[test]
fn redisbloom_preset_reproduces_the_recorded_filters() {
    let server = RedisServer::start();
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let config = *reserve(&case).config();
        let mut r =
            RedisScalableBloomFilter::create(server.conn(), name, config)
                .unwrap();
        let items = case["items"].as_array().unwrap();
        let replies = case["addReplies"].as_array().unwrap();
        for (i, (it, want)) in items.iter().zip(replies).enumerate() {
            match (r.insert_bytes(&item(it)), want.as_u64()) {
                (Ok(got), Some(w)) => {
                    assert_eq!(u64::from(got), w, "{name}: reply {i}");
                }
                (Err(Error::Full { at: 0, .. }), None) => {
                    assert_eq!(want, "ERR non scaling filter is full");
                }
                (got, _) => panic!("{name}: reply {i}: {got:?}, {want}"),
            }
        }
        let f = r.export().unwrap();
        assert_eq!(f.redis_scandump().unwrap(), dump_of(&case), "{name}");
        assert_eq!(f.len(), case["card"].as_u64().unwrap(), "{name}");
    }
}

/// import stores a grown in-memory filter; export gives it back; an
/// import over a longer chain removes the extra layers.
#[test]
fn import_and_export_round_trip() {
    let server = RedisServer::start();
    let config = doubling(20, 0.01);
    let mut big = ScalableBloomFilter::with_config(config).unwrap();
    add_all(&mut big, &(0..2_000).collect::<Vec<u64>>());
    let mut small = ScalableBloomFilter::with_config(config).unwrap();
    add_all(&mut small, &(5_000..5_100).collect::<Vec<u64>>());
    assert!(big.layers().len() > small.layers().len() + 2);

    let mut r =
        RedisScalableBloomFilter::import(server.conn(), "i", &big).unwrap();
    assert_eq!(r.export().unwrap(), big);
    let mut c = server.conn();
    let n = big.layers().len();
    assert!(c.exists::<_, bool>(layer_key("i", n - 1)).unwrap());

    // A second handle, created earlier, still believes the long chain.
    let mut stale =
        RedisScalableBloomFilter::open(server.conn(), "i").unwrap();
    assert_eq!(stale.layers_seen(), n);
    let mut r2 =
        RedisScalableBloomFilter::import(server.conn(), "i", &small).unwrap();
    assert_eq!(r2.export().unwrap(), small);
    for i in small.layers().len()..n {
        assert!(!c.exists::<_, bool>(layer_key("i", i)).unwrap(), "layer {i}");
    }
    assert_eq!(stale.export().unwrap(), small);
    assert!(stale.contains(&5_050u64).unwrap());

    // A dump whose second layer is not the one its config grows (its
    // capacity edited in the header, 200 -> 300) is refused as it is
    // read, so no such chain reaches Redis.
    let mut dump = dump_of(&cases()[4]);
    let at = 20 + 53 + 44; // link 1's `entries`
    assert_eq!(dump[0].1[at..at + 8], 200u64.to_le_bytes());
    dump[0].1[at..at + 8].copy_from_slice(&300u64.to_le_bytes());
    let e = ScalableBloomFilter::from_redis_scandump(&dump).unwrap_err();
    assert!(e.to_string().contains("grows it to 200"), "{e}");
}

/// A handle that has not seen other clients grow the chain answers and
/// inserts correctly (one retry), and its batches stay atomic.
#[test]
fn handles_follow_growth_by_others() {
    let server = RedisServer::start();
    let config = doubling(10, 0.01);
    let mut a =
        RedisScalableBloomFilter::create(server.conn(), "g", config).unwrap();
    let mut b = RedisScalableBloomFilter::open(server.conn(), "g").unwrap();
    assert_eq!(b.layers_seen(), 1);
    let xs: Vec<u64> = (0..1_000).collect();
    a.insert_many(&xs).unwrap();
    let layers = a.info().unwrap().layers.len();
    assert!(layers >= 6, "{layers}");
    assert_eq!(b.layers_seen(), 1);
    assert!(b.contains_many(&xs).unwrap().iter().all(|&c| c));
    assert_eq!(b.layers_seen(), layers);
    let mut local = ScalableBloomFilter::with_config(config).unwrap();
    add_all(&mut local, &xs);
    let mut c = RedisScalableBloomFilter::open(server.conn(), "g").unwrap();
    assert_eq!(c.layers_seen(), layers);
    for x in [5_000u64, 5_000, 5_001] {
        assert_eq!(
            c.insert(&x).unwrap(),
            local.add(&x.to_le_bytes()).unwrap()
        );
    }
    assert_eq!(b.export().unwrap(), local);
}

/// Missing filters, wrong key types, re-created filters, full
/// non-scaling filters: typed errors, nothing changed.
#[test]
fn typed_errors() {
    let server = RedisServer::start();
    let mut c = server.conn();
    let config = ScalableConfig::new(100, 0.01);

    let e = RedisScalableBloomFilter::open(server.conn(), "none").unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e}");
    let e = RedisScalableBloomFilter::create(server.conn(), "a{b", config)
        .unwrap_err();
    assert!(matches!(e, Error::InvalidParameter { name: "name", .. }), "{e}");

    // Wrong types: the config, the chain, a layer.
    let _: () = c.rpush("{l}:config", "x").unwrap();
    let e = RedisScalableBloomFilter::create(server.conn(), "l", config)
        .unwrap_err();
    assert!(
        matches!(&e, Error::WrongType { found, expected: "hash", .. }
            if found == "list"),
        "{e}"
    );
    let e = RedisScalableBloomFilter::open(server.conn(), "l").unwrap_err();
    assert!(matches!(e, Error::WrongType { .. }), "{e}");
    let mut f =
        RedisScalableBloomFilter::create(server.conn(), "w", config).unwrap();
    f.insert(&1u64).unwrap();
    let _: () = c.del("{w}:layer:0").unwrap();
    let _: () = c.sadd("{w}:layer:0", "x").unwrap();
    let e = f.insert(&2u64).unwrap_err();
    assert!(
        matches!(&e, Error::WrongType { found, expected: "string", key }
            if found == "set" && key == "{w}:layer:0"),
        "{e}"
    );
    let e = f.contains(&1u64).unwrap_err();
    assert!(matches!(e, Error::WrongType { .. }), "{e}");
    let e = f.export().unwrap_err();
    assert!(matches!(e, Error::WrongType { .. }), "{e}");
    let _: () = c.del("{w}:chain").unwrap();
    let _: () = c.set("{w}:chain", "x").unwrap();
    let e = f.insert(&2u64).unwrap_err();
    assert!(matches!(e, Error::WrongType { .. }), "{e}");

    // A chain hash that does not describe the layers: typed errors
    // before anything is read or allocated.
    let mut f =
        RedisScalableBloomFilter::create(server.conn(), "h", config).unwrap();
    let _: () = c.hset("{h}:chain", "bits:0", "64").unwrap();
    let e = f.insert(&1u64).unwrap_err();
    assert!(matches!(e, Error::BadConfig { field: "layer", .. }), "{e}");
    let e = f.info().unwrap_err();
    assert!(matches!(e, Error::BadConfig { field: "layer", .. }), "{e}");
    let _: () = c.hset("{h}:chain", "layers", 3).unwrap();
    let e = f.contains(&1u64).unwrap_err();
    assert!(matches!(e, Error::BadConfig { field: "chain", .. }), "{e}");
    let _: () = c.hset("{h}:chain", "layers", 1_000_000).unwrap();
    let e = RedisScalableBloomFilter::open(server.conn(), "h").unwrap_err();
    assert!(matches!(e, Error::BadConfig { field: "layers", .. }), "{e}");
    let e = f.insert(&1u64).unwrap_err();
    assert!(matches!(e, Error::BadConfig { field: "chain", .. }), "{e}");

    // A chain without its config, a layer left over: the name is taken.
    let _: () = c.set("{o}:layer:0", "x").unwrap();
    let e = RedisScalableBloomFilter::create(server.conn(), "o", config)
        .unwrap_err();
    assert!(matches!(e, Error::Orphan { .. }), "{e}");

    // A standard filter is not a scalable one, and the other way.
    RedisBloomFilter::create(server.conn(), "std", Config::default(), 64, 2)
        .unwrap();
    let e = RedisScalableBloomFilter::open(server.conn(), "std").unwrap_err();
    assert!(matches!(e, Error::BadConfig { field: "variant", .. }), "{e}");
    RedisScalableBloomFilter::create(server.conn(), "sc", config).unwrap();
    let e = RedisBloomFilter::open(server.conn(), "sc").unwrap_err();
    assert!(matches!(e, Error::BadConfig { .. }), "{e}");
    // A config field edited to a value the chain cannot take is blamed
    // by its own name.
    RedisScalableBloomFilter::create(server.conn(), "ed", config).unwrap();
    let _: () = c.hset("{ed}:config", "tightening", "1.5").unwrap();
    let e = RedisScalableBloomFilter::open(server.conn(), "ed").unwrap_err();
    assert!(
        matches!(&e, Error::BadConfig { field: "tightening", value, .. }
            if value == "1.5"),
        "{e}"
    );

    // Re-created with other parameters under an open handle; create with
    // other parameters.
    let mut old =
        RedisScalableBloomFilter::create(server.conn(), "re", config).unwrap();
    old.insert(&1u64).unwrap();
    let other = ScalableConfig::new(100, 0.02);
    let e = RedisScalableBloomFilter::create(server.conn(), "re", other)
        .unwrap_err();
    assert!(
        matches!(&e, Error::AlreadyExists { field, .. } if field == "error"),
        "{e}"
    );
    RedisScalableBloomFilter::open(server.conn(), "re")
        .unwrap()
        .delete()
        .unwrap();
    let mut new =
        RedisScalableBloomFilter::create(server.conn(), "re", other).unwrap();
    let e = old.insert(&2u64).unwrap_err();
    assert!(
        matches!(&e, Error::ConfigChanged { field, stored, expected, .. }
            if field == "error" && stored == "0.02" && expected == "0.01"),
        "{e}"
    );
    assert!(matches!(old.export().unwrap_err(), Error::ConfigChanged { .. }));
    assert!(!new.contains(&2u64).unwrap(), "the old handle changed bits");
    // Deleted: NotFound.
    new.delete().unwrap();
    let e = old.contains(&1u64).unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e}");
    let keys: Vec<String> = c.keys("{re}*").unwrap();
    assert!(keys.is_empty(), "{keys:?}");

    // A full non-scaling filter: the batch that does not fit changes
    // nothing, and says which key did not fit.
    let ns = ScalableConfig::new(50, 0.01).non_scaling();
    let mut f =
        RedisScalableBloomFilter::create(server.conn(), "ns", ns).unwrap();
    let mut local = ScalableBloomFilter::with_config(ns).unwrap();
    let xs: Vec<u64> = (0..40).collect();
    assert_eq!(f.insert_many(&xs).unwrap(), add_all(&mut local, &xs));
    let before = f.export().unwrap();
    assert_eq!(before, local);
    // The in-memory filter says which key of the batch first does not
    // fit.
    let more: Vec<u64> = (100..120).collect();
    let fits = more
        .iter()
        .take_while(|x| local.add(&x.to_le_bytes()).is_ok())
        .count();
    assert!(fits < more.len());
    let e = f.insert_many(&more).unwrap_err();
    assert!(
        matches!(e, Error::Full { capacity: 50, at, .. } if at == fits),
        "{e}"
    );
    assert_eq!(f.export().unwrap(), before, "a failed batch changed bits");
    // The keys that fit do; present keys are answered (not inserted)
    // even when full; an absent key does not fit.
    let added = (local.len() - before.len()) as usize;
    assert_eq!(f.insert_many(&more[..fits]).unwrap(), added);
    assert_eq!(f.export().unwrap(), local);
    assert!(!f.insert(&0u64).unwrap());
    let absent =
        (1_000u64..).find(|x| !local.contains(&x.to_le_bytes())).unwrap();
    let e = f.insert(&absent).unwrap_err();
    assert!(matches!(e, Error::Full { at: 0, .. }), "{e}");
    assert!(
        e.to_string().contains("key 1 of the batch, counting from 1"),
        "{e}"
    );
}

/// A key in the place of the chain's next layer, written by someone
/// else: growing is refused, naming the key, and the batch changes
/// nothing.
#[test]
fn a_stray_key_where_the_next_layer_goes_is_refused() {
    let server = RedisServer::start();
    let mut c = server.conn();
    let config = ScalableConfig::new(10, 0.01);
    let mut f =
        RedisScalableBloomFilter::create(server.conn(), "st", config).unwrap();
    let _: () = c.set("{st}:layer:1", "junk").unwrap();
    let before = f.export().unwrap();
    let xs: Vec<u64> = (0..100).collect();
    let e = f.insert_many(&xs).unwrap_err();
    assert!(
        matches!(&e, Error::KeyInUse { key, role: "next layer" }
            if key == "{st}:layer:1"),
        "{e}"
    );
    assert_eq!(f.export().unwrap(), before);
    let junk: String = c.get("{st}:layer:1").unwrap();
    assert_eq!(junk, "junk");
}

/// The chain's snapshot of every field, and every layer's bytes.
fn snapshot(
    c: &mut redis::Connection,
    name: &str,
) -> (Vec<(String, String)>, Vec<Vec<u8>>) {
    let mut chain: Vec<(String, String)> =
        c.hgetall(format!("{{{name}}}:chain")).unwrap();
    chain.sort();
    let mut layers = Vec::new();
    for i in 0.. {
        let bytes: Option<Vec<u8>> = c.get(layer_key(name, i)).unwrap();
        match bytes {
            Some(b) => layers.push(b),
            None => break,
        }
    }
    (chain, layers)
}

/// A count in the chain hash that is not a count (edited by hand): an
/// insert is refused before it writes anything (Redis does not undo a
/// script's writes when it fails later), and the filter can still be
/// deleted, or replaced by an import.
#[test]
fn corrupt_counts_are_refused_before_any_write() {
    let server = RedisServer::start();
    let mut c = server.conn();
    let config = doubling(100, 0.01);
    for (field, value) in [
        ("ones:0", "oops"),
        ("count:0", "-1"),
        ("count:0", "1e3"),
        ("ones:0", "007"),
        ("skipped", "oops"),
        ("skipped", "1.5"),
    ] {
        let name = format!("{field}={value}");
        let mut f =
            RedisScalableBloomFilter::create(server.conn(), &name, config)
                .unwrap();
        f.insert_many(&[1u64, 2, 3]).unwrap();
        let local = f.export().unwrap();
        let _: () = c.hset(format!("{{{name}}}:chain"), field, value).unwrap();
        let before = snapshot(&mut c, &name);
        // 300 keys: the batch also needs new layers.
        let keys: Vec<u64> = (100..400).collect();
        let e = f.insert_many(&keys).unwrap_err();
        assert!(
            matches!(&e, Error::BadConfig { field: "chain", value: v, .. }
                if v.contains(field)),
            "{name}: {e}"
        );
        assert!(
            snapshot(&mut c, &name) == before,
            "{name}: a refused batch wrote"
        );
        // An import replaces the corrupt chain; a delete removes it.
        let mut f =
            RedisScalableBloomFilter::import(server.conn(), &name, &local)
                .unwrap();
        assert_eq!(f.export().unwrap(), local, "{name}");
        let _: () = c.hset(format!("{{{name}}}:chain"), field, value).unwrap();
        f.delete().unwrap();
        let left: Vec<String> = c.keys(format!("{{{name}}}*")).unwrap();
        assert!(left.is_empty(), "{name}: {left:?}");
    }
}

/// Environment variable that turns `child_scalable_inserter` into a
/// writer: `URL NAME WRITER N`.
const CHILD_ENV: &str = "BLOOMLAB_REDIS_TEST_SCALABLE_CHILD";

/// Items of writer `w`: disjoint between writers.
fn writer_items(w: u64, n: u64) -> Vec<u64> {
    (0..n).map(|i| (w << 32) | i).collect()
}

/// Inserts writer `w`'s items in batches of mixed sizes (some single
/// keys), so growth happens inside batches and between them.
fn insert_all(f: &mut RedisScalableBloomFilter, w: u64, n: u64) {
    let xs = writer_items(w, n);
    let mut rest = &xs[..];
    for size in [1usize, 3, 40, 1, 250, 7, 120].iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (batch, tail) = rest.split_at((*size).min(rest.len()));
        if batch.len() == 1 {
            f.insert(&batch[0]).unwrap();
        } else {
            f.insert_many(batch).unwrap();
        }
        rest = tail;
    }
}

/// Waits until all `writers` have called this (a counter under key
/// `barrier`), so the processes and threads insert at the same time.
fn start_together(url: &str, barrier: &str, writers: u64) {
    let mut c = connect(url, &options()).unwrap();
    let _: u64 = c.incr(barrier, 1).unwrap();
    let started = std::time::Instant::now();
    while c.get::<_, u64>(barrier).unwrap() < writers {
        assert!(started.elapsed().as_secs() < 30, "writers did not start");
        thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// The number of layers a chain of capacities `n0·s^i` has after
/// `items` inserts with lazy count-based growth: the smallest `L` with
/// `Σ_{i<L} n0·s^i ≥ items`.
fn layers_for(n0: u64, s: u64, items: u64) -> usize {
    let (mut l, mut total, mut cap) = (1, n0, n0);
    while total < items {
        cap *= s;
        total += cap;
        l += 1;
    }
    l
}

/// Checks the shared chain after concurrent growth: each layer index
/// exists exactly once, every layer has the formula's shape, every layer
/// but the last is exactly full (a layer grown twice, or skipped, would
/// leave one short), the layer count is the formula's for the items the
/// chain took, and no writer's key is missing.
fn check_growth(server: &RedisServer, name: &str, writers: u64, n: u64) {
    let mut f = RedisScalableBloomFilter::open(server.conn(), name).unwrap();
    let config = *f.config();
    let ScalableInfo { items, skipped, layers } = f.info().unwrap();
    let total = writers * n;
    // Every insert either set a key or found it (a false positive: the
    // sets are disjoint) present.
    assert_eq!(items + skipped, total);
    // Each insert's key is skipped with probability at most the chain's
    // bound P (every layer is at most full), so `skipped` is dominated by
    // Binomial(total, P), mean μ = total·P = 80. Chernoff: P(X ≥ 3μ) ≤
    // exp(−μ·2²/(2 + 2)) = e^−80. Whatever the interleaving.
    let bound = 3.0 * total as f64 * config.error;
    assert!((skipped as f64) <= bound, "{skipped} skipped, bound {bound}");
    let (n0, s) = (config.initial_capacity, config.growth);
    assert_eq!(layers.len(), layers_for(n0, s, items));
    assert!(layers.len() >= layers_for(n0, s, total - bound as u64));
    assert!(layers.len() <= layers_for(n0, s, total));
    let specs = config.layer_specs(layers.len() - 1).unwrap();
    for (i, (l, spec)) in layers.iter().zip(&specs).enumerate() {
        assert_eq!(
            (l.capacity, l.bits, l.modulus, l.k),
            (spec.capacity, spec.bits, spec.modulus, spec.k),
            "layer {i}"
        );
        if i + 1 < layers.len() {
            assert_eq!(l.count, l.capacity, "layer {i} is not full");
        } else {
            assert!(l.count >= 1 && l.count <= l.capacity, "last: {l:?}");
        }
    }
    let mut c = server.conn();
    let mut keys: Vec<String> = c.keys(format!("{{{name}}}:layer:*")).unwrap();
    keys.sort_by_key(|k| k.rsplit(':').next().unwrap().parse::<usize>().ok());
    let want: Vec<String> =
        (0..layers.len()).map(|i| layer_key(name, i)).collect();
    assert_eq!(keys, want);
    // No false negatives, in Redis and in the exported chain.
    let local = f.export().unwrap();
    for w in 0..writers {
        let xs = writer_items(w, n);
        let found = f.contains_many(&xs).unwrap();
        let missing = found.iter().filter(|&&c| !c).count();
        assert_eq!(missing, 0, "writer {w}: {missing} false negatives");
        assert!(xs.iter().all(|x| local.contains(&x.to_le_bytes())));
    }
    assert_eq!(local.len(), items);
    assert_eq!(local.skipped(), skipped);
}

/// Four processes and four threads insert disjoint sets into one chain
/// that starts at 50 items and grows to 8 layers while they run.
#[test]
fn concurrent_growth_creates_each_layer_once() {
    let server = RedisServer::start();
    let name = "grow";
    let config = doubling(50, 0.01);
    RedisScalableBloomFilter::create(server.conn(), name, config).unwrap();
    let (processes, threads, n) = (4u64, 4u64, 1_000u64);
    let writers = processes + threads;
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..processes)
        .map(|w| {
            Command::new(&exe)
                .args(["scalable::child_scalable_inserter", "--exact"])
                .args(["--test-threads", "1", "--nocapture"])
                .env(
                    CHILD_ENV,
                    format!("{} {name} {w} {n} {writers}", server.url()),
                )
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    thread::scope(|s| {
        for w in processes..processes + threads {
            let url = server.url();
            s.spawn(move || {
                let conn = connect(&url, &options()).unwrap();
                let mut f =
                    RedisScalableBloomFilter::open(conn, name).unwrap();
                start_together(&url, "barrier", writers);
                insert_all(&mut f, w, n);
            });
        }
    });
    for mut c in children {
        let status = c.wait().unwrap();
        assert!(status.success(), "a writer process failed: {status}");
    }
    check_growth(&server, name, writers, n);
    // A sequential build of the same keys lands in the same bounds.
    let mut seq = ScalableBloomFilter::with_config(config).unwrap();
    for w in 0..writers {
        add_all(&mut seq, &writer_items(w, n));
    }
    let (n0, s) = (config.initial_capacity, config.growth);
    assert_eq!(seq.layers().len(), layers_for(n0, s, seq.len()));
}

/// A writer process of `concurrent_growth_creates_each_layer_once`; does
/// nothing unless started by it.
#[test]
fn child_scalable_inserter() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let parts: Vec<&str> = spec.split(' ').collect();
    let [url, name, w, n, writers] = parts[..] else {
        panic!("bad {CHILD_ENV}: {spec:?}");
    };
    let conn = connect(url, &options()).unwrap();
    let mut f = RedisScalableBloomFilter::open(conn, name).unwrap();
    start_together(url, "barrier", writers.parse().unwrap());
    insert_all(&mut f, w.parse().unwrap(), n.parse().unwrap());
}
