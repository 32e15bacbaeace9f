//! One trial: build a filter, insert `n` members, check every member,
//! query non-members and count false positives, timing both loops.
//!
//! Everything random comes from the trial's seed, itself derived from
//! `(experiment seed, point index, trial index)`. Large query loops are
//! split into fixed index ranges processed in parallel; counts are summed,
//! so the result does not depend on the thread count or on scheduling.

use std::time::Instant;

use bloomlab_core::Filter;
use rayon::prelude::*;

use crate::experiment::{Point, Queries};
use crate::keys::{ByteKeys, TrialKeys, derive_seed};
use crate::variants;

/// Keys generated and probed per batch.
pub const CHUNK: usize = 4096;

/// Query loops of at least this many keys run in parallel, in ranges of
/// [`PAR_RANGE`] keys.
pub const PAR_MIN: u64 = 1 << 17;

/// Keys per parallel range of a large query loop.
pub const PAR_RANGE: u64 = 1 << 15;

/// What one trial measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The trial's seed.
    pub trial_seed: u64,
    /// The filter's hash seed.
    pub hash_seed: i128,
    /// Bits (counters) of the built filter.
    pub m: u64,
    /// Probes per key.
    pub k: u32,
    /// Heap bytes of the filter.
    pub bytes: u64,
    /// Bits set after inserting.
    pub bits_set: u64,
    /// `(bits set / m)^k` as the filter reports it.
    pub expected_fpp: f64,
    /// Members not found.
    pub false_negatives: u64,
    /// Non-member queries made.
    pub queries: u64,
    /// Non-members found.
    pub false_positives: u64,
    /// Nanoseconds per insert, key generation included.
    pub insert_ns: f64,
    /// Nanoseconds per query per core, key generation included.
    pub query_ns: f64,
}

/// The seed of trial `trial` of point `point`.
pub fn trial_seed(seed: u64, point: usize, trial: u32) -> u64 {
    derive_seed(seed, &[point as u64, u64::from(trial)])
}

/// Runs one trial. `confidence` is the adaptive budget's interval
/// confidence. An error (an impossible combination, a key file too short)
/// is returned as text for the results row's `err` column.
pub fn run(
    point: &Point,
    seed: u64,
    trial: u32,
    confidence: f64,
) -> Result<Outcome, String> {
    let tseed = trial_seed(seed, point.index, trial);
    let hash_seed = variants::hash_seed(point, tseed);
    let mut filter = variants::build(point, hash_seed)?;
    let keys = TrialKeys::new(&point.key_set, tseed, point.n)?;
    let n = point.n;

    // Insert.
    let start = Instant::now();
    let mut ints = Vec::with_capacity(CHUNK);
    let mut bytes = ByteKeys::new();
    let mut g = 0;
    while g < n {
        let c = (n - g).min(CHUNK as u64) as usize;
        if keys.is_u64() {
            keys.fill_u64(g, c, &mut ints);
            filter.insert_u64_batch(&ints);
        } else {
            keys.fill_bytes(g, c, &mut bytes);
            for key in bytes.iter() {
                filter.insert_bytes(key);
            }
        }
        g += c as u64;
    }
    let insert_ns = start.elapsed().as_nanos() as f64 / n as f64;
    let filter: &dyn Filter = filter.as_ref();

    // Every member must be found.
    let (found, _) = count_hits(filter, &keys, 0, n, true);

    // Non-members.
    let cap = keys.non_member_capacity();
    let (queries, false_positives, query_ns_total) = match point.queries {
        Queries::Fixed(q) => {
            let q = q.min(cap);
            let (fp, ns) = count_hits(filter, &keys, n, q, true);
            (q, fp, ns)
        }
        Queries::Adaptive { target, min, max } => {
            let max = max.min(cap);
            let (mut done, mut fp, mut ns) = (0u64, 0u64, 0u64);
            let mut step = min.min(max);
            loop {
                let c = step.min(max - done);
                let (f, t) = count_hits(filter, &keys, n + done, c, true);
                done += c;
                fp += f;
                ns += t;
                if done >= max {
                    break;
                }
                if fp > 0 {
                    let cp = bloomlab_core::stats::clopper_pearson(
                        fp, done, confidence,
                    )
                    .map_err(
                        |_| "cannot compute the Clopper-Pearson interval",
                    )?;
                    if cp.relative_half_width(fp as f64 / done as f64) < target
                    {
                        break;
                    }
                }
                step = done;
            }
            (done, fp, ns)
        }
    };
    if queries == 0 {
        return Err("no non-member keys left to query".to_string());
    }
    Ok(Outcome {
        trial_seed: tseed,
        hash_seed,
        m: filter.bits(),
        k: filter.hash_count(),
        bytes: filter.bytes_of_memory() as u64,
        bits_set: filter.bits_set(),
        expected_fpp: filter.expected_fpp(),
        false_negatives: n - found.min(n),
        queries,
        false_positives,
        insert_ns,
        query_ns: query_ns_total as f64 / queries as f64,
    })
}

/// Queries global indices `start..start + count` and returns how many
/// answered "maybe present" and the nanoseconds spent (summed over
/// threads: a per-core figure). Large ranges run in parallel.
pub fn count_hits(
    filter: &dyn Filter,
    keys: &TrialKeys,
    start: u64,
    count: u64,
    parallel: bool,
) -> (u64, u64) {
    if !parallel || count < PAR_MIN {
        let mut buf = Buffers::default();
        return count_range(filter, keys, start, count, &mut buf);
    }
    let ranges = count.div_ceil(PAR_RANGE);
    (0..ranges)
        .into_par_iter()
        .map_init(Buffers::default, |buf, r| {
            let s = r * PAR_RANGE;
            let c = PAR_RANGE.min(count - s);
            count_range(filter, keys, start + s, c, buf)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// Reusable per-thread buffers of a query loop.
#[derive(Default)]
struct Buffers {
    ints: Vec<u64>,
    bytes: ByteKeys,
    out: Vec<bool>,
}

fn count_range(
    filter: &dyn Filter,
    keys: &TrialKeys,
    start: u64,
    count: u64,
    buf: &mut Buffers,
) -> (u64, u64) {
    let t0 = Instant::now();
    let mut hits = 0u64;
    let mut g = start;
    let end = start + count;
    buf.out.resize(CHUNK, false);
    while g < end {
        let c = (end - g).min(CHUNK as u64) as usize;
        let out = &mut buf.out[..c];
        if keys.is_u64() {
            keys.fill_u64(g, c, &mut buf.ints);
            filter.contains_u64_batch(&buf.ints, out);
        } else {
            keys.fill_bytes(g, c, &mut buf.bytes);
            // One slice of references per chunk, not per key.
            let refs: Vec<&[u8]> = buf.bytes.iter().collect();
            filter.contains_batch(&refs, out);
        }
        hits += out.iter().filter(|&&h| h).count() as u64;
        g += c as u64;
    }
    (hits, t0.elapsed().as_nanos() as u64)
}
