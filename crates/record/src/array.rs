//! An array's reads: each member alone, all members at once, and the array itself, with one workload and one
//! window, so that the rates compare.

use drivescope_probe::Array;
use serde::{Deserialize, Serialize};

/// The rates of one array read experiment (MB/s = 10^6 B/s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArrayReads {
    /// The array as the system shows it: kind, level and members (in the order of the rates below).
    pub array: Array,
    pub block_size: u64,
    pub queue_depth: u32,
    /// Time each read ran: each member alone, the members together, the array.
    pub duration_ns: u64,
    /// One per member, in member order; 0 for a member that could not be read.
    pub alone_mb_per_s: Vec<f64>,
    pub together_mb_per_s: Vec<f64>,
    /// The array read through its own device or file system by one reader; `None` when it was not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array_mb_per_s: Option<f64>,
    /// How many readers read the array at once for [`ArrayReads::readers_mb_per_s`] (each its own part);
    /// 0 when it was not read so (absent in older documents).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub readers: u32,
    /// The array read by [`ArrayReads::readers`] readers at once, their sum; `None` when not read so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readers_mb_per_s: Option<f64>,
    /// The array written through by one writer (sequential, the same block size and depth, over the first half
    /// of the diagnosis's test file or the array device), only where writes are allowed; `None` when not written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_mb_per_s: Option<f64>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}
