//! The flush-honesty experiment of a diagnosis: the sustained write and the timed write-then-flush pairs it
//! ran on the test file or device region, and what the storage said of its cache. The verdict is the
//! analysis' rule over these (the one `drivescope durability` uses).

use crate::durability::{CacheWord, FlushPair, SustainedWrite};
use serde::{Deserialize, Serialize};

/// A sustained write, then writes of growing size each followed by a timed flush.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiagnoseFlush {
    /// Bytes from offset 0 the experiment wrote to.
    pub region: u64,
    /// The writes bypassed the page cache (O_DIRECT).
    pub direct: bool,
    /// What the storage says of its cache (the kernel's `queue/write_cache`, a declared power-loss protection).
    #[serde(default)]
    pub cache: CacheWord,
    /// The stream the media write rate was taken from (absent when it did not finish).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sustained: Option<SustainedWrite>,
    /// The write-then-flush pairs, in the order run.
    #[serde(default)]
    pub pairs: Vec<FlushPair>,
    pub bytes_written: u64,
    /// `fdatasync` calls made.
    pub flushes: u64,
    /// Flush requests the block layer counted on the device under the target during the experiment (as
    /// `durability` counts them); absent where the kernel does not count them, and in older documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_flushes: Option<u64>,
    /// The rest before it (ns), for a cache the write experiment filled to drain (0 in documents before it).
    #[serde(default)]
    pub rest_ns: u64,
    /// The time the flush run was given and the time the experiment took with its rest (ns).
    pub budget_ns: u64,
    pub duration_ns: u64,
}
