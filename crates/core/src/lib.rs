//! drivescope-core: targets, the timed I/O engine, workloads and their completions.

pub mod aligned;
pub mod bench;
pub mod capacity;
pub mod checkpoint;
pub mod durability;
pub mod engine;
pub mod gone;
pub mod loopdev;
pub mod observer;
pub mod rank_target;
pub mod replay;
pub mod rng;
pub mod safety;
pub mod scan;
pub mod screen;
pub mod steady;
pub mod target;
pub mod testfile;

/// Sizes, rates and durations: the `drivescope-units` crate, under its old path.
pub use drivescope_units as units;
