//! The RedisBloom preset: `BF.RESERVE` arguments, `BF.DEBUG` lines and
//! `BF.SCANDUMP` / `BF.LOADCHUNK` bytes, bit-exact with RedisBloom's
//! SBChain (see `testdata/redisbloom/ALGORITHMS.md` in the repository).

use bloomlab_core::BitArray;
use bloomlab_hash::{Family, Reduction};

use crate::config::{Config, Layout, Pairing, Probe, Shape, Sizing, redis_k};
use crate::parts::LayerSpec;
use crate::scalable::{Layer, ScalableBloomFilter};
use crate::{Error, Result};

/// The largest chunk `BF.SCANDUMP` returns: 16 MiB.
pub const SCANDUMP_CHUNK: usize = 16 * 1024 * 1024;

/// Bytes of a dump header before the link records.
const HEADER_FIXED: usize = 20;
/// Bytes of one link record in a dump header.
const LINK_RECORD: usize = 53;

impl ScalableBloomFilter {
    /// The filter `BF.ADD` auto-creates: RedisBloom's defaults, error
    /// 0.01, capacity 100, expansion 2.
    ///
    /// ```
    /// use bloomlab_scalable::ScalableBloomFilter;
    ///
    /// let mut f = ScalableBloomFilter::redisbloom()?;
    /// assert_eq!(f.add(b"hello")?, true); // BF.ADD replies 1
    /// assert_eq!(f.add(b"hello")?, false); // and 0 the second time
    /// assert_eq!(f.layers()[0].bits(), 1152); // 0.005 × 100 → 1102 → 1152
    /// assert_eq!(f.layers()[0].k(), 8);
    /// # Ok::<(), bloomlab_scalable::Error>(())
    /// ```
    pub fn redisbloom() -> Result<Self> {
        Self::redisbloom_reserve(0.01, 100, None, false)
    }

    /// What `BF.RESERVE key error capacity [EXPANSION expansion]
    /// [NONSCALING]` creates, with RedisBloom's checks and messages
    /// ([`Error::Reserve`]). The error is capped at 0.25; a scaling
    /// filter's first layer gets half of it and each later layer half the
    /// previous one's (`r = 0.5`); capacity grows by `expansion`
    /// (default 2). `EXPANSION 0` also makes a non-scaling filter, which
    /// gets the full (capped) error and refuses new items once full.
    pub fn redisbloom_reserve(
        error: f64,
        capacity: u64,
        expansion: Option<u32>,
        nonscaling: bool,
    ) -> Result<Self> {
        if !(error > 0.0 && error < 1.0) {
            return Err(Error::Reserve(
                "ERR error rate must be in the range (0.000000, 1.000000)",
            ));
        }
        if !(1..=1 << 30).contains(&capacity) {
            return Err(Error::Reserve(
                "ERR capacity must be in the range [1, 1073741824]",
            ));
        }
        // RedisBloom refuses NONSCALING with a non-zero EXPANSION before
        // it checks the expansion's range.
        if nonscaling && expansion.is_some_and(|e| e > 0) {
            return Err(Error::Reserve("Nonscaling filters cannot expand"));
        }
        if expansion.is_some_and(|e| u64::from(e) > crate::MAX_GROWTH) {
            return Err(Error::Reserve(
                "ERR expansion must be in the range [0, 32768]",
            ));
        }
        let scaling = !nonscaling && expansion != Some(0);
        let stored_growth = expansion.unwrap_or(2);
        let capped = error.min(0.25);
        // `SB_NewChain` halves a scaling filter's error for its first
        // link and `bloom_init` refuses an error that is not above 0 (the
        // smallest doubles halve to 0).
        let first = if scaling { capped * 0.5 } else { capped };
        if first <= 0.0 {
            return Err(Error::Reserve("ERR could not create filter"));
        }
        let mut config = Config::new(capacity, capped)
            .sizing(Sizing::RedisBloom)
            .layout(Layout::Standard)
            .hash(Family::Murmur64A, 0)
            .probes(Pairing::Chained, Probe::Double, Reduction::Modulo)
            .tightening(0.5)
            .growth(u64::from(stored_growth));
        if !scaling {
            config = config.non_scaling();
        }
        let mut f = Self::with_config(config)?;
        f.redis_growth = stored_growth;
        Ok(f)
    }

    /// Whether the filter has a RedisBloom representation: standard
    /// layers sized by RedisBloom's rule (whole 64-bit words), MurmurHash64A
    /// with seed 0, chained pairing, plain double hashing, modulo, and
    /// grown as RedisBloom grows a chain (error times 0.5, a new layer
    /// when the last one's count reaches its capacity), so that
    /// RedisBloom (and [`Self::from_redis_scandump`]) loads its dump and
    /// keeps growing it the same way.
    pub fn is_redisbloom(&self) -> bool {
        let c = &self.config;
        c.sizing == Sizing::RedisBloom
            && (c.tightening == 0.5 || !c.scaling)
            && !c.full_at_half_fill
            && c.layout == Layout::Standard
            && c.family == Family::Murmur64A
            && c.seed == 0
            && c.pairing == Pairing::Chained
            && c.probe == Probe::Double
            && c.reduction == Reduction::Modulo
            && self.layers.iter().all(|l| l.bits() % 64 == 0)
    }

    fn require_redis(&self) -> Result<()> {
        if self.is_redisbloom() {
            Ok(())
        } else {
            Err(Error::NotRedisBloom(
                "needs RedisBloom's sizing, tightening 0.5 and growth on \
                 count, standard layers, murmur64a seed 0, chained pairing, \
                 double hashing, modulo and 64-bit words",
            ))
        }
    }

    /// `BF.DEBUG key`: `size:N`, then per layer `bytes:B bits:M hashes:K
    /// hashwidth:64 capacity:C size:N ratio:E` (`E` as C's `%g`).
    pub fn redis_debug(&self) -> Vec<String> {
        let mut out = vec![format!("size:{}", self.items)];
        for l in &self.layers {
            out.push(format!(
                "bytes:{} bits:{} hashes:{} hashwidth:64 capacity:{} \
                 size:{} ratio:{}",
                l.bytes(),
                l.bits(),
                l.k,
                l.capacity,
                l.count,
                format_g(l.error)
            ));
        }
        out
    }

    /// The header `BF.SCANDUMP key 0` returns: `20 + 53·layers` bytes,
    /// little-endian, packed.
    pub fn redis_header(&self) -> Result<Vec<u8>> {
        self.require_redis()?;
        let mut h =
            Vec::with_capacity(HEADER_FIXED + LINK_RECORD * self.layers.len());
        h.extend_from_slice(&self.items.to_le_bytes());
        let n = u32::try_from(self.layers.len())
            .map_err(|_| Error::NotRedisBloom("too many layers"))?;
        h.extend_from_slice(&n.to_le_bytes());
        h.extend_from_slice(&self.redis_options.to_le_bytes());
        h.extend_from_slice(&self.redis_growth.to_le_bytes());
        for l in &self.layers {
            h.extend_from_slice(&l.bytes().to_le_bytes());
            h.extend_from_slice(&l.bits().to_le_bytes());
            h.extend_from_slice(&l.count.to_le_bytes());
            h.extend_from_slice(&l.error.to_le_bytes());
            h.extend_from_slice(&l.bpe.to_le_bytes());
            h.extend_from_slice(&l.k.to_le_bytes());
            h.extend_from_slice(&l.capacity.to_le_bytes());
            h.push(0);
        }
        Ok(h)
    }

    /// One `BF.SCANDUMP key iter` reply: `(next iterator, bytes)`.
    /// Iterator 0 gives `(1, header)`; then `iter` is a 1-based byte
    /// cursor over the layers' arrays end to end, and the reply is the
    /// rest of the layer it falls in (at most 16 MiB) with the cursor
    /// after it; past the end (or negative) gives `(0, [])`.
    pub fn redis_scandump_chunk(&self, iter: i64) -> Result<(i64, Vec<u8>)> {
        if iter == 0 {
            return Ok((1, self.redis_header()?));
        }
        self.require_redis()?;
        if iter < 0 {
            return Ok((0, Vec::new()));
        }
        let mut offset = (iter - 1) as u64;
        for l in &self.layers {
            let bytes = l.bytes();
            if offset < bytes {
                let len = (bytes - offset).min(SCANDUMP_CHUNK as u64);
                let out = layer_bytes(&l.array, offset, len);
                return Ok((iter + len as i64, out));
            }
            offset -= bytes;
        }
        Ok((0, Vec::new()))
    }

    /// The whole `BF.SCANDUMP` sequence, from iterator 0 to the closing
    /// `(0, [])`.
    pub fn redis_scandump(&self) -> Result<Vec<(i64, Vec<u8>)>> {
        let mut out = Vec::new();
        let mut iter = 0;
        loop {
            let (next, bytes) = self.redis_scandump_chunk(iter)?;
            out.push((next, bytes));
            if next == 0 {
                return Ok(out);
            }
            iter = next;
        }
    }

    /// Restores a filter from a complete `BF.SCANDUMP` sequence, as
    /// `BF.LOADCHUNK` does: the first entry must be `(1, header)`; every
    /// later non-empty chunk `(iter, data)` is written at byte offset
    /// `iter − 1 − len(data)`, within one layer. The header may be in any
    /// of RedisBloom's layouts ([`HeaderLayout`]: current, 2.2.0's and the
    /// pre-2.2 one without `growth`, which reads as growth 2). It is
    /// checked as RedisBloom checks it (options ⊆ 0xF, `0 < error < 1`,
    /// `bits = 8·bytes ≠ 0`, `k = ⌈0.693147180559945·bpe⌉`, sizes summing
    /// to the total), plus what bloomlab supports (64-bit hashing, no
    /// legacy power-of-two links, no `ENTS_IS_BITS`; see [`parse_header`]
    /// for the messages), and before anything is allocated the chunks
    /// must cover each link's bytes exactly once: their total length
    /// equal to the arrays' (summed without overflow), no two
    /// overlapping, no byte missing. Unlike RedisBloom, each link
    /// must also be the one the chain grows (its capacity and error from
    /// the link before, its bits from them; see `FORMAT.md`), since the
    /// next link is sized from the last. The filter's target error is
    /// not in the header: it is taken as twice the first link's (once
    /// for a non-scaling filter), which only [`Self::error_bound`] and
    /// [`Self::info`] show. [`Self::redis_scandump`] writes the current
    /// layout, the only one current RedisBloom loads.
    ///
    /// Neither is the count of adds skipped as already present
    /// ([`Self::info`]'s `skipped`): a restored filter starts it at 0,
    /// so it compares unequal (`==`) to the filter it was dumped from
    /// once that one skipped an add, though their layers and bits are
    /// the same ([`Self::layers`]).
    pub fn from_redis_scandump<B: AsRef<[u8]>>(
        chunks: &[(i64, B)],
    ) -> Result<Self> {
        let bad = |why: String| Error::BadDump(why);
        let Some((first_iter, header)) = chunks.first() else {
            return Err(bad("no header".into()));
        };
        if *first_iter != 1 {
            return Err(bad(format!(
                "the header comes with iterator 1, not {first_iter}"
            )));
        }
        let header = header.as_ref();
        let h = parse_header(header)?;
        // Checked: sizes that wrap past 2^64 would pass as a small total
        // and then be allocated.
        let total = h
            .links
            .iter()
            .try_fold(0u64, |a, l| a.checked_add(l.bytes))
            .ok_or_else(|| {
                bad("the header's array sizes add up past 2^64 bytes".into())
            })?;
        let data = chunks[1..]
            .iter()
            .try_fold(0u64, |a, (_, d)| a.checked_add(d.as_ref().len() as u64))
            .ok_or_else(|| bad("the chunks add up past 2^64 bytes".into()))?;
        if data != total {
            return Err(bad(format!(
                "the chunks hold {data} bytes, the header's arrays {total}"
            )));
        }
        let spans = chunk_spans(&h.links, total, &chunks[1..])?;
        let scaling = h.options & 8 == 0;
        let first = &h.links[0];
        let error = if scaling { first.error * 2.0 } else { first.error };
        let mut config = Config::new(first.entries, error.min(0.25))
            .sizing(Sizing::RedisBloom)
            .layout(Layout::Standard)
            .hash(Family::Murmur64A, 0)
            .probes(Pairing::Chained, Probe::Double, Reduction::Modulo)
            .tightening(0.5)
            .growth(u64::from(h.growth));
        config.first_error = first.error;
        config.scaling = scaling;
        if scaling && h.growth == 0 {
            return Err(bad("a scaling filter with growth 0".into()));
        }
        // (RedisBloom refuses an expansion above 32768 when the filter
        // is made, so no dump it wrote has one.)
        config.validate().map_err(|e| bad(e.to_string()))?;
        let hasher = bloomlab_hash::Hasher::new(Family::Murmur64A, 0)?;
        let mut layers = Vec::with_capacity(h.links.len());
        let mut prev = None;
        for (i, l) in h.links.iter().enumerate() {
            let s = Shape {
                bits: l.bits,
                modulus: l.bits,
                k: l.hashes,
                bpe: l.bpe,
            };
            LayerSpec::check_stored(&config, i, prev, l.entries, l.error, &s)
                .map_err(bad)?;
            prev = Some((l.entries, l.error));
            let mut layer = Layer::new(l.entries, l.error, s)?;
            layer.count = l.size;
            layers.push(layer);
        }
        // Write the chunks into a byte image per layer, then words.
        let mut images: Vec<Vec<u8>> =
            h.links.iter().map(|l| vec![0u8; l.bytes as usize]).collect();
        for s in &spans {
            let chunk = chunks[1 + s.chunk].1.as_ref();
            let o = s.offset as usize;
            images[s.link][o..o + chunk.len()].copy_from_slice(chunk);
        }
        for (layer, img) in layers.iter_mut().zip(&images) {
            let words: Vec<u64> = img
                .chunks_exact(8)
                .map(|c| {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(c);
                    u64::from_le_bytes(w)
                })
                .collect();
            layer.array = BitArray::from_words(layer.bits(), words)?;
            layer.ones = layer.array.count_ones();
        }
        Ok(ScalableBloomFilter {
            config,
            hasher,
            layers,
            items: h.size,
            skipped: 0,
            redis_options: h.options,
            redis_growth: h.growth,
        })
    }
}

/// Where a non-empty data chunk of a dump goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Span {
    /// Its first byte in the links' arrays end to end.
    start: u64,
    /// Its length.
    len: u64,
    /// Its link.
    link: usize,
    /// Its first byte in that link's array.
    offset: u64,
    /// Its index among the data chunks.
    chunk: usize,
}

/// Link and offset in it of byte `pos` of the links' arrays end to end
/// (`pos` below their total).
fn locate(links: &[RedisLink], mut pos: u64) -> Option<(usize, u64)> {
    for (i, l) in links.iter().enumerate() {
        if pos < l.bytes {
            return Some((i, pos));
        }
        pos -= l.bytes;
    }
    None
}

/// Where each non-empty chunk of `data` (the dump after its header) goes,
/// checked before anything is allocated: within one link (RedisBloom's
/// `BF.LOADCHUNK` checks), and all of them together covering the links'
/// `total` bytes exactly once. Equal totals are not enough: a chunk sent
/// twice in place of one that is missing leaves bytes at 0, and the items
/// they held answer "absent".
fn chunk_spans<B: AsRef<[u8]>>(
    links: &[RedisLink],
    total: u64,
    data: &[(i64, B)],
) -> Result<Vec<Span>> {
    let bad = |why: String| Error::BadDump(why);
    let mut spans = Vec::with_capacity(data.len());
    for (chunk, (iter, bytes)) in data.iter().enumerate() {
        let len = bytes.as_ref().len() as u64;
        if len == 0 {
            continue;
        }
        let start = u64::try_from(*iter)
            .ok()
            .and_then(|it| it.checked_sub(1)?.checked_sub(len))
            .ok_or_else(|| {
                bad(format!(
                    "iterator {iter} is smaller than its chunk ({len} B)"
                ))
            })?;
        let Some((link, offset)) = locate(links, start) else {
            return Err(bad("invalid offset - no link found".into()));
        };
        if len > links[link].bytes - offset {
            return Err(bad(
                "invalid chunk - Too big for current filter".into()
            ));
        }
        spans.push(Span { start, len, link, offset, chunk });
    }
    spans.sort_unstable();
    // In order of offset, each chunk starts where the one before ends.
    let mut end = 0u64;
    for s in spans.iter().map(Some).chain([None]) {
        let next = s.map_or(total, |s| s.start);
        if next > end {
            let (link, offset) = locate(links, end).unwrap_or_default();
            return Err(bad(format!(
                "link {link}'s bytes from {offset} are in no chunk"
            )));
        }
        let Some(s) = s else { break };
        if next < end {
            return Err(bad(format!(
                "link {}'s bytes from {} come twice (the chunk with \
                 iterator {} overlaps another)",
                s.link, s.offset, data[s.chunk].0
            )));
        }
        end = s.start + s.len;
    }
    Ok(spans)
}

/// `len` bytes of a layer's array from byte `offset` (words little-endian).
fn layer_bytes(a: &BitArray, offset: u64, len: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len as usize);
    let first = (offset / 8) as usize;
    let last = (offset + len).div_ceil(8) as usize;
    let skip = (offset % 8) as usize;
    for w in &a.words()[first..last] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.drain(..skip);
    out.truncate(len as usize);
    out
}

/// The layout of a `BF.SCANDUMP` header. The header carries no version;
/// the three layouts RedisBloom has written differ in length for the same
/// number of links `n` (read at offset 8 in all of them), so the length
/// tells them apart.
///
/// Sources: RedisBloom's `src/sb.c` (`dumpedChainHeader`,
/// `dumpedChainLink`) at its current and at older commits, and the module
/// versions RedisShake's converter (`internal/rdb/types/mbbloom.go`)
/// assigns to each layout when it rewrites dumps for an older target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HeaderLayout {
    /// `20 + 53·n` bytes: chain `size`, `nfilters`, `options`, `growth`;
    /// links with a 64-bit `entries` (RedisBloom after 2.2.0, including
    /// the version `testdata/redisbloom` was recorded from). The only
    /// layout current RedisBloom loads, and the one bloomlab writes.
    Current,
    /// `20 + 49·n` bytes: the same, with a 32-bit `entries` (RedisBloom
    /// 2.2.0, which introduced `EXPANSION`).
    Expansion32,
    /// `16 + 49·n` bytes: no `growth` field (it was always 2) and a
    /// 32-bit `entries` (RedisBloom before 2.2).
    Legacy,
}

impl HeaderLayout {
    /// Bytes before the link records.
    pub fn fixed_bytes(self) -> usize {
        match self {
            HeaderLayout::Legacy => 16,
            _ => HEADER_FIXED,
        }
    }

    /// Bytes of one link record.
    pub fn link_bytes(self) -> usize {
        match self {
            HeaderLayout::Current => LINK_RECORD,
            _ => 49,
        }
    }

    /// The layout of a header of `len` bytes holding `n` links, if any.
    pub fn of(len: usize, n: usize) -> Option<HeaderLayout> {
        [
            HeaderLayout::Current,
            HeaderLayout::Expansion32,
            HeaderLayout::Legacy,
        ]
        .into_iter()
        .find(|l| {
            n.checked_mul(l.link_bytes())
                .and_then(|x| x.checked_add(l.fixed_bytes()))
                == Some(len)
        })
    }
}

/// A decoded `BF.SCANDUMP` header.
#[derive(Debug, Clone, PartialEq)]
pub struct RedisHeader {
    /// Which of RedisBloom's layouts it was written in.
    pub layout: HeaderLayout,
    /// Items newly added (`BF.CARD`).
    pub size: u64,
    /// Option bits: NOROUND 1, ENTS_IS_BITS 2, FORCE64 4, NO_SCALING 8.
    pub options: u32,
    /// Stored expansion (2 for [`HeaderLayout::Legacy`], which has no
    /// field: those versions always doubled).
    pub growth: u32,
    /// Links, oldest first.
    pub links: Vec<RedisLink>,
}

/// One link record of a [`RedisHeader`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedisLink {
    /// Array bytes.
    pub bytes: u64,
    /// Bits (the modulus).
    pub bits: u64,
    /// Items newly added to it.
    pub size: u64,
    /// Its error rate.
    pub error: f64,
    /// Bits per entry.
    pub bpe: f64,
    /// `k`.
    pub hashes: u32,
    /// Capacity.
    pub entries: u64,
    /// Legacy power-of-two exponent (0 for current filters).
    pub n2: u8,
}

/// Decodes and checks a `BF.SCANDUMP` header in any of RedisBloom's
/// layouts ([`HeaderLayout`]; see
/// [`ScalableBloomFilter::from_redis_scandump`] for the checks). The
/// length is checked against the link count before anything is
/// allocated.
///
/// Filters bloomlab cannot reproduce bit for bit are refused with a
/// message that says what they are: 32-bit hashing (no `FORCE64`: the
/// MurmurHash2 filters of RedisBloom 1.x), power-of-two sizes (no
/// `NOROUND`, or a link with `n2 ≠ 0`), or capacities counted in bits
/// (`ENTS_IS_BITS`).
pub fn parse_header(h: &[u8]) -> Result<RedisHeader> {
    let bad = |why: String| Error::BadDump(why);
    if h.len() < 16 {
        return Err(bad(format!("header of {} bytes", h.len())));
    }
    let u64_at = |o: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&h[o..o + 8]);
        u64::from_le_bytes(b)
    };
    let u32_at = |o: usize| {
        let mut b = [0u8; 4];
        b.copy_from_slice(&h[o..o + 4]);
        u32::from_le_bytes(b)
    };
    let size = u64_at(0);
    let n = u32_at(8) as usize;
    let options = u32_at(12);
    let layout = match HeaderLayout::of(h.len(), n) {
        Some(layout) if n > 0 => layout,
        _ => {
            return Err(bad(format!(
                "a header of {} bytes with {n} links matches no RedisBloom \
                 layout (20 + 53·n bytes since 2.2.x, 20 + 49·n in 2.2.0, \
                 16 + 49·n before)",
                h.len()
            )));
        }
    };
    let growth = match layout {
        HeaderLayout::Legacy => 2,
        _ => u32_at(16),
    };
    if options & !0xF != 0 {
        return Err(bad(format!("options {options:#x}")));
    }
    if options & 4 == 0 {
        return Err(bad(format!(
            "options {options:#x}: a filter hashed with 32-bit MurmurHash2 \
             (no FORCE64, RedisBloom 1.x); bloomlab reads 64-bit filters \
             only: create the filter again with BF.RESERVE in RedisBloom \
             2.x or later and add the items again"
        )));
    }
    if options & 1 == 0 || options & 2 != 0 {
        return Err(bad(format!(
            "options {options:#x}: a filter with power-of-two sizes (no \
             NOROUND) or capacities in bits (ENTS_IS_BITS); bloomlab reads \
             NOROUND|FORCE64 filters only, what BF.RESERVE creates since \
             RedisBloom 2.x: create it again and add the items again"
        )));
    }
    let fixed = layout.fixed_bytes();
    let record = layout.link_bytes();
    let mut links = Vec::with_capacity(n);
    for i in 0..n {
        let o = fixed + record * i;
        let (entries, n2) = match layout {
            HeaderLayout::Current => (u64_at(o + 44), h[o + 52]),
            _ => (u64::from(u32_at(o + 44)), h[o + 48]),
        };
        let l = RedisLink {
            bytes: u64_at(o),
            bits: u64_at(o + 8),
            size: u64_at(o + 16),
            error: f64::from_bits(u64_at(o + 24)),
            bpe: f64::from_bits(u64_at(o + 32)),
            hashes: u32_at(o + 40),
            entries,
            n2,
        };
        if !(l.error > 0.0 && l.error < 1.0) {
            return Err(bad(format!("link {i}: error {}", l.error)));
        }
        if l.bits == 0 || l.bytes.checked_mul(8) != Some(l.bits) {
            return Err(bad(format!(
                "link {i}: {} bits in {} bytes",
                l.bits, l.bytes
            )));
        }
        if !l.bytes.is_multiple_of(8) {
            return Err(bad(format!("link {i}: {} bytes", l.bytes)));
        }
        if f64::from(l.hashes) != redis_k(l.bpe) || l.hashes == 0 {
            return Err(bad(format!(
                "link {i}: k {} for bpe {}",
                l.hashes, l.bpe
            )));
        }
        if l.n2 != 0 {
            return Err(bad(format!(
                "link {i}: a legacy power-of-two link (n2 = {}); bloomlab \
                 reads NOROUND filters only",
                l.n2
            )));
        }
        if l.entries == 0 {
            return Err(bad(format!("link {i}: capacity 0")));
        }
        links.push(l);
    }
    let sum = links.iter().try_fold(0u64, |a, l| a.checked_add(l.size));
    if sum != Some(size) {
        return Err(bad(format!(
            "link sizes do not add up to the total {size}"
        )));
    }
    Ok(RedisHeader { layout, size, options, growth, links })
}

/// C's `printf("%g", v)`: 6 significant digits, trailing zeros removed,
/// scientific notation when the exponent is below −4 or at least 6.
pub fn format_g(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return v.to_string();
    }
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        trim(&format!("{v:.decimals$}"))
    }
}
