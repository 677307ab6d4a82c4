//! The settings a full scan takes, shared by `scan` and `screen` (where each drive gets them).

use super::args::{
    parse_block_size, parse_error_budget, parse_positive_duration, parse_queue_depth,
    parse_size_or_percent,
};
use super::args::{EngineArg, ReapArg};
use drivescope_core::scan::{self, ScanConfig};
use drivescope_core::units::SizeOrPercent;
use std::time::Duration;

#[derive(clap::Args, Clone)]
pub struct ScanOpts {
    /// Size of each command (binary units: 64K = 64KiB = 65536 bytes).
    #[arg(long, default_value = "64KiB", value_parser = parse_block_size)]
    pub block_size: u64,
    /// Commands in flight (per drive; 1 = back to back, like a hardware tester).
    #[arg(long, default_value_t = 1, value_parser = parse_queue_depth)]
    pub queue_depth: u32,
    /// Start of the range (each drive's): bytes with units (1G) or a percentage of the device (50%).
    #[arg(long, value_parser = parse_size_or_percent)]
    pub offset: Option<SizeOrPercent>,
    /// Length of the range (each drive's): bytes with units or a percentage of the device.
    /// Default: to the end.
    #[arg(long, value_parser = super::args::parse_length)]
    pub length: Option<SizeOrPercent>,
    /// Curve resolution: number of position bins (per drive; at most 100000).
    #[arg(long, default_value_t = 1000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new()
        .range(1..=drivescope_core::scan::MAX_POINTS as u64))]
    pub points: usize,
    /// Commands at or over this latency count as slow and go to the slow list (e.g. 50ms, 1s;
    /// 0 lists every command).
    #[arg(long, default_value = "50ms", value_parser = super::args::parse_duration)]
    pub slow: Duration,
    /// I/O engine.
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: EngineArg,
    /// How io_uring waits for completions: poll (watch the ring for up to 50 µs before
    /// sleeping; spends a CPU while the device answers that fast), sleep (as fio), or auto
    /// (poll at queue depth 1, where the wake-up after each command is idle time of the
    /// device; sleep with more commands in flight).
    #[arg(long, value_enum, default_value = "auto")]
    pub reap: ReapArg,
    /// Time (per drive) for reading failed areas sector by sector (scraping) and for --retries,
    /// after the first pass over the whole range and after trimming the failed areas' edges: a
    /// duration (10m, 1h; 0 for none), none (no limit: every failed sector mapped), or auto (a
    /// tenth of the first pass's time, at least 1 minute). What it leaves is reported as untried
    /// or as failed commands not read sector by sector.
    #[arg(long, default_value = "auto", value_parser = parse_error_budget, value_name = "TIME|none|auto")]
    pub error_budget: scan::ErrorBudget,
    /// Passes over the failed sectors, reading each again, within --error-budget.
    #[arg(long, default_value_t = 0)]
    pub retries: u32,
    /// Interval of the time series (each drive's).
    #[arg(long, default_value = "1s", value_parser = parse_positive_duration)]
    pub interval: Duration,
}

impl ScanOpts {
    /// A full scan with these settings; `write` and `verify` as asked.
    pub fn config(&self, write: bool, verify: bool) -> ScanConfig {
        ScanConfig {
            engine: self.engine.into(),
            queue_depth: self.queue_depth,
            block_size: self.block_size,
            offset: self.offset,
            length: self.length,
            points: self.points,
            slow_ns: self.slow.as_nanos() as u64,
            interval_ns: (self.interval.as_nanos() as u64).max(scan::MIN_INTERVAL_NS),
            quick: None,
            write,
            verify: verify.then(scan::verify::new_seed),
            reap: self.reap.into(),
            error_budget: self.error_budget,
            retries: self.retries,
        }
    }
}
