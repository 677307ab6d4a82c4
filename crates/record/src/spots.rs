//! The bad spots a diagnosis met: commands of its experiments that failed, and reads that were slow, by place.
//!
//! A diagnosis reads its region many times over; a failed command there is a bad spot (the device is taken as lost
//! only by the scan's lost-device rule) and the experiments read on around it. What they saw is kept here, so the
//! finding about it is worked out from the record like any other.

use crate::diagnose::Experiment;
use serde::{Deserialize, Serialize};

/// The most places a record lists; the rest are counted.
pub const SPOT_LIST_CAP: usize = 32;

/// What a place did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BadSpotKind {
    /// Commands there failed.
    Failed,
    /// Reads there were slow, on more than one read of it.
    Slow,
}

/// One place: the commands over `[offset, offset + length)` that failed or were slow, merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BadSpot {
    pub kind: BadSpotKind,
    pub offset: u64,
    pub length: u64,
    /// Commands over the place that failed (or were slow), every experiment together.
    pub commands: u64,
    /// The longest time one of them took, ns.
    pub max_latency_ns: u64,
    /// The errno of the first failure there (failed places).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errno: Option<i32>,
    /// The experiments that met it, in the order they ran.
    pub experiments: Vec<Experiment>,
}

/// What one experiment met, and so left out of its measurements.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ExperimentSpots {
    pub experiment: Experiment,
    /// Commands that failed: their bytes are in none of the experiment's rates.
    pub failed_commands: u64,
    pub failed_bytes: u64,
    /// Reads judged slow (at least [`Spots::slow_ns`] over the median of their run).
    pub slow_commands: u64,
}

/// Commands that failed and reads that were slow over a diagnosis.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Spots {
    /// Commands that failed, every experiment together.
    pub failed_commands: u64,
    /// Reads judged slow: at least `slow_ns` longer than the median read of their run (only reads that continue
    /// the one before are judged, none issued before a jump's read completed: their time holds the move).
    pub slow_commands: u64,
    pub slow_ns: u64,
    /// The places, by offset: every place where a command failed, and every place read slow more than once (a
    /// busy host delays a command once, anywhere; a slow spot delays every read of it). At most
    /// [`SPOT_LIST_CAP`].
    pub places: Vec<BadSpot>,
    /// Places left out of the list.
    #[serde(default)]
    pub places_more: u64,
    /// Each experiment that met a failure or a slow read.
    pub experiments: Vec<ExperimentSpots>,
}

impl Spots {
    /// Whether nothing failed and no place was slow more than once.
    pub fn is_clean(&self) -> bool {
        self.places.is_empty() && self.failed_commands == 0
    }
}
