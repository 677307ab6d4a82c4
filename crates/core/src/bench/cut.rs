//! Cutting a running soak at an interval boundary of its time series, for a checkpoint,
//! without stopping its commands.
//!
//! The coordinator asks for a cut at interval `k`; each worker, at its first completion timed
//! in interval `k` or later, closes its series' intervals before `k` and copies its totals
//! before counting that completion. Its copy then holds exactly the commands of those `k`
//! intervals (a late completion timed before the cut counts after it, as the series counts
//! it), so the merged copies are a soak of `k` intervals whose series sums to its totals: one
//! that `soak --resume` continues at `k` intervals. It costs each command one relaxed atomic
//! load, and each cut a copy of the workers' histograms and series.

use super::job::WorkerStats;
use super::run::merge_series;
use crate::engine::Now;
use drivescope_stats::{Histogram, SeriesPoint};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A request for a cut, shared by the coordinator and the workers.
pub(crate) struct Cut {
    /// The interval to cut at; 0 while none is asked.
    at: AtomicU64,
    /// Each worker's copy of the cut asked for.
    slots: Mutex<Vec<Option<WorkerCut>>>,
    /// Workers that have ended their run.
    pub ended: AtomicUsize,
}

/// One worker's totals over the intervals before a cut.
pub(crate) struct WorkerCut {
    hist: Histogram,
    bytes: u64,
    commands: u64,
    errors: u64,
    points: Vec<SeriesPoint>,
    /// The interval of `points` (doubled by the series' merges).
    interval_ns: u64,
    next_block: u64,
}

/// The run's totals over its first `intervals` intervals.
pub struct CutResult {
    pub intervals: u64,
    pub hist: Histogram,
    pub bytes: u64,
    pub commands: u64,
    pub errors: u64,
    pub series: Vec<SeriesPoint>,
    /// The interval of `series`' points.
    pub series_interval_ns: u64,
    /// Where each sequential worker's stream stood, in blocks from its slice's start.
    pub next_blocks: Vec<u64>,
}

/// A worker's part in cuts: the request it answers and what it last answered.
pub(crate) struct CutHandle<'a> {
    cut: &'a Cut,
    worker: usize,
    taken: u64,
}

impl Cut {
    pub fn new(workers: usize) -> Cut {
        Cut {
            at: AtomicU64::new(0),
            slots: Mutex::new((0..workers).map(|_| None).collect()),
            ended: AtomicUsize::new(0),
        }
    }

    pub fn handle(&self, worker: usize) -> CutHandle<'_> {
        CutHandle {
            cut: self,
            worker,
            taken: 0,
        }
    }

    /// Ask for cuts every `every` (wall time) until the workers have ended or `stop` is
    /// set, handing each merged cut to `on_cut`. Cuts stop `interval_ns` before the run's
    /// duration (its own document follows then).
    pub fn coordinate<C: Now>(
        &self,
        clock: &C,
        interval_ns: u64,
        duration_ns: u64,
        every: Duration,
        stop: &AtomicBool,
        on_cut: &mut dyn FnMut(CutResult),
    ) {
        let workers = self.slots.lock().expect("cut slots").len();
        let t0 = clock.now_ns();
        let mut due = Instant::now() + every;
        let running = || self.ended.load(Relaxed) < workers && !stop.load(Relaxed);
        while running() {
            std::thread::sleep(
                Duration::from_millis(5).min(due.saturating_duration_since(Instant::now())),
            );
            if Instant::now() < due {
                continue;
            }
            // The next interval boundary, where every worker's capped series can be cut.
            let k = drivescope_stats::cut_index(
                clock.now_ns().saturating_sub(t0) / interval_ns + 1,
                super::soak::SERIES_MAX_POINTS,
            );
            if (k + 1).saturating_mul(interval_ns) > duration_ns {
                return;
            }
            self.at.store(k, Relaxed);
            // Every worker answers within an interval and its commands' latency.
            let merged = loop {
                if !running() {
                    return;
                }
                if let Some(m) = self.take(k) {
                    break m;
                }
                std::thread::sleep(Duration::from_millis(1));
            };
            on_cut(merged);
            due = (due + every).max(Instant::now());
        }
    }

    /// The merged cut at `k` once every worker has answered.
    fn take(&self, k: u64) -> Option<CutResult> {
        let mut slots = self.slots.lock().expect("cut slots");
        if slots.iter().any(|s| s.is_none()) {
            return None;
        }
        let cuts: Vec<WorkerCut> = slots.iter_mut().filter_map(|s| s.take()).collect();
        let mut out = CutResult {
            intervals: k,
            hist: Histogram::new(),
            bytes: 0,
            commands: 0,
            errors: 0,
            series: Vec::new(),
            series_interval_ns: 0,
            next_blocks: cuts.iter().map(|c| c.next_block).collect(),
        };
        let mut series = Vec::with_capacity(cuts.len());
        for c in cuts {
            out.hist.merge(&c.hist);
            out.bytes += c.bytes;
            out.commands += c.commands;
            out.errors += c.errors;
            series.push((c.interval_ns, c.points));
        }
        (out.series_interval_ns, out.series) = merge_series(series);
        Some(out)
    }
}

impl CutHandle<'_> {
    /// Before a completion at `done_ns` is counted: answer a cut asked for, when this is the
    /// first completion at or past it.
    #[inline]
    pub fn before(&mut self, stats: &mut WorkerStats, next_block: u64, done_ns: u64) {
        let k = self.cut.at.load(Relaxed);
        if k <= self.taken {
            return;
        }
        let Some(series) = stats.series.as_mut() else {
            return;
        };
        if series.index_of(done_ns) < k {
            return;
        }
        self.answer(stats, next_block, k);
    }

    #[cold]
    fn answer(&mut self, stats: &mut WorkerStats, next_block: u64, k: u64) {
        let series = stats.series.as_mut().expect("a series");
        let points = series.cut(k).to_vec();
        let interval_ns = series.interval_ns();
        self.taken = k;
        let c = WorkerCut {
            hist: stats.hist.clone(),
            bytes: stats.bytes,
            commands: stats.commands,
            errors: stats.errors,
            points,
            interval_ns,
            next_block,
        };
        self.cut.slots.lock().expect("cut slots")[self.worker] = Some(c);
    }
}
