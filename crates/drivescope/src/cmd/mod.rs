//! One file per subcommand.

pub mod info;
pub mod lab;
pub mod scan;

/// Exit codes, documented in the README.
/// A run that failed: bad input, a device error.
pub const EXIT_FAILURE: u8 = 1;
/// A request refused for safety (e.g. a write to a device).
pub const EXIT_REFUSED: u8 = 3;
/// A run stopped by SIGINT/SIGTERM; its partial results were printed.
pub const EXIT_INTERRUPTED: u8 = 130;
