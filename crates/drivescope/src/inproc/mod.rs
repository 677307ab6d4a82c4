//! The binary's own tests, in-process: a command line parsed as `main` parses it, run through the
//! same dispatch on this thread, its results taken from the one stdout writer and its exit code
//! from the one `finish`. No root, no devices: targets are `null:SIZE`, files and directories made
//! here, stores are SQLite files made here.

mod capacity_steady;
mod lab_info;
mod refusals;
mod replay;
mod scan;
mod store_views;
mod usage;
mod workload;

use crate::finish::{capture, outcome_of_error, said, Outcome};
use clap::FromArgMatches;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// How a command ended.
#[derive(Debug)]
pub struct Ran {
    pub outcome: Outcome,
    /// What it printed as results.
    pub stdout: String,
    /// The error it ended with, in the line `main` says.
    pub error: Option<String>,
}

impl Ran {
    /// The exit code.
    pub fn code(&self) -> u8 {
        self.outcome.code()
    }

    /// Its stdout as one JSON document.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.stdout))
    }

    /// Ended with `code`, else a panic that shows how it ended.
    #[track_caller]
    pub fn ends(&self, code: u8) -> &Ran {
        assert_eq!(self.code(), code, "{self:#?}");
        self
    }

    /// The error line, which must be there.
    #[track_caller]
    pub fn error(&self) -> &str {
        self.error
            .as_deref()
            .unwrap_or_else(|| panic!("no error: {self:#?}"))
    }
}

/// Run `drivescope ARGS…` in this process.
pub fn drive(args: &[&str]) -> Ran {
    let argv = std::iter::once("drivescope").chain(args.iter().copied());
    let parsed = crate::cli()
        .try_get_matches_from(argv)
        .and_then(|mut m| crate::Cli::from_arg_matches_mut(&mut m));
    let command = match parsed {
        Ok(cli) => cli.command,
        Err(e) => {
            // Help and version are printed on stdout and end 0; the rest are usage errors.
            let usage = e.use_stderr();
            return Ran {
                outcome: if usage {
                    Outcome::Usage
                } else {
                    Outcome::Success
                },
                stdout: if usage { String::new() } else { e.to_string() },
                error: usage.then(|| e.to_string()),
            };
        }
    };
    crate::say::set_quiet(true);
    capture::start();
    let result = crate::run(command);
    let stdout = String::from_utf8(capture::end()).expect("UTF-8 results");
    match result {
        Ok(outcome) => Ran {
            outcome,
            stdout,
            error: None,
        },
        Err(e) => Ran {
            outcome: outcome_of_error(&e),
            stdout,
            error: Some(said(&e)),
        },
    }
}

/// Run it in a session stopped before it starts, as a SIGINT at once would.
pub fn drive_stopped(args: &[&str]) -> Ran {
    crate::runner::session::tests::stop_sessions(true);
    let ran = drive(args);
    crate::runner::session::tests::stop_sessions(false);
    ran
}

/// Run it in a session that stops at its first checkpoint, as a SIGINT in the middle would.
pub fn drive_to_checkpoint(args: &[&str]) -> Ran {
    crate::runner::session::tests::stop_at_checkpoint(true);
    let ran = drive(args);
    crate::runner::session::tests::stop_at_checkpoint(false);
    ran
}

/// A directory of a test's own, removed when it ends.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "drivescope-inproc-{}-{n}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Scratch(dir)
    }

    pub fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }

    pub fn dir(&self) -> &Path {
        &self.0
    }

    /// An empty directory in it, for a run that makes its test files there.
    pub fn subdir(&self, name: &str) -> String {
        let path = self.path(name);
        std::fs::create_dir(&path).expect("directory");
        path
    }

    /// A store of its own (`--store PATH`).
    pub fn store(&self) -> String {
        self.path("runs.db")
    }

    /// A file of `size` bytes of a pattern, for reads.
    pub fn file(&self, name: &str, size: usize) -> String {
        let bytes: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
        let path = self.path(name);
        std::fs::write(&path, bytes).expect("test file");
        path
    }
}

/// Nothing is left in `dir` (a run's test files are removed when it ends).
#[track_caller]
pub fn assert_empty(dir: &str) {
    let left: Vec<_> = std::fs::read_dir(dir).expect("directory").collect();
    assert!(left.is_empty(), "left in {dir}: {left:?}");
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
