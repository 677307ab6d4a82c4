//! `drivescope steady`: an SSD's steady state by the SNIA PTS method (purge, precondition, rounds
//! until the steady-state rule holds over a window of five rounds, at most 25).

use crate::bench::Workload;
use crate::header::Header;
use crate::Checkpoint;
use serde::{Deserialize, Serialize};

/// Which PTS test the rounds run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteadyTest {
    /// Each round runs the matrix of read/write mixes × block sizes; the tracked variable is
    /// the random 4 KiB 100 % write IOPS.
    Iops,
    /// Each round is random 4 KiB writes only; IOPS against the bytes written so far.
    WriteSaturation,
    /// Each round runs 4 and 8 KiB random at QD1 × 1 thread for 100/0, 65/35 and 0/100; the
    /// tracked variable is the random 4 KiB 100 % write mean latency (ns).
    Latency,
    /// Rounds of random 4 KiB writes to steady state, then bursts of them between idle
    /// times that grow from wait state to wait state ([`IdleRecovery`]).
    HostIdleRecovery,
}

impl SteadyTest {
    pub fn as_str(&self) -> &'static str {
        match self {
            SteadyTest::Iops => "iops",
            SteadyTest::WriteSaturation => "write_saturation",
            SteadyTest::Latency => "latency",
            SteadyTest::HostIdleRecovery => "host_idle_recovery",
        }
    }

    /// Whether the tracked variable is a latency (ns; lower is faster) rather than IOPS.
    pub fn tracks_latency(&self) -> bool {
        *self == SteadyTest::Latency
    }
}

/// One cell of a round: a read share and a block size, run for the cell time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SteadyCellSpec {
    /// Reads in percent (0: all writes).
    pub read_pct: u8,
    pub block_size: u64,
}

/// One cell as measured in one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyCell {
    pub read_pct: u8,
    pub block_size: u64,
    pub iops: f64,
    pub mb_per_s: f64,
    pub mean_ns: f64,
    pub p99_ns: u64,
    /// The 99.9th and 99.99th percentiles (0 in records written before they were kept).
    #[serde(default)]
    pub p999_ns: u64,
    #[serde(default)]
    pub p9999_ns: u64,
    pub max_ns: u64,
    pub bytes_written: u64,
    pub errors: u64,
}

/// One round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyRound {
    /// Counted from 1.
    pub round: u32,
    pub cells: Vec<SteadyCell>,
    /// The tracked variable's value this round (RND4K 100 % write IOPS; the latency test: its
    /// mean latency, ns).
    pub tracked: f64,
    /// Bytes written since the purge, preconditioning included, at the round's end.
    pub total_bytes_written: u64,
    pub duration_ns: u64,
}

/// A purge method that was not used, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PurgeRefused {
    pub method: String,
    pub why: String,
}

/// What was done to return the drive to its fresh state before preconditioning.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SteadyPurge {
    /// The method used (`discard`: the whole device discarded); absent when none was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The methods not available on this device, each with why.
    #[serde(default)]
    pub refused: Vec<PurgeRefused>,
    /// `--no-purge`: the user skipped it.
    #[serde(default)]
    pub skipped: bool,
    #[serde(default)]
    pub duration_ns: u64,
}

/// The workload-independent preconditioning: sequential 128 KiB writes over the device.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SteadyPrecondition {
    /// Bytes planned (twice the capacity) and written so far.
    pub planned_bytes: u64,
    pub written_bytes: u64,
    pub block_size: u64,
    pub duration_ns: u64,
    pub mb_per_s: f64,
}

/// The measurement window of the steady-state rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyWindow {
    pub first_round: u32,
    pub last_round: u32,
    pub values: Vec<f64>,
    pub average: f64,
    /// max − min.
    pub range: f64,
    /// The least-squares line's slope per round.
    pub slope: f64,
    /// |slope| × (rounds − 1).
    pub excursion: f64,
    /// range / average (allowed: `range_allowed`).
    pub range_ratio: f64,
    pub range_allowed: f64,
    /// excursion / average (allowed: `excursion_allowed`).
    pub excursion_ratio: f64,
    pub excursion_allowed: f64,
}

/// Where the rounds stand by the steady-state rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteadyState {
    /// Both limits held over the window ending at `round`.
    Reached,
    /// 25 rounds without a steady window.
    NotReached,
    /// Stopped (or checkpointed) before either.
    Undecided,
}

/// The verdict, with the window it rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyVerdict {
    pub state: SteadyState,
    /// The round steady state was reached at (the window's last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// The window the verdict rests on: the steady one, or the last one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<SteadyWindow>,
    /// One sentence: what holds, or which limit the last window broke and by how much.
    pub why: String,
}

impl SteadyVerdict {
    /// `reached`, `not reached` or `undecided`.
    pub fn state_label(&self) -> &'static str {
        match self.state {
            SteadyState::Reached => "reached",
            SteadyState::NotReached => "not reached",
            SteadyState::Undecided => "undecided",
        }
    }
}

/// What `--resume` needs beyond the record: the plan, and how far it got.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyResume {
    pub queue_depth: u32,
    pub threads: u32,
    pub max_rounds: u32,
    pub saved_unix_ns: u64,
}

/// `drivescope steady`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SteadyRecord {
    #[serde(flatten)]
    pub header: Header,
    #[serde(flatten)]
    pub workload: Workload,
    pub test: SteadyTest,
    /// Whether the run followed the specification in full; else `not_conformant` says where not.
    pub conformant: bool,
    #[serde(default)]
    pub not_conformant: Vec<String>,
    pub purge: SteadyPurge,
    pub precondition: SteadyPrecondition,
    /// The cells every round runs, in order.
    pub matrix: Vec<SteadyCellSpec>,
    /// The tracked variable's name, e.g. `RND4K write IOPS`.
    pub tracked: String,
    /// Time per cell, ns.
    pub round_time_ns: u64,
    pub queue_depth: u32,
    pub threads: u32,
    pub engine: crate::engine::EngineKind,
    pub rounds: Vec<SteadyRound>,
    pub verdict: SteadyVerdict,
    /// The window's tracked average when steady state was reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_value: Option<f64>,
    /// The host idle recovery test's bursts, once the rounds have decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_recovery: Option<IdleRecovery>,
    /// Write amplification from the drive's SMART counters over the measured rounds (runs of
    /// versions before it have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_amplification: Option<crate::SteadyWriteAmplification>,
    pub duration_ns: u64,
    /// Present while the run can be continued with `--resume`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<SteadyResume>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<Checkpoint>,
}

/// The host idle recovery test after the rounds: for each wait state, `cycles` bursts of random
/// 4 KiB writes each followed by an idle time of `wait_state` × `idle_unit_ns`, then writes without
/// a pause for `baseline_ns` to bring the drive back to its steady state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleRecovery {
    /// Each burst's length, ns.
    pub burst_ns: u64,
    /// The idle time of wait state 1, ns.
    pub idle_unit_ns: u64,
    /// Bursts per wait state.
    pub cycles: u32,
    /// The return to the baseline after each wait state, ns.
    pub baseline_ns: u64,
    /// The wait states planned, in order (idle time = wait state × `idle_unit_ns`).
    pub wait_states: Vec<u32>,
    /// The steady IOPS the bursts are compared with: the window's average (or the last round's
    /// when steady state was not reached).
    pub baseline_iops: f64,
    /// The wait states run so far.
    pub segments: Vec<IdleSegment>,
}

/// One wait state's bursts and its return to the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleSegment {
    pub wait_state: u32,
    pub idle_ns: u64,
    pub bursts: Vec<IdleBurst>,
    /// The bursts' mean IOPS.
    pub mean_iops: f64,
    /// `mean_iops` over the steady baseline (1: no recovery; above: the idle time let the drive
    /// clean ahead).
    pub recovery: f64,
    /// IOPS of the continuous writes after the bursts.
    pub baseline_after_iops: f64,
    /// When the return to the baseline ended, ns since the test's first burst.
    pub end_ns: u64,
}

/// One burst of writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleBurst {
    /// When the burst began, ns since the test's first burst.
    pub at_ns: u64,
    pub iops: f64,
    pub bytes_written: u64,
}
