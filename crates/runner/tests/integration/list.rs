// `bloomlab list`: the registry, by name.

use crate::json_lines;

#[test]
fn lists_every_family_strategy_and_reduction() {
    let rows = json_lines(&["list", "--json"]);
    let names = |kind: &str| -> Vec<String> {
        rows.iter()
            .filter(|r| r["kind"] == kind)
            .map(|r| r["name"].as_str().unwrap().to_string())
            .collect()
    };
    let families = names("hash-family");
    for f in [
        "murmur3-x64-128",
        "murmur3-x86-32",
        "murmur64a",
        "xxh64",
        "xxh3-64",
        "xxh3-128",
        "fold-128",
        "fnv1a-64",
        "siphash-1-3",
        "java-hashcode",
        "hutool-elf",
        "hutool-js",
        "hutool-pjw",
        "hutool-sdbm",
        "hutool-rs",
        "hutool-fnv",
        "hutool-bkdr",
        "hutool-ap",
        "hutool-djb",
        "hutool-dek",
        "hutool-hf",
        "hutool-hfip",
        "hutool-tianl",
        "hutool-one-by-one",
        "hutool-bernstein",
        "hutool-mix",
    ] {
        assert!(families.iter().any(|n| n == f), "{f} missing from list");
    }
    assert_eq!(
        names("strategy"),
        [
            "guava-mitz32",
            "guava-mitz64",
            "double",
            "enhanced-double",
            "redisbloom",
            "redisson",
            "independent"
        ]
    );
    assert_eq!(names("reduction"), ["modulo", "multiply-shift"]);
    for v in ["standard", "blocked", "counting", "partitioned", "scalable"] {
        assert!(names("variant").iter().any(|n| n == v), "variant {v}");
    }
    // Every preset `build --preset` documents, and the
    // experiments' almeida-fast.
    for p in [
        "guava",
        "hutool-bitmap",
        "hutool-bitset",
        "redisbloom",
        "almeida",
        "almeida-fast",
        "pybloom-live",
    ] {
        assert!(names("preset").iter().any(|n| n == p), "preset {p}");
    }
    assert_eq!(
        names("key-set"),
        [
            "random-u64",
            "sequential",
            "item",
            "url",
            "uuid",
            "md5-hex",
            "words"
        ]
    );
}

/// Every preset and variant `list` names can be built: `build` takes it
/// by name, or its description says which `build` flags make it.
#[test]
fn every_listed_name_says_how_to_build_it() {
    let help = crate::bloomlab().args(["build", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap().replace('\n', " ");
    let rows = json_lines(&["list", "--json"]);
    for r in &rows {
        let (kind, name) = (&r["kind"], r["name"].as_str().unwrap());
        if kind != "preset" && kind != "variant" {
            continue;
        }
        let desc = r["description"].as_str().unwrap();
        let named = help.contains(&format!(" {name} ("))
            || help.contains(&format!(" {name},"))
            || help.contains(&format!(" {name} or"))
            || help.contains(&format!("or {name} "))
            || help.contains(&format!(", {name} "));
        let how = desc.contains("(build: --") || desc.contains("`build --");
        assert!(named || how, "{kind} {name}: {desc}");
    }
}
