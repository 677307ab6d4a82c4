//! `drivescope bench`, `sweep`, `soak` or `scan` run by several processes at once under an MPI
//! launcher (`kind: "multi"`, see docs/json.md and docs/scale.md): the aggregate of every rank
//! per test, and each rank's own record.

use crate::bench::{BenchRecord, Load, SoakRecord, SweepRecord};
use crate::header::{Direction, Header};
use crate::kind::Kind;
use crate::scan::ScanRecord;
use drivescope_stats::{BandCount, HistogramOut, LatencySummary};
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
    /// Per test (a bench's tests, a sweep's cells, the one test of a soak or a scan, in
    /// order), per measured run.
    #[serde(default)]
    pub windows: Vec<Vec<RunWindow>>,
    /// The rank's own record, of the command every rank ran; absent when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench: Option<BenchRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soak: Option<SoakRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan: Option<Box<ScanRecord>>,
    /// The latency histogram of each measured run of a sweep or a soak (whose own records keep
    /// percentiles only), so the ranks' commands merge exactly.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub histograms: Vec<HistogramOut>,
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
    /// A scan's response-time bands, every rank's counts summed (absent for the other commands).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bands: Vec<BandCount>,
    /// A scan's slow commands (at or over its slow threshold), every rank's summed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_commands: Option<u64>,
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
    /// The command every rank ran: "bench", "sweep", "soak" or "scan".
    pub command: String,
    /// The target as given, with its `{rank}` and `{host}` placeholders.
    pub target_template: String,
    /// Number of ranks.
    pub ranks: u32,
    /// Every rank ended each run at the same moment (see docs/scale.md).
    pub stonewall: bool,
    /// A rank was stopped by SIGINT/SIGTERM, or failed, before every test ran.
    pub interrupted: bool,
    /// The bench's profile, the sweep's pattern (`RND4K`), the soak's test; empty for a scan.
    pub profile: String,
    /// Measured runs per test (1 for a sweep's cells, a soak and a scan).
    pub runs: u32,
    /// Length of each measured run as asked (0 for a scan, which reads its whole range).
    pub duration_ns: u64,
    pub tests: Vec<MultiTest>,
    pub members: Vec<RankResult>,
}

/// One test of one rank, whatever the command: a bench's test, a sweep's cell, a soak, a scan.
#[derive(Debug, Clone)]
pub struct RankTest<'a> {
    pub name: String,
    pub rw: Direction,
    pub read_pct: Option<u8>,
    pub load: Load,
    /// The mean of the rank's measured runs.
    pub mb_per_s: f64,
    pub iops: f64,
    pub histogram: Option<&'a HistogramOut>,
    pub errors: u64,
    /// A scan's bands and slow commands.
    pub bands: &'a [BandCount],
    pub slow: Option<u64>,
}

impl RankResult {
    /// The tests of the rank's own record, in the order of its windows.
    pub fn tests(&self) -> Vec<RankTest<'_>> {
        if let Some(b) = &self.bench {
            return b
                .tests
                .iter()
                .map(|t| RankTest {
                    name: t.name.clone(),
                    rw: t.rw,
                    read_pct: t.read_pct,
                    load: t.load,
                    mb_per_s: t.mean_mb_per_s,
                    iops: t.mean_iops,
                    histogram: t.histogram.as_ref(),
                    errors: t.errors,
                    bands: &[],
                    slow: None,
                })
                .collect();
        }
        if let Some(s) = &self.sweep {
            return s
                .cells
                .iter()
                .enumerate()
                .map(|(i, c)| RankTest {
                    name: format!("{} Q{}T{}", s.pattern, c.queue_depth, c.threads),
                    rw: s.rw,
                    read_pct: None,
                    load: Load {
                        block_size: s.block_size,
                        queue_depth: c.queue_depth,
                        threads: c.threads,
                        engine: c.engine,
                        reap: c.reap,
                    },
                    mb_per_s: c.mb_per_s,
                    iops: c.iops,
                    histogram: self.histograms.get(i),
                    errors: c.errors,
                    bands: &[],
                    slow: None,
                })
                .collect();
        }
        if let Some(s) = &self.soak {
            return vec![RankTest {
                name: s.test.clone(),
                rw: s.rw,
                read_pct: None,
                load: s.load,
                mb_per_s: s.mb_per_s,
                iops: s.iops,
                histogram: self.histograms.first(),
                errors: s.errors,
                bands: &[],
                slow: None,
            }];
        }
        if let Some(s) = &self.scan {
            let name = if s.header.kind == Kind::QuickScan {
                "quick scan"
            } else if s.write {
                "write scan"
            } else {
                "scan"
            };
            return vec![RankTest {
                name: name.into(),
                rw: if s.write {
                    Direction::Write
                } else {
                    Direction::Read
                },
                read_pct: None,
                load: Load {
                    block_size: s.block_size,
                    queue_depth: s.queue_depth,
                    threads: 1,
                    engine: s.engine,
                    reap: s.reap,
                },
                mb_per_s: s.mb_per_s.mean,
                iops: if s.duration_ns == 0 {
                    0.0
                } else {
                    s.commands as f64 * 1e9 / s.duration_ns as f64
                },
                histogram: Some(&s.histogram),
                errors: s.failed_commands,
                bands: &s.bands,
                slow: Some(s.slow_total),
            }];
        }
        Vec::new()
    }

    /// A rank with its target and host and nothing measured yet.
    pub fn new(rank: u32, host: String, target: String) -> Self {
        RankResult {
            rank,
            host,
            target,
            windows: Vec::new(),
            bench: None,
            sweep: None,
            soak: None,
            scan: None,
            histograms: Vec::new(),
            error: None,
        }
    }

    /// The header of the rank's own record, when it has one.
    pub fn header(&self) -> Option<&Header> {
        self.bench
            .as_ref()
            .map(|r| &r.header)
            .or(self.sweep.as_ref().map(|r| &r.header))
            .or(self.soak.as_ref().map(|r| &r.header))
            .or(self.scan.as_ref().map(|r| &r.header))
    }
}

impl MultiRecord {
    /// The ranks that failed, with their errors.
    pub fn failed(&self) -> impl Iterator<Item = (&RankResult, &str)> {
        self.members
            .iter()
            .filter_map(|m| m.error.as_deref().map(|e| (m, e)))
    }
}
