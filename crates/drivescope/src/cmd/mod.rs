//! One file per subcommand.

pub mod info;
pub mod lab;
pub mod scan;

/// Exit code for a run that failed (bad input, device error). Documented in README.
pub const EXIT_FAILURE: u8 = 1;
