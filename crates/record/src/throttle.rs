//! Thermal throttling: the lab's truth of a model that throttles, and the measurements of diagnose's
//! sustained-read experiment.

use crate::diagnose::StreamPoint;
use serde::{Deserialize, Serialize};

/// A lab model's throttle (`lab truth`): after `after_ns` of continuous work the media runs at `factor` × its
/// rate; `cooling_ns` of idle time restores it (partial rest, partial recovery; see docs/lab.md).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ThrottleTruth {
    pub factor: f64,
    pub after_ns: u64,
    pub cooling_ns: u64,
}

/// Diagnose's throttle experiment: after the warm-up stream's sustained reads fell by a lasting step, the
/// device rested for `idle_ns` and the same region was read again, from the same positions, until the rate
/// fell again or the time allowed ran out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThrottleData {
    pub block_size: u64,
    pub queue_depth: u32,
    /// The region read again (the warm-up stream's, from offset 0).
    pub region: u64,
    /// The rest before the second read, ns.
    pub idle_ns: u64,
    /// How long the second read ran, ns.
    pub duration_ns: u64,
    /// Stretches of the second read (time from its first command, position, rate, pass).
    pub points: Vec<StreamPoint>,
}
