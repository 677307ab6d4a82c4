//! The I/O fingerprint of a workload (`time --trace`): what kind of block I/O a traced run did, reduced from
//! every request the kernel issued to the devices behind the working directory.
//!
//! Aggregated as the trace is read, so its size does not grow with the number of requests.

use crate::time::TimeMode;
use serde::{Deserialize, Serialize};

/// What a traced run's block requests were (`"fingerprint"` in a time document).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// The traced run: its mode and index (from 1).
    pub mode: TimeMode,
    pub run: u32,
    /// The traced devices, as /sys/block names them.
    pub devices: Vec<String>,
    /// Requests matched from issue to completion; everything below counts these.
    pub requests: u64,
    /// Requests seen only half: a completion whose issue came before the trace started, an issue with no
    /// completion when it stopped.
    pub unmatched: u64,
    /// Trace events the kernel dropped (its buffer overran); the fingerprint then misses some requests.
    pub lost_events: u64,
    /// The traced wall time, trace start to stop.
    pub wall_ns: u64,
    /// Time with at least one request in flight on the traced devices.
    pub busy_ns: u64,
    /// Reads and writes by size class and pattern, largest share of requests first.
    pub classes: Vec<IoClass>,
    /// Flushes with no data.
    pub flushes: u64,
    /// Discards (and write-zeroes): no data moved.
    pub discards: u64,
    /// Requests marked synchronous, with a preflush or forced unit access.
    pub sync_requests: u64,
    /// Time-weighted queue depth while busy: the share of busy time spent at each depth.
    pub queue_depth: Vec<DepthShare>,
    /// Mean queue depth while busy (time-weighted).
    pub mean_queue_depth: f64,
    /// The gaps with nothing in flight, between a completion and the next issue.
    pub think: ThinkTime,
    /// Queue depth and bytes over time, in `timeline_step_s` bins (at most a few hundred points).
    pub timeline: Vec<TimelinePoint>,
    pub timeline_step_s: f64,
    /// Things worth knowing: what was dropped, why a device was not traced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Data direction of a request class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IoDirection {
    Read,
    Write,
}

/// Whether a request continued where an earlier one of the same direction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessPattern {
    Sequential,
    Random,
}

/// One class of requests: a direction, a size class and a pattern.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IoClass {
    pub direction: IoDirection,
    /// The size class: requests larger than half this and at most this (powers of two from 4 KiB; a
    /// smaller request counts in 4 KiB).
    pub size_max_bytes: u64,
    pub pattern: AccessPattern,
    pub requests: u64,
    pub bytes: u64,
    /// The device's service time (issue to completion).
    pub service_ns_mean: f64,
    pub service_ns_p50: u64,
    pub service_ns_p99: u64,
    /// Requests in flight when one of this class was issued, itself included (mean).
    pub queue_depth_mean: f64,
}

/// A share of busy time at one queue depth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DepthShare {
    pub depth: u32,
    /// Of the busy time, 0..=1.
    pub share: f64,
}

/// The idle gaps between requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ThinkTime {
    pub gaps: u64,
    pub total_ns: u64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub max_ns: u64,
}

/// One bin of the timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelinePoint {
    /// Start of the bin, seconds from the trace's start.
    pub t_s: f64,
    /// Time-weighted mean depth over the bin (idle time counts as 0).
    pub queue_depth: f64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub requests: u64,
}

impl IoDirection {
    pub fn as_str(self) -> &'static str {
        match self {
            IoDirection::Read => "read",
            IoDirection::Write => "write",
        }
    }
}

impl AccessPattern {
    pub fn as_str(self) -> &'static str {
        match self {
            AccessPattern::Sequential => "sequential",
            AccessPattern::Random => "random",
        }
    }
}

/// A size class as people say it: `4 KiB`, `128 KiB`, `1 MiB`.
pub fn size_class_label(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = bytes;
    let mut i = 0;
    while i + 1 < UNITS.len() && v >= 1024 && v.is_multiple_of(1024) {
        v /= 1024;
        i += 1;
    }
    format!("{v} {}", UNITS[i])
}

impl IoClass {
    /// `4 KiB random read`.
    pub fn label(&self) -> String {
        format!(
            "{} {} {}",
            size_class_label(self.size_max_bytes),
            self.pattern.as_str(),
            self.direction.as_str()
        )
    }
}

impl Fingerprint {
    /// The share of the traced wall time with a request in flight.
    pub fn busy_share(&self) -> f64 {
        if self.wall_ns == 0 {
            0.0
        } else {
            (self.busy_ns as f64 / self.wall_ns as f64).min(1.0)
        }
    }

    /// Bytes read and written by the classes.
    pub fn bytes(&self) -> u64 {
        self.classes.iter().map(|c| c.bytes).sum()
    }

    /// `cold run 1`: the run traced.
    pub fn run_label(&self) -> String {
        format!("{} run {}", self.mode, self.run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_read_as_people_say_them() {
        assert_eq!(size_class_label(4096), "4 KiB");
        assert_eq!(size_class_label(128 << 10), "128 KiB");
        assert_eq!(size_class_label(1 << 20), "1 MiB");
        assert_eq!(size_class_label(512), "512 B");
    }
}
