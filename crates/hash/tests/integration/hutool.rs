// hutool HashUtil functions against hutool 5.8.34's own outputs.
//
// Every value in testdata/hutool/hashes.json is checked exactly: the 17
// raw hashes, the single-hash filters' hash/bitIndex/addResult for every
// size, and the BitSetBloomFilter positions.

use bloomlab_hash::hutool::{
    HutoolHash, bitset_hash, bitset_position, filter_index, java_units,
};
use serde_json::{Map, Value};

const HASHES_JSON: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/hutool/hashes.json"
));

const STRINGS: usize = 83;
/// Strings short enough (<= 40 units) to carry `utf16Units`.
const STRINGS_WITH_UNITS: usize = 71;
const FILTER_SIZES: [i64; 3] = [1_048_576, 1_000_003, 100];
const BITSET_SIZES: [i32; 2] = [8000, 1_000_003];
const PROBES: u32 = 9;

/// The filter classes of `cn.hutool.bloomfilter.filter` and their hashes.
const FILTERS: [(&str, HutoolHash); 10] = [
    ("DefaultFilter", HutoolHash::JavaDefault),
    ("ELFFilter", HutoolHash::Elf),
    ("FNVFilter", HutoolHash::Fnv),
    ("HfFilter", HutoolHash::Hf),
    ("HfIpFilter", HutoolHash::HfIp),
    ("JSFilter", HutoolHash::Js),
    ("PJWFilter", HutoolHash::Pjw),
    ("RSFilter", HutoolHash::Rs),
    ("SDBMFilter", HutoolHash::Sdbm),
    ("TianlFilter", HutoolHash::Tianl),
];

/// Per string: utf16Length, 17 hashes, 3 fields per (size, filter) and
/// 9 positions per bitset size; plus utf16Units where present.
const EXPECTED_CHECKS: usize = STRINGS
    * (1 + 17
        + 3 * FILTER_SIZES.len() * FILTERS.len()
        + PROBES as usize * BITSET_SIZES.len())
    + STRINGS_WITH_UNITS;

/// Counts comparisons and collects every mismatch with its string and
/// field, so one run reports all failures at once.
#[derive(Default)]
struct Checker {
    checks: usize,
    failures: Vec<String>,
}

impl Checker {
    fn eq<T: PartialEq + std::fmt::Debug>(
        &mut self,
        input: &str,
        field: &str,
        got: T,
        want: T,
    ) {
        self.checks += 1;
        if got != want {
            self.failures.push(format!(
                "{input:?} {field}: got {got:?}, hutool {want:?}"
            ));
        }
    }
}

// Malformed JSON is reported as an Err naming the place, so the helpers
// need no panics (clippy's `panic` lint is allowed only in #[test] fns).
type Res<T> = Result<T, String>;

fn object<'a>(v: &'a Value, what: &str) -> Res<&'a Map<String, Value>> {
    v.as_object().ok_or_else(|| format!("{what} is not an object"))
}

fn array<'a>(v: &'a Value, what: &str) -> Res<&'a Vec<Value>> {
    v.as_array().ok_or_else(|| format!("{what} is not an array"))
}

fn long(v: &Value, what: &str) -> Res<i64> {
    // as_i64 reads the integer exactly; an f64 would lose bits above 2^53.
    v.as_i64().ok_or_else(|| format!("{what} is not an i64: {v}"))
}

fn longs(v: &Value, what: &str) -> Res<Vec<i64>> {
    array(v, what)?.iter().map(|x| long(x, what)).collect()
}

fn get<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    what: &str,
) -> Res<&'a Value> {
    obj.get(key).ok_or_else(|| format!("{what}: missing {key:?}"))
}

/// The sorted keys of `obj`, to catch entries the test would not visit.
fn keys(obj: &Map<String, Value>) -> Vec<&str> {
    let mut k: Vec<&str> = obj.keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn hutool_hashes_match_hutool_5_8_34() -> Res<()> {
    let root: Value =
        serde_json::from_str(HASHES_JSON).map_err(|e| e.to_string())?;
    let root = object(&root, "root")?;
    assert_eq!(longs(get(root, "sizes", "root")?, "sizes")?, FILTER_SIZES);
    assert_eq!(
        longs(get(root, "bitSetSizes", "root")?, "bitSetSizes")?,
        BITSET_SIZES.map(i64::from)
    );
    let strings = array(get(root, "strings", "root")?, "strings")?;
    assert_eq!(strings.len(), STRINGS);

    let mut java_names: Vec<&str> =
        HutoolHash::ALL.iter().map(|h| h.java_name()).collect();
    java_names.sort_unstable();
    let mut filter_names: Vec<&str> =
        FILTERS.iter().map(|(name, _)| *name).collect();
    filter_names.sort_unstable();

    let mut c = Checker::default();
    for entry in strings {
        let entry = object(entry, "strings[]")?;
        let input = get(entry, "input", "strings[]")?
            .as_str()
            .ok_or("input is not a string")?;
        let units = java_units(input);

        // 1. UTF-16 view of the string, then the 17 raw hashes.
        let len = long(get(entry, "utf16Length", input)?, "utf16Length")?;
        c.eq(input, "utf16Length", i64::try_from(units.len()).ok(), Some(len));
        let want_units = get(entry, "utf16Units", input)?;
        if !want_units.is_null() {
            let want = longs(want_units, "utf16Units")?;
            let got: Vec<i64> = units.iter().map(|&u| i64::from(u)).collect();
            c.eq(input, "utf16Units", got, want);
        }
        let hashes = object(get(entry, "hashes", input)?, "hashes")?;
        assert_eq!(keys(hashes), java_names, "{input:?}: hash names");
        for h in HutoolHash::ALL {
            let field = format!("hashes.{}", h.java_name());
            let want = long(get(hashes, h.java_name(), input)?, &field)?;
            c.eq(input, &field, h.hash_units(&units), want);
        }

        // 2. Single-hash filters (`new XxxFilter(size)`, an IntMap).
        let filters = object(get(entry, "filters", input)?, "filters")?;
        assert_eq!(filters.len(), FILTER_SIZES.len(), "{input:?}: sizes");
        for size in FILTER_SIZES {
            let by_class =
                object(get(filters, &size.to_string(), input)?, "filters")?;
            assert_eq!(keys(by_class), filter_names, "{input:?}: classes");
            // The IntMap holds floor(size / 32) ints; higher bits throw.
            let capacity = 32 * (size / 32);
            for (class, h) in FILTERS {
                let field = format!("filters.{size}.{class}");
                let want = object(get(by_class, class, input)?, &field)?;
                let value = h.hash_units(&units);
                c.eq(
                    input,
                    &format!("{field}.hash"),
                    value.checked_rem(size),
                    Some(long(get(want, "hash", input)?, &field)?),
                );
                let index = filter_index(value, size);
                c.eq(
                    input,
                    &format!("{field}.bitIndex"),
                    index,
                    Some(long(get(want, "bitIndex", input)?, &field)?),
                );
                let add = match index {
                    Some(i) if i < capacity => "ok",
                    _ => "ArrayIndexOutOfBoundsException",
                };
                c.eq(
                    input,
                    &format!("{field}.addResult"),
                    Some(add),
                    get(want, "addResult", input)?.as_str(),
                );
            }
        }

        // 3. BitSetBloomFilter positions for probes i = 0..=8.
        let positions =
            object(get(entry, "bitSetPositions", input)?, "bitSetPositions")?;
        assert_eq!(positions.len(), BITSET_SIZES.len(), "{input:?}: bitsets");
        for size in BITSET_SIZES {
            let field = format!("bitSetPositions.{size}");
            let want =
                longs(get(positions, &size.to_string(), input)?, &field)?;
            assert_eq!(want.len(), PROBES as usize, "{input:?}: {field}");
            for (i, want) in (0..PROBES).zip(want) {
                let got = bitset_position(bitset_hash(&units, i), size);
                c.eq(
                    input,
                    &format!("{field}[{i}]"),
                    got.map(i64::from),
                    Some(want),
                );
            }
        }
    }

    assert!(
        c.failures.is_empty(),
        "{} of {} checks failed:\n{}",
        c.failures.len(),
        c.checks,
        c.failures.join("\n")
    );
    assert_eq!(c.checks, EXPECTED_CHECKS);
    assert_eq!(c.checks, 10_529);
    Ok(())
}

#[test]
fn registry_and_java_names() {
    let names: Vec<(&str, &str)> =
        HutoolHash::ALL.iter().map(|h| (h.name(), h.java_name())).collect();
    assert_eq!(
        names,
        [
            ("hutool-default", "javaDefaultHash"),
            ("hutool-elf", "elfHash"),
            ("hutool-fnv", "fnvHash"),
            ("hutool-js", "jsHash"),
            ("hutool-pjw", "pjwHash"),
            ("hutool-rs", "rsHash"),
            ("hutool-sdbm", "sdbmHash"),
            ("hutool-bkdr", "bkdrHash"),
            ("hutool-ap", "apHash"),
            ("hutool-djb", "djbHash"),
            ("hutool-dek", "dekHash"),
            ("hutool-one-by-one", "oneByOneHash"),
            ("hutool-bernstein", "bernstein"),
            ("hutool-hf", "hfHash"),
            ("hutool-hfip", "hfIpHash"),
            ("hutool-tianl", "tianlHash"),
            ("hutool-mix", "mixHash"),
        ]
    );
}
