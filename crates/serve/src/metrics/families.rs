//! The metric families `/metrics` exports: names and units after Prometheus' conventions (base
//! units, the unit last in the name, none in labels).

use crate::exposition::Family;

/// Labels naming a drive: its serial and model (empty when the target has none) and the target
/// path the run read.
const DRIVE: [&str; 3] = ["serial", "model", "target"];

pub(crate) static STORE_RUNS: Family = Family {
    name: "drivescope_store_runs",
    help: "Runs in the results store.",
    labels: &[],
};

const SCAN_LABELS: &[&str] = &[DRIVE[0], DRIVE[1], DRIVE[2], "kind", "direction"];

pub(crate) static SCAN_MEAN: Family = Family {
    name: "drivescope_scan_mean_bytes_per_second",
    help: "Mean transfer rate of the drive's latest scan (kind scan or quick_scan).",
    labels: SCAN_LABELS,
};

pub(crate) static SCAN_MIN: Family = Family {
    name: "drivescope_scan_min_bytes_per_second",
    help: "Lowest transfer rate by position in the drive's latest scan.",
    labels: SCAN_LABELS,
};

pub(crate) static SCAN_P99: Family = Family {
    name: "drivescope_scan_latency_p99_seconds",
    help: "99th-percentile completion latency of the drive's latest scan.",
    labels: SCAN_LABELS,
};

pub(crate) static SCAN_SLOW: Family = Family {
    name: "drivescope_scan_slow_commands",
    help: "Commands slower than the slow threshold in the drive's latest scan.",
    labels: SCAN_LABELS,
};

pub(crate) static SCAN_FAILED: Family = Family {
    name: "drivescope_scan_failed_commands",
    help: "Commands that failed in the drive's latest scan.",
    labels: SCAN_LABELS,
};

pub(crate) static SCREEN_VERDICT: Family = Family {
    name: "drivescope_screen_verdict",
    help: "Verdict of the latest screen that scanned the drive: 0 pass, 1 warn, 2 incomplete, \
           3 fail (also named by the verdict label).",
    labels: &[DRIVE[0], DRIVE[1], DRIVE[2], "verdict"],
};

pub(crate) static DIAGNOSE_FINDING: Family = Family {
    name: "drivescope_diagnose_finding",
    help: "Findings of the drive's latest diagnosis, one series per finding code; the value is \
           its confidence: 0 inconclusive, 1 low, 2 medium, 3 high (also named by the \
           confidence label).",
    labels: &[DRIVE[0], DRIVE[1], DRIVE[2], "code", "confidence"],
};

const BENCH_LABELS: &[&str] = &[DRIVE[0], DRIVE[1], DRIVE[2], "test", "direction"];

pub(crate) static BENCH_RATE: Family = Family {
    name: "drivescope_bench_bytes_per_second",
    help: "Transfer rate of each test of the drive's latest bench (the best of its runs, as \
           the bench reports it).",
    labels: BENCH_LABELS,
};

pub(crate) static BENCH_IOPS: Family = Family {
    name: "drivescope_bench_operations_per_second",
    help: "I/O operations per second of each test of the drive's latest bench.",
    labels: BENCH_LABELS,
};

pub(crate) static BENCH_P99: Family = Family {
    name: "drivescope_bench_latency_p99_seconds",
    help: "99th-percentile completion latency of each test of the drive's latest bench.",
    labels: BENCH_LABELS,
};

const CAPACITY_LABELS: &[&str] = &[DRIVE[0], DRIVE[1], DRIVE[2], "class"];

pub(crate) static CAPACITY_REPORTED: Family = Family {
    name: "drivescope_capacity_reported_bytes",
    help: "The size the drive reports, as its latest capacity probe read it.",
    labels: CAPACITY_LABELS,
};

pub(crate) static CAPACITY_REAL: Family = Family {
    name: "drivescope_capacity_real_bytes",
    help: "Bytes from the start of the drive that kept their data in its latest capacity \
           probe (absent when the probe stopped before it could tell).",
    labels: CAPACITY_LABELS,
};

pub(crate) static CAPACITY_COUNTERFEIT: Family = Family {
    name: "drivescope_capacity_counterfeit",
    help: "1 when the drive's latest capacity probe found less real capacity than it reports \
           (the class label says what happens past it), 0 when every block kept its data.",
    labels: CAPACITY_LABELS,
};

const RUN_LABELS: &[&str] = &[DRIVE[0], DRIVE[1], DRIVE[2], "kind"];

pub(crate) static RUN_AGE: Family = Family {
    name: "drivescope_run_age_seconds",
    help: "Time since the run each other series comes from ended.",
    labels: RUN_LABELS,
};

pub(crate) static RUN_ID: Family = Family {
    name: "drivescope_run_id",
    help: "Store number of the run each other series comes from, as drivescope runs lists it.",
    labels: RUN_LABELS,
};

pub(crate) static DURABILITY_COMMIT_P99: Family = Family {
    name: "drivescope_durability_commit_p99_seconds",
    help: "99th percentile of a commit (a write made durable) in the drive's latest durability \
           run, by how it was made durable, committers at once, bytes per commit and what it wrote \
           into (a new file, blocks already written, or the device).",
    labels: &[
        DRIVE[0],
        DRIVE[1],
        DRIVE[2],
        "mode",
        "committers",
        "size",
        "file",
    ],
};

pub(crate) static DURABILITY_FLUSH_EARLY: Family = Family {
    name: "drivescope_durability_flush_early",
    help: "1 when the drive's latest durability run found flushes returning before the data can \
           have reached the media (or acknowledged records lost in a power cut), else 0; the \
           verdict label names the flush rule's verdict (honest, early, nothing_pending, \
           protected, inconclusive; power_cut for a power-cut check).",
    labels: &[DRIVE[0], DRIVE[1], DRIVE[2], "verdict"],
};

/// Every family, for the checks of names.
#[cfg(test)]
pub(crate) static ALL: &[&Family] = &[
    &STORE_RUNS,
    &SCAN_MEAN,
    &SCAN_MIN,
    &SCAN_P99,
    &SCAN_SLOW,
    &SCAN_FAILED,
    &SCREEN_VERDICT,
    &DIAGNOSE_FINDING,
    &BENCH_RATE,
    &BENCH_IOPS,
    &BENCH_P99,
    &CAPACITY_REPORTED,
    &CAPACITY_REAL,
    &CAPACITY_COUNTERFEIT,
    &DURABILITY_COMMIT_P99,
    &DURABILITY_FLUSH_EARLY,
    &RUN_AGE,
    &RUN_ID,
];
