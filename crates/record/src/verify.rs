//! The read-back check of a write scan (`scan --write --verify`).

use serde::{Deserialize, Serialize};

/// A run of consecutive sectors with the same fault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extent {
    pub offset: u64,
    pub lba: u64,
    /// Bytes.
    pub length: u64,
    /// Misplaced only: the offset whose content the first sector holds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub holds_offset: Option<u64>,
}

/// Sector counts of a verify pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyTotals {
    pub ok: u64,
    pub wrong: u64,
    pub misplaced: u64,
    pub lost: u64,
    pub unreadable: u64,
    /// Sectors not read back: the read-back left them untried, or they lie in failed commands
    /// whose sectors were not each read (absent in documents from before the field).
    #[serde(default)]
    pub unchecked: u64,
}

/// The `verify` section of a write-scan document (see docs/json.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyReport {
    pub seed: u64,
    /// Bytes per checked block (the logical sector size).
    pub unit: u64,
    /// False when the read-back was stopped before the end of the range.
    pub complete: bool,
    /// Blocks read back and checked.
    pub blocks: u64,
    pub totals: VerifyTotals,
    pub wrong: Vec<Extent>,
    pub misplaced: Vec<Extent>,
    pub lost: Vec<Extent>,
    pub unreadable: Vec<Extent>,
    /// Read-back pass: its duration and mean rate.
    pub read_duration_ns: u64,
    pub read_mb_per_s: f64,
}
