//! drivescope-core: targets, the timed I/O engine, workloads and their completions.

pub mod engine;
pub mod loopdev;
pub mod scan;
pub mod target;
pub mod units;
