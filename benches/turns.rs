//! Filters taking turns on the same keys, so that their times compare
//! the host at the same moment.
//!
//! Criterion measures one filter after another. Where a filter's time
//! depends on how much of it the host's other tenants leave in the
//! shared L3 cache (10 MB and more on this kind of machine), its medians
//! compare the host at different moments. Here, in each of [`ROUNDS`]
//! rounds, every filter runs each operation on the same [`ROUND_KEYS`]
//! keys, in an order that rotates from round to round, and each round's
//! ratio of two filters' times is taken at the same moment: the median
//! round's ratio, with the lowest and highest, is what the benches print.
//!
//! A turn inherits the caches the turn before it left: a filter that
//! runs twice in a row finds its lines warm (with two filters rotating,
//! measured at n = 1e6, about twice as fast against the other as when
//! it follows the other). With three filters or more the rotation never
//! runs one twice in a row; the range printed shows what the order
//! still moves.

/// Rounds of a comparison.
pub const ROUNDS: usize = 21;
/// Keys a filter takes in turn in each round.
pub const ROUND_KEYS: usize = 1 << 18;

/// Seconds of each turn, `seconds[op][filter][round]`: `turn(op, filter,
/// round)` runs (and times) one operation of one filter in one round;
/// in each round and operation the filters take their turns in an order
/// that starts one later each round.
pub fn run(
    ops: usize,
    filters: usize,
    mut turn: impl FnMut(usize, usize, usize) -> f64,
) -> Vec<Vec<Vec<f64>>> {
    let mut seconds = vec![vec![vec![0.0; ROUNDS]; filters]; ops];
    for round in 0..ROUNDS {
        for (op, times) in seconds.iter_mut().enumerate() {
            for i in 0..filters {
                let filter = (round + i) % filters;
                times[filter][round] = turn(op, filter, round);
            }
        }
    }
    seconds
}

/// `op median (lowest–highest)` of filter `peer`'s time ÷ filter
/// `ours`'s over the rounds, for each operation, joined by commas.
///
/// ```
/// use bloomlab_benches::turns::{ROUNDS, ratios};
///
/// // Two filters, one operation: the peer takes twice as long.
/// let seconds = vec![vec![vec![1.0; ROUNDS], vec![2.0; ROUNDS]]];
/// assert_eq!(ratios(&["insert"], &seconds, 1, 0), "insert 2.00 (2.00–2.00)");
/// ```
pub fn ratios(
    ops: &[&str],
    seconds: &[Vec<Vec<f64>>],
    peer: usize,
    ours: usize,
) -> String {
    let line: Vec<String> = ops
        .iter()
        .zip(seconds)
        .map(|(op, times)| {
            let mut r: Vec<f64> = times[peer]
                .iter()
                .zip(&times[ours])
                .map(|(p, o)| p / o)
                .collect();
            r.sort_by(f64::total_cmp);
            match (r.first(), r.get(r.len() / 2), r.last()) {
                (Some(lo), Some(mid), Some(hi)) => {
                    format!("{op} {mid:.2} ({lo:.2}–{hi:.2})")
                }
                _ => format!("{op} –"),
            }
        })
        .collect();
    line.join(", ")
}
