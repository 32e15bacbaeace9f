//! hutool's `cn.hutool.bloomfilter` filters (hutool 5.8.34), bit for
//! bit: `BitMapBloomFilter` ([`HutoolBitMap`]) and `BitSetBloomFilter`
//! ([`HutoolBitSet`]).
//!
//! Items are Java strings: hutool hashes their UTF-16 code units. A
//! `&str` is hashed as `s.encode_utf16()`; bytes as their UTF-8 decoding
//! (invalid UTF-8: one unit per byte, Latin-1), as
//! [`bloomlab_hash::funnel::with_java_units`] does; `*_units` methods take
//! the units themselves (a Java string may hold lone surrogates).
//!
//! Where hutool throws (at construction or on first use) or silently
//! builds another filter than the one asked for, the constructors here
//! return [`Error::Hutool`] instead; where hutool runs but misbehaves
//! (`k > 8` in a bit set, weak hashes), the behaviour is reproduced. The
//! crate README lists every case.

use bloomlab_core::{BitArray, Filter, theory};
use bloomlab_hash::Family;
use bloomlab_hash::funnel::with_java_units;
use bloomlab_hash::hutool::{
    HutoolHash, bitset_hash, bitset_position, filter_index, java_units,
};

use crate::partitioned::zeroed_bits;
use crate::{
    Error, PartitionedBloomFilter, Result, SliceReduction, SliceSpec,
};

/// Bits in one MiB: `BitMapBloomFilter(m)` gives each filter
/// `trunc(m/5)` of them.
pub const MIB_BITS: i64 = 1024 * 1024 * 8;

/// One of hutool's single-hash filter classes
/// (`cn.hutool.bloomfilter.filter.*Filter`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HutoolFilterClass {
    /// `DefaultFilter`: `javaDefaultHash` (`String.hashCode`).
    Default,
    /// `ELFFilter`: `elfHash`.
    Elf,
    /// `FNVFilter`: `fnvHash`.
    Fnv,
    /// `HfFilter`: `hfHash`.
    Hf,
    /// `HfIpFilter`: `hfIpHash`.
    HfIp,
    /// `JSFilter`: `jsHash`.
    Js,
    /// `PJWFilter`: `pjwHash`.
    Pjw,
    /// `RSFilter`: `rsHash`.
    Rs,
    /// `SDBMFilter`: `sdbmHash`.
    Sdbm,
    /// `TianlFilter`: `tianlHash`.
    Tianl,
}

impl HutoolFilterClass {
    /// All ten classes, alphabetically as in hutool's package.
    pub const ALL: [HutoolFilterClass; 10] = [
        Self::Default,
        Self::Elf,
        Self::Fnv,
        Self::Hf,
        Self::HfIp,
        Self::Js,
        Self::Pjw,
        Self::Rs,
        Self::Sdbm,
        Self::Tianl,
    ];

    /// The five filters of `new BitMapBloomFilter(m)`, in probe order.
    pub const BITMAP_DEFAULT: [HutoolFilterClass; 5] =
        [Self::Default, Self::Elf, Self::Js, Self::Pjw, Self::Sdbm];

    /// The Java class name, e.g. `"ELFFilter"`.
    pub const fn java_name(self) -> &'static str {
        match self {
            Self::Default => "DefaultFilter",
            Self::Elf => "ELFFilter",
            Self::Fnv => "FNVFilter",
            Self::Hf => "HfFilter",
            Self::HfIp => "HfIpFilter",
            Self::Js => "JSFilter",
            Self::Pjw => "PJWFilter",
            Self::Rs => "RSFilter",
            Self::Sdbm => "SDBMFilter",
            Self::Tianl => "TianlFilter",
        }
    }

    /// Looks a class up by its Java name (`ELFFilter`) or its hash
    /// family's name (`hutool-elf`, `hutool-default`), case-insensitive.
    pub fn from_name(name: &str) -> Result<HutoolFilterClass> {
        let wanted = name.trim().to_ascii_lowercase();
        HutoolFilterClass::ALL
            .into_iter()
            .find(|c| {
                c.java_name().to_ascii_lowercase() == wanted
                    || c.hash().name() == wanted
            })
            .ok_or_else(|| {
                Error::invalid(
                    "hutool filter",
                    name,
                    "one of DefaultFilter, ELFFilter, FNVFilter, HfFilter, \
                     HfIpFilter, JSFilter, PJWFilter, RSFilter, SDBMFilter, \
                     TianlFilter",
                )
            })
    }

    /// The class of a hutool hash, if a filter class uses it.
    pub fn from_hash(hash: HutoolHash) -> Option<HutoolFilterClass> {
        HutoolFilterClass::ALL.into_iter().find(|c| c.hash() == hash)
    }

    /// The `HashUtil` function the class hashes with.
    pub const fn hash(self) -> HutoolHash {
        match self {
            Self::Default => HutoolHash::JavaDefault,
            Self::Elf => HutoolHash::Elf,
            Self::Fnv => HutoolHash::Fnv,
            Self::Hf => HutoolHash::Hf,
            Self::HfIp => HutoolHash::HfIp,
            Self::Js => HutoolHash::Js,
            Self::Pjw => HutoolHash::Pjw,
            Self::Rs => HutoolHash::Rs,
            Self::Sdbm => HutoolHash::Sdbm,
            Self::Tianl => HutoolHash::Tianl,
        }
    }

    /// The bit a filter of this class and `size` bits uses for a string:
    /// `Math.abs(F(s) % size)`, whatever the size (`None` for size 0,
    /// where hutool divides by zero). Unlike the filters built here, this
    /// also answers for sizes that are not a multiple of 32; hutool
    /// throws `ArrayIndexOutOfBoundsException` for an index at or above
    /// `32·⌊size/32⌋` ([`bitmap_index_fits`]).
    pub fn bit_index(self, units: &[u16], size: i64) -> Option<i64> {
        filter_index(self.hash().hash_units(units), size)
    }

    /// The slice of a partitioned filter that behaves as this class with
    /// `size` bits: the class's hash family, Java's `|F rem size|`.
    pub fn slice(self, size: u64) -> SliceSpec {
        SliceSpec::new(Family::Hutool(self.hash()), size)
            .reduction(SliceReduction::JavaAbsRemainder)
    }
}

impl std::fmt::Display for HutoolFilterClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.java_name())
    }
}

/// Whether hutool's `IntMap` of a filter of `size` bits holds bit
/// `index`: it has `⌊size/32⌋` ints, so the top `size mod 32` indices
/// throw `ArrayIndexOutOfBoundsException`.
pub fn bitmap_index_fits(index: i64, size: i64) -> bool {
    index >= 0 && index / 32 < size / 32
}

/// `new BitMapBloomFilter(m)`'s size of each of its five filters:
/// `trunc(m/5)·8,388,608` bits (`trunc(m/5)` MiB), computed as hutool
/// does (0 for `m` in `-4..=4`, negative below).
pub fn bitmap_size_per_filter(m: i32) -> i64 {
    i64::from(m / 5) * MIB_BITS
}

/// The length of each filter's `IntMap` in `new BitMapBloomFilter(m)`:
/// `(int)(size/32)`, wrapping as Java's cast does (negative from
/// `m = 40960` on, where hutool throws `NegativeArraySizeException`).
pub fn bitmap_int_map_length(m: i32) -> i32 {
    (bitmap_size_per_filter(m) / 32) as i32
}

/// The five `(class, size)` pairs of `new BitMapBloomFilter(m)`, or the
/// error bloomlab gives where hutool cannot build a working filter:
/// `m < 5` (size 0: hutool divides by zero on the first `add`/`contains`,
/// or throws `NegativeArraySizeException` for `m ≤ -5`) and `m ≥ 40960`
/// (the `IntMap` length overflows a Java int).
pub fn bitmap_default_filters(
    m: i32,
) -> Result<[(HutoolFilterClass, i64); 5]> {
    let constructor = || format!("new BitMapBloomFilter({m})");
    let size = bitmap_size_per_filter(m);
    if size <= 0 {
        return Err(Error::Hutool {
            constructor: constructor(),
            reason: "trunc(m/5) MiB per filter is no memory at all (m < 5)",
            hutool: if m <= -5 {
                "NegativeArraySizeException in the constructor"
            } else {
                "size 0: ArithmeticException (/ by zero) on the first add \
                 or contains"
            },
        });
    }
    if bitmap_int_map_length(m) as i64 != size / 32 {
        return Err(Error::Hutool {
            constructor: constructor(),
            reason: "trunc(m/5)·262144 ints overflow a Java int (m ≥ 40960)",
            hutool: "NegativeArraySizeException, or an IntMap shorter than \
                     the filter that throws ArrayIndexOutOfBoundsException",
        });
    }
    Ok(HutoolFilterClass::BITMAP_DEFAULT.map(|c| (c, size)))
}

/// hutool's `BitMapBloomFilter`: several bit maps, each addressed by its
/// own string hash; a partitioned filter with one slice per hutool
/// filter and Java's `|F rem size|` as the reduction.
///
/// * `add(s)` adds `s` to every filter, in order, and returns true iff
///   some filter newly set its bit (Guava's "some bit changed").
/// * `contains(s)` checks the filters in order and stops at the first
///   clear bit.
///
/// ```
/// use bloomlab_partitioned::HutoolBitMap;
///
/// // new BitMapBloomFilter(5): five filters of 1 MiB (8,388,608 bits).
/// let mut f = HutoolBitMap::new(5)?;
/// assert_eq!(f.filters().len(), 5);
/// assert!(f.add("word-0"));
/// assert!(!f.add("word-0"));
/// assert!(f.contains("word-0"));
/// // DefaultFilter (String.hashCode), ELF, JS, PJW, SDBM: hutool's bits.
/// assert_eq!(
///     f.bit_indices("word-0"),
///     [1953235, 6719232, 2628512, 6719232, 1209453],
/// );
/// # Ok::<(), bloomlab_partitioned::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HutoolBitMap {
    m: i32,
    filters: Vec<(HutoolFilterClass, i64)>,
    inner: PartitionedBloomFilter,
}

impl HutoolBitMap {
    /// `new BitMapBloomFilter(m)`: DefaultFilter, ELFFilter, JSFilter,
    /// PJWFilter and SDBMFilter of `trunc(m/5)` MiB each. Errors as
    /// [`bitmap_default_filters`] (m < 5, m ≥ 40960) and when the memory
    /// (`5·trunc(m/5)` MiB) cannot be allocated.
    pub fn new(m: i32) -> Result<HutoolBitMap> {
        let filters = bitmap_default_filters(m)?;
        HutoolBitMap::build(m, filters.to_vec())
    }

    /// `new BitMapBloomFilter(m, filters...)`: the given filters, in
    /// order, each `new Class(size)`. hutool runs the one-argument
    /// constructor first and discards its five filters, so `m` has no
    /// other effect; bloomlab allocates nothing for them and only refuses
    /// an `m` for which that constructor throws (`m ≤ -5`, or a
    /// `trunc(m/5)·262144` that wraps to a negative int).
    ///
    /// Each size must be positive, a multiple of 32 and at most
    /// `32·(2^31 − 1)`: hutool's `IntMap` holds `(int)(size/32)` ints, so
    /// other sizes throw `ArithmeticException` (0),
    /// `NegativeArraySizeException`, or `ArrayIndexOutOfBoundsException`
    /// for the strings whose index falls past the map (the top
    /// `size mod 32` indices) — after the filters before it have already
    /// set their bits. An empty list is refused too (hutool's contains
    /// every string).
    pub fn with_filters(
        m: i32,
        filters: &[(HutoolFilterClass, i64)],
    ) -> Result<HutoolBitMap> {
        let constructor = || {
            let list: Vec<String> =
                filters.iter().map(|(c, s)| format!("new {c}({s})")).collect();
            format!("new BitMapBloomFilter({m}, {})", list.join(", "))
        };
        if bitmap_int_map_length(m) < 0 {
            return Err(Error::Hutool {
                constructor: constructor(),
                reason: "m gives a negative IntMap length in the \
                         constructor hutool runs first",
                hutool: "NegativeArraySizeException",
            });
        }
        if filters.is_empty() {
            return Err(Error::Hutool {
                constructor: constructor(),
                reason: "a filter list must not be empty",
                hutool: "contains every string, add always returns false",
            });
        }
        for &(_, size) in filters {
            let bad = |reason, hutool| Error::Hutool {
                constructor: constructor(),
                reason,
                hutool,
            };
            if size == 0 {
                return Err(bad(
                    "a filter of 0 bits",
                    "ArithmeticException (/ by zero) on the first add or \
                     contains",
                ));
            }
            if size < 0 {
                return Err(bad(
                    "a filter of a negative size",
                    "NegativeArraySizeException, or \
                     ArrayIndexOutOfBoundsException on the first add",
                ));
            }
            if size % 32 != 0 {
                return Err(bad(
                    "a filter size that is not a multiple of 32",
                    "ArrayIndexOutOfBoundsException for strings whose \
                     index is in the top size mod 32 bits",
                ));
            }
            if size / 32 > i64::from(i32::MAX) {
                return Err(bad(
                    "a filter of more than 32·(2^31 − 1) bits",
                    "(int)(size/32) wraps: a map of the wrong length",
                ));
            }
        }
        HutoolBitMap::build(m, filters.to_vec())
    }

    fn build(
        m: i32,
        filters: Vec<(HutoolFilterClass, i64)>,
    ) -> Result<HutoolBitMap> {
        let specs =
            filters.iter().map(|&(c, size)| c.slice(size as u64)).collect();
        let inner = PartitionedBloomFilter::with_slices(specs)?;
        Ok(HutoolBitMap { m, filters, inner })
    }

    /// A hutool bit map from a partitioned filter (what a reader
    /// decoded), after checking that its slices are hutool filters.
    pub(crate) fn from_parts(
        m: i32,
        inner: PartitionedBloomFilter,
    ) -> Result<HutoolBitMap> {
        let specs = match inner.layout() {
            crate::Layout::Slices(specs) => specs,
            crate::Layout::Strategy { .. } => {
                return Err(Error::corrupt(
                    "layout",
                    "strategy",
                    "a hutool bit map has one hash per slice",
                ));
            }
        };
        let mut filters = Vec::with_capacity(specs.len());
        for s in &specs {
            let class = match s.family {
                Family::Hutool(h) => HutoolFilterClass::from_hash(h),
                _ => None,
            };
            match class {
                Some(c)
                    if s.seed == 0
                        && s.reduction == SliceReduction::JavaAbsRemainder =>
                {
                    filters.push((c, s.bits as i64));
                }
                _ => {
                    return Err(Error::corrupt(
                        "hutool filter",
                        s.family,
                        "not a hutool filter class",
                    ));
                }
            }
        }
        // The same checks as a constructor, without allocating.
        let check = HutoolBitMap::check_filters(m, &filters);
        check.map_err(|_| {
            Error::corrupt("hutool bit map", m, "not a valid hutool filter")
        })?;
        Ok(HutoolBitMap { m, filters, inner })
    }

    fn check_filters(
        m: i32,
        filters: &[(HutoolFilterClass, i64)],
    ) -> Result<()> {
        if bitmap_int_map_length(m) < 0 || filters.is_empty() {
            return Err(Error::invalid("m", m, "invalid hutool bit map"));
        }
        for &(_, size) in filters {
            let ok =
                size > 0 && size % 32 == 0 && size / 32 <= i64::from(i32::MAX);
            if !ok {
                return Err(Error::invalid("size", size, "invalid"));
            }
        }
        Ok(())
    }

    /// The constructor's `m`.
    pub fn m(&self) -> i32 {
        self.m
    }

    /// The filters, in probe order: class and size in bits.
    pub fn filters(&self) -> &[(HutoolFilterClass, i64)] {
        &self.filters
    }

    /// Whether the filters are `new BitMapBloomFilter(m)`'s own five.
    pub fn is_default(&self) -> bool {
        bitmap_default_filters(self.m)
            .is_ok_and(|d| d.as_slice() == self.filters.as_slice())
    }

    /// The Java expression that builds this filter.
    pub fn constructor(&self) -> String {
        if self.is_default() {
            return format!("new BitMapBloomFilter({})", self.m);
        }
        let list: Vec<String> = self
            .filters
            .iter()
            .map(|(c, s)| format!("new {c}({s})"))
            .collect();
        format!("new BitMapBloomFilter({}, {})", self.m, list.join(", "))
    }

    /// `add(s)`: true iff some filter newly set its bit.
    pub fn add(&mut self, s: &str) -> bool {
        self.inner.insert_bytes(s.as_bytes())
    }

    /// `contains(s)`.
    pub fn contains(&self, s: &str) -> bool {
        self.inner.contains_bytes(s.as_bytes())
    }

    /// `add` of a Java string given as UTF-16 code units.
    pub fn add_units(&mut self, units: &[u16]) -> bool {
        self.inner.insert_units(units)
    }

    /// `contains` of a Java string given as UTF-16 code units.
    pub fn contains_units(&self, units: &[u16]) -> bool {
        self.inner.contains_units(units)
    }

    /// The bit each filter uses for `s`, as an index inside that filter
    /// (hutool's `Math.abs(hash(s))`).
    pub fn bit_indices(&self, s: &str) -> Vec<u64> {
        self.bit_indices_of_units(&java_units(s))
    }

    /// [`HutoolBitMap::bit_indices`] of UTF-16 code units.
    pub fn bit_indices_of_units(&self, units: &[u16]) -> Vec<u64> {
        self.inner
            .positions_of_units(units)
            .into_iter()
            .enumerate()
            .map(|(i, p)| p - self.inner.slice_offset(i))
            .collect()
    }

    /// The set bits of filter `i`, ascending.
    pub fn set_bits(&self, i: usize) -> Vec<u64> {
        self.inner.slice_ones(i)
    }

    /// The filter as the partitioned filter it is.
    pub fn as_partitioned(&self) -> &PartitionedBloomFilter {
        &self.inner
    }

    /// Gives up the partitioned filter.
    pub fn into_partitioned(self) -> PartitionedBloomFilter {
        self.inner
    }

    /// Clears every filter.
    pub fn clear(&mut self) {
        self.inner.clear();
    }
}

impl Filter for HutoolBitMap {
    fn variant(&self) -> &'static str {
        "partitioned"
    }
    fn insert_bytes(&mut self, key: &[u8]) -> bool {
        self.inner.insert_bytes(key)
    }
    fn contains_bytes(&self, key: &[u8]) -> bool {
        self.inner.contains_bytes(key)
    }
    fn bits(&self) -> u64 {
        self.inner.bits()
    }
    fn hash_count(&self) -> u32 {
        self.inner.hash_count()
    }
    fn bits_set(&self) -> u64 {
        self.inner.bit_count()
    }
    fn estimated_count(&self) -> f64 {
        self.inner.estimated_count()
    }
    fn expected_fpp(&self) -> f64 {
        self.inner.expected_fpp()
    }
    fn bytes_of_memory(&self) -> usize {
        Filter::bytes_of_memory(&self.inner)
    }
}

/// hutool's `BitSetBloomFilter(c, n, k)`: one bit set of `c·k` bits
/// (Java `int` arithmetic) and `k` fixed hashes — rs, js, elf, bkdr, ap,
/// djb, sdbm, pjw, then the constant 0 for every probe from the ninth on.
/// Not partitioned: all probes share the one array; it lives here because
/// bloomlab's `--variant partitioned` carries hutool's presets.
///
/// * position `i` is `Math.abs(hash_i(s) % size)` in Java `int`;
/// * `contains(s)`: every position set;
/// * `add(s)`: false if `contains(s)`, else sets every position and
///   returns true (the same as "some bit changed");
/// * hutool's `getFalsePositiveProbability`
///   ([`HutoolBitSet::false_positive_probability`]):
///   `(1 − e^{−k·n/size})^k` with the constructor's `n`.
///
/// ```
/// use bloomlab_partitioned::HutoolBitSet;
///
/// let mut f = HutoolBitSet::new(1000, 500, 8)?; // 8000 bits
/// assert!(f.add("word-0"));
/// assert!(f.contains("word-0"));
/// assert_eq!(
///     f.positions("word-0"),
///     [4601, 1056, 4352, 5973, 6137, 5214, 2349, 4352],
/// );
/// assert_eq!(f.false_positive_probability(), 0.0005744962221796764);
/// # Ok::<(), bloomlab_partitioned::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HutoolBitSet {
    c: i32,
    n: i32,
    k: i32,
    size: i32,
    bits: BitArray,
}

impl HutoolBitSet {
    /// `new BitSetBloomFilter(c, n, k)`. Errors where hutool cannot run
    /// the filter asked for: `k ≤ 0` (hutool: `k = 0` contains every
    /// string and adds nothing, `k < 0` throws), `c ≤ 0` (a size of 0
    /// divides by zero on the first add, a negative one throws), and a
    /// product `c·k` above `2^31 − 1` (Java's int product wraps: a
    /// negative size throws, a positive one is a different filter).
    /// `k > 8` is reproduced: probes 8.. use the constant hash 0.
    pub fn new(c: i32, n: i32, k: i32) -> Result<HutoolBitSet> {
        let bad = |reason, hutool| Error::Hutool {
            constructor: format!("new BitSetBloomFilter({c}, {n}, {k})"),
            reason,
            hutool,
        };
        if k == 0 {
            return Err(bad(
                "k = 0 probes",
                "a filter that contains every string and whose add always \
                 returns false",
            ));
        }
        if k < 0 {
            return Err(bad(
                "a negative k",
                "NegativeArraySizeException in the constructor or the \
                 first add",
            ));
        }
        if c == 0 {
            return Err(bad(
                "c = 0 bits per probe",
                "size 0: ArithmeticException (/ by zero) on the first add",
            ));
        }
        if c < 0 {
            return Err(bad(
                "a negative c",
                "NegativeArraySizeException in the constructor",
            ));
        }
        let Some(size) = c.checked_mul(k) else {
            return Err(bad(
                "c·k overflows a Java int",
                "the product wraps: NegativeArraySizeException, or a bit \
                 set of (c·k mod 2^32) bits",
            ));
        };
        let bits = zeroed_bits(size as u64)?;
        Ok(HutoolBitSet { c, n, k, size, bits })
    }

    pub(crate) fn from_parts(
        c: i32,
        n: i32,
        k: i32,
        bits: BitArray,
    ) -> Result<HutoolBitSet> {
        let valid = c > 0 && k > 0 && c.checked_mul(k).is_some();
        let size = c.wrapping_mul(k);
        if !valid || bits.bit_len() != size as u64 {
            return Err(Error::corrupt(
                "hutool bit set",
                format!("c = {c}, k = {k}"),
                "not a valid BitSetBloomFilter",
            ));
        }
        Ok(HutoolBitSet { c, n, k, size, bits })
    }

    /// The constructor's `c` (bits per probe).
    pub fn c(&self) -> i32 {
        self.c
    }

    /// The constructor's `n` (used only by
    /// [`HutoolBitSet::false_positive_probability`]).
    pub fn n(&self) -> i32 {
        self.n
    }

    /// The constructor's `k`.
    pub fn k(&self) -> i32 {
        self.k
    }

    /// `bitSetSize = c·k`.
    pub fn bit_set_size(&self) -> i32 {
        self.size
    }

    /// The bits.
    pub fn bit_array(&self) -> &BitArray {
        &self.bits
    }

    /// The Java expression that builds this filter.
    pub fn constructor(&self) -> String {
        format!("new BitSetBloomFilter({}, {}, {})", self.c, self.n, self.k)
    }

    /// The `k` positions of `s`, in probe order (may repeat).
    pub fn positions(&self, s: &str) -> Vec<u32> {
        self.positions_of_units(&java_units(s))
    }

    /// The `k` positions of a Java string given as UTF-16 units.
    pub fn positions_of_units(&self, units: &[u16]) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.k as usize);
        self.all_positions(units, |p| {
            out.push(p);
            true
        });
        out
    }

    #[inline]
    fn all_positions(
        &self,
        units: &[u16],
        mut f: impl FnMut(u32) -> bool,
    ) -> bool {
        // Probes 8.. hash to the constant 0, position 0: compute the
        // real hashes once.
        for i in 0..self.k as u32 {
            let h = bitset_hash(units, i);
            // size > 0 by construction; |h rem size| < size.
            let p = bitset_position(h, self.size).unwrap_or(0) as u32;
            if !f(p) {
                return false;
            }
        }
        true
    }

    /// `contains(s)`.
    pub fn contains(&self, s: &str) -> bool {
        self.contains_bytes(s.as_bytes())
    }

    /// `add(s)`.
    pub fn add(&mut self, s: &str) -> bool {
        self.add_bytes(s.as_bytes())
    }

    /// `contains` of a Java string given as UTF-16 code units.
    pub fn contains_units(&self, units: &[u16]) -> bool {
        self.all_positions(units, |p| self.bits.get(u64::from(p)))
    }

    /// `add` of a Java string given as UTF-16 code units: false if it is
    /// already (apparently) present, else sets every position.
    pub fn add_units(&mut self, units: &[u16]) -> bool {
        if self.contains_units(units) {
            return false;
        }
        let mut ps = Vec::with_capacity(self.k as usize);
        self.all_positions(units, |p| {
            ps.push(p);
            true
        });
        for p in ps {
            self.bits.set(u64::from(p));
        }
        true
    }

    /// `contains` of the Java string a byte key stands for.
    pub fn contains_bytes(&self, key: &[u8]) -> bool {
        with_java_units(key, |u| self.contains_units(u))
    }

    /// `add` of the Java string a byte key stands for.
    pub fn add_bytes(&mut self, key: &[u8]) -> bool {
        with_java_units(key, |u| self.add_units(u))
    }

    /// The set bits, ascending.
    pub fn set_bits(&self) -> Vec<u64> {
        self.bits.ones().collect()
    }

    /// Number of bits set.
    pub fn bit_count(&self) -> u64 {
        self.bits.count_ones()
    }

    /// hutool's `getFalsePositiveProbability()`:
    /// `(1 − e^{−k·n/size})^k` in double, `n` being the constructor's
    /// argument, not the number of strings added. To the bit on every
    /// recorded hutool case; HotSpot's `Math.exp` differed from the
    /// platform's `exp` (glibc's) in the last bit for 2,421 of 10^6 random
    /// inputs (`tools/jvm-math`, 2026-11-28), and `1 − e^x` raised to the
    /// `k` can carry such a difference up to a few hundred units in the
    /// last place (one case: `BitSetBloomFilter(70384, 1777, 12)`).
    pub fn false_positive_probability(&self) -> f64 {
        let k = f64::from(self.k);
        let x = -k * f64::from(self.n) / f64::from(self.size);
        (1.0 - x.exp()).powf(k)
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        self.bits.clear();
    }
}

impl Filter for HutoolBitSet {
    fn variant(&self) -> &'static str {
        "partitioned"
    }
    fn insert_bytes(&mut self, key: &[u8]) -> bool {
        self.add_bytes(key)
    }
    fn contains_bytes(&self, key: &[u8]) -> bool {
        HutoolBitSet::contains_bytes(self, key)
    }
    fn bits(&self) -> u64 {
        self.size as u64
    }
    fn hash_count(&self) -> u32 {
        self.k as u32
    }
    fn bits_set(&self) -> u64 {
        self.bit_count()
    }
    /// Swamidass & Baldi's estimate with the distinct probes only (at
    /// most 8 hashes differ: probes 8.. all hit bit 0).
    fn estimated_count(&self) -> f64 {
        let k = self.k.min(8) as u32;
        theory::estimate_count(self.bits(), k, self.bit_count())
    }
    /// The current fill to the power of the distinct probes (at most 8),
    /// times whether bit 0 is set when `k > 8`.
    fn expected_fpp(&self) -> f64 {
        let fill = self.bits.fill();
        let base = fill.powi(self.k.min(8));
        if self.k > 8 && !self.bits.get(0) { 0.0 } else { base }
    }
    fn bytes_of_memory(&self) -> usize {
        self.bits.bytes_of_memory()
    }
}
