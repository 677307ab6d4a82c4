//! `drivescope diagnose`: the experiments it ran on a device, their raw numbers, and what they showed.
//!
//! The record keeps the measurements themselves (a sequential stream over time, re-read rates by working set,
//! a sustained write, queue depths, block sizes); the findings are computed from them by the analysis rules,
//! so a stored diagnosis can be read again by a newer version.

use crate::bench::Workload;
use crate::header::Header;
use serde::{Deserialize, Serialize};

/// The experiments of a diagnosis, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Experiment {
    /// Sequential reads over time from the first command: a slow start, and the rate by position.
    WarmUp,
    /// After a lasting fall in the warm-up stream's rate: a rest, then the same region read again (thermal
    /// throttling recovers after cooling).
    Throttle,
    /// Rate by position from outer to inner.
    Zones,
    /// Sequential reads of several shapes where the rate is flat: a link that caps them.
    Link,
    /// Random 4 KiB reads at queue depth 1 and 32.
    Queueing,
    /// Re-reads of growing working sets: a read cache and its size.
    ReadCache,
    /// A sustained sequential write: a write cache (or SLC cache) and the rate behind it.
    WriteCache,
    /// A sustained write for the media's write rate, then writes of growing size each followed by a timed
    /// flush: flushes that return before the data can have reached the media. Runs after the write cache's
    /// sustained write, on the same test file or device region.
    FlushHonesty,
    /// Random writes until the rate falls, idle, random writes again: a drive-managed SMR disk's media cache.
    Smr,
    /// An array's members read alone and together, and the array with one and several readers. Runs first,
    /// and only on an array (members found, or named), so it is not in [`Experiment::ALL`].
    Array,
}

impl Experiment {
    pub const ALL: [Experiment; 9] = [
        Experiment::WarmUp,
        Experiment::Throttle,
        Experiment::Zones,
        Experiment::Link,
        Experiment::Queueing,
        Experiment::ReadCache,
        Experiment::WriteCache,
        Experiment::FlushHonesty,
        Experiment::Smr,
    ];

    /// The name people read.
    pub fn label(self) -> &'static str {
        match self {
            Experiment::WarmUp => "warm-up",
            Experiment::Throttle => "throttle",
            Experiment::Zones => "zones",
            Experiment::Link => "link cap",
            Experiment::Queueing => "queueing",
            Experiment::ReadCache => "read cache",
            Experiment::WriteCache => "write cache",
            Experiment::Smr => "SMR",
            Experiment::FlushHonesty => "flush honesty",
            Experiment::Array => "array",
        }
    }
}

/// An experiment that did not run, or stopped early, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub experiment: Experiment,
    pub why: String,
}

/// One stretch of a sequential stream: when it ended (from the stream's first command), where it read, how
/// fast, and in which pass over the region.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StreamPoint {
    pub t_ns: u64,
    /// Mean offset of the stretch's commands.
    pub offset: u64,
    pub bytes: u64,
    pub mb_per_s: f64,
    /// 0 for the first pass over the region, 1 for the second, …
    pub pass: u32,
}

/// The rate over one stretch of positions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PositionRate {
    pub offset: u64,
    pub length: u64,
    pub mb_per_s: f64,
}

/// Sequential reads over `[0, region)`, pass after pass, from the device's first command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamData {
    pub block_size: u64,
    pub queue_depth: u32,
    pub region: u64,
    pub duration_ns: u64,
    pub points: Vec<StreamPoint>,
}

/// Where the rate-by-position curve came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CurveSource {
    /// The settled part of the warm-up stream (the stream covered the whole device).
    Stream,
    /// A 256-region quick scan.
    QuickScan,
}

/// Rate by position over the whole device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZoneData {
    pub source: CurveSource,
    pub curve: Vec<PositionRate>,
}

/// One sequential read test of the link experiment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ShapeRate {
    pub block_size: u64,
    pub queue_depth: u32,
    pub mb_per_s: f64,
}

/// Sequential reads of several shapes over the stretch where the rate curve is flat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkData {
    /// The flat top of the rate curve: its rate, and the share of positions that reach it.
    pub top_mb_per_s: f64,
    pub top_share: f64,
    pub shapes: Vec<ShapeRate>,
    /// Where in the region the shapes stopped reading (what a read cache may still hold lies before it;
    /// 0 when no shape was read, and in documents before it was recorded).
    #[serde(default)]
    pub read_to: u64,
}

/// Random reads at queue depth 1 and deeper.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct QueueingData {
    pub block_size: u64,
    pub queue_depth: u32,
    pub q1_iops: f64,
    pub deep_iops: f64,
    pub deep_mb_per_s: f64,
}

/// One working set: read once (it may then be cached), read again and timed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WorkingSetPoint {
    pub size: u64,
    /// The first read of the working set.
    pub first_mb_per_s: f64,
    /// The timed second read.
    pub again_mb_per_s: f64,
    /// The media rate over the same positions (from the warm-up stream), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_mb_per_s: Option<f64>,
}

/// Re-reads of working sets that double, then bisect around a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkingSetData {
    pub block_size: u64,
    pub queue_depth: u32,
    /// The largest working set the experiment could use (the region).
    pub limit: u64,
    /// Where each working set begins, reading on to the region's end and then from its head: past
    /// what the experiment before read last, whose data a read cache may still hold (0 in
    /// documents before it was recorded).
    #[serde(default)]
    pub start: u64,
    /// In the order measured.
    pub points: Vec<WorkingSetPoint>,
}

/// A sustained sequential write over `[0, region)`, wrapping around.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteData {
    pub block_size: u64,
    pub queue_depth: u32,
    pub region: u64,
    pub written: u64,
    pub duration_ns: u64,
    /// Stretches of the write in the order written (time from the first command, position, rate).
    pub points: Vec<StreamPoint>,
}

/// A diagnosis (`"kind": "diagnose"`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DiagnoseRecord {
    #[serde(flatten)]
    pub header: Header,
    #[serde(flatten)]
    pub workload: Workload,
    /// The time the run was allowed.
    pub budget_ns: u64,
    pub elapsed_ns: u64,
    /// Whether write experiments were allowed (a test file, or a device offered with --destructive).
    pub writes: bool,
    /// The device failed or went away during the run: the error, with what was measured before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_error: Option<String>,
    /// A command failed and nothing read fine after it to the end of the run, but the lost-device rule could
    /// not tell whether the device went away (no place lay far enough from the failures to probe): its reason,
    /// as a scan's `lost_inconclusive`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_inconclusive: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_up: Option<StreamData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zones: Option<ZoneData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queueing: Option<QueueingData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_cache: Option<WorkingSetData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cache: Option<WriteData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle: Option<crate::ThrottleData>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smr: Option<crate::SmrData>,
    /// The flush-honesty experiment's timings (absent when it did not run, and in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_honesty: Option<crate::DiagnoseFlush>,
    /// An array's members alone and together and the array itself (absent when the target is no array, and in
    /// older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array: Option<crate::ArrayReads>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skipped>,
    /// Commands of the experiments that failed and reads that were slow, by place (absent when none did, and in
    /// older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spots: Option<crate::Spots>,
    /// The drive's temperature over the run, or why it could not be read (absent in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<crate::TemperatureSeries>,
    /// What each experiment showed, including what it ruled out, one line each (from the analysis).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outcomes: Vec<Outcome>,
    /// What `diagnose --resume` continues from: present while experiments of the plan have not run to
    /// their end (a checkpoint, a run stopped by a signal or a failed device).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<DiagnoseResume>,
    /// Who saved this document while the diagnosis went on (a checkpoint, saved after each experiment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<crate::Checkpoint>,
}

/// The state an unfinished diagnosis leaves for `diagnose --resume`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiagnoseResume {
    /// The experiments planned, in the order they run.
    pub planned: Vec<Experiment>,
    /// The experiments that ran to their end (their measurements, or why they were skipped, are kept); the
    /// others run again whole.
    pub finished: Vec<Experiment>,
    /// The part of the budget the finished experiments used, ns (the resumed run has the rest).
    pub finished_ns: u64,
    /// The directory given as the target, when the experiments ran on a test file in it (the target's
    /// `path` is the test file's): the target a resumed run takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory: Option<String>,
    /// The test file the run writes in its directory target, named on a checkpoint: a resumed run removes
    /// it when it is still there (the process that made it was killed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_file: Option<OwnFile>,
}

/// A file a run created, told from any other by its path and inode number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnFile {
    pub path: String,
    pub inode: u64,
}

impl DiagnoseRecord {
    /// Forget what experiment `e` measured or why it was skipped, and the outcomes (recomputed over every
    /// experiment): it runs again whole.
    pub fn clear(&mut self, e: Experiment) {
        match e {
            Experiment::WarmUp => self.warm_up = None,
            Experiment::Zones => self.zones = None,
            Experiment::Link => self.link = None,
            Experiment::Queueing => self.queueing = None,
            Experiment::ReadCache => self.read_cache = None,
            Experiment::WriteCache => self.write_cache = None,
            Experiment::Throttle => self.throttle = None,
            Experiment::Smr => self.smr = None,
            Experiment::FlushHonesty => self.flush_honesty = None,
            Experiment::Array => self.array = None,
        }
        self.skipped.retain(|s| s.experiment != e);
        self.outcomes.clear();
    }

    /// The storage broke its promise: the flush-honesty experiment found flushes that return before the
    /// data can have reached the media (its outcome is `found`), as `DurabilityRecord::broke_promise` says
    /// of the same experiment in `durability`.
    pub fn broke_promise(&self) -> bool {
        self.outcomes
            .iter()
            .any(|o| o.experiment == Experiment::FlushHonesty && o.verdict == Verdict::Found)
    }
}

/// What one experiment showed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub experiment: Experiment,
    pub verdict: Verdict,
    pub text: String,
}

/// How an experiment ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// It found the behaviour (a finding says what).
    Found,
    /// It ran to a conclusion and the behaviour is not there.
    NotFound,
    /// It could not settle the question (budget, noise): said, never guessed.
    Inconclusive,
    /// It did not run.
    Skipped,
}
