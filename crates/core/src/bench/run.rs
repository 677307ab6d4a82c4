//! One timed run of a test: its worker threads (one ring each), started together on a
//! shared clock, each issuing until the deadline; their statistics merged.

use super::cut::{Cut, CutResult};
use super::job::{thread_cpu_ns, IoJob, JobSpec, WorkerStats};
use super::pattern::{Access, Rw, TestSpec};
use crate::engine::{
    self, Clock, Cmd, Completion, DataPattern, Engine, EngineConfig, EngineError, EngineKind, Job,
    Live, Next, Reap,
};
use crate::target::Target;
use drivescope_stats::{Histogram, SeriesPoint};
use std::sync::atomic::AtomicBool;
use std::sync::Barrier;

/// The merged result of one run.
pub struct RunResult {
    pub engine: EngineKind,
    /// How completions were awaited.
    pub reap: Reap,
    pub duration_ns: u64,
    pub bytes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub commands: u64,
    pub errors: u64,
    pub first_errno: Option<i32>,
    pub hist: Histogram,
    pub submit_hist: Histogram,
    /// Completion latency alone (fio's clat); `hist` is the whole command time.
    pub clat_hist: Histogram,
    pub cpu_ns: u64,
    /// Per-interval series when asked for (threads merged: bytes and commands summed, p99
    /// the highest of the threads').
    pub series: Option<Vec<SeriesPoint>>,
    /// The interval of the series' points: the one asked for, doubled as often as a long run
    /// needed to stay within [`super::soak::SERIES_MAX_POINTS`].
    pub series_interval_ns: u64,
    /// Where each worker's sequential stream stood at the end, in blocks from its slice's
    /// start.
    pub next_blocks: Vec<u64>,
}

impl RunResult {
    pub fn mb_per_s(&self) -> f64 {
        crate::units::mb_per_s(self.bytes, self.duration_ns)
    }

    pub fn iops(&self) -> f64 {
        if self.duration_ns == 0 {
            0.0
        } else {
            (self.commands - self.errors) as f64 * 1e9 / self.duration_ns as f64
        }
    }

    pub fn cpu_ns_per_command(&self) -> f64 {
        if self.commands == 0 {
            0.0
        } else {
            self.cpu_ns as f64 / self.commands as f64
        }
    }
}

/// How to run.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    pub engine: EngineKind,
    /// How the io_uring engine waits (`Auto` is resolved per run).
    pub reap: Reap,
    pub data: DataPattern,
    pub duration_ns: u64,
    /// Region of the target: `[0, region)`.
    pub region: u64,
    pub series_interval_ns: Option<u64>,
    pub seed: u64,
    /// Live counters for a view of the run: each worker fills its own lane.
    pub watch: Option<&'static super::watch::Watch>,
}

/// Run `spec` with `rw` once.
pub fn run_once(
    target: &Target,
    spec: &TestSpec,
    rw: Rw,
    opts: &RunOptions,
    stop: &AtomicBool,
) -> Result<RunResult, EngineError> {
    run_once_on(&Live(target), target, spec, rw, opts, stop)
}

/// [`run_once`] with the commands run on `dev` (a scripted device in tests; `target` then is
/// the null target, for the plan).
pub fn run_once_on<E: Engine>(
    dev: &E,
    target: &Target,
    spec: &TestSpec,
    rw: Rw,
    opts: &RunOptions,
    stop: &AtomicBool,
) -> Result<RunResult, EngineError> {
    run_continued(dev, target, spec, rw, opts, stop, Continued::default())
}

/// What a soak adds to a run: where the sequential streams start, and checkpoints (a cut of
/// the run every so often, handed to a callback on a thread of its own; the run needs a
/// series).
#[derive(Default)]
pub(crate) struct Continued<'a> {
    pub next_blocks: &'a [u64],
    pub cuts: Option<(std::time::Duration, &'a mut (dyn FnMut(CutResult) + Send))>,
}

/// [`run_once_on`], continued as `cont` says.
pub(crate) fn run_continued<E: Engine>(
    dev: &E,
    target: &Target,
    spec: &TestSpec,
    rw: Rw,
    opts: &RunOptions,
    stop: &AtomicBool,
    cont: Continued<'_>,
) -> Result<RunResult, EngineError> {
    let engine = engine::resolve(opts.engine, target, spec.queue_depth as usize)?;
    let reap = engine::resolve_reap(
        opts.reap,
        engine,
        spec.queue_depth as usize,
        spec.threads as usize,
    );
    let cfg = EngineConfig {
        kind: engine,
        queue_depth: spec.queue_depth as usize,
        max_len: spec.block_size as usize,
        data: opts.data,
        reap,
    };
    let threads = spec.threads as u64;
    let bs = spec.block_size;
    let blocks = (opts.region / bs).max(1);
    let clock = dev.clock();
    let barrier = Barrier::new(spec.threads as usize);
    let cut = Cut::new(spec.threads as usize);
    let cutting = cont.cuts.is_some() && opts.series_interval_ns.is_some();
    if let Some(w) = opts.watch {
        w.begin(format!("{} {}", spec.name(), rw.label()));
    }
    let results: Vec<Result<WorkerStats, EngineError>> = std::thread::scope(|s| {
        if let (Some((every, on_cut)), Some(interval_ns)) = (cont.cuts, opts.series_interval_ns) {
            let (clock, cut) = (&clock, &cut);
            s.spawn(move || {
                cut.coordinate(clock, interval_ns, opts.duration_ns, every, stop, on_cut)
            });
        }
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (clock, barrier, cfg, cut) = (&clock, &barrier, &cfg, &cut);
                let start_block = cont.next_blocks.get(t as usize).copied();
                s.spawn(move || {
                    // Sequential workers each stream through their own slice; random ones
                    // spread over the whole region.
                    let (lo, len) = match spec.access {
                        Access::Seq => {
                            let per = (blocks / threads).max(1);
                            ((t * per % blocks) * bs, per * bs)
                        }
                        Access::Rnd => (0, blocks * bs),
                    };
                    let seed = opts.seed.wrapping_add(t.wrapping_mul(0x1000_0001));
                    let mut job = IoJob::new(JobSpec {
                        access: spec.access,
                        rw,
                        block_size: bs,
                        lo,
                        len,
                        duration_ns: opts.duration_ns,
                        seed,
                        series_interval_ns: opts.series_interval_ns,
                    });
                    job.lane = opts
                        .watch
                        .map(|w| super::watch::LaneWriter::new(w.lane(t as usize)));
                    if let Some(b) = start_block {
                        job.start_at_block(b);
                    }
                    if cutting {
                        job.cut = Some(cut.handle(t as usize));
                    }
                    barrier.wait();
                    let cpu0 = thread_cpu_ns();
                    let ran = dev.run(cfg, seed, clock, stop, &mut job);
                    cut.ended.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    job.publish();
                    ran?;
                    job.stats.cpu_ns = thread_cpu_ns() - cpu0;
                    job.stats.next_block = job.next_block();
                    Ok(job.stats)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker thread panicked"))
            .collect()
    });
    let mut out = RunResult {
        engine,
        reap,
        duration_ns: 0,
        bytes: 0,
        read_bytes: 0,
        write_bytes: 0,
        commands: 0,
        errors: 0,
        first_errno: None,
        hist: Histogram::new(),
        submit_hist: Histogram::new(),
        clat_hist: Histogram::new(),
        cpu_ns: 0,
        series: None,
        series_interval_ns: opts.series_interval_ns.unwrap_or(0),
        next_blocks: Vec::new(),
    };
    let mut start = u64::MAX;
    let mut end = 0;
    let mut series: Vec<(u64, Vec<SeriesPoint>)> = Vec::new();
    for r in results {
        let w = r?;
        start = start.min(w.first_issue_ns.unwrap_or(u64::MAX));
        end = end.max(w.last_done_ns);
        out.bytes += w.bytes;
        out.read_bytes += w.read_bytes;
        out.write_bytes += w.write_bytes;
        out.commands += w.commands;
        out.errors += w.errors;
        out.first_errno = out.first_errno.or(w.first_errno);
        out.hist.merge(&w.hist);
        out.submit_hist.merge(&w.submit_hist);
        out.clat_hist.merge(&w.clat_hist);
        out.cpu_ns += w.cpu_ns;
        out.next_blocks.push(w.next_block);
        if let Some(s) = w.series {
            series.push(s.finish_with_interval(w.last_done_ns));
        }
    }
    out.duration_ns = if start == u64::MAX {
        0
    } else {
        end.saturating_sub(start)
    };
    if opts.series_interval_ns.is_some() {
        let (interval_ns, merged) = merge_series(series);
        out.series_interval_ns = interval_ns.max(out.series_interval_ns);
        out.series = Some(merged);
    }
    Ok(out)
}

/// The threads' series as one, at the longest interval any thread's reached (a thread that
/// merged fewer times has its points merged up to it first), and that interval.
pub(crate) fn merge_series(all: Vec<(u64, Vec<SeriesPoint>)>) -> (u64, Vec<SeriesPoint>) {
    let interval_ns = all.iter().map(|(i, _)| *i).max().unwrap_or(0);
    let all: Vec<Vec<SeriesPoint>> = all
        .into_iter()
        .map(|(mut i, mut points)| {
            while i < interval_ns {
                points = drivescope_stats::merge_pairs(&points);
                i *= 2;
            }
            points
        })
        .collect();
    (interval_ns, merge_same(all))
}

/// Series of one interval as one: per point, bytes, commands and rates summed, p99 the
/// highest.
fn merge_same(all: Vec<Vec<SeriesPoint>>) -> Vec<SeriesPoint> {
    let n = all.iter().map(|s| s.len()).max().unwrap_or(0);
    (0..n)
        .map(|i| {
            let pts: Vec<&SeriesPoint> = all.iter().filter_map(|s| s.get(i)).collect();
            let t_ns = pts.iter().map(|p| p.t_ns).max().unwrap_or(0);
            let bytes: u64 = pts.iter().map(|p| p.bytes).sum();
            let commands: u64 = pts.iter().map(|p| p.commands).sum();
            SeriesPoint {
                t_ns,
                bytes,
                commands,
                mb_per_s: pts.iter().map(|p| p.mb_per_s).sum(),
                iops: pts.iter().map(|p| p.iops).sum(),
                p99_ns: pts.iter().map(|p| p.p99_ns).max().unwrap_or(0),
            }
        })
        .collect()
}

/// Fill `[0, region)` of a writable target with its write data (1 MiB writes, QD8), so reads
/// read real data and the file is allocated before anything is measured.
pub fn fill(
    target: &Target,
    region: u64,
    data: DataPattern,
    stop: &AtomicBool,
) -> Result<(), EngineError> {
    struct FillJob {
        next: u64,
        end: u64,
        errno: Option<i32>,
    }
    impl Job for FillJob {
        fn next(&mut self, _now: u64, in_flight: usize) -> Next {
            if self.next >= self.end || self.errno.is_some() {
                return if in_flight > 0 {
                    Next::Wait
                } else {
                    Next::Done
                };
            }
            let len = (self.end - self.next).min(1 << 20);
            let c = Cmd {
                offset: self.next,
                len: len as u32,
                tag: 0,
                write: true,
            };
            self.next += len;
            Next::Issue(c)
        }
        fn complete(&mut self, c: &Completion) {
            if let Err(e) = c.result {
                self.errno.get_or_insert(e);
            }
        }
    }
    let engine = engine::resolve(EngineKind::Auto, target, 8)?;
    let cfg = EngineConfig {
        kind: engine,
        queue_depth: 8,
        max_len: 1 << 20,
        data,
        reap: Reap::Sleep,
    };
    let mut job = FillJob {
        next: 0,
        end: region,
        errno: None,
    };
    engine::run(target, &cfg, 0xF111, &Clock::new(), stop, &mut job)?;
    match job.errno {
        Some(e) => Err(EngineError::Io(std::io::Error::from_raw_os_error(e))),
        None => Ok(()),
    }
}
