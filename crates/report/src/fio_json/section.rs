//! One direction of a job (`read`, `write`, `trim`): amounts, rates in fio's units, latencies and the
//! bandwidth/IOPS samples.

use super::latency::Lat;
use serde::Serialize;

/// What a direction moved: successful commands, their bytes, over how long.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Io {
    pub bytes: u64,
    pub ios: u64,
    pub duration_ns: u64,
}

/// The bandwidth and IOPS samples (fio takes one per interval; ours are a bench test's runs or a soak's or
/// scan's series intervals). Bandwidth in KiB/s as fio writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Samples {
    pub bw_min: u64,
    pub bw_max: u64,
    /// This job's share of its group's bandwidth, %: every job here is its own group.
    pub bw_agg: f64,
    pub bw_mean: f64,
    pub bw_dev: f64,
    pub bw_samples: u64,
    pub iops_min: u64,
    pub iops_max: u64,
    pub iops_mean: f64,
    pub iops_stddev: f64,
    pub iops_samples: u64,
}

/// Mean and sample standard deviation.
fn mean_sd(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let sd = if xs.len() > 1 {
        (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    (mean, sd)
}

impl Samples {
    /// Samples from (MB/s, IOPS) pairs.
    pub fn from_rates(rates: &[(f64, f64)]) -> Samples {
        if rates.is_empty() {
            return Samples::default();
        }
        let bw: Vec<f64> = rates.iter().map(|r| kib_per_s(r.0)).collect();
        let iops: Vec<f64> = rates.iter().map(|r| r.1).collect();
        let (bw_mean, bw_dev) = mean_sd(&bw);
        let (iops_mean, iops_stddev) = mean_sd(&iops);
        let lo = |xs: &[f64]| xs.iter().copied().fold(f64::INFINITY, f64::min) as u64;
        let hi = |xs: &[f64]| xs.iter().copied().fold(0.0, f64::max) as u64;
        Samples {
            bw_min: lo(&bw),
            bw_max: hi(&bw),
            bw_agg: 100.0,
            bw_mean,
            bw_dev,
            bw_samples: bw.len() as u64,
            iops_min: lo(&iops),
            iops_max: hi(&iops),
            iops_mean,
            iops_stddev,
            iops_samples: iops.len() as u64,
        }
    }
}

/// MB/s (10^6 B/s) in fio's bandwidth unit, KiB/s.
pub fn kib_per_s(mb_per_s: f64) -> f64 {
    mb_per_s * 1e6 / 1024.0
}

/// One direction of a job.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    pub io_bytes: u64,
    pub io_kbytes: u64,
    /// Bytes per second.
    pub bw_bytes: u64,
    /// KiB per second.
    pub bw: u64,
    pub iops: f64,
    /// ms.
    pub runtime: u64,
    pub total_ios: u64,
    pub short_ios: u64,
    pub drop_ios: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slat_ns: Option<Lat>,
    pub clat_ns: Lat,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lat_ns: Option<Lat>,
    #[serde(flatten)]
    pub samples: Samples,
}

impl Section {
    /// A direction with no commands: every field zero, as fio writes the unused ones.
    pub fn zero() -> Section {
        Section {
            io_bytes: 0,
            io_kbytes: 0,
            bw_bytes: 0,
            bw: 0,
            iops: 0.0,
            runtime: 0,
            total_ios: 0,
            short_ios: 0,
            drop_ios: 0,
            slat_ns: Some(Lat::zero()),
            clat_ns: Lat::zero(),
            lat_ns: Some(Lat::zero()),
            samples: Samples::default(),
        }
    }

    /// The direction that did the work.
    pub fn measured(io: Io, slat: Option<Lat>, clat: Lat, lat: Option<Lat>, s: Samples) -> Section {
        let (bw_bytes, iops) = if io.duration_ns == 0 {
            (0, 0.0)
        } else {
            let bw = io.bytes as u128 * 1_000_000_000 / io.duration_ns as u128;
            (
                u64::try_from(bw).unwrap_or(u64::MAX),
                io.ios as f64 * 1e9 / io.duration_ns as f64,
            )
        };
        Section {
            io_bytes: io.bytes,
            io_kbytes: io.bytes / 1024,
            bw_bytes,
            bw: bw_bytes / 1024,
            iops,
            runtime: ms(io.duration_ns),
            total_ios: io.ios,
            short_ios: 0,
            drop_ios: 0,
            slat_ns: slat,
            clat_ns: clat,
            lat_ns: lat,
            samples: s,
        }
    }
}

/// Nanoseconds to whole milliseconds, rounded.
pub fn ms(ns: u64) -> u64 {
    (ns + 500_000) / 1_000_000
}
