//! `drivescope replay TRACE TARGET`: a kept trace's requests issued again on a target, closed-loop, and
//! how long they took there against how long they took when traced (see docs/replay.md).

use crate::fingerprint::{AccessPattern, IoDirection};
use crate::header::Header;
use serde::{Deserialize, Serialize};

/// A replay (`"kind": "replay"`). `target` is the device or the test file the requests went to.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReplayRecord {
    #[serde(flatten)]
    pub header: Header,
    /// The kept trace, as given.
    pub trace: String,
    /// The command the trace was kept of.
    #[serde(default)]
    pub traced_command: Vec<String>,
    /// The traced device whose requests were replayed (as /sys/block names it).
    pub traced_device: String,
    /// Offsets past the target's end were folded onto it (`--wrap`).
    #[serde(default)]
    pub wrapped: bool,
    /// Think time (a completion to the next issue with nothing waited for) was left out (`--no-think`).
    #[serde(default)]
    pub no_think: bool,
    /// Requests of the trace that were not issued: writes on a target opened read-only, flushes and
    /// discards there, requests of other traced devices.
    #[serde(default)]
    pub skipped: u64,
    /// Requests that failed on the target.
    #[serde(default)]
    pub errors: u64,
    /// The trace's numbers over the requests replayed.
    pub original: ReplayTotals,
    /// The replay's, as the replay saw its requests complete (issue to completion seen).
    pub replayed: ReplayTotals,
    /// The replay's block requests as the kernel's block tracepoints saw them (as root, where tracefs
    /// can be used): the same measure the trace's numbers are, without the replay's own overhead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<ReplayTotals>,
    /// Per class of request (direction × size class × pattern), as the trace classed them.
    pub classes: Vec<ReplayClass>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Stopped (SIGINT) before every request was issued.
    #[serde(default)]
    pub interrupted: bool,
}

/// Request count and times of the trace or of its replay.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplayTotals {
    pub requests: u64,
    pub bytes: u64,
    /// Time with at least one request in flight (I/O time).
    pub io_ns: u64,
    /// First issue to last completion.
    pub wall_ns: u64,
}

/// One class of requests, traced and replayed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayClass {
    pub direction: IoDirection,
    /// Requests larger than half this and at most this (powers of two from 4 KiB).
    pub size_max_bytes: u64,
    pub pattern: AccessPattern,
    pub requests: u64,
    /// Mean service time (issue to completion) when traced and when replayed.
    pub original_service_ns: f64,
    pub replayed_service_ns: f64,
    pub original_p50_ns: u64,
    pub replayed_p50_ns: u64,
}

impl ReplayRecord {
    /// Replayed I/O time over traced I/O time: as the kernel saw the replay's requests where it was
    /// traced, else as the replay saw them.
    pub fn io_ratio(&self) -> Option<f64> {
        let replayed = self.kernel.as_ref().unwrap_or(&self.replayed);
        (self.original.io_ns > 0).then(|| replayed.io_ns as f64 / self.original.io_ns as f64)
    }
}
