//! The one progress bar factory: on stderr, with an ETA,
//! hidden when stderr is not a terminal or with `--quiet`.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over `total` units of work (keys inserted plus keys queried).
pub fn bar(total: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(
        Some(total),
        ProgressDrawTarget::stderr(),
    );
    let style = ProgressStyle::with_template(
        "{spinner} {elapsed_precise} [{bar:40}] {percent:>3}% ETA {eta} {msg}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    pb.set_style(style);
    pb
}
