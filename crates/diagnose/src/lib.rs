//! drivescope-diagnose: plans and runs a bounded set of experiments on a target and keeps their measurements
//! in a [`DiagnoseRecord`]; the findings come from the analysis rules over those measurements.
//!
//! The experiments run in an order that keeps one from spoiling the next: the warm-up stream first (a slow
//! start is only seen from the device's first command; its settled part gives the media rate by position),
//! then the zones, the link cap and the queueing, then the read cache (its working sets leave data in the
//! cache), and the write cache last (it leaves the device busy draining). Each adapts its size to what it sees
//! and all share one time budget; an experiment the budget cuts short says so.

mod experiments;
mod stream;

pub use stream::{stream, StreamSpec, Streamed};

use drivescope_core::engine::{DataPattern, EngineKind};
use drivescope_core::target::Target;
use drivescope_record::{DiagnoseRecord, Experiment, Header, Kind, Skipped, Workload};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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

/// The time a diagnosis has left.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    start: Instant,
    total: Duration,
}

impl Budget {
    pub fn new(total: Duration) -> Budget {
        Budget {
            start: Instant::now(),
            total,
        }
    }
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
    pub fn left(&self) -> Duration {
        self.total.saturating_sub(self.start.elapsed())
    }
    pub fn total(&self) -> Duration {
        self.total
    }
}

/// Run the experiments on `target`. A device error ends the run with what was measured before it, the error
/// kept in the record. `say` hears one line as each experiment starts.
pub fn diagnose(
    target: &Target,
    header: Header,
    o: &DiagnoseOptions,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Experiment, &str),
) -> DiagnoseRecord {
    let budget = Budget::new(o.budget);
    let mut rec = DiagnoseRecord {
        header,
        workload: Workload {
            size: o.size,
            data: o.data,
            direct: target.direct,
            interrupted: false,
        },
        budget_ns: o.budget.as_nanos() as u64,
        elapsed_ns: 0,
        writes: o.writes,
        device_error: None,
        warm_up: None,
        zones: None,
        link: None,
        queueing: None,
        read_cache: None,
        write_cache: None,
        skipped: Vec::new(),
        outcomes: Vec::new(),
    };
    debug_assert_eq!(rec.header.kind, Kind::Diagnose);
    let mut run = experiments::Run {
        target,
        o,
        budget,
        stop,
        say,
    };
    for e in Experiment::ALL {
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
        if let Err(err) = run.experiment(e, &mut rec) {
            rec.device_error = Some(format!("{}: {err}", e.label()));
        }
    }
    rec.workload.interrupted = stop.load(Ordering::Relaxed);
    rec.elapsed_ns = budget.elapsed().as_nanos() as u64;
    let (findings, outcomes) = drivescope_analysis::diagnose::assess(&rec);
    rec.header.findings = findings;
    rec.outcomes = outcomes;
    rec
}
