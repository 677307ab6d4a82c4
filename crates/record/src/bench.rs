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
    /// The test file drivescope created (and removed) in the directory that is the run's target,
    /// when the target is a directory; absent for a device, an existing file or `null:`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_file: Option<String>,
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
    /// Latency over all measured runs together: each command's whole time, from handing it
    /// to the kernel to its completion (fio's lat), split below into `submit_latency` and
    /// `completion_latency`.
    pub latency: LatencySummary,
    /// The completion-latency histogram behind `latency` (mergeable with other runs' and with
    /// a scan's; absent from documents stored before it was added).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<HistogramOut>,
    /// The submission call's own time per command (fio's slat).
    pub submit_latency: LatencySummary,
    /// From the accepted submission to the completion (fio's clat): near nothing for a
    /// command the kernel completes inside its submission call. Absent in older documents,
    /// whose `latency` was this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_latency: Option<LatencySummary>,
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
    /// to / from - 1; null where the rate before was zero (a stall that ended), which no
    /// ratio describes.
    pub change: Option<f64>,
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
    /// The drive's temperature over the run, or why it could not be read (absent in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<crate::TemperatureSeries>,
    /// Mean rate of the last 30 % of intervals.
    pub steady_mb_per_s: f64,
    /// First interval's rate over the steady rate.
    pub first_to_steady: Option<f64>,
    pub steps: Vec<Step>,
    /// Where the soak was continued after it stopped (`soak --resume`), oldest first: the
    /// series goes on at `at_ns` after a gap of wall-clock time nothing was measured in.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub resumed: Vec<SoakGap>,
    /// What `soak --resume` needs to continue a soak that stopped before its duration.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub resume: Option<SoakResume>,
    /// Set on a checkpoint: the document a soak saves while it runs (`soak --checkpoint`),
    /// replaced by its final document when it ends. One left in the store is a soak that is
    /// still running or was killed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub checkpoint: Option<crate::Checkpoint>,
}

/// A gap in a resumed soak's series: the soak stopped (killed, interrupted) and went on
/// later with `soak --resume`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SoakGap {
    /// Where the resumed part starts on the series' time axis (measured time, ns); the
    /// points before it were measured before the gap.
    pub at_ns: u64,
    /// Wall-clock time between the last measurement kept and the resumed part's start, ns.
    pub gap_ns: u64,
    /// When the resumed part started (RFC 3339).
    pub started_at: String,
}

/// The state a soak that stopped early leaves for `soak --resume`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SoakResume {
    /// The duration asked for, ns (`duration_ns` is the part measured so far).
    pub planned_ns: u64,
    /// Relative change of the rate that counts as a step.
    pub step_threshold: f64,
    /// Reads in percent of a mixed soak.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub read_pct: Option<u8>,
    /// Every latency so far (the document keeps only their summary).
    pub histogram: HistogramOut,
    /// Where each sequential worker's stream stood, in blocks from its slice's start.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub next_blocks: Vec<u64>,
    /// When the last measurement kept ended, ns after the Unix epoch.
    pub saved_unix_ns: u64,
}
