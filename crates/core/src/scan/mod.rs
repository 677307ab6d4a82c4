//! Scans: the full-surface sequential scan and the 256-region quick scan.

mod accum;
mod quick;
mod record;
mod sequential;

pub use accum::{Event, Progress, LIST_CAP};
pub use quick::{QuickParams, QuickScan, Region};
pub use record::{RateSummary, ScanRecord, ToolInfo};
pub use sequential::{ScanParams, SequentialScan};

use crate::engine::{self, Clock, EngineConfig, EngineError, EngineKind};
use crate::target::Target;
use crate::units::{format_size, SizeOrPercent};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::SystemTime;

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct ScanConfig {
    pub engine: EngineKind,
    pub queue_depth: u32,
    pub block_size: u64,
    pub offset: Option<SizeOrPercent>,
    pub length: Option<SizeOrPercent>,
    pub points: usize,
    pub slow_ns: u64,
    pub interval_ns: u64,
    /// Quick scan: (regions, dwell ns).
    pub quick: Option<(u32, u64)>,
}

impl Default for ScanConfig {
    fn default() -> Self {
        ScanConfig {
            engine: EngineKind::Auto,
            queue_depth: 1,
            block_size: 64 * 1024,
            offset: None,
            length: None,
            points: 1000,
            slow_ns: 50_000_000,
            interval_ns: 1_000_000_000,
            quick: None,
        }
    }
}

/// A scan request that cannot run, with the reason in one line.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// The validated range and engine.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub start: u64,
    pub length: u64,
    pub engine: EngineKind,
}

/// Check a configuration against a target and resolve range and engine.
pub fn plan(cfg: &ScanConfig, target: &Target) -> Result<Plan, ScanError> {
    let invalid = |m: String| Err(ScanError::Invalid(m));
    let lbs = target.logical_block_size as u64;
    if cfg.block_size == 0 || !cfg.block_size.is_multiple_of(lbs) {
        return invalid(format!(
            "block size {} is not a multiple of the logical sector size ({lbs} bytes)",
            cfg.block_size
        ));
    }
    if cfg.block_size > 64 << 20 {
        return invalid(format!(
            "block size {} is over the 64 MiB limit",
            format_size(cfg.block_size)
        ));
    }
    if cfg.queue_depth == 0 || cfg.queue_depth > 4096 {
        return invalid(format!(
            "queue depth {} is out of range (1..=4096)",
            cfg.queue_depth
        ));
    }
    if cfg.points == 0 {
        return invalid("--points must be at least 1".into());
    }
    let start = cfg.offset.map_or(0, |o| o.resolve(target.size));
    let start = match cfg.offset {
        Some(SizeOrPercent::Percent(_)) => start / lbs * lbs,
        _ => start,
    };
    if !start.is_multiple_of(lbs) {
        return invalid(format!(
            "offset {start} is not a multiple of the logical sector size ({lbs} bytes)"
        ));
    }
    if start >= target.size {
        return invalid(format!(
            "offset {start} is at or beyond the end of {} ({} bytes)",
            target.spec, target.size
        ));
    }
    let length = match cfg.length {
        None => target.size - start,
        Some(SizeOrPercent::Percent(p)) => {
            (SizeOrPercent::Percent(p).resolve(target.size) / lbs * lbs).min(target.size - start)
        }
        Some(SizeOrPercent::Bytes(b)) => b,
    };
    if length == 0 {
        return invalid("the range to scan is empty (--length 0)".into());
    }
    if !length.is_multiple_of(lbs) {
        return invalid(format!(
            "length {length} is not a multiple of the logical sector size ({lbs} bytes)"
        ));
    }
    if start
        .checked_add(length)
        .is_none_or(|end| end > target.size)
    {
        return invalid(format!(
            "offset + length ({start} + {length}) runs past the end of {} ({} bytes)",
            target.spec, target.size
        ));
    }
    if let Some((regions, dwell)) = cfg.quick {
        if regions == 0 || dwell == 0 {
            return invalid("a quick scan needs at least one region and a dwell above 0".into());
        }
        if length / lbs < regions as u64 {
            return invalid(format!("the range is too small for {regions} regions"));
        }
    }
    let engine = engine::resolve(cfg.engine, target, cfg.queue_depth as usize)?;
    Ok(Plan {
        start,
        length,
        engine,
    })
}

fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

/// The host name, as the kernel has it.
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Run a scan (or quick scan) to the end or until `stop` is set.
pub fn run(
    target: &Target,
    cfg: &ScanConfig,
    progress: Arc<Progress>,
    stop: &AtomicBool,
) -> Result<ScanRecord, ScanError> {
    let plan = plan(cfg, target)?;
    let lbs = target.logical_block_size as u64;
    let engine_cfg = EngineConfig {
        kind: plan.engine,
        queue_depth: cfg.queue_depth as usize,
        max_len: cfg.block_size as usize,
    };
    let ctx = Ctx {
        target,
        cfg,
        plan,
        started: SystemTime::now(),
    };
    let clock = Clock::new();
    let mut rec = match cfg.quick {
        None => {
            let mut job = SequentialScan::new(
                ScanParams {
                    start: plan.start,
                    length: plan.length,
                    block_size: cfg.block_size,
                    sector: lbs,
                    points: cfg.points,
                    slow_ns: cfg.slow_ns,
                    interval_ns: cfg.interval_ns,
                },
                progress,
            );
            engine::run(target, &engine_cfg, &clock, stop, &mut job)?;
            let duration_ns = clock.now_ns();
            let covered = job.next_offset() - plan.start;
            let curve = job.curve.points();
            let zone_ratio = if covered == plan.length {
                job.curve.zone_ratio(0.05)
            } else {
                None
            };
            let mut rec = finish(job.acc, duration_ns, curve, "scan", &ctx);
            rec.zone_ratio = zone_ratio;
            rec.covered = covered;
            rec
        }
        Some((regions, dwell_ns)) => {
            let mut job = QuickScan::new(
                QuickParams {
                    start: plan.start,
                    length: plan.length,
                    regions,
                    block_size: cfg.block_size,
                    sector: lbs,
                    dwell_ns,
                    slow_ns: cfg.slow_ns,
                    interval_ns: cfg.interval_ns,
                },
                progress,
            );
            engine::run(target, &engine_cfg, &clock, stop, &mut job)?;
            let duration_ns = clock.now_ns();
            let regions_out = job.regions();
            let done = regions_out.len() as u32 == regions;
            let mut rec = finish(job.acc, duration_ns, Vec::new(), "quick_scan", &ctx);
            let rates: Vec<f64> = regions_out.iter().map(|r| r.mb_per_s).collect();
            rec.mb_per_s.min = rates.iter().copied().fold(f64::INFINITY, f64::min);
            rec.mb_per_s.max = rates.iter().copied().fold(0.0, f64::max);
            if rates.is_empty() {
                rec.mb_per_s.min = 0.0;
            }
            let k = (regions_out.len() / 20).max(1);
            if done && regions_out.len() >= 2 {
                let head: f64 = rates[..k].iter().sum::<f64>() / k as f64;
                let tail: f64 = rates[rates.len() - k..].iter().sum::<f64>() / k as f64;
                rec.zone_ratio = (head > 0.0).then_some(tail / head);
            }
            rec.covered = if done { plan.length } else { 0 };
            rec.regions = Some(regions_out);
            rec
        }
    };
    rec.interrupted = rec.covered < plan.length;
    Ok(rec)
}

/// What a record says about how the run was made.
struct Ctx<'a> {
    target: &'a Target,
    cfg: &'a ScanConfig,
    plan: Plan,
    started: SystemTime,
}

fn finish(
    acc: accum::Accum,
    duration_ns: u64,
    curve: Vec<drivescope_stats::CurvePoint>,
    kind: &str,
    ctx: &Ctx,
) -> ScanRecord {
    let rates = curve.iter().map(|p| p.mb_per_s);
    let min = rates.clone().fold(f64::INFINITY, f64::min);
    let max = rates.fold(0.0, f64::max);
    ScanRecord {
        schema: "drivescope/1".into(),
        kind: kind.into(),
        tool: ToolInfo::current(),
        host: hostname(),
        started_at: rfc3339(ctx.started),
        ended_at: rfc3339(SystemTime::now()),
        target: ctx.target.info(),
        device: serde_json::Value::Null,
        engine: ctx.plan.engine,
        block_size: ctx.cfg.block_size,
        queue_depth: ctx.cfg.queue_depth,
        offset: ctx.plan.start,
        length: ctx.plan.length,
        slow_threshold_ns: ctx.cfg.slow_ns,
        dwell_ns: ctx.cfg.quick.map(|(_, d)| d),
        interrupted: false,
        covered: 0,
        bytes: acc.bytes,
        commands: acc.commands,
        failed_commands: acc.failed_commands,
        duration_ns,
        mb_per_s: RateSummary {
            mean: crate::units::mb_per_s(acc.bytes, duration_ns),
            min: if min.is_finite() { min } else { 0.0 },
            max,
        },
        zone_ratio: None,
        curve,
        latency: acc.hist.summary(),
        submit_latency: acc.submit_hist.summary(),
        bands: acc.bands.to_out(),
        histogram: acc.hist.to_out(),
        slow_total: acc.slow.total(),
        slow: acc.slow.into_items(),
        failed_total: acc.failed.total(),
        failed: acc.failed.into_items(),
        series: acc.series.finish(duration_ns),
        regions: None,
    }
}
