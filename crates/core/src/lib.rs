//! drivescope-core: targets, the timed I/O engine, workloads and their completions.

pub mod loopdev;
pub mod units;
