//! Synthetic but realistic run documents, as the commands print them (`docs/json.md`): for tests, demos and
//! screenshots without a device. Deterministic for a given seed. Nothing here is measured.

use drivescope_stats::{Bands, Histogram};
use serde_json::{json, Value};

/// A small deterministic generator (xorshift64*), so samples need no dependency and repeat exactly.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// Uniform in [0, 1).
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn common(kind: &str, seed: u64, size: u64) -> Value {
    json!({
        "schema": "drivescope/1",
        "kind": kind,
        "tool": {"name": "drivescope", "version": "0.1.0"},
        "host": "testhost",
        "started_at": format!("2026-11-{:02}T10:00:00Z", 1 + seed % 28),
        "ended_at": format!("2026-11-{:02}T10:05:00Z", 1 + seed % 28),
        "target": {"path": "/dev/sdx", "type": "block", "size": size, "logical_block_size": 512},
        "device": {"model": format!("ACME HD{}", 4000 + seed % 10), "serial": format!("SAMPLE-{seed:04}"),
                   "firmware": "01.01A01", "capacity": size, "transport": "sata"},
        "engine": "io_uring",
    })
}

/// A log-normal latency distribution around `median_ns` with a long tail, recorded into the same histogram and
/// bands that runs use: returns the latency summary, the bands and the histogram as JSON.
fn latency(rng: &mut Rng, commands: u64, median_ns: f64, failed: u64) -> (Value, Value, Value) {
    let mut buckets = Vec::new();
    let mut weights = Vec::new();
    for group in 10..36u32 {
        let low = 1u64 << group;
        let width = low / 64;
        for sub in 0..64u64 {
            let lo = low + sub * width;
            let x = (lo as f64 / median_ns).ln();
            // A log-normal body plus a thin heavy tail (retries, remaps).
            let w = (-x * x / 0.08).exp() + 2e-4 * (-(x - 2.5).powi(2) / 1.5).exp();
            if w > 1e-7 {
                buckets.push((lo, lo + width));
                weights.push(w * (0.9 + 0.2 * rng.next()));
            }
        }
    }
    let total_w: f64 = weights.iter().sum();
    let ok = commands - failed;
    let mut counts: Vec<u64> = weights
        .iter()
        .map(|w| (w / total_w * ok as f64).floor() as u64)
        .collect();
    let short = ok - counts.iter().sum::<u64>();
    let peak = (0..counts.len()).max_by_key(|&i| counts[i]).unwrap_or(0);
    counts[peak] += short;
    let mut hist = Histogram::new();
    let mut bands = Bands::default();
    for (&(lo, hi), &c) in buckets.iter().zip(&counts) {
        let mid = lo + (hi - lo) / 2;
        hist.record_n(mid, c);
        bands.record_n(mid, c);
    }
    bands.record_failed_n(failed);
    let json = |v: Result<Value, serde_json::Error>| v.expect("stats serialize to JSON");
    (
        json(serde_json::to_value(hist.summary())),
        json(serde_json::to_value(bands.to_out())),
        json(serde_json::to_value(hist.to_out())),
    )
}

/// A full surface scan of a `size`-byte hard disk: `points` curve bins (rate falling from the outer to the inner
/// tracks, with a few weak spots), `slow` slow commands, `failed` failed ones, one series entry per second.
/// `rw` is `"read"` or `"write"`.
pub fn scan(seed: u64, size: u64, points: usize, slow: usize, failed: usize, rw: &str) -> Value {
    let mut rng = Rng::new(seed);
    let block = 65536u64;
    let commands = size.div_ceil(block);
    let (start_rate, end_rate) = if rw == "write" {
        (190.0, 92.0)
    } else {
        (205.0, 98.0)
    };
    let bin = size / points as u64;
    let mut curve = Vec::with_capacity(points);
    let mut busy_ns = 0f64;
    for i in 0..points {
        let pos = i as f64 / points as f64;
        let mut rate =
            start_rate + (end_rate - start_rate) * pos.powf(1.3) + rng.next() * 4.0 - 2.0;
        if rng.next() < 0.01 {
            rate *= 0.4 + 0.4 * rng.next();
        }
        busy_ns += bin as f64 / rate * 1e3;
        let min_ns = (block as f64 / rate * 1e3 * 0.8) as u64;
        curve.push(json!({"offset": i as u64 * bin, "length": bin, "mb_per_s": (rate * 10.0).round() / 10.0,
                          "min_ns": min_ns, "max_ns": min_ns * (3 + (rng.next() * 40.0) as u64)}));
    }
    let rates: Vec<f64> = curve
        .iter()
        .map(|c| c["mb_per_s"].as_f64().unwrap_or(0.0))
        .collect();
    let duration_ns = busy_ns as u64;
    let (summary, bands, histogram) = latency(
        &mut rng,
        commands,
        block as f64 / 150.0 * 1e3,
        failed as u64,
    );
    let slow_list: Vec<Value> = (0..slow)
        .map(|i| {
            let offset = (size / slow.max(1) as u64 * i as u64) / 4096 * 4096;
            json!({"offset": offset, "lba": offset / 512, "latency_ns": 50_000_000 + (rng.next() * 4e8) as u64})
        })
        .collect();
    let failed_list: Vec<Value> = (0..failed)
        .map(|i| {
            let offset = (size / 3 + i as u64 * 65536) / 4096 * 4096;
            json!({"offset": offset, "lba": offset / 512, "latency_ns": 2_000_000_000u64, "errno": 5})
        })
        .collect();
    let seconds = (duration_ns / 1_000_000_000).max(1);
    let series: Vec<Value> = (1..=seconds)
        .map(|s| {
            let r = rates[((s - 1) * points as u64 / seconds) as usize];
            json!({"t_ns": s * 1_000_000_000, "bytes": (r * 1e6) as u64, "commands": (r * 1e6 / block as f64) as u64,
                   "mb_per_s": r, "p99_ns": 900_000 + (rng.next() * 2e5) as u64})
        })
        .collect();
    let n5 = (points / 20).max(1);
    let head: f64 = rates[..n5].iter().sum::<f64>() / n5 as f64;
    let tail: f64 = rates[points - n5..].iter().sum::<f64>() / n5 as f64;
    let mut doc = common("scan", seed, size);
    let extra = json!({
        "rw": rw, "block_size": block, "queue_depth": 1, "offset": 0, "length": size,
        "slow_threshold_ns": 50_000_000, "bytes": size - failed as u64 * block, "commands": commands,
        "duration_ns": duration_ns,
        "mb_per_s": {"mean": size as f64 / busy_ns * 1e3,
                     "min": rates.iter().cloned().fold(f64::MAX, f64::min),
                     "max": rates.iter().cloned().fold(0.0, f64::max)},
        "zone_ratio": tail / head, "curve": curve, "latency": summary, "bands": bands, "histogram": histogram,
        "slow": slow_list, "slow_total": slow, "failed": failed_list, "failed_total": failed, "series": series,
    });
    merge(&mut doc, extra);
    doc
}

/// A quick scan: `regions` regions spread over the device, a short read at each.
pub fn quick_scan(seed: u64, size: u64, regions: usize) -> Value {
    let mut rng = Rng::new(seed);
    let list: Vec<Value> = (0..regions)
        .map(|i| {
            let pos = i as f64 / regions as f64;
            let rate = 200.0 - 100.0 * pos + rng.next() * 6.0;
            json!({"index": i, "offset": size / regions as u64 * i as u64, "mb_per_s": rate,
                   "first_ns": 4_000_000 + (rng.next() * 8e6) as u64})
        })
        .collect();
    let (summary, bands, histogram) = latency(&mut rng, regions as u64 * 64, 400_000.0, 0);
    let mut doc = common("quick_scan", seed, size);
    merge(
        &mut doc,
        json!({"block_size": 65536, "queue_depth": 1, "offset": 0, "length": size, "regions": list,
               "latency": summary, "bands": bands, "histogram": histogram, "slow": [], "slow_total": 0,
               "failed": [], "failed_total": 0}),
    );
    doc
}

/// A CrystalDiskMark-style bench: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, read and write.
pub fn bench(seed: u64) -> Value {
    let mut rng = Rng::new(seed);
    let mut tests = Vec::new();
    for (name, bs, qd, base) in [
        ("SEQ1M Q8T1", 1 << 20, 8, 3400.0),
        ("SEQ1M Q1T1", 1 << 20, 1, 2100.0),
        ("RND4K Q32T1", 4096, 32, 650.0),
        ("RND4K Q1T1", 4096, 1, 70.0),
    ] {
        for rw in ["read", "write"] {
            let mb = base * if rw == "write" { 0.8 } else { 1.0 } * (0.95 + 0.1 * rng.next());
            let (summary, _, _) = latency(
                &mut rng,
                100_000,
                8e9 / mb * qd as f64 / 8.0 * bs as f64 / 1e6,
                0,
            );
            let runs: Vec<Value> = (0..5)
                .map(|_| {
                    let m = mb * (0.97 + 0.06 * rng.next());
                    json!({"mb_per_s": m, "iops": m * 1e6 / bs as f64})
                })
                .collect();
            tests.push(json!({"name": name, "rw": rw, "block_size": bs, "queue_depth": qd, "threads": 1,
                              "mb_per_s": mb, "iops": mb * 1e6 / bs as f64, "latency": summary, "runs": runs}));
        }
    }
    let mut doc = common("bench", seed, 1 << 40);
    merge(&mut doc, json!({"tests": tests}));
    doc
}

/// A queue-depth × threads sweep of RND4K reads.
pub fn sweep(seed: u64) -> Value {
    let mut rng = Rng::new(seed);
    let mut cells = Vec::new();
    for threads in [1u64, 2, 4, 8] {
        for qd in [1u64, 2, 4, 8, 16, 32, 64] {
            let outstanding = (qd * threads) as f64;
            let iops =
                14_000.0 * outstanding / (1.0 + outstanding / 40.0) * (0.95 + 0.1 * rng.next());
            cells.push(json!({"queue_depth": qd, "threads": threads, "iops": iops, "mb_per_s": iops * 4096.0 / 1e6,
                              "p99_ns": (outstanding / iops * 1e9 * 2.5) as u64}));
        }
    }
    let mut doc = common("sweep", seed, 1 << 40);
    merge(
        &mut doc,
        json!({"pattern": "RND4K", "rw": "read", "cells": cells, "queueing_gain": 8.4}),
    );
    doc
}

/// A sustained-write soak: SLC cache runs out after two minutes, `seconds` one-second samples.
pub fn soak(seed: u64, seconds: u64) -> Value {
    let mut rng = Rng::new(seed);
    let step_at = seconds / 5;
    let series: Vec<Value> = (1..=seconds)
        .map(|s| {
            let base = if s <= step_at { 3100.0 } else { 980.0 };
            let mb = base * (0.96 + 0.08 * rng.next());
            json!({"t_ns": s * 1_000_000_000, "mb_per_s": mb, "iops": mb, "p99_ns": (8e9 / mb * 30.0) as u64})
        })
        .collect();
    let mut doc = common("soak", seed, 1 << 40);
    merge(
        &mut doc,
        json!({"test": "SEQ1M Q8T1", "series": series, "steady_mb_per_s": 980.0, "first_to_steady": 3100.0 / 980.0,
               "steps": [{"t_ns": step_at * 1_000_000_000, "from_mb_per_s": 3100.0, "to_mb_per_s": 980.0}]}),
    );
    doc
}

fn merge(doc: &mut Value, extra: Value) {
    if let (Value::Object(d), Value::Object(e)) = (doc, extra) {
        d.extend(e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_is_consistent() {
        let d = scan(1, 4 << 40, 1000, 100, 3, "read");
        assert_eq!(d["curve"].as_array().unwrap().len(), 1000);
        let bands: u64 = d["bands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .sum();
        assert_eq!(bands, d["commands"].as_u64().unwrap());
        let hist: u64 = d["histogram"]["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .sum();
        assert_eq!(hist + 3, d["commands"].as_u64().unwrap());
        assert_eq!(d["slow"].as_array().unwrap().len(), 100);
    }
}
