//! `drivescope bench` run by several processes at once under an MPI launcher (`kind: "multi"`,
//! see docs/json.md and docs/scale.md): the aggregate of every rank per test, and each rank's
//! own bench record.

use crate::bench::{BenchRecord, Load};
use crate::header::{Direction, Header};
use drivescope_stats::{HistogramOut, LatencySummary};
use serde::{Deserialize, Serialize};

/// One rank's measured run on the common clock (CLOCK_REALTIME, ns since the Unix epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunWindow {
    pub start_ns: u64,
    pub end_ns: u64,
    pub bytes: u64,
    /// Commands that completed without error.
    pub commands: u64,
}

/// One rank of the run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RankResult {
    pub rank: u32,
    pub host: String,
    /// The rank's target, its `{rank}` and `{host}` filled in.
    pub target: String,
    /// Per test of `bench` (same order), per measured run.
    #[serde(default)]
    pub windows: Vec<Vec<RunWindow>>,
    /// The rank's own record; absent when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench: Option<BenchRecord>,
    /// Why the rank failed (its target could not be opened, a device error, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A rank's rate in one test (the mean of its measured runs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankRate {
    pub rank: u32,
    pub host: String,
    pub mb_per_s: f64,
    pub iops: f64,
}

/// One measured run of every rank together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultiRun {
    /// Earliest start and latest end of the ranks' runs.
    pub start_ns: u64,
    pub end_ns: u64,
    pub bytes: u64,
    pub commands: u64,
    /// bytes / (end − start): what the ranks delivered together.
    pub mb_per_s: f64,
    pub iops: f64,
    /// Latest start − earliest start: how closely the barrier lined the ranks up (clock
    /// offsets between hosts included).
    pub start_spread_ns: u64,
}

/// One test over every rank.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MultiTest {
    pub name: String,
    pub rw: Direction,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub read_pct: Option<u8>,
    #[serde(flatten)]
    pub load: Load,
    /// Ranks with results in this test.
    pub ranks: u32,
    /// Best aggregate run, and means over the runs.
    pub mb_per_s: f64,
    pub iops: f64,
    pub mean_mb_per_s: f64,
    pub mean_iops: f64,
    pub bytes: u64,
    pub commands: u64,
    pub errors: u64,
    /// The widest start spread of the runs.
    pub start_spread_ns: u64,
    /// Completion latency of every command of every rank.
    pub latency: LatencySummary,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<HistogramOut>,
    /// The rank with the lowest and the highest rate, and the median rate.
    pub slowest: RankRate,
    pub fastest: RankRate,
    pub median_mb_per_s: f64,
    pub runs: Vec<MultiRun>,
}

/// A multi-rank run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MultiRecord {
    #[serde(flatten)]
    pub header: Header,
    /// The command every rank ran ("bench").
    pub command: String,
    /// The target as given, with its `{rank}` and `{host}` placeholders.
    pub target_template: String,
    /// Number of ranks.
    pub ranks: u32,
    /// Every rank ended each run at the same moment (see docs/scale.md).
    pub stonewall: bool,
    /// A rank was stopped by SIGINT/SIGTERM, or failed, before every test ran.
    pub interrupted: bool,
    pub profile: String,
    pub runs: u32,
    pub duration_ns: u64,
    pub tests: Vec<MultiTest>,
    pub members: Vec<RankResult>,
}

impl MultiRecord {
    /// The ranks that failed, with their errors.
    pub fn failed(&self) -> impl Iterator<Item = (&RankResult, &str)> {
        self.members
            .iter()
            .filter_map(|m| m.error.as_deref().map(|e| (m, e)))
    }
}
