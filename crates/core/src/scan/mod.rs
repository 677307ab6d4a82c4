//! Scans: the full-surface sequential scan and the 256-region quick scan.
//!
//! Both end a run as *device lost* only by the rule in [`lost`]: an error that means gone,
//! the kernel's word, or probes of several places far from every failure (64 MiB, or 1 % of
//! the range) and from each other all failing, a pause apart; a failure in or near damage
//! never does, and where no far place exists the verdict is said to be inconclusive.

mod accum;
pub mod checkpoint;
#[cfg(test)]
mod checkpoint_tests;
#[cfg(test)]
mod damage_space_tests;
#[cfg(test)]
mod error_time_tests;
#[cfg(test)]
mod extent_tests;
mod extents;
pub mod live;
#[cfg(test)]
mod live_tests;
pub mod lost;
#[cfg(test)]
mod lost_tests;
pub mod lost_watch;
mod passes;
#[cfg(test)]
mod passes_tests;
mod quick;
mod record;
#[cfg(test)]
mod scripted_tests;
mod sequential;
#[cfg(test)]
mod stopped_tests;
mod surface;
pub mod verify;
#[cfg(test)]
mod zone_ratio_tests;

pub use accum::{Event, FailedSink, Progress, LIST_CAP};
pub use checkpoint::Checkpoints;
pub use drivescope_record::{
    ErrorBudget, FailedExtent, SlowRegion, Surface, UntriedExtent, EXTENT_LIST_CAP,
};
pub use passes::max_skip;
pub use quick::{QuickParams, QuickScan, Region};
pub use record::{Checkpoint, CheckpointCost, RateSummary, ResumeState, ScanRecord, ToolInfo};
pub use sequential::{ScanParams, SequentialScan};

use crate::engine::{self, Engine, EngineConfig, EngineError, EngineKind, Now, Reap};
use crate::target::{Target, TargetType};
use crate::units::{format_size, short_size, SizeOrPercent};
use drivescope_record::{Header, Kind, Pass};
use std::sync::Arc;
use std::time::SystemTime;

/// The most curve bins a scan keeps (`--points`): far more than a chart shows, and a curve
/// whose memory and document stay small whatever is asked.
pub const MAX_POINTS: usize = 100_000;

/// The shortest interval of a scan's time series: one point per interval is kept, so a
/// shorter one would grow the series with the run's time (`--interval` and resumed runs).
pub const MIN_INTERVAL_NS: u64 = 1_000_000;

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
    /// Write the range (the target must have been opened through the destructive gate).
    pub write: bool,
    /// With `write`: the verify seed; the range is written with a pattern that names each
    /// sector and read back (see [`verify`]).
    pub verify: Option<u64>,
    /// How to wait for completions (resolved with [`engine::resolve_scan_reap`]).
    pub reap: Reap,
    /// Full scan: time for scraping and retries after the first pass and trimming.
    pub error_budget: ErrorBudget,
    /// Full scan: passes over the failed sectors, within the error budget.
    pub retries: u32,
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
            write: false,
            verify: None,
            reap: Reap::Auto,
            error_budget: ErrorBudget::Auto,
            retries: 0,
        }
    }
}

impl ScanConfig {
    /// The configuration of a stored scan, to continue it with [`resume`].
    pub fn of_record(r: &ScanRecord) -> ScanConfig {
        ScanConfig {
            engine: r.engine,
            queue_depth: r.queue_depth,
            block_size: r.block_size,
            offset: Some(SizeOrPercent::Bytes(r.offset)),
            length: Some(SizeOrPercent::Bytes(r.length)),
            points: if r.points == 0 { 1000 } else { r.points },
            slow_ns: r.slow_threshold_ns,
            interval_ns: if r.interval_ns == 0 {
                1_000_000_000
            } else {
                r.interval_ns.max(MIN_INTERVAL_NS)
            },
            quick: None,
            write: r.write,
            verify: None,
            reap: r.reap,
            error_budget: r.error_budget.unwrap_or_default(),
            retries: r.retries,
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

/// The validated range, engine and wait mode.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub start: u64,
    pub length: u64,
    pub engine: EngineKind,
    pub reap: Reap,
}

/// A size the user gave, spelled as size arguments are (`60M`, `8M`, `1000`), or the
/// percentage they gave with the bytes it came to (`50% = 512M`).
fn spelled(given: Option<SizeOrPercent>, bytes: u64) -> String {
    match given {
        Some(SizeOrPercent::Percent(p)) => format!("{p}% = {}", arg(bytes)),
        _ => arg(bytes),
    }
}

/// Bytes as a size argument spells them: `64K`, `60M`, `2G`, or the bare number (`1000`).
fn arg(bytes: u64) -> String {
    let s = short_size(bytes);
    match s.strip_suffix('B') {
        Some(n) => n.to_string(),
        None => s,
    }
}

/// Check a configuration against a target and resolve range and engine.
pub fn plan(cfg: &ScanConfig, target: &Target) -> Result<Plan, ScanError> {
    let invalid = |m: String| Err(ScanError::Invalid(m));
    let lbs = target.logical_block_size as u64;
    if cfg.block_size < lbs {
        return invalid(format!(
            "block size {} is too small: a command is at least one sector ({})",
            arg(cfg.block_size),
            format_size(lbs)
        ));
    }
    if !cfg.block_size.is_multiple_of(lbs) {
        return invalid(format!(
            "block size {} is not a whole number of sectors ({} each)",
            arg(cfg.block_size),
            format_size(lbs)
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
    if !(1..=MAX_POINTS).contains(&cfg.points) {
        return invalid(format!(
            "--points {} is out of range (1..={MAX_POINTS})",
            cfg.points
        ));
    }
    let start = cfg.offset.map_or(0, |o| o.resolve(target.size));
    let start = match cfg.offset {
        Some(SizeOrPercent::Percent(_)) => start / lbs * lbs,
        _ => start,
    };
    let offset = spelled(cfg.offset, start);
    if !start.is_multiple_of(lbs) {
        return invalid(format!(
            "offset {offset} is not a whole number of sectors ({} each)",
            format_size(lbs)
        ));
    }
    if start >= target.size {
        return invalid(format!(
            "offset {offset} is at or beyond the end of {} ({})",
            target.spec,
            format_size(target.size)
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
    let spelled_length = spelled(cfg.length, length);
    if !length.is_multiple_of(lbs) {
        return invalid(format!(
            "length {spelled_length} is not a whole number of sectors ({} each)",
            format_size(lbs)
        ));
    }
    if start
        .checked_add(length)
        .is_none_or(|end| end > target.size)
    {
        return invalid(format!(
            "offset + length ({offset} + {spelled_length}) runs past the end of {} ({})",
            target.spec,
            format_size(target.size)
        ));
    }
    if cfg.write && cfg.quick.is_some() {
        return invalid("a quick scan only reads; --write takes a full scan".into());
    }
    if cfg.verify.is_some() && !cfg.write {
        return invalid("--verify checks what a write scan wrote; add --write".into());
    }
    if cfg.verify.is_some() && target.kind == TargetType::Null {
        return invalid("--verify needs a real device: the null target stores nothing".into());
    }
    if cfg.write && target.kind != TargetType::Null && !target.writable() {
        return invalid(format!(
            "{} was opened read-only; a write scan needs the destructive gate",
            target.spec
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
        reap: engine::resolve_scan_reap(cfg.reap, engine, cfg.queue_depth as usize),
    })
}

/// Where a scan begins.
#[derive(Debug, Clone, Copy)]
pub enum Start<'r> {
    /// A new scan (or quick scan), as the user asked.
    New(&'r ScanConfig),
    /// The interrupted scan `prior` (a stored scan document) continued from where it stopped,
    /// with its parameters. The result covers the whole range as one uninterrupted scan would:
    /// the same curve bins, totals, histograms, bands and lists (the series continues after the
    /// first part's duration).
    Resume(&'r ScanRecord),
}

/// What a scan reports to: its live counters, its stop flag, its checkpoints (snapshots of the
/// whole scan so far, of a full scan without `verify`, at their interval: see [`checkpoint`]) and
/// every failed-list entry as it is found.
pub type Observer<'a> = crate::observer::Observer<'a, Progress, ScanRecord, Event>;

/// Run a scan of `target`, with its commands run on `dev` ([`engine::Live`] for the device
/// itself; a scripted device in tests, `target` then being the null target of its size), to the
/// end or until the observer's stop flag is set.
pub fn run<E: Engine>(
    dev: &E,
    target: &Target,
    start: Start<'_>,
    observer: Observer<'_>,
) -> Result<ScanRecord, ScanError> {
    let prior = match start {
        Start::New(cfg) => return run_from(dev, target, cfg, None, observer),
        Start::Resume(prior) => prior,
    };
    let state = resume_state(target, prior)?;
    let cfg = ScanConfig::of_record(prior);
    run_from(dev, target, &cfg, Some((prior, state)), observer)
}

/// The resume state of `prior`, when `target` can continue it.
fn resume_state<'p>(target: &Target, prior: &'p ScanRecord) -> Result<&'p ResumeState, ScanError> {
    let invalid = |m: String| Err(ScanError::Invalid(m));
    if prior.header.kind != Kind::Scan {
        return invalid(format!(
            "only a full scan can be resumed (that run is a {})",
            prior.header.kind
        ));
    }
    if prior.verify.is_some() {
        return invalid("a write scan with --verify cannot be resumed; run it again".into());
    }
    let Some(state) = prior.resume.as_ref().filter(|_| prior.interrupted) else {
        return invalid(
            "that run was not interrupted (or predates --resume): nothing to resume".into(),
        );
    };
    if target.size != prior.header.target.size
        || target.logical_block_size != prior.header.target.logical_block_size
    {
        return invalid(format!(
            "{} is not the device of that run: {} bytes in {}-byte sectors, the run had {} in {}",
            target.spec,
            target.size,
            target.logical_block_size,
            prior.header.target.size,
            prior.header.target.logical_block_size
        ));
    }
    let end = prior.offset.saturating_add(prior.length);
    let first_done = state.passes.as_ref().is_some_and(|s| s.pass != Pass::First);
    if state.next_offset < prior.offset
        || state.next_offset > end
        || (state.next_offset == end && !first_done)
        || (state.next_offset < end
            && !(state.next_offset - prior.offset).is_multiple_of(prior.block_size.max(1)))
    {
        return invalid("the stored resume point is not inside the run's range".into());
    }
    Ok(state)
}

/// [`run_from`] with fresh counters and no checkpoints, for the tests.
#[cfg(test)]
fn run_inner<E: Engine>(
    dev: &E,
    target: &Target,
    cfg: &ScanConfig,
    prior: Option<(&ScanRecord, &ResumeState)>,
    progress: Arc<Progress>,
    stop: &std::sync::atomic::AtomicBool,
    sink: Option<FailedSink>,
) -> Result<ScanRecord, ScanError> {
    let observer = Observer::counting(progress, stop).with_events(sink);
    run_from(dev, target, cfg, prior, observer)
}

/// A scan (or its continuation of `prior`) of `target` with its commands run on `dev`.
fn run_from<E: Engine>(
    dev: &E,
    target: &Target,
    cfg: &ScanConfig,
    prior: Option<(&ScanRecord, &ResumeState)>,
    observer: Observer<'_>,
) -> Result<ScanRecord, ScanError> {
    let Observer {
        progress,
        stop,
        checkpoints,
        events: sink,
    } = observer;
    let plan = plan(cfg, target)?;
    let lbs = target.logical_block_size as u64;
    let engine_cfg = EngineConfig {
        kind: plan.engine,
        queue_depth: cfg.queue_depth as usize,
        max_len: cfg.block_size as usize,
        data: if cfg.write {
            engine::DataPattern::Random
        } else {
            engine::DataPattern::Zero
        },
        reap: plan.reap,
    };
    let ctx = Ctx {
        target,
        cfg,
        plan,
        started: SystemTime::now(),
    };
    let clock = dev.clock();
    let mut rec = match cfg.quick {
        None => {
            let params = ScanParams {
                start: plan.start,
                length: plan.length,
                block_size: cfg.block_size,
                sector: lbs,
                points: cfg.points,
                slow_ns: cfg.slow_ns,
                interval_ns: cfg.interval_ns,
                write: cfg.write,
                budget: cfg.error_budget,
                retries: cfg.retries,
            };
            let mut job = SequentialScan::new(params, progress.clone());
            job.acc.prober.set_kernel(dev.gone_check());
            if let Some((p, state)) = prior {
                job = job.starting_at(state.next_offset);
                if state.bins.is_empty() {
                    if let Some(b) = &state.last_bin {
                        job.curve.add_prior(b);
                    }
                } else {
                    for b in &state.bins {
                        job.curve.add_prior(b);
                    }
                }
                let bad: Vec<(u64, u64, i32)> = p
                    .failed_extents_or_derived()
                    .iter()
                    .map(|e| (e.offset, e.length, e.errno))
                    .collect();
                job.passes
                    .resume(state.next_offset, state.passes.as_ref(), &bad);
                job.acc.absorb(p, &state.submit_histogram);
            }
            job.acc.sink = sink;
            let pattern = cfg.verify.map(|seed| verify::Pattern { seed, unit: lbs });
            let mut cost = None;
            let job = match (pattern, checkpoints) {
                (Some(pattern), _) => {
                    // A verified write scan cannot be resumed: no checkpoints.
                    let mut pass = verify::WritePass { scan: job, pattern };
                    dev.run(&engine_cfg, 0, &clock, stop, &mut pass)?;
                    pass.scan
                }
                (None, Some(Checkpoints { every_ns, mut save })) => {
                    let snapshot = |job: &SequentialScan, now_ns: u64| {
                        let mut rec = sequential_record(job, now_ns, prior, &ctx);
                        rec.interrupted = true;
                        save(rec);
                    };
                    let mut run = checkpoint::Checkpointed::new(job, every_ns, &clock, snapshot);
                    dev.run(&engine_cfg, 0, &clock, stop, &mut run)?;
                    cost = Some(run.cost());
                    run.scan
                }
                (None, None) => {
                    let mut job = job;
                    dev.run(&engine_cfg, 0, &clock, stop, &mut job)?;
                    job
                }
            };
            let mut rec = sequential_record(&job, clock.now_ns(), prior, &ctx);
            rec.checkpoints = cost;
            let complete = job.finished();
            if let (Some(pattern), true) = (pattern, complete) {
                let t0 = clock.now_ns();
                let read_progress = Arc::new(Progress::default());
                if let Some(l) = progress.live.get() {
                    let _ = read_progress
                        .live
                        .set(live::Live::new(l.start, l.length, l.sector));
                }
                let _ = progress.read_back.set(read_progress.clone());
                let read = SequentialScan::new(
                    ScanParams {
                        write: false,
                        retries: 0,
                        ..params
                    },
                    read_progress,
                );
                let mut read = read;
                read.acc.prober.set_kernel(dev.gone_check());
                let mut pass = verify::ReadPass::new(read, pattern);
                dev.run(&engine_cfg, 1, &clock, stop, &mut pass)?;
                let lost = pass.scan.acc.lost.clone();
                let report = pass.report(clock.now_ns() - t0);
                if !report.complete {
                    rec.interrupted = true;
                }
                rec.device_lost = rec.device_lost.or(lost);
                rec.verify = Some(report);
            }
            if !complete {
                rec.interrupted = true;
            }
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
            job.acc.sink = sink;
            job.acc.prober.set_kernel(dev.gone_check());
            dev.run(&engine_cfg, 0, &clock, stop, &mut job)?;
            let duration_ns = clock.now_ns();
            let regions_out = job.regions();
            let done = regions_out.len() as u32 == regions;
            let mut rec = finish(&job.acc, duration_ns, Vec::new(), Kind::QuickScan, &ctx);
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
            rec.device_lost = job.acc.lost.clone();
            rec.lost_inconclusive = job
                .acc
                .prober
                .inconclusive()
                .filter(|_| rec.device_lost.is_none())
                .map(String::from);
            rec
        }
    };
    rec.interrupted |= rec.covered < plan.length || rec.device_lost.is_some();
    Ok(rec)
}

/// The document of a full scan as far as `job` got at `duration_ns` (its end, or a checkpoint),
/// merged with the earlier part when it continues `prior`.
fn sequential_record(
    job: &SequentialScan,
    duration_ns: u64,
    prior: Option<(&ScanRecord, &ResumeState)>,
    ctx: &Ctx,
) -> ScanRecord {
    let plan = ctx.plan;
    let next_offset = job.next_offset();
    let covered = next_offset - plan.start;
    let complete = job.finished();
    let resume_state = (!complete && covered > 0).then(|| ResumeState {
        next_offset,
        last_bin: Some(job.curve.bin_state(job.curve.bin_of(next_offset - 1))),
        submit_histogram: job.acc.submit_hist.to_out(),
        bins: job.curve.states(),
        passes: Some(job.passes.state(duration_ns)),
    });
    let mut curve = job.curve.points();
    let mut zone_ratio = if complete {
        job.curve.zone_ratio(0.05)
    } else {
        None
    };
    let lost = job.acc.lost.clone();
    let lbs = ctx.target.logical_block_size as u64;
    let surface = job.passes.surface(duration_ns);
    let map_cut = job.passes.cut();
    let (failed_extents, failed_cut) = job.passes.map.extents(lbs, EXTENT_LIST_CAP);
    let (untried_extents, untried_cut) = job.passes.map.untried(lbs, EXTENT_LIST_CAP);
    let mut prior_duration = 0;
    let mut prior_series = Vec::new();
    if let Some((p, state)) = prior {
        // Documents from before `bins` continued the curve from the last bin alone: bins wholly before the
        // resumed bin are the first run's points, unchanged.
        if state.bins.is_empty() {
            let split = state
                .last_bin
                .filter(|b| b.index < job.curve.bins().len())
                .map(|b| job.curve.bin_range(b.index).0)
                .unwrap_or(state.next_offset);
            let mut merged: Vec<_> = p
                .curve
                .iter()
                .filter(|q| q.offset < split)
                .cloned()
                .collect();
            merged.append(&mut curve);
            curve = merged;
            if complete {
                zone_ratio = drivescope_stats::zone_ratio_of(&curve, plan.start, plan.length, 0.05);
            }
        }
        prior_duration = p.duration_ns;
        prior_series = p.series.clone();
    }
    let mut rec = finish(&job.acc, duration_ns, curve, Kind::Scan, ctx);
    if let Some((p, _)) = prior {
        rec.duration_ns = rec.duration_ns.saturating_add(prior_duration);
        for q in &mut rec.series {
            q.t_ns = q.t_ns.saturating_add(prior_duration);
        }
        prior_series.append(&mut rec.series);
        rec.series = prior_series;
        rec.mb_per_s.mean = crate::units::mb_per_s(rec.bytes, rec.duration_ns);
        rec.header.started_at = p.header.started_at.clone();
    }
    rec.zone_ratio = zone_ratio;
    // The rate without the time spent on errors, beside the wall-clock one (at QD > 1 latencies overlap: the sum
    // is bounded by the run's time).
    let prior_error_ns = prior.and_then(|(p, _)| p.mb_per_s.error_ns).unwrap_or(0);
    let error_ns = job
        .acc
        .error_ns
        .saturating_add(prior_error_ns)
        .min(rec.duration_ns);
    if error_ns > 0 && rec.duration_ns > error_ns {
        rec.mb_per_s.error_ns = Some(error_ns);
        rec.mb_per_s.without_errors = Some(crate::units::mb_per_s(
            rec.bytes.saturating_sub(job.acc.error_bytes),
            rec.duration_ns - error_ns,
        ));
    }
    rec.covered = covered;
    rec.lost_inconclusive = job
        .acc
        .prober
        .inconclusive()
        .filter(|_| lost.is_none())
        .map(String::from);
    rec.device_lost = lost;
    rec.resume = resume_state;
    rec.failed_extents = failed_extents;
    rec.failed_extents_cut = min_some(failed_cut, map_cut);
    rec.untried_extents = untried_extents;
    rec.untried_extents_cut = min_some(untried_cut, map_cut);
    rec.surface = Some(surface);
    rec.error_budget = Some(ctx.cfg.error_budget);
    rec.retries = ctx.cfg.retries;
    rec
}

/// The lower of two cut offsets, either of which may be absent.
fn min_some(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// What a record says about how the run was made.
struct Ctx<'a> {
    target: &'a Target,
    cfg: &'a ScanConfig,
    plan: Plan,
    started: SystemTime,
}

fn finish(
    acc: &accum::Accum,
    duration_ns: u64,
    curve: Vec<drivescope_stats::CurvePoint>,
    kind: Kind,
    ctx: &Ctx,
) -> ScanRecord {
    acc.publish_live();
    let rates = curve.iter().map(|p| p.mb_per_s);
    let min = rates.clone().fold(f64::INFINITY, f64::min);
    let max = rates.fold(0.0, f64::max);
    let mut header = Header::new(
        kind,
        ctx.target.info(),
        drivescope_record::hostname(),
        drivescope_record::rfc3339(ctx.started),
    );
    header.end_now();
    ScanRecord {
        header,
        engine: ctx.plan.engine,
        reap: ctx.plan.reap,
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
            without_errors: None,
            error_ns: None,
        },
        zone_ratio: None,
        curve,
        latency: acc.hist.summary(),
        submit_latency: acc.submit_hist.summary(),
        bands: acc.bands.to_out(),
        histogram: acc.hist.to_out(),
        slow_total: acc.slow.total(),
        slow: acc.slow.items().to_vec(),
        failed_total: acc.failed.total(),
        failed: acc.failed.items().to_vec(),
        failed_extents: acc.failed_extents.extents(acc.sector),
        failed_extents_cut: acc.failed_extents.cut(),
        slow_regions: acc.slow_regions.regions(),
        slow_regions_cut: acc.slow_regions.cut(),
        untried_extents: Vec::new(),
        untried_extents_cut: None,
        surface: None,
        error_budget: None,
        retries: 0,
        series: acc.series.clone().finish(duration_ns),
        temperature: None,
        regions: None,
        write: ctx.cfg.write,
        points: ctx.cfg.points,
        interval_ns: ctx.cfg.interval_ns,
        device_lost: None,
        lost_inconclusive: None,
        resumed_from: None,
        checkpoint: None,
        checkpoints: None,
        resume: None,
        verify: None,
    }
}
