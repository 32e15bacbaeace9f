// hutool presets' FPR on realistic keys against the formula (findings).
//
// Three deterministic key sets, members and non-members drawn from the
// same family of keys (what a service sees: new ids, new URLs, new
// words):
//
// * ids: members "1".."n", non-members "n+1".."n+Q";
// * urls: "https://shop.example.com/item/<i>?ref=home" for i < n,
//   non-members for i in n..n+Q;
// * words: distinct random lower-case words of 3–7 letters (ChaCha8Rng,
//   seed 42), the first n members, the next Q non-members.
//
// Measured: (1) each hutool hash alone, as a one-slice filter of 2^20
// bits holding n = 100,000 keys (formula 1 − (1 − 2^-20)^n = 0.0910);
// (2) hutool's default five (Default, ELF, JS, PJW, SDBM) as a
// BitMapBloomFilter with five such 2^20-bit filters, n = 500,000
// (formula Π(1 − (1 − 2^-20)^n) = 7.8e-3); (3) the same layout with
// bloomlab's xxh3-64 slices; (4) BitSetBloomFilter(125000, n, 8) at
// n = 100,000 (10 bits per key; formula (1 − (1 − 1/m)^{kn})^k);
// (5) the real preset `new BitMapBloomFilter(5)` (five 2^23-bit filters)
// at n = 1,000,000 (formula 1.8e-5). Every result is deterministic; the
// tables go to stderr (`cargo test -p bloomlab-partitioned findings --
// --nocapture`) and the README quotes them. The margins asserted are
// stated next to each assertion.

use std::collections::HashSet;

use bloomlab_core::{Filter, theory};
use bloomlab_hash::{Family, HutoolHash};
use bloomlab_partitioned::{
    HutoolBitMap, HutoolBitSet, HutoolFilterClass, PartitionedBloomFilter,
    SliceSpec,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const Q: usize = 100_000;

struct KeySet {
    name: &'static str,
    members: Vec<String>,
    others: Vec<String>,
}

fn key_sets(n: usize) -> Vec<KeySet> {
    let ids = |r: std::ops::Range<usize>| {
        r.map(|i| (i + 1).to_string()).collect::<Vec<_>>()
    };
    let urls = |r: std::ops::Range<usize>| {
        r.map(|i| format!("https://shop.example.com/item/{i}?ref=home"))
            .collect::<Vec<_>>()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let mut seen = HashSet::new();
    let mut words = Vec::with_capacity(n + Q);
    while words.len() < n + Q {
        let len = rng.random_range(3..=7);
        let w: String =
            (0..len).map(|_| rng.random_range(b'a'..=b'z') as char).collect();
        if seen.insert(w.clone()) {
            words.push(w);
        }
    }
    let others = words.split_off(n);
    vec![
        KeySet { name: "ids", members: ids(0..n), others: ids(n..n + Q) },
        KeySet { name: "urls", members: urls(0..n), others: urls(n..n + Q) },
        KeySet { name: "words", members: words, others },
    ]
}

/// False-positive rate over the non-members, after adding the members.
fn rate(set: &KeySet, f: &mut dyn Filter) -> f64 {
    for k in &set.members {
        f.insert_bytes(k.as_bytes());
    }
    let fp = set.others.iter().filter(|k| f.contains_bytes(k.as_bytes()));
    fp.count() as f64 / set.others.len() as f64
}

const SLICE: i64 = 1 << 20;

/// Prints one row: the FPR on each key set and its ratio to `formula`;
/// returns the ratios.
fn row(name: &str, rates: &[f64], formula: f64) -> Vec<f64> {
    let cells: Vec<String> = rates
        .iter()
        .map(|r| format!("{r:>9.2e} ({:>6.2}x)", r / formula))
        .collect();
    eprintln!("{name:<24} {}", cells.join(" "));
    rates.iter().map(|r| r / formula).collect()
}

fn head(title: String, sets: &[KeySet]) {
    eprintln!("\n{title}");
    let names: Vec<String> =
        sets.iter().map(|s| format!("{:>19}", s.name)).collect();
    eprintln!("{:<24} {}", "FPR (ratio to formula)", names.join(" "));
}

#[test]
fn each_hutool_hash_against_the_formula() {
    let n = 100_000;
    let sets = key_sets(n);
    let formula = 1.0 - (1.0 - 1.0 / SLICE as f64).powi(n as i32);
    head(
        format!("(1) one hash, 2^20 bits, n = {n}, formula {formula:.4}"),
        &sets,
    );
    let mut ratios = Vec::new();
    let classes = HutoolFilterClass::ALL.map(Some).into_iter().chain([None]);
    for class in classes {
        let mut rates = Vec::new();
        for set in &sets {
            let mut f: Box<dyn Filter> = match class {
                Some(c) => Box::new(
                    HutoolBitMap::with_filters(5, &[(c, SLICE)]).unwrap(),
                ),
                None => Box::new(
                    PartitionedBloomFilter::with_slices(vec![SliceSpec::new(
                        Family::Xxh3_64,
                        SLICE as u64,
                    )])
                    .unwrap(),
                ),
            };
            rates.push(rate(set, f.as_mut()));
        }
        let name = class.map_or("xxh3-64 (bloomlab)", |c| c.java_name());
        ratios.push((class, row(name, &rates, formula)));
    }
    let ratio = |c: Option<HutoolFilterClass>, set: usize| {
        ratios.iter().find(|(cc, _)| *cc == c).unwrap().1[set]
    };
    use HutoolFilterClass::*;
    const IDS: usize = 0;
    const URLS: usize = 1;
    const WORDS: usize = 2;
    // A good hash sits at the formula: ~9,100 false positives, binomial
    // sd 1%; the margin is 5%.
    for set in [IDS, URLS, WORDS] {
        assert!((ratio(None, set) - 1.0).abs() < 0.05);
        for c in [Fnv, Rs] {
            assert!((ratio(Some(c), set) - 1.0).abs() < 0.05, "{c} {set}");
        }
    }
    // Collapse: every (or nearly every) non-member is a false positive,
    // FPR ≥ 0.8 where the formula says 0.091 (ratio ≥ 8.8).
    let collapsed = 0.8 / formula;
    for (c, set) in
        [(Elf, IDS), (Pjw, IDS), (HfIp, IDS), (HfIp, WORDS), (Hf, WORDS)]
    {
        assert!(ratio(Some(c), set) > collapsed, "{c} on set {set}");
    }
    // The other way: new keys land past every member's bit, FPR 0 where
    // the formula says 0.091 (an artefact of monotone hashes on
    // increasing keys, not a virtue).
    for (c, set) in [(Hf, IDS), (Sdbm, IDS), (Tianl, IDS), (Elf, URLS)] {
        assert!(ratio(Some(c), set) < 0.01, "{c} on set {set}");
    }
}

#[test]
fn hutool_presets_against_the_formula() {
    // (2, 3) five slices of 2^20 bits, n = 500,000.
    let n = 500_000;
    let sets = key_sets(n);
    let slice = 1.0 - (1.0 - 1.0 / SLICE as f64).powi(n as i32);
    let formula = slice.powi(5);
    head(
        format!(
            "(2, 3) five slices of 2^20 bits, n = {n}, formula {formula:.3e}"
        ),
        &sets,
    );
    let five: Vec<_> = HutoolFilterClass::BITMAP_DEFAULT
        .iter()
        .map(|&c| (c, SLICE))
        .collect();
    let (mut hutool, mut xxh) = (Vec::new(), Vec::new());
    for set in &sets {
        let mut f = HutoolBitMap::with_filters(5, &five).unwrap();
        hutool.push(rate(set, &mut f));
        let specs = (0..5)
            .map(|i| SliceSpec::new(Family::Xxh3_64, SLICE as u64).seed(i))
            .collect();
        let mut g = PartitionedBloomFilter::with_slices(specs).unwrap();
        xxh.push(rate(set, &mut g));
    }
    let hutool = row("hutool default five", &hutool, formula);
    let xxh = row("xxh3-64, seeds 0..5", &xxh, formula);
    // ~785 false positives at the formula: binomial sd 3.6%; margin 15%.
    assert!(xxh.iter().all(|r| (r - 1.0).abs() < 0.15), "{xxh:?}");
    // hutool's five: 19x on ids, about 3x on URLs and words (observed
    // 19.3, 2.8, 3.3); asserted with a margin: >10x and >2x.
    assert!(hutool[0] > 10.0 && hutool[1] > 2.0 && hutool[2] > 2.0);

    // (4) BitSetBloomFilter(125000, 100000, 8): 10^6 bits, 10 per key.
    let n = 100_000;
    let sets = key_sets(n);
    let formula =
        theory::fpr_classical_discrete(1_000_000, n as u64, 8).unwrap();
    head(format!("(4) BitSet(125000, {n}, 8), formula {formula:.3e}"), &sets);
    let mut bitset = Vec::new();
    for set in &sets {
        let mut f = HutoolBitSet::new(125_000, n as i32, 8).unwrap();
        bitset.push(rate(set, &mut f));
    }
    let bitset = row("BitSet k = 8", &bitset, formula);
    // ~845 false positives: sd 3.4%. ids and words at the formula
    // (margin 15%), URLs above it (observed 1.66x; asserted > 1.3x).
    assert!((bitset[0] - 1.0).abs() < 0.15 && (bitset[2] - 1.0).abs() < 0.15);
    assert!(bitset[1] > 1.3, "{bitset:?}");
}

#[test]
fn the_real_bitmap_preset_at_a_million_keys() {
    // (5) new BitMapBloomFilter(5): five filters of 2^23 bits (5 MiB),
    // n = 1,000,000 ids / URLs / words.
    let n = 1_000_000;
    let sets = key_sets(n);
    let size = 8_388_608_f64;
    let formula = (1.0 - (1.0 - 1.0 / size).powi(n as i32)).powi(5);
    head(
        format!(
            "(5) new BitMapBloomFilter(5), n = {n}, formula {formula:.3e}"
        ),
        &sets,
    );
    let mut rates = Vec::new();
    for set in &sets {
        let mut f = HutoolBitMap::new(5).unwrap();
        rates.push(rate(set, &mut f));
        assert_eq!(
            f.as_partitioned().theoretical_fpp(n as u64).unwrap().to_bits(),
            bloomlab_core::theory::fpr_partitioned(5 * 8_388_608, n as u64, 5)
                .unwrap()
                .to_bits()
        );
    }
    let ratios = row("BitMapBloomFilter(5)", &rates, formula);
    // The formula promises 1.8e-5: about 1.8 false positives in 10^5
    // queries. Observed: 3 on ids and 0 on URLs (both within Poisson
    // noise of 1.8), 44 on short words (24x). Asserted with a margin:
    // words above 2e-4 (20 false positives; P(X >= 20) under Poisson(1.8)
    // is below 1e-14).
    assert!(rates[2] > 2e-4, "{ratios:?}");
    assert!(rates[0] < 1e-4 && rates[1] < 1e-4, "{ratios:?}");
}

#[test]
fn elf_and_pjw_agree_on_short_strings() {
    // ELF and PJW differ only once bit 31 of the running hash is set;
    // on short keys that almost never happens, so two of the default
    // five filters ask the same question.
    use bloomlab_hash::hutool::java_units;
    for set in key_sets(100_000) {
        let same = set
            .members
            .iter()
            .filter(|k| {
                let u = java_units(k);
                HutoolHash::Elf.hash_units(&u)
                    == HutoolHash::Pjw.hash_units(&u)
            })
            .count();
        let share = same as f64 / set.members.len() as f64;
        eprintln!("ELF == PJW on {:.2}% of {}", 100.0 * share, set.name);
        // Observed: 100% of ids, 98.52% of words, 10.10% of the
        // ~40-unit URLs. Asserted for the short keys: all ids, > 98% of
        // words.
        match set.name {
            "ids" => assert_eq!(same, set.members.len()),
            "words" => assert!(share > 0.98, "{share}"),
            _ => assert!(share < 0.5, "{share}"),
        }
    }
}
