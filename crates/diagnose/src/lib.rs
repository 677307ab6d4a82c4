//! drivescope-diagnose: plans and runs a bounded set of experiments on a target and keeps their measurements
//! in a [`DiagnoseRecord`]; the findings come from the analysis rules over those measurements.
//!
//! The experiments run in an order that keeps one from spoiling the next: the warm-up stream first (a slow
//! start is only seen from the device's first command; its settled part gives the media rate by position),
//! then, when those sustained reads fell by a lasting step, a rest and the same reads again (a thermal throttle
//! recovers; this runs before the others add heat of their own), then the zones, the link cap and the
//! queueing, then the read cache (its working sets leave data in the cache), then the write cache (it leaves the
//! device busy draining), and the SMR random writes last (they leave a drive-managed SMR disk's media cache full,
//! which only idle time drains). Each adapts its size to what it sees
//! and all share one time budget; an experiment the budget cuts short says so.
//!
//! The experiments run on any [`Engine`]: [`diagnose`] runs them on a real target ([`Live`]),
//! [`diagnose_on`] on the engine given (a scripted device in tests, with the budget counted on its
//! virtual clock).

pub mod array;
pub mod array_step;
mod experiments;
mod flush;
mod random_reads;
mod resume;
mod smr;
mod spots;
mod stream;
#[cfg(test)]
mod tests;
mod throttle;
mod watched;

pub use flush::{CountFlushes, FlushOpener, OpenFlush};
pub use resume::{remove_stale, Progress};

pub use stream::{stream, stream_on, StreamSpec, Streamed};

use drivescope_core::checkpoint::Checkpoints;
use drivescope_core::engine::{Clock, DataPattern, Engine, EngineKind, Live, Now};
use drivescope_core::scan::lost_watch::LostWatch;
use drivescope_core::target::Target;
use drivescope_record::{DiagnoseRecord, Experiment, Header, Kind, OwnFile, Skipped, Workload};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What to diagnose and how long to take.
#[derive(Debug, Clone)]
pub struct DiagnoseOptions {
    pub engine: EngineKind,
    pub data: DataPattern,
    /// The region `[0, size)` the experiments use.
    pub size: u64,
    pub budget: Duration,
    /// Write experiments are allowed (a test file, or a device offered for destruction).
    pub writes: bool,
    /// Why writes are not allowed, when they are not.
    pub no_writes_why: String,
    /// The region covers the whole device: the stream's rate by position is the device's zone curve.
    pub whole_device: bool,
    /// Positions in the target are a device's (a block device, not a file).
    pub block_device: bool,
    /// Live counters of the timed runs, for a view of the diagnosis.
    pub watch: Option<&'static drivescope_core::bench::watch::Watch>,
}

/// The time a diagnosis has left, counted on a run's clock (the monotonic clock on a real target,
/// the virtual one of a scripted device).
#[derive(Debug)]
pub struct Budget<C: Now = Clock> {
    clock: C,
    spent: Duration,
    total: Duration,
}

impl Budget<Clock> {
    pub fn new(total: Duration) -> Budget {
        Budget::resumed(total, Duration::ZERO)
    }
    /// A budget of which `spent` was used before (by the finished experiments of a resumed run).
    pub fn resumed(total: Duration, spent: Duration) -> Budget {
        Budget::on(Clock::new(), total, spent)
    }
}

impl<C: Now> Budget<C> {
    /// A budget counted on `clock` from now (the clock reads 0 now), of which `spent` was used before.
    pub fn on(clock: C, total: Duration, spent: Duration) -> Budget<C> {
        Budget {
            clock,
            spent,
            total,
        }
    }
    pub fn elapsed(&self) -> Duration {
        self.spent + Duration::from_nanos(self.clock.now_ns())
    }
    pub fn left(&self) -> Duration {
        self.total.saturating_sub(self.elapsed())
    }
    pub fn total(&self) -> Duration {
        self.total
    }
}

/// A diagnosis continued, and where its progress goes.
#[derive(Debug, Default)]
pub struct DiagnoseRun {
    /// The stopped diagnosis this one continues (`diagnose --resume`): the experiments it finished are
    /// kept, the others run again whole, with the budget the finished ones left.
    pub prior: Option<DiagnoseRecord>,
    /// Takes the record at the start (with the plan) and after each experiment that ran to its end: what
    /// the run would save were it stopped then, with `resume` and without `checkpoint`. Each snapshot holds
    /// everything before it, so one the writer drops is made good by the next.
    pub checkpoints: Option<Checkpoints<DiagnoseRecord>>,
    /// The directory given as the target, when the experiments run on a test file in it.
    pub directory: Option<String>,
    /// That test file, named in the snapshots.
    pub test_file: Option<OwnFile>,
    /// The target is an array ([`array_step::find`]): its members are read first.
    pub array: Option<array_step::Found>,
    /// Opens what the flush-honesty experiment writes and flushes, and reads the block layer's flush count;
    /// on a real target ([`measure`], [`diagnose`]) the target's own file or device when none is given, its
    /// flushes counted on the devices under it the header's identity names. Without one the experiment is
    /// skipped.
    pub flush: Option<FlushOpener>,
}

/// Run the experiments on `target` (those `run.prior` has not finished, when it continues one). A device
/// error ends the run with what was measured before it, the error kept in the record. `say` hears one line
/// as each experiment starts. The record comes back with its measurements and without findings: the caller
/// adds what else they depend on (the drive's temperature) and then calls [`assess`] once.
pub fn measure(
    target: &Target,
    header: Header,
    o: &DiagnoseOptions,
    run: DiagnoseRun,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Experiment, &str),
) -> DiagnoseRecord {
    let run = live(run, target, &header);
    measure_on(&Live(target), target, header, o, run, stop, say)
}

/// `run` with the target's own file or device for the flush experiment, when it names none; the flush
/// requests counted on the devices under the target `header`'s identity names (none without one).
fn live(mut run: DiagnoseRun, target: &Target, header: &Header) -> DiagnoseRun {
    if run.flush.is_none() {
        let watch = drivescope_core::durability::device_flushes::watched(header.device.as_ref());
        run.flush = target.path.as_deref().map(|p| FlushOpener::file(p, watch));
    }
    run
}

/// [`measure`], then [`assess`]: a diagnosis with nothing added to its measurements.
pub fn diagnose(
    target: &Target,
    header: Header,
    o: &DiagnoseOptions,
    run: DiagnoseRun,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Experiment, &str),
) -> DiagnoseRecord {
    let run = live(run, target, &header);
    diagnose_on(&Live(target), target, header, o, run, stop, say)
}

/// [`measure_on`], then [`assess`].
pub fn diagnose_on<E: Engine>(
    dev: &E,
    target: &Target,
    header: Header,
    o: &DiagnoseOptions,
    run: DiagnoseRun,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Experiment, &str),
) -> DiagnoseRecord {
    let mut rec = measure_on(dev, target, header, o, run, stop, say);
    assess(&mut rec);
    rec
}

/// [`measure`] with every command run on `dev`, and the budget counted on `dev`'s clock. `target` is what
/// the commands' engine is chosen for and the record describes (the null target under a scripted device).
pub fn measure_on<E: Engine>(
    dev: &E,
    target: &Target,
    header: Header,
    o: &DiagnoseOptions,
    run: DiagnoseRun,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Experiment, &str),
) -> DiagnoseRecord {
    let (mut rec, mut progress) = match run.prior {
        Some(prior) => resume::continued(prior),
        None => (new_record(header, target, o), Progress::default()),
    };
    debug_assert_eq!(rec.header.kind, Kind::Diagnose);
    let budget = Budget::on(
        dev.clock(),
        o.budget,
        Duration::from_nanos(progress.finished_ns),
    );
    let mut checkpoints = run.checkpoints;
    let flush = run.flush;
    let directory = run.directory.clone();
    let mut snapshot = |rec: &DiagnoseRecord, p: &Progress| {
        if let Some(c) = checkpoints.as_mut() {
            (c.save)(resume::snapshot(
                rec,
                p,
                run.directory.as_deref(),
                run.test_file.clone(),
            ));
        }
    };
    snapshot(&rec, &progress);
    if let Some(found) = &run.array {
        array_step::run(found, target, o.writes, &budget, &mut rec, stop, say);
        if rec.array.is_some() {
            snapshot(&rec, &progress);
        }
    }
    let mut run = experiments::Run {
        dev,
        target,
        o,
        budget: &budget,
        stop,
        say,
        watch: RefCell::new(watched::Watch {
            lost: LostWatch::new(
                o.size,
                u64::from(target.logical_block_size),
                dev.gone_check(),
            ),
            seen: spots::Seen::continuing(rec.spots.as_ref()),
            refused: None,
        }),
        flush,
    };
    for e in Experiment::ALL {
        if progress.finished.contains(&e) {
            continue;
        }
        if stop.load(Ordering::Relaxed) {
            rec.skipped.push(Skipped {
                experiment: e,
                why: "interrupted".into(),
            });
            continue;
        }
        if rec.device_error.is_some() {
            rec.skipped.push(Skipped {
                experiment: e,
                why: "the device failed earlier in the run".into(),
            });
            continue;
        }
        let result = run.experiment(e, &mut rec);
        rec.spots = run.watch.get_mut().seen.spots();
        match result {
            // The lost-device rule's verdict, in its own words.
            Err(_) if run.watch.get_mut().lost.lost().is_some() => {
                let why = run.watch.get_mut().lost.lost().unwrap_or_default();
                rec.device_error = Some(format!("{}: {why}", e.label()));
            }
            Err(err) => rec.device_error = Some(format!("{}: {err}", e.label())),
            // An experiment the stop cut short is not finished: a resumed run does it again whole.
            Ok(()) if stop.load(Ordering::Relaxed) => {}
            Ok(()) => {
                progress.finished.push(e);
                progress.finished_ns = budget.elapsed().as_nanos() as u64;
                snapshot(&rec, &progress);
            }
        }
    }
    // A failure the rule could not judge (a small device, or a deep queue's failures spread over it, leave no
    // place far enough to probe), and nothing read fine after it to the end: the run says so, as a scan does,
    // rather than leave the failures to read as bad spots only.
    if rec.device_error.is_none() {
        rec.lost_inconclusive = run.watch.get_mut().lost.inconclusive().map(String::from);
    }
    rec.workload.interrupted = stop.load(Ordering::Relaxed);
    rec.elapsed_ns = budget.elapsed().as_nanos() as u64;
    rec.resume = resume::left(&progress, directory.as_deref());
    rec
}

/// The findings and outcomes, computed over every experiment in the record (and its temperature).
pub fn assess(rec: &mut DiagnoseRecord) {
    let (findings, outcomes) = drivescope_analysis::diagnose::assess(rec);
    rec.header.findings = findings;
    rec.outcomes = outcomes;
}

fn new_record(header: Header, target: &Target, o: &DiagnoseOptions) -> DiagnoseRecord {
    DiagnoseRecord {
        header,
        workload: Workload {
            size: o.size,
            data: o.data,
            direct: target.direct,
            interrupted: false,
            test_file: None,
        },
        budget_ns: o.budget.as_nanos() as u64,
        elapsed_ns: 0,
        writes: o.writes,
        device_error: None,
        lost_inconclusive: None,
        warm_up: None,
        zones: None,
        link: None,
        queueing: None,
        read_cache: None,
        write_cache: None,
        throttle: None,
        smr: None,
        flush_honesty: None,
        array: None,
        skipped: Vec::new(),
        spots: None,
        temperature: None,
        outcomes: Vec::new(),
        resume: None,
        checkpoint: None,
    }
}
