//! A traced workload's time predicted on another disk (`time --predict-on RUN|DEVICE`).
//!
//! From the workload's fingerprint (requests per class, the queue depth it kept) and the other disk's
//! measured service time for each class's shape, the I/O part of the workload's time on that disk; the rest
//! of the wall time (CPU and think time, measured here) is carried over as it is.

use crate::fingerprint::{AccessPattern, IoDirection};
use serde::{Deserialize, Serialize};

/// What `time --predict-on` says (`"prediction"` in a time document).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// The other disk, as given: a stored run (`run 12`) or a device or directory measured for the purpose.
    pub on: String,
    /// The other disk's device, as the results came with it (model, or kernel name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// The stored runs whose results were used (none when the shapes were measured now).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<i64>,
    /// One line per class: its predicted service time and what it came from.
    pub classes: Vec<ClassPrediction>,
    /// The time-weighted mean queue depth the workload kept while busy (from the fingerprint); the I/O
    /// time is the sum of service times over it (Little's law).
    pub queue_depth: f64,
    /// I/O time measured here (the fingerprint's busy time).
    pub measured_io_ns: u64,
    /// The same from the measured service times and `queue_depth`: how well the model reproduces this disk.
    pub model_io_ns: f64,
    /// Predicted I/O time on the other disk, and its range.
    pub io_ns: f64,
    pub io_low_ns: f64,
    pub io_high_ns: f64,
    /// CPU and think time measured here (traced wall time less busy time), carried over.
    pub other_ns: u64,
    /// Predicted wall time of the traced run on the other disk (`io_ns + other_ns`) and its range.
    pub total_ns: f64,
    pub total_low_ns: f64,
    pub total_high_ns: f64,
    /// The traced run's wall time here.
    pub measured_total_ns: u64,
    /// The class with the largest share of the predicted I/O time (index into `classes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dominant: Option<usize>,
    /// What was stretched, skipped or assumed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One class of the workload on the other disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassPrediction {
    pub direction: IoDirection,
    pub size_max_bytes: u64,
    pub pattern: AccessPattern,
    pub requests: u64,
    /// Mean bytes per request.
    pub block_size: u64,
    /// Mean requests in flight at issue (the fingerprint's).
    pub queue_depth: f64,
    /// Mean service time here.
    pub measured_service_ns: f64,
    /// Mean service time predicted on the other disk, and its range.
    pub service_ns: f64,
    pub service_low_ns: f64,
    pub service_high_ns: f64,
    /// This class's part of the predicted I/O time.
    pub io_ns: f64,
    /// Its share of the predicted I/O time (0..=1).
    pub share: f64,
    /// The results it came from, e.g. `sweep run 7 RND4K read Q1..Q4`.
    pub basis: String,
    /// How far the results had to be stretched: the class's block size over the nearest measured one
    /// (1 = measured; 2 = twice as large, 0.5 = half), and the same for the queue depth.
    pub size_stretch: f64,
    pub depth_stretch: f64,
    /// The results were of the other direction or pattern (no fitting ones were given).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub substituted: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prediction_reads_back_and_omits_what_it_lacks() {
        let p = Prediction {
            on: "run 3".into(),
            device: None,
            runs: vec![3],
            classes: vec![ClassPrediction {
                direction: IoDirection::Read,
                size_max_bytes: 4096,
                pattern: AccessPattern::Random,
                requests: 10,
                block_size: 4096,
                queue_depth: 1.0,
                measured_service_ns: 20_000.0,
                service_ns: 8e6,
                service_low_ns: 7e6,
                service_high_ns: 9e6,
                io_ns: 8e7,
                share: 1.0,
                basis: "sweep run 3 RND4K read Q1".into(),
                size_stretch: 1.0,
                depth_stretch: 1.0,
                substituted: false,
            }],
            queue_depth: 1.0,
            measured_io_ns: 200_000,
            model_io_ns: 200_000.0,
            io_ns: 8e7,
            io_low_ns: 7e7,
            io_high_ns: 9e7,
            other_ns: 1_000,
            total_ns: 8e7 + 1e3,
            total_low_ns: 7e7 + 1e3,
            total_high_ns: 9e7 + 1e3,
            measured_total_ns: 201_000,
            dominant: Some(0),
            notes: vec![],
        };
        let v = serde_json::to_value(&p).unwrap();
        assert!(v.get("notes").is_none() && v.get("device").is_none());
        assert!(v["classes"][0].get("substituted").is_none());
        assert_eq!(serde_json::from_value::<Prediction>(v).unwrap(), p);
    }
}
