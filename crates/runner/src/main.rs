/*!
The `bloomlab` command line: one module per verb in `cmd/`.

`main` parses the arguments with clap, hands them to the verb's `run`, and
turns any error into one line on stderr and exit code 1 (clap's own usage
errors exit with 2). Set `RUST_BACKTRACE=1` to see the whole error chain
with its backtrace.
*/

mod cmd;
mod output;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// bloomlab: a research toolkit for Bloom filters and their variants.
#[derive(Debug, Parser)]
#[command(name = "bloomlab", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// One value per process, parsed once: the size of the largest variant
// does not matter, and boxing it would only add noise.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Sizing and false-positive rate by every formula.
    Theory(cmd::theory::Args),
    /// Hash inputs with a registered hash family.
    Hash(cmd::hash::Args),
    /// List hash families, index strategies and range reductions.
    List(cmd::list::Args),
    /// Build a filter from an items file and save it.
    Build(cmd::build::Args),
    /// Ask a saved filter about items.
    Query(cmd::query::Args),
    /// Describe a saved filter (format detected).
    Inspect(cmd::inspect::Args),
    /// Run an experiment: results.csv, run.json, charts and report.html.
    Run(cmd::run::Args),
    /// Run an experiment small and check its invariants (exit 1 on a miss).
    Verify(cmd::verify::Args),
    /// Rebuild charts and report.html from a results folder.
    Report(cmd::report::Args),
}

fn main() {
    let matches = Cli::command().get_matches();
    let result = Cli::from_arg_matches(&matches)
        .map_err(anyhow::Error::from)
        .and_then(|cli| run(cli, &matches));
    if let Err(err) = result {
        if is_broken_pipe(&err) {
            // `bloomlab list | head` is not an error.
            std::process::exit(0);
        }
        if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
            eprintln!("error: {err:?}");
        } else {
            eprintln!("error: {err:#}");
        }
        std::process::exit(1);
    }
}

fn run(cli: Cli, matches: &clap::ArgMatches) -> anyhow::Result<()> {
    match cli.command {
        Command::Theory(args) => cmd::theory::run(args),
        Command::Hash(args) => {
            let sub = matches.subcommand_matches("hash");
            cmd::hash::run(args, sub)
        }
        Command::List(args) => cmd::list::run(args),
        Command::Build(args) => cmd::build::run(args),
        Command::Query(args) => cmd::query::run(args),
        Command::Inspect(args) => cmd::inspect::run(args),
        Command::Run(args) => cmd::run::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Report(args) => cmd::report::run(args),
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == BrokenPipe)
            // `--json` lines are written by serde_json, whose error keeps
            // the I/O error inside (not as its source).
            || e.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(BrokenPipe))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
