//! Key sets: where members and non-members come from.
//!
//! Every key is a function of a *global index* `g` and a per-trial salt:
//! members are `g = i` for `i < n`, non-members `g = n + j`. Each key set
//! maps distinct indices to distinct keys (a bijection or an injective
//! encoding), so members and non-members are disjoint by construction,
//! never by luck. Keys are generated into reusable buffers a chunk at a
//! time: no allocation per key.
//!
//! | name | keys | funnel |
//! |---|---|---|
//! | `random-u64` | a keyed bijection of `g` over all of `u64` | 8 bytes LE |
//! | `sequential` | `base + g` | 8 bytes LE |
//! | `item` | `item-{base + g}` | UTF-8 |
//! | `url` | `https://www.example.com/catalog/{(base+g) % 97}/item/{base + g}` (and 3 more hosts) | UTF-8 |
//! | `uuid` | a version-4 UUID whose low 62 bits are a keyed bijection of `g` | UTF-8, lower-case hex |
//! | `md5-hex` | MD5 of the decimal `base + g`, as 32 hex digits | UTF-8 |
//! | `words` | `base + g` written in base W with the bundled list's W words, joined by `-` | UTF-8 |
//! | `file:PATH` | the file's distinct lines, shuffled per trial; the first n are members | bytes |
//!
//! `base` is a per-trial offset below 2^40, so trials of seedless hash
//! families still see different keys. For `md5-hex`, disjointness rests on
//! MD5 having no collision among the decimal strings used (none is known;
//! the chance for 2^40 inputs is about 2^-49).

use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use md5::{Digest as _, Md5};

/// The bundled word list (`crates/runner/data/words.txt`, see its header).
const WORDS_TXT: &str = include_str!("../data/words.txt");

/// Names of the built-in key sets.
pub const BUILT_IN: [&str; 7] =
    ["random-u64", "sequential", "item", "url", "uuid", "md5-hex", "words"];

/// A key set, chosen by name in the experiment.
#[derive(Clone)]
pub enum KeySet {
    /// Random 64-bit integers.
    RandomU64,
    /// Consecutive 64-bit integers.
    Sequential,
    /// `item-{i}` strings.
    Item,
    /// URLs with shared prefixes.
    Url,
    /// Version-4 UUID strings.
    Uuid,
    /// MD5 hex digests of decimal integers.
    Md5Hex,
    /// Short words and word pairs from the bundled list.
    Words,
    /// Lines of a user file.
    File(Arc<FileKeys>),
}

impl fmt::Debug for KeySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// The distinct lines of a key file.
#[derive(Debug)]
pub struct FileKeys {
    /// The path as the experiment wrote it.
    pub name: String,
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl FileKeys {
    /// Reads a file of one key per line (`\n` or `\r\n`), keeping the
    /// first occurrence of each distinct non-empty line.
    pub fn read(name: &str, path: &Path) -> Result<FileKeys, String> {
        let bytes = std::fs::read(path).map_err(|e| {
            format!("key file `{}` ({}): {e}", name, path.display())
        })?;
        let mut seen = std::collections::HashSet::new();
        let mut data = Vec::with_capacity(bytes.len());
        let mut ends = Vec::new();
        for line in bytes.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() || !seen.insert(line) {
                continue;
            }
            data.extend_from_slice(line);
            ends.push(data.len());
        }
        if ends.is_empty() {
            return Err(format!("key file `{name}` has no keys"));
        }
        if ends.len() > u32::MAX as usize {
            return Err(format!("key file `{name}` has too many lines"));
        }
        Ok(FileKeys { name: name.to_string(), data, ends })
    }

    /// Number of distinct keys.
    pub fn len(&self) -> u64 {
        self.ends.len() as u64
    }

    /// Whether the file has no keys (never, once read).
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.data[start..self.ends[i]]
    }
}

impl KeySet {
    /// Whether the set holds `n` members and a non-member: a key file
    /// needs more than `n` distinct keys (the others always do).
    pub fn check_members(&self, n: u64) -> Result<(), String> {
        match self {
            KeySet::File(f) if f.len() <= n => Err(format!(
                "key file `{}` has {} distinct keys; n = {n} needs at least \
                 {} (n members and one non-member)",
                f.name,
                f.len(),
                n + 1
            )),
            _ => Ok(()),
        }
    }

    /// Parses a key-set name; `file:PATH` is read now, relative to `base`.
    pub fn parse(name: &str, base: &Path) -> Result<KeySet, String> {
        Ok(match name {
            "random-u64" => KeySet::RandomU64,
            "sequential" => KeySet::Sequential,
            "item" => KeySet::Item,
            "url" => KeySet::Url,
            "uuid" => KeySet::Uuid,
            "md5-hex" => KeySet::Md5Hex,
            "words" => KeySet::Words,
            _ => {
                let Some(file) = name.strip_prefix("file:") else {
                    return Err(format!(
                        "unknown key set `{name}` (known: {}, file:PATH)",
                        BUILT_IN.join(", ")
                    ));
                };
                let path = base.join(file);
                KeySet::File(Arc::new(FileKeys::read(name, &path)?))
            }
        })
    }

    /// The name as experiments and results write it.
    pub fn name(&self) -> String {
        match self {
            KeySet::RandomU64 => "random-u64".into(),
            KeySet::Sequential => "sequential".into(),
            KeySet::Item => "item".into(),
            KeySet::Url => "url".into(),
            KeySet::Uuid => "uuid".into(),
            KeySet::Md5Hex => "md5-hex".into(),
            KeySet::Words => "words".into(),
            KeySet::File(f) => f.name.clone(),
        }
    }

    /// Whether keys are 64-bit integers (funnelled as 8 bytes LE).
    pub fn is_u64(&self) -> bool {
        matches!(self, KeySet::RandomU64 | KeySet::Sequential)
    }
}

/// Keys as bytes, packed into one buffer: reused chunk after chunk.
#[derive(Debug, Default)]
pub struct ByteKeys {
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl ByteKeys {
    /// An empty buffer.
    pub fn new() -> ByteKeys {
        ByteKeys::default()
    }

    /// Empties the buffer, keeping its capacity.
    pub fn clear(&mut self) {
        self.data.clear();
        self.ends.clear();
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `i`-th key.
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.data[start..self.ends[i]]
    }

    /// Every key, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.len()).map(|i| self.get(i))
    }

    fn finish_key(&mut self) {
        self.ends.push(self.data.len());
    }
}

/// SplitMix64's finaliser (Stafford's mix 13): a bijection of `u64`.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A seed derived from a parent seed and a list of indices, so every
/// trial's randomness depends only on `(seed, point, trial)`.
pub fn derive_seed(seed: u64, parts: &[u64]) -> u64 {
    let mut s = mix64(seed ^ 0x6a09_e667_f3bc_c908);
    for &p in parts {
        s = mix64(s.wrapping_add(0x9e37_79b9_7f4a_7c15) ^ mix64(p));
    }
    s
}

/// A keyed bijection of `u64`.
#[inline]
fn perm64(key: u64, g: u64) -> u64 {
    mix64(mix64(g ^ key).wrapping_add(key.rotate_left(29)))
}

const MASK62: u64 = (1 << 62) - 1;

/// A keyed bijection of `[0, 2^62)`: xor, odd multiplications and
/// xor-shifts, each invertible modulo 2^62.
#[inline]
fn perm62(key: u64, g: u64) -> u64 {
    let mut x = (g ^ key) & MASK62;
    x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15) & MASK62;
    x ^= x >> 31;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9) & MASK62;
    x ^= x >> 29;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb) & MASK62;
    x ^ (x >> 32)
}

fn words() -> &'static [&'static str] {
    static WORDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        WORDS_TXT
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

/// Number of words in the bundled list.
pub fn word_count() -> usize {
    words().len()
}

const HOSTS: [&str; 4] = [
    "https://www.example.com/catalog/",
    "https://www.example.com/users/",
    "https://api.example.org/v2/orders/",
    "https://cdn.example.net/static/img/",
];

/// The decimal digits of `v` in a stack buffer: `buf[from..]`.
#[inline]
fn decimal(mut v: u64) -> ([u8; 20], usize) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    (buf, i)
}

/// Appends the decimal digits of `v`.
#[inline]
fn push_decimal(out: &mut Vec<u8>, v: u64) {
    let (buf, from) = decimal(v);
    out.extend_from_slice(&buf[from..]);
}

/// Appends `digits` lower-case hex digits of `v` (most significant first).
#[inline]
fn push_hex(out: &mut Vec<u8>, v: u64, digits: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for d in (0..digits).rev() {
        out.push(HEX[((v >> (4 * d)) & 15) as usize]);
    }
}

/// The keys of one trial: a key set, the trial's salt and `n`.
#[derive(Debug)]
pub struct TrialKeys {
    set: KeySet,
    salt: u64,
    base: u64,
    n: u64,
    /// For file keys: the trial's shuffle of the lines.
    order: Vec<u32>,
}

impl TrialKeys {
    /// The keys of the trial seeded `trial_seed`, with `n` members.
    /// Errors when a key file has fewer than `n + 1` distinct keys.
    pub fn new(set: &KeySet, trial_seed: u64, n: u64) -> Result<Self, String> {
        let salt = mix64(trial_seed ^ 0x3c6e_f372_fe94_f82b);
        let base = mix64(salt) >> 24;
        let mut order = Vec::new();
        set.check_members(n)?;
        if let KeySet::File(f) = set {
            // Fisher–Yates with SplitMix64, from the trial's seed.
            order = (0..f.len() as u32).collect();
            let mut state = salt;
            for i in (1..order.len()).rev() {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let r = mix64(state);
                let j = ((u128::from(r) * (i as u128 + 1)) >> 64) as usize;
                order.swap(i, j);
            }
        }
        Ok(TrialKeys { set: set.clone(), salt, base, n, order })
    }

    /// How many distinct non-members exist (unbounded except for files).
    pub fn non_member_capacity(&self) -> u64 {
        match &self.set {
            KeySet::File(f) => f.len() - self.n,
            _ => u64::MAX / 4,
        }
    }

    /// Whether keys are 64-bit integers.
    pub fn is_u64(&self) -> bool {
        self.set.is_u64()
    }

    #[inline]
    fn u64_key(&self, g: u64) -> u64 {
        match self.set {
            KeySet::Sequential => self.base.wrapping_add(g),
            _ => perm64(self.salt, g),
        }
    }

    /// Fills `out` with the integer keys of global indices
    /// `start..start + count` (integer key sets only).
    pub fn fill_u64(&self, start: u64, count: usize, out: &mut Vec<u64>) {
        out.clear();
        out.extend((start..start + count as u64).map(|g| self.u64_key(g)));
    }

    /// Fills `out` with the keys of global indices `start..start + count`
    /// as bytes (any key set; integers as 8 bytes LE).
    pub fn fill_bytes(&self, start: u64, count: usize, out: &mut ByteKeys) {
        out.clear();
        for g in start..start + count as u64 {
            self.push_key(g, &mut out.data);
            out.finish_key();
        }
    }

    fn push_key(&self, g: u64, out: &mut Vec<u8>) {
        let v = self.base + g;
        match &self.set {
            KeySet::RandomU64 | KeySet::Sequential => {
                out.extend_from_slice(&self.u64_key(g).to_le_bytes());
            }
            KeySet::Item => {
                out.extend_from_slice(b"item-");
                push_decimal(out, v);
            }
            KeySet::Url => {
                out.extend_from_slice(HOSTS[(v % 4) as usize].as_bytes());
                push_decimal(out, v % 97);
                out.extend_from_slice(b"/item/");
                push_decimal(out, v);
            }
            KeySet::Uuid => {
                let lo = perm62(self.salt, g) | (0b10 << 62);
                let hi =
                    (mix64(g ^ self.salt.rotate_left(17)) & !0xf000) | 0x4000;
                push_hex(out, hi >> 32, 8);
                out.push(b'-');
                push_hex(out, hi >> 16, 4);
                out.push(b'-');
                push_hex(out, hi, 4);
                out.push(b'-');
                push_hex(out, lo >> 48, 4);
                out.push(b'-');
                push_hex(out, lo, 12);
            }
            KeySet::Md5Hex => {
                let (dec, from) = decimal(v);
                for b in Md5::digest(&dec[from..]) {
                    push_hex(out, u64::from(b), 2);
                }
            }
            KeySet::Words => {
                let w = words();
                let base = w.len() as u64;
                let mut x = v;
                let mut first = true;
                loop {
                    if !first {
                        out.push(b'-');
                    }
                    first = false;
                    out.extend_from_slice(w[(x % base) as usize].as_bytes());
                    x /= base;
                    if x == 0 {
                        break;
                    }
                }
            }
            KeySet::File(f) => {
                let i = self.order[g as usize] as usize;
                out.extend_from_slice(f.get(i));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_sets() -> Vec<KeySet> {
        BUILT_IN
            .iter()
            .map(|n| KeySet::parse(n, Path::new(".")).unwrap())
            .collect()
    }

    #[test]
    fn members_and_non_members_are_distinct() {
        for set in all_sets() {
            let t = TrialKeys::new(&set, 42, 500).unwrap();
            let mut buf = ByteKeys::new();
            t.fill_bytes(0, 3000, &mut buf);
            let distinct: std::collections::HashSet<&[u8]> =
                buf.iter().collect();
            assert_eq!(distinct.len(), 3000, "{set:?}");
        }
    }

    #[test]
    fn u64_and_bytes_agree() {
        for set in [KeySet::RandomU64, KeySet::Sequential] {
            let t = TrialKeys::new(&set, 7, 10).unwrap();
            let mut ints = Vec::new();
            let mut bytes = ByteKeys::new();
            t.fill_u64(5, 20, &mut ints);
            t.fill_bytes(5, 20, &mut bytes);
            for (i, b) in ints.iter().zip(bytes.iter()) {
                assert_eq!(&i.to_le_bytes()[..], b);
            }
        }
    }

    #[test]
    fn perm62_is_injective_on_a_sample() {
        let mut seen = std::collections::HashSet::new();
        for g in 0..100_000u64 {
            let x = perm62(99, g);
            assert!(x <= MASK62);
            assert!(seen.insert(x));
        }
    }

    #[test]
    fn shapes() {
        let show = |set: KeySet, g: u64| {
            let t = TrialKeys::new(&set, 1, 1).unwrap();
            let mut b = ByteKeys::new();
            t.fill_bytes(g, 1, &mut b);
            String::from_utf8(b.get(0).to_vec()).unwrap()
        };
        let u = show(KeySet::Uuid, 3);
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"));
        assert_eq!(show(KeySet::Md5Hex, 0).len(), 32);
        assert!(show(KeySet::Item, 0).starts_with("item-"));
        assert!(show(KeySet::Url, 0).starts_with("https://"));
        assert!(word_count() >= 2000);
    }

    #[test]
    fn md5_of_known_input() {
        // md5("0") = cfcd208495d565ef66e7dff9f98764da.
        let d = Md5::digest(b"0");
        let mut out = Vec::new();
        for b in d {
            push_hex(&mut out, u64::from(b), 2);
        }
        assert_eq!(out, b"cfcd208495d565ef66e7dff9f98764da");
    }
}
