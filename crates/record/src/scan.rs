//! The scan's run record: the scan and quick-scan documents (see docs/json.md).

use crate::engine::{EngineKind, Reap};
use crate::extents::{FailedExtent, SlowRegion};
use crate::header::{Direction, Header};
use crate::surface::{ErrorBudget, PassState, Surface, UntriedExtent};
use crate::verify::VerifyReport;
use drivescope_stats::{
    BandCount, BinState, CurvePoint, HistogramOut, LatencySummary, SeriesPoint,
};
use serde::{Deserialize, Serialize};

/// A slow or failed command (or failed sector).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub offset: u64,
    pub lba: u64,
    pub latency_ns: u64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub errno: Option<i32>,
}

/// One quick-scan region's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Region {
    pub index: u32,
    pub offset: u64,
    /// Bytes read in the region.
    pub bytes: u64,
    pub mb_per_s: f64,
    /// Latency of the region's first command (includes the seek into it).
    pub first_ns: u64,
}

/// Overall, lowest and highest rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateSummary {
    /// Bytes over the whole run's wall-clock time (errors, their re-reads and the probes after them included).
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    /// A full scan that met errors: the rate of its reads without the time spent on them (failed commands, their
    /// sector re-reads, the probes and pauses of the lost-device rule, the later passes), MB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub without_errors: Option<f64>,
    /// That time, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_ns: Option<u64>,
}

/// A scan or quick-scan document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScanRecord {
    /// Kind `scan` or `quick_scan`.
    #[serde(flatten)]
    pub header: Header,
    pub engine: EngineKind,
    /// How completions were awaited: "poll" or "sleep" (documents from before `--reap`
    /// were all "sleep").
    #[serde(default = "Reap::before_the_field")]
    pub reap: Reap,
    pub block_size: u64,
    pub queue_depth: u32,
    pub offset: u64,
    pub length: u64,
    pub slow_threshold_ns: u64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub dwell_ns: Option<u64>,
    /// True when the run was stopped before the end of its range.
    pub interrupted: bool,
    /// Bytes of the range actually covered by issued main commands (== length when complete).
    pub covered: u64,
    pub bytes: u64,
    pub commands: u64,
    pub failed_commands: u64,
    pub duration_ns: u64,
    pub mb_per_s: RateSummary,
    pub zone_ratio: Option<f64>,
    pub curve: Vec<CurvePoint>,
    /// Completion latency of successful commands (from accepted submission to completion).
    pub latency: LatencySummary,
    /// Submission latency (the submission call's own time; 0 for psync and null).
    pub submit_latency: LatencySummary,
    pub bands: Vec<BandCount>,
    pub histogram: HistogramOut,
    pub slow: Vec<Event>,
    pub slow_total: u64,
    pub failed: Vec<Event>,
    pub failed_total: u64,
    /// Adjacent failed sectors with the same errno, in position order (at most 10 000;
    /// documents from before the field have none: see
    /// [`ScanRecord::failed_extents_or_derived`]).
    #[serde(default)]
    pub failed_extents: Vec<FailedExtent>,
    /// Set when `failed_extents` reached its cap: the list covers the failures before this
    /// offset; those from here on are counted in `failed_total` only.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub failed_extents_cut: Option<u64>,
    /// Adjacent slow commands, in position order (at most 10 000).
    #[serde(default)]
    pub slow_regions: Vec<SlowRegion>,
    /// Set when `slow_regions` reached its cap: the list covers the slow commands before
    /// this offset.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub slow_regions_cut: Option<u64>,
    /// Stretches never read (or written), in position order (at most 10 000).
    #[serde(default)]
    pub untried_extents: Vec<UntriedExtent>,
    /// Set when `untried_extents` reached its cap: where the list stops.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub untried_extents_cut: Option<u64>,
    /// How much of the range is good, failed and untried, and the time error handling took
    /// (full scans; absent in documents from before the field).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub surface: Option<Surface>,
    /// `--error-budget` of a full scan (absent for quick scans and older documents).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error_budget: Option<ErrorBudget>,
    /// `--retries`: passes over the failed sectors within the error budget.
    #[serde(skip_serializing_if = "is_zero", default)]
    pub retries: u32,
    pub series: Vec<SeriesPoint>,
    /// The drive's temperature over the run, or why it could not be read (absent in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<crate::TemperatureSeries>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub regions: Option<Vec<Region>>,
    /// A write scan (`scan --write`): the range was written, not read.
    #[serde(default)]
    pub write: bool,
    /// Curve bins asked for (`--points`).
    #[serde(default)]
    pub points: usize,
    /// Interval of the time series, ns.
    #[serde(default)]
    pub interval_ns: u64,
    /// Set when the device went away during the run: what happened, in one line.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub device_lost: Option<String>,
    /// Set when a command failed, nothing read fine after it, and whether the device had gone
    /// away could not be told (no place far enough from every failure to probe): why, in one
    /// line. The run was not taken as lost.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub lost_inconclusive: Option<String>,
    /// The stored run this one continues (`scan --resume RUN`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub resumed_from: Option<i64>,
    /// What `scan --resume` needs to continue an interrupted scan.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub resume: Option<ResumeState>,
    /// Read-back check of a `scan --write --verify`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub verify: Option<VerifyReport>,
    /// Set on a checkpoint: the document a scan saves while it runs (`scan --checkpoint`),
    /// replaced by its final document when it ends. One left in the store is a scan that is
    /// still running or was killed; `interrupted` and `resume` say where it got to.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub checkpoint: Option<Checkpoint>,
    /// What checkpointing cost this run (a resumed run: its continuation), when it was on.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub checkpoints: Option<CheckpointCost>,
}

/// What a scan's checkpoints cost it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointCost {
    /// The interval between checkpoints, ns.
    pub every_ns: u64,
    /// Checkpoints taken.
    pub count: u64,
    /// Time the scan issued nothing because of them (waiting for the commands in flight and
    /// the sector re-reads owed, then building the document), ns.
    pub held_ns: u64,
    /// CPU time of the thread that wrote them to the store, ns.
    pub writer_cpu_ns: u64,
}

/// Who saved a checkpoint: enough to tell a scan that is still running from one that was
/// killed (a process of this id that started at this time, in this boot of the host).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Process id of the scan.
    pub pid: u32,
    /// When the process started, in clock ticks after boot (`/proc/PID/stat`, field 22).
    pub process_start: u64,
    /// The boot it ran in (`/proc/sys/kernel/random/boot_id`).
    pub boot_id: String,
    /// The interval between checkpoints, ns.
    pub every_ns: u64,
}

/// The state an interrupted sequential scan leaves for `scan --resume`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResumeState {
    /// Where the next command starts.
    pub next_offset: u64,
    /// The curve bin the last command fell in, as far as it got.
    pub last_bin: Option<BinState>,
    /// Submission latencies so far (the document keeps only their summary).
    pub submit_histogram: HistogramOut,
    /// Every curve bin reached so far (later passes add to bins behind `next_offset`); absent
    /// in documents from before the field, which continue from `last_bin` alone.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub bins: Vec<BinState>,
    /// Where the first pass and the passes after it stand.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub passes: Option<PassState>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl ScanRecord {
    /// A write scan writes its range; every other scan reads it.
    pub fn direction(&self) -> Direction {
        if self.write {
            Direction::Write
        } else {
            Direction::Read
        }
    }

    /// True for a quick scan (256 regions) rather than a full-range scan.
    pub fn is_quick(&self) -> bool {
        self.header.kind == crate::Kind::QuickScan
    }
}
