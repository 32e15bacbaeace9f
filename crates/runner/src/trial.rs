//! One trial: build a filter, insert `n` members, check every member,
//! query non-members and count false positives, timing both loops.
//!
//! A counting filter with `churn > 0` runs the churn workload between the
//! inserts and the member check: rounds of deleting the oldest
//! `⌈n/2⌉` live items (fewer in the last round) and inserting as many
//! fresh ones, until `round(churn · n)` items were replaced. The `n` live
//! items are then key indices `d..d + n` (`d` the items replaced); they
//! are the members checked, and non-members start at `n + d`.
//!
//! A scalable filter starts at its initial capacity and grows while the
//! `n` members are inserted; what it grew into is recorded ([`Grown`]).
//!
//! Everything random comes from the trial's seed, itself derived from
//! `(experiment seed, point index, trial index)`. Large query loops are
//! split into fixed index ranges processed in parallel; counts are summed,
//! so the result does not depend on the thread count or on scheduling.

use std::time::Instant;

use bloomlab_core::Filter;
use bloomlab_counting::CountingBloomFilter;
use rayon::prelude::*;

use crate::experiment::{Point, Queries};
use crate::keys::{ByteKeys, TrialKeys, derive_seed};
use crate::variants::{self, Variant};

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
    /// What the churn workload saw (counting filters only).
    pub counting: Option<Churn>,
    /// What the scalable filter grew into (scalable filters only).
    pub scalable: Option<Grown>,
}

/// A scalable filter after its `n` inserts.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Grown {
    /// Layers.
    pub layers: u64,
    /// Bits of all layers.
    pub total_bits: u64,
    /// Bits of the first (smallest) layer.
    pub first_layer_bits: u64,
    /// `1 − Π(1 − P_i)`, `P_i` each layer's rate from its realised fill:
    /// the filter's predicted false-positive rate.
    pub compounded_error: f64,
    /// `P0/(1 − r)`: the bound however far it grows.
    pub error_bound: f64,
    /// Inserts the filter skipped because some layer already reported
    /// the (new) item present.
    pub skipped: u64,
}

/// What a counting filter went through: the churn workload and the
/// filter's own counts of what went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Churn {
    /// Bits per counter.
    pub counter_bits: u32,
    /// Items deleted (and as many fresh ones inserted) after the first
    /// `n` inserts.
    pub removed: u64,
    /// Counters at their maximum at the end.
    pub saturated_counters: u64,
    /// Increments lost to saturated counters.
    pub saturation_events: u64,
    /// Decrements skipped on saturated counters.
    pub skipped_decrements: u64,
    /// Removes of inserted items that the filter refused (a zero
    /// counter): always 0 unless something is wrong.
    pub rejected_removes: u64,
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
    let n = point.n;
    let removed = point.churned();
    // Members ever inserted: 0..n + removed; non-members follow.
    let inserted = n + removed;
    let keys = TrialKeys::new(&point.key_set, tseed, inserted)?;

    let mut grown = None;
    let (filter, insert_ns, counting) = if point.variant == Variant::Scalable {
        let mut f = variants::build_scalable(point, hash_seed)?;
        let start = Instant::now();
        insert_range(&mut f, &keys, 0, n);
        let insert_ns = start.elapsed().as_nanos() as f64 / n as f64;
        // Every add is inserted or skipped unless a layer could not be
        // built; the items refused must not pass as false negatives.
        let taken = f.len() + f.skipped();
        if taken < n {
            let why =
                f.config().layer_specs(f.layers().len()).err().map_or_else(
                    || "the filter refused them".into(),
                    |e| e.to_string(),
                );
            return Err(format!(
                "the scalable filter took {taken} of {n} items: {why}"
            ));
        }
        grown = Some(Grown {
            layers: f.layers().len() as u64,
            total_bits: f.total_bits(),
            first_layer_bits: f.layers().first().map_or(0, |l| l.bits()),
            compounded_error: f.compounded_error(),
            error_bound: f.error_bound(),
            skipped: f.skipped(),
        });
        (Box::new(f) as Box<dyn Filter>, insert_ns, None)
    } else if point.variant == Variant::Counting {
        let mut f = variants::build_counting(point, hash_seed)?;
        let start = Instant::now();
        insert_range(&mut f, &keys, 0, n);
        let insert_ns = start.elapsed().as_nanos() as f64 / n as f64;
        churn(&mut f, &keys, n, removed);
        let s = f.stats();
        let c = Churn {
            counter_bits: f.counter_width().bits(),
            removed,
            saturated_counters: f.saturated_counters(),
            saturation_events: s.saturation_events,
            skipped_decrements: s.skipped_decrements,
            rejected_removes: s.rejected_removes,
        };
        (Box::new(f) as Box<dyn Filter>, insert_ns, Some(c))
    } else {
        let mut f = variants::build(point, hash_seed)?;
        let start = Instant::now();
        insert_range(f.as_mut(), &keys, 0, n);
        let insert_ns = start.elapsed().as_nanos() as f64 / n as f64;
        (f, insert_ns, None)
    };
    let filter: &dyn Filter = filter.as_ref();

    // Every live member must be found.
    let (found, _) = count_hits(filter, &keys, removed, n, true);
    let n = inserted;

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
        false_negatives: point.n - found.min(point.n),
        queries,
        false_positives,
        insert_ns,
        query_ns: query_ns_total as f64 / queries as f64,
        counting,
        scalable: grown,
    })
}

/// Inserts global key indices `start..start + count`.
fn insert_range(
    filter: &mut dyn Filter,
    keys: &TrialKeys,
    start: u64,
    count: u64,
) {
    let mut ints = Vec::with_capacity(CHUNK);
    let mut bytes = ByteKeys::new();
    let end = start + count;
    let mut g = start;
    while g < end {
        let c = (end - g).min(CHUNK as u64) as usize;
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
}

/// Removes global key indices `start..start + count` (integers as 8
/// bytes little-endian, as [`Filter::insert_u64_batch`] inserts them).
/// Refused removes are counted by the filter itself.
fn remove_range(
    filter: &mut CountingBloomFilter,
    keys: &TrialKeys,
    start: u64,
    count: u64,
) {
    let mut ints = Vec::with_capacity(CHUNK);
    let mut bytes = ByteKeys::new();
    let end = start + count;
    let mut g = start;
    while g < end {
        let c = (end - g).min(CHUNK as u64) as usize;
        if keys.is_u64() {
            keys.fill_u64(g, c, &mut ints);
            // The batch call prefetches on large filters; a `u64` is
            // funnelled as its 8 little-endian bytes, as inserted.
            filter.remove_many(&ints);
        } else {
            keys.fill_bytes(g, c, &mut bytes);
            for key in bytes.iter() {
                let _ = filter.remove_bytes(key);
            }
        }
        g += c as u64;
    }
}

/// The churn workload: with `n` live items (indices `0..n`), rounds of
/// deleting the oldest `⌈n/2⌉` live items (fewer in the last round) and
/// inserting as many fresh ones, `removed` items in all. Afterwards the
/// live items are indices `removed..removed + n`.
pub fn churn(
    filter: &mut CountingBloomFilter,
    keys: &TrialKeys,
    n: u64,
    removed: u64,
) {
    let round = n.div_ceil(2).max(1);
    let mut done = 0;
    while done < removed {
        let r = round.min(removed - done);
        remove_range(filter, keys, done, r);
        insert_range(filter, keys, n + done, r);
        done += r;
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::Plan;

    /// A chain that stops growing refuses items: the trial is an error
    /// naming why, not a run with false negatives. RedisBloom's chain at
    /// expansion 1 from one item halves its error per layer until it
    /// underflows, some 1,000 layers in (presets are not checked at plan
    /// time).
    #[test]
    fn a_chain_that_cannot_grow_is_an_error() {
        let toml = "name = \"t\"\ndescription = \"t\"\nseed = 1\n\
             [queries]\nper-filter = 1000\n\
             [[grid]]\nvariant = [\"scalable\"]\n\
             scalable-preset = [\"redisbloom\"]\ninitial-capacity = [1]\n\
             growth = [1]\nn = [3000]\nfpp = [0.01]\n";
        let plan = Plan::from_toml(toml, "t.toml".as_ref()).unwrap();
        let e = run(&plan.points[0], plan.seed, 0, 0.95).unwrap_err();
        assert!(e.starts_with("the scalable filter took "), "{e}");
        assert!(e.contains("of 3000 items: the filter cannot grow"), "{e}");
    }
}
