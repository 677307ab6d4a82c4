//! Findings: why a number is what it is, each a claim with the numbers behind it and how sure it is.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a finding is about. Codes are stable: scripts and the store match on them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingCode {
    /// A read cache in front of slower media.
    ReadCache,
    /// Writes fast for a while (a write cache or an SLC cache), then at the sustained rate.
    WriteBurst,
    /// The path serves one command at a time: a deeper queue gains nothing.
    NoQueueing,
    /// A link caps every transfer (USB, SATA, a network link).
    LinkCap,
    /// Transfer rate by position: the zones of a hard disk, or their absence.
    Zones,
    /// Slow for a while after a start, then at its steady rate.
    WarmUp,
    /// Sustained work slows the device by a lasting step; rest restores it (thermal throttling).
    ThermalThrottle,
    /// Drives reach less together than alone: a path they share caps their sum.
    SharedPath,
    /// A timed workload spent most of its wall time waiting for the disk.
    StorageBound,
    /// A timed workload spent most of its wall time on the CPU.
    CpuBound,
    /// A timed workload neither mostly on the disk nor mostly on the CPU.
    MixedBound,
    /// A traced workload's I/O is mostly small random requests at a shallow queue: the disk's latency
    /// at that depth decides its time.
    LatencyBound,
    /// A traced workload's I/O is mostly sequential or large requests: the disk's transfer rate decides.
    ThroughputBound,
    /// One rank of a multi-rank run holds the aggregate back.
    SlowRank,
    /// A drive-managed SMR disk: random writes fill a media cache, then band cleaning stalls it.
    Smr,
    /// A drive that reports more capacity than it keeps (wrap-around, dropped writes, a cache).
    CounterfeitCapacity,
    /// One member of an array reads well below the others: it holds the array back.
    SlowMember,
    /// An array runs without a member it counts (missing or failed): its reads come from the members left.
    Degraded,
    /// An array writes well below what its members' rates promise for its layout (a stripe `n ×` its slowest
    /// member, a mirror its slower copy).
    ArrayWrites,
    /// Places where a diagnosis's reads or writes failed, or reads were slow on every read of them.
    BadSpots,
    /// A code this version does not know.
    #[serde(untagged)]
    Other(String),
}

impl FindingCode {
    /// The code as documents write it.
    pub fn as_str(&self) -> &str {
        match self {
            FindingCode::ReadCache => "read_cache",
            FindingCode::WriteBurst => "write_burst",
            FindingCode::NoQueueing => "no_queueing",
            FindingCode::LinkCap => "link_cap",
            FindingCode::Zones => "zones",
            FindingCode::WarmUp => "warm_up",
            FindingCode::ThermalThrottle => "thermal_throttle",
            FindingCode::SharedPath => "shared_path",
            FindingCode::StorageBound => "storage_bound",
            FindingCode::CpuBound => "cpu_bound",
            FindingCode::MixedBound => "mixed_bound",
            FindingCode::LatencyBound => "latency_bound",
            FindingCode::ThroughputBound => "throughput_bound",
            FindingCode::SlowRank => "slow_rank",
            FindingCode::Smr => "smr",
            FindingCode::CounterfeitCapacity => "counterfeit_capacity",
            FindingCode::SlowMember => "slow_member",
            FindingCode::Degraded => "degraded",
            FindingCode::ArrayWrites => "array_writes",
            FindingCode::BadSpots => "bad_spots",
            FindingCode::Other(s) => s,
        }
    }
}

/// How sure a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    /// The measurements could not settle it (too short, too noisy): said, never guessed.
    Inconclusive,
    Low,
    Medium,
    High,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Inconclusive => "inconclusive",
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }
}

/// The numbers behind a claim, by name (`gain`, `burst_mb_per_s`, …), and the stored runs they come from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub numbers: BTreeMap<String, f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<i64>,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub code: FindingCode,
    /// One sentence a person reads.
    pub claim: String,
    pub evidence: Evidence,
    pub confidence: Confidence,
}

impl Finding {
    /// A finding with the numbers given as (name, value) pairs.
    pub fn new(
        code: FindingCode,
        confidence: Confidence,
        claim: String,
        numbers: &[(&str, f64)],
    ) -> Finding {
        Finding {
            code,
            claim,
            evidence: Evidence {
                numbers: numbers.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                runs: Vec::new(),
            },
            confidence,
        }
    }

    /// The number named `name` in the evidence.
    pub fn number(&self, name: &str) -> Option<f64> {
        self.evidence.numbers.get(name).copied()
    }
}
