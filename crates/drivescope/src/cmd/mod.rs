//! One file per subcommand.

pub mod args;
pub mod bench;
pub mod cache_check;
pub mod checkpoints;
pub mod compare;
pub mod completions;
pub mod destructive;
pub mod diagnose;
pub mod export;
pub mod info;
pub mod lab;
pub mod manpage;
pub mod report;
pub mod resume;
pub mod runs;
pub mod scan;
pub mod screen;
pub mod screen_checkpoint;
pub mod screen_criteria;
pub mod screen_history;
pub mod screen_smart;
pub mod serve;
pub mod show;
pub mod soak;
pub mod store;
pub mod store_opts;
pub mod sweep;
pub mod time;
pub mod workload;

/// Exit codes, documented in the README.
/// A run that failed: bad input, a device error.
pub const EXIT_FAILURE: u8 = 1;
/// A request refused for safety (e.g. a write to a device).
pub const EXIT_REFUSED: u8 = 3;
/// The device went away during the run; the results so far were printed and saved.
pub const EXIT_DEVICE_LOST: u8 = 4;
/// A run stopped by SIGINT/SIGTERM; its partial results were printed.
pub const EXIT_INTERRUPTED: u8 = 130;

/// The terminal summary of a multi-rank run.
#[cfg(feature = "mpi")]
pub fn text_multi(
    r: &drivescope_record::MultiRecord,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    drivescope_report::text::print_multi(r, out)
}

/// Print generated text on stdout; a reader that closed the pipe early (`| head`) is no error.
pub fn print_all(bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// Print a document as pretty JSON on stdout (a reader that closed the pipe early is no error).
pub fn print_json<T: serde::Serialize>(doc: &T) -> anyhow::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(doc)?;
    bytes.push(b'\n');
    Ok(print_all(&bytes)?)
}

/// Writes what `exporter` makes of `runs` to `file`, or to stdout. The export is made in full first, so a
/// failed one leaves no file behind.
pub fn emit(
    exporter: &dyn drivescope_report::Exporter,
    runs: &[drivescope_report::Run],
    file: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    use anyhow::Context;
    let bytes = exporter.to_bytes(runs)?;
    match file {
        Some(path) => {
            std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
        }
        None => Ok(print_all(&bytes)?),
    }
}

/// A request refused for safety; exits with [`EXIT_REFUSED`].
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}
