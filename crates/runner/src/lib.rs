/*!
The bloomlab experiment runner: declarative sweeps over filter designs,
empirical false-positive rates judged against theory, charts and a
report. The `bloomlab` binary's `run`, `verify` and `report` verbs are
thin wrappers around this library.

A run goes through these stages, one module each:

1. [`experiment`]: an experiment file (TOML, `experiments/FORMAT.md`) is
   parsed and validated into a [`Plan`] of grid points before any work.
2. [`variants`] builds each point's filter as a `Box<dyn Filter>` and
   names the formula its rate should match; [`keys`] generates members
   and non-members, disjoint by construction.
3. [`trial`] runs one filter: insert, check every member, query
   non-members, count false positives, time both loops.
4. [`sweep`] runs every trial in parallel (rayon), streams rows to
   `results.csv` in order ([`results`]), writes `run.json`, and
   [`report`] draws the [`charts`] and writes `report.html`.

Results are identical for a seed whatever the thread count: every random
choice derives from `(seed, grid point, trial)` and counts are summed.

# Example

```no_run
use bloomlab_runner::{Plan, sweep};

let plan = Plan::load("experiments/default.toml".as_ref())?;
let opts = sweep::Options {
    out: "notebooks-output/default".into(),
    threads: None,
    quiet: true,
    command: "example".into(),
};
let outcome = sweep::run(&plan, &opts)?;
assert!(outcome.checks.iter().all(|c| c.held));
# Ok::<(), bloomlab_runner::Error>(())
```

# Other crates

* `bloomlab-core`: the `Filter` trait, theory formulas and statistics.
* `bloomlab-standard`: the standard, atomic and blocked filters run here.
* `bloomlab-hash`: the hash families and index strategies swept over.
*/
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod charts;
mod error;
pub mod experiment;
pub mod keys;
pub mod progress;
pub mod provenance;
pub mod report;
pub mod results;
pub mod sweep;
pub mod trial;
pub mod variants;

pub use error::{Error, Result};
pub use experiment::Plan;
