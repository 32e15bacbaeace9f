//! One module per `bloomlab` verb, each with its clap `Args` and a
//! `run(args) -> anyhow::Result<()>`.

pub(crate) mod hash;
pub(crate) mod list;
pub(crate) mod theory;
