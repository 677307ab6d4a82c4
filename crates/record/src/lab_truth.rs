//! `drivescope lab truth MODEL --json`: what a scan of an emulated disk must find (see docs/lab.md).

use crate::kind::Kind;
use crate::scan::RateSummary;
use serde::{Deserialize, Serialize};

/// Whether the device works one command at a time or several at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueMode {
    /// One command at a time (a USB bridge without command queueing, a plain IDE disk).
    Serial,
    /// Up to `depth` commands overlap their per-command latency; the media transfer
    /// bandwidth is still shared. A model with a seek (a disk with NCQ or behind UAS) also
    /// reorders its queue: it serves next the waiting command with the shortest positioning.
    Parallel,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TruthZone {
    pub index: usize,
    pub offset: u64,
    pub length: u64,
    /// Media rate (before overhead and cap) at the zone's start.
    pub media_mb_per_s: f64,
    /// Expected scan rate over the zone at `block_size`, QD1.
    pub mb_per_s: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TruthPosition {
    pub offset: u64,
    pub length: u64,
    pub media_mb_per_s: f64,
    /// Expected sequential rate over `[offset, offset + length)` at `block_size`, QD1.
    pub mb_per_s: f64,
    /// The same at QD32 (equal to `mb_per_s` on a serial device).
    pub mb_per_s_qd32: f64,
    /// The same at QD1 during the warm-up (only for models with one).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mb_per_s_cold: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spot {
    pub offset: u64,
    pub lba: u64,
    pub length: u64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub read: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub write: Option<bool>,
    /// A bad spot's margin: bytes on either side whose sectors read fine once, then fail.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub marginal: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    pub size: u64,
    pub mb_per_s: f64,
}

/// The ground truth of a model (`drivescope lab truth MODEL --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Truth {
    pub schema: String,
    pub kind: Kind,
    pub model: String,
    pub description: String,
    pub size: u64,
    pub logical_block_size: u64,
    /// Block size the expected rates are stated for.
    pub block_size: u64,
    pub queue_mode: QueueMode,
    pub queue_depth: u32,
    pub interface_mb_per_s: Option<f64>,
    pub overhead_ns: u64,
    pub lookahead_ns: u64,
    pub seek_min_ns: Option<u64>,
    pub seek_max_ns: Option<u64>,
    pub rpm: Option<f64>,
    /// Mean rotational latency (half a revolution) of a non-sequential command.
    pub avg_rotation_ns: Option<u64>,
    /// Expected full-range scan rate at `block_size`, QD1: mean (bytes / time), min and max
    /// over the positions.
    pub mb_per_s: RateSummary,
    /// Mean rate of the last 5 % / the first 5 % (as `scan` defines `zone_ratio`).
    pub zone_ratio: f64,
    /// Expected duration of a full scan at `block_size`, QD1, without slow or bad spots.
    pub scan_ns: u64,
    pub zones: Vec<TruthZone>,
    pub positions: Vec<TruthPosition>,
    pub slow: Vec<Spot>,
    pub bad: Vec<Spot>,
    pub lost_writes: Vec<Spot>,
    pub read_cache: Option<Cache>,
    pub write_cache: Option<Cache>,
    /// Media write rate as a fraction of the read rate.
    pub write_rate_factor: f64,
    pub warmup_factor: Option<f64>,
    pub warmup_ns: Option<u64>,
    pub seed: u64,
    /// Expected rate of uniformly random 4 KiB reads over the whole disk at QD1 (IOPS), after
    /// any warm-up (see docs/lab.md for how it is computed).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rnd4k_qd1_iops: Option<f64>,
    /// The same with 32 commands always outstanding.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rnd4k_qd32_iops: Option<f64>,
    /// `rnd4k_qd32_iops / rnd4k_qd1_iops`: about 1 on a device that serves one command at a
    /// time in arrival order, more where it queues (NCQ, UAS) and reorders or overlaps.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rnd4k_queueing_gain: Option<f64>,
    /// The shared bus the device is stated on (`lab truth --bus`), MB/s: the aggregate rate of
    /// all devices on it cannot exceed this. The rates above are the device's alone on the bus
    /// (never above the bus rate).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub bus_mb_per_s: Option<f64>,
    /// The disk's temperature model (`[temperature]`): it serves `temp1_input` beside its image.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub temperature: Option<crate::TruthTemperature>,
    /// Thermal throttling: the time to throttle, the factor, the cooling time (only for models with one).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub throttle: Option<crate::ThrottleTruth>,
    /// A drive-managed SMR disk's media cache (models with an `[smr]` section).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub smr: Option<crate::SmrTruth>,
    /// A flash drive with garbage collection (models with a `flash` section).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub flash: Option<crate::FlashTruth>,
    /// A disk that fakes its capacity: how much it really keeps and what it does past that.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub capacity: Option<crate::CapacityTruth>,
    /// A disk that goes away mid-run: when, and what every command fails with after.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub vanish: Option<VanishTruth>,
    /// What the write cache does with a flush (models with a `write_cache`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub flush: Option<FlushTruth>,
}

/// What a lab disk's write cache does with a flush, and what a flush after X bytes costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlushTruth {
    /// `honoured`, `ignored` or `partial`.
    pub policy: String,
    /// Share of the dirty data a flush writes out before it returns (1 honoured, 0 ignored).
    pub flushed_share: f64,
    /// Power-loss protection declared.
    pub protected: bool,
    /// `false`: a non-volatile fast tier (flushes return at once, and a power cut loses nothing).
    #[serde(default = "crate::lab_truth::yes")]
    pub volatile: bool,
    /// Flushes return before the data reach the media, and nothing keeps the cache: a correct
    /// flush-honesty verdict says so (where the cache is large enough to be seen).
    pub flushes_early: bool,
    /// Cache size (bytes).
    pub cache_bytes: u64,
    /// Rate writes enter the cache (MB/s, the interface cap included).
    pub fill_mb_per_s: f64,
    /// Rate the cache drains to the media (MB/s) at offset 0.
    pub drain_mb_per_s: f64,
    /// A flush after writing 1 MiB as fast as the cache takes it, from an empty cache (ns).
    pub flush_ns_after_1mib: u64,
    /// The same after writing as much as the cache holds when full.
    pub flush_ns_after_full: u64,
}

/// When a lab disk goes away and how its commands fail after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VanishTruth {
    /// Bytes of reads it serves before it goes.
    pub after_read: u64,
    /// The error every command fails with after (5 EIO, 19 ENODEV).
    pub errno: i32,
}

fn yes() -> bool {
    true
}
