//! drivescope-timer: how long a real workload takes, cold and warm, and how much of it was the disk.
//!
//! [`measure`] runs a command several times per mode: cold (dirty data synced and the page cache dropped
//! before every run, which needs root) and warm (after an untimed run). Each run's wall time comes from the
//! monotonic clock around fork and wait; its user and system CPU from the kernel's accounting of the child
//! (`wait4`); the I/O from the block devices' own counters (`/proc/diskstats` before and after) and, where a
//! cgroup v2 of its own can be made with the io controller, from the cgroup's `io.stat`. With a
//! [`TracePlan`] (`--trace`), the first timed run of the first mode is also traced at the block layer and
//! reduced to the workload's I/O fingerprint.

pub mod caches;
pub mod cgroup;
mod child;
pub mod diskstats;
pub mod error;
mod measure;
pub mod stats;
mod traced;

pub use caches::{can_drop_caches, drop_caches};
pub use child::{run_once, Outcome};
pub use error::{CgroupError, TimerError};
pub use measure::{finish, measure, summarized, Failed, Plan, Progress, Stop};
pub use traced::TracePlan;
