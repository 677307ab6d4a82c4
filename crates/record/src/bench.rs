//! The bench, sweep and soak records (see docs/json.md).

use crate::engine::{DataPattern, EngineKind, Reap};
use crate::header::{Direction, Header};
use drivescope_stats::{HistogramOut, LatencySummary, SeriesPoint};
use serde::{Deserialize, Serialize};

/// What a bench, sweep or soak says about the region it worked on (flattened after the header).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Workload {
    /// Bytes of the test file or device region used.
    pub size: u64,
    pub data: DataPattern,
    /// False when the page cache was in the way (a file system without O_DIRECT, allowed
    /// with --allow-buffered): the results are then not the device's.
    pub direct: bool,
    pub interrupted: bool,
}

/// One measured run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunValues {
    pub mb_per_s: f64,
    pub iops: f64,
    pub duration_ns: u64,
    pub commands: u64,
    pub errors: u64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub cpu_ns_per_command: f64,
}

/// How a test issued its commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Load {
    /// Bytes per command.
    pub block_size: u64,
    /// Commands in flight per thread.
    pub queue_depth: u32,
    pub threads: u32,
    pub engine: EngineKind,
    /// How completions were awaited: "sleep" (as fio) or "poll" (documents from before this
    /// field read as "sleep").
    #[serde(default = "Reap::before_the_field")]
    pub reap: Reap,
}

/// One test (one rw mode) over its runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TestResult {
    pub name: String,
    pub rw: Direction,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub read_pct: Option<u8>,
    #[serde(flatten)]
    pub load: Load,
    /// Best run, as CrystalDiskMark reports.
    pub mb_per_s: f64,
    pub iops: f64,
    /// Mean and sample standard deviation over the measured runs.
    pub mean_mb_per_s: f64,
    pub stddev_mb_per_s: f64,
    pub mean_iops: f64,
    /// Completion latency over all measured runs together.
    pub latency: LatencySummary,
    /// The completion-latency histogram behind `latency` (mergeable with other runs' and with
    /// a scan's; absent from documents stored before it was added).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<HistogramOut>,
    pub submit_latency: LatencySummary,
    pub cpu_ns_per_command: f64,
    pub errors: u64,
    pub runs: Vec<RunValues>,
}

/// `drivescope bench`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchRecord {
    #[serde(flatten)]
    pub header: Header,
    #[serde(flatten)]
    pub workload: Workload,
    pub profile: String,
    pub runs: u32,
    pub duration_ns: u64,
    pub pause_ns: u64,
    pub tests: Vec<TestResult>,
}

/// One cell of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepCell {
    pub queue_depth: u32,
    pub threads: u32,
    pub engine: EngineKind,
    /// How completions were awaited: "sleep" (as fio) or "poll" (documents from before this
    /// field read as "sleep").
    #[serde(default = "Reap::before_the_field")]
    pub reap: Reap,
    pub iops: f64,
    pub mb_per_s: f64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub errors: u64,
}

/// `drivescope sweep`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SweepRecord {
    #[serde(flatten)]
    pub header: Header,
    #[serde(flatten)]
    pub workload: Workload,
    pub pattern: String,
    pub rw: Direction,
    pub block_size: u64,
    pub duration_ns: u64,
    pub cells: Vec<SweepCell>,
    /// IOPS of the best cell over IOPS at Q1T1.
    pub queueing_gain: Option<f64>,
    pub best: Option<SweepCell>,
}

/// A step in a soak's rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Where the rate changed, from the start of the run.
    pub t_ns: u64,
    pub from_mb_per_s: f64,
    pub to_mb_per_s: f64,
    /// to / from - 1.
    pub change: f64,
}

/// `drivescope soak`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SoakRecord {
    #[serde(flatten)]
    pub header: Header,
    #[serde(flatten)]
    pub workload: Workload,
    pub test: String,
    pub rw: Direction,
    #[serde(flatten)]
    pub load: Load,
    pub duration_ns: u64,
    pub interval_ns: u64,
    pub bytes: u64,
    pub commands: u64,
    pub errors: u64,
    pub mb_per_s: f64,
    pub iops: f64,
    pub latency: LatencySummary,
    pub series: Vec<SeriesPoint>,
    /// Mean rate of the last 30 % of intervals.
    pub steady_mb_per_s: f64,
    /// First interval's rate over the steady rate.
    pub first_to_steady: Option<f64>,
    pub steps: Vec<Step>,
}
