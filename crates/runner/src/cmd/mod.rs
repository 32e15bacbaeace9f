//! One module per `bloomlab` verb, each with its clap `Args` and a
//! `run(args) -> anyhow::Result<()>`.

mod anyfilter;
pub(crate) mod build;
mod funnel;
pub(crate) mod hash;
pub(crate) mod inspect;
pub(crate) mod list;
pub(crate) mod query;
mod redisfilter;
pub(crate) mod report;
pub(crate) mod run;
pub(crate) mod theory;
pub(crate) mod verify;

/// Most worker threads `run` and `verify` take: more only adds threads'
/// stacks and start-up time on any machine this targets (each trial is
/// CPU-bound).
const MAX_THREADS: u64 = 1024;

/// `--threads`: 1 to [`MAX_THREADS`].
fn threads(s: &str) -> Result<usize, String> {
    let n: u64 = s.parse().map_err(|e| format!("{e}"))?;
    if !(1..=MAX_THREADS).contains(&n) {
        return Err(format!("must be from 1 to {MAX_THREADS}"));
    }
    usize::try_from(n).map_err(|e| e.to_string())
}
