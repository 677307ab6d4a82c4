//! The scan's run record: the `drivescope/1` scan document (see docs/json.md).

use super::accum::Event;
use super::quick::Region;
use super::verify::VerifyReport;
use crate::engine::{EngineKind, Reap};
use crate::target::TargetInfo;
use drivescope_stats::{
    BandCount, BinState, CurvePoint, HistogramOut, LatencySummary, SeriesPoint,
};
use serde::{Deserialize, Serialize};

/// Tool name and version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    pub version: String,
}

impl ToolInfo {
    pub fn current() -> Self {
        ToolInfo {
            name: "drivescope".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// Overall, lowest and highest rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateSummary {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

/// A scan or quick-scan document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScanRecord {
    pub schema: String,
    /// "scan" or "quick_scan".
    pub kind: String,
    pub tool: ToolInfo,
    pub host: String,
    pub started_at: String,
    pub ended_at: String,
    pub target: TargetInfo,
    /// Identity of the device (filled in by the caller; null when unknown).
    pub device: serde_json::Value,
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
    pub series: Vec<SeriesPoint>,
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
    /// The stored run this one continues (`scan --resume RUN`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub resumed_from: Option<i64>,
    /// What `scan --resume` needs to continue an interrupted scan.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub resume: Option<ResumeState>,
    /// Read-back check of a `scan --write --verify`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub verify: Option<VerifyReport>,
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
}

#[cfg(test)]
mod tests {
    use super::ScanRecord;
    use crate::engine::Reap;
    use crate::scan::{self, Progress, ScanConfig};
    use crate::target::Target;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    #[test]
    fn a_document_from_before_reap_reads_as_sleeping() {
        let target = Target::open_read("null:1M").unwrap();
        let stop = AtomicBool::new(false);
        let rec = scan::run(
            &target,
            &ScanConfig::default(),
            Arc::new(Progress::default()),
            &stop,
        )
        .unwrap();
        let mut doc = serde_json::to_value(&rec).unwrap();
        assert!(doc.as_object_mut().unwrap().remove("reap").is_some());
        let old: ScanRecord = serde_json::from_value(doc).unwrap();
        assert_eq!(old.reap, Reap::Sleep);
    }
}
