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
