//! What a command says on stderr besides its results. Warnings and errors are always said; the
//! notes that only tell what happened (progress lines, `saved as run N`) are left out with
//! `--json` or `--quiet`, so that a script reading the document sees only what needs a person.

use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Leave the notes out from now on (`--json`, `--quiet`); set once, as the command starts.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether the notes are left out.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// A note on stderr, `drivescope: …`, unless quiet.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        if !$crate::say::quiet() {
            eprintln!("drivescope: {}", format_args!($($arg)*));
        }
    };
}

/// A line on stderr as it is (progress lines in a format of their own), unless quiet.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        if !$crate::say::quiet() {
            eprintln!($($arg)*);
        }
    };
}

/// A warning or an error on stderr, `drivescope: …`: said even when quiet.
#[macro_export]
macro_rules! warn {
    ($($arg:tt)*) => {
        eprintln!("drivescope: {}", format_args!($($arg)*))
    };
}
