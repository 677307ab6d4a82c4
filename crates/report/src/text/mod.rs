//! Text for a terminal: each kind of run as its command prints it (scan summary, bench table, sweep grid,
//! soak series) with the progress lines of bench and sweep, a generic view of any run for `show`, and the
//! description of a target or the device listing of `info`, and the listing of stored runs.

mod bench;
mod info;
mod runs;
mod scan;
mod show;
mod soak;
mod sparkline;
mod sweep;

pub use bench::{bench_line, print_bench};
pub use info::info;
pub use runs::{runs, ListedRun};
pub use scan::print_scan;
pub use show::{show, LIST_MAX};
pub use soak::print_soak;
pub use sparkline::sparkline;
pub use sweep::{print_sweep, sweep_line};

/// The mark on every line of a run measured through the page cache.
pub fn buffered_mark(direct: bool) -> &'static str {
    if direct {
        ""
    } else {
        "  [BUFFERED: page cache, not the device]"
    }
}
