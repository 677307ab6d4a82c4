//! Bench, sweep and soak: timed tests with CrystalDiskMark's names, queue-depth × thread
//! grids, and sustained runs over time.

mod cut;
mod gate;
mod job;
mod pattern;
mod pattern_error;
mod record;
mod run;
#[cfg(test)]
mod scripted_tests;
mod soak;
#[cfg(test)]
mod soak_tests;
mod steps;
pub mod watch;
#[cfg(test)]
mod watch_tests;

pub use cut::CutResult;
pub use gate::RunGate;
pub(crate) use job::{IoJob, JobSpec};
pub use pattern::{profile, Access, Rw, TestSpec};
pub use pattern_error::PatternError;
pub use record::{
    BenchRecord, Header, RunValues, SoakRecord, Step, SweepCell, SweepRecord, TestResult, Workload,
};
pub use run::{fill, run_once, run_once_on, RunOptions, RunResult};
pub use soak::{soak, soak_gated, soak_run, SoakOptions, SoakRun};

use crate::engine::{DataPattern, Engine, EngineError, EngineKind, Live, Reap};
use crate::target::Target;
use drivescope_record::{Direction, Kind, Load};
use drivescope_stats::Histogram;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Shared settings of bench, sweep and soak.
#[derive(Debug, Clone, Copy)]
pub struct Common {
    pub engine: EngineKind,
    pub reap: Reap,
    pub data: DataPattern,
    /// Test region `[0, size)`.
    pub size: u64,
    pub seed: u64,
    /// Live counters for a view of the run, when one is shown.
    pub watch: Option<&'static watch::Watch>,
}

impl Common {
    /// Options of one timed run over this region with these settings.
    pub fn run_options(&self, duration: Duration, series_interval_ns: Option<u64>) -> RunOptions {
        RunOptions {
            engine: self.engine,
            reap: self.reap,
            data: self.data,
            duration_ns: duration.as_nanos() as u64,
            region: self.size,
            series_interval_ns,
            seed: self.seed,
            watch: self.watch,
        }
    }
}

/// The header and workload of a bench, sweep or soak starting now.
fn start(kind: Kind, target: &Target, c: &Common) -> (Header, Workload) {
    let header = Header::now(kind, target.info());
    let workload = Workload {
        size: c.size,
        data: c.data,
        direct: target.direct,
        interrupted: false,
        test_file: None,
    };
    (header, workload)
}

/// The run ends now; it was interrupted if `stop` was set.
fn end(header: &mut Header, workload: &mut Workload, stop: &AtomicBool) {
    header.end_now();
    workload.interrupted = stop.load(Ordering::Relaxed);
}

impl From<Rw> for Direction {
    fn from(rw: Rw) -> Direction {
        match rw {
            Rw::Read => Direction::Read,
            Rw::Write => Direction::Write,
            Rw::Mix(_) => Direction::Mix,
        }
    }
}

fn run_values(r: &RunResult) -> RunValues {
    RunValues {
        mb_per_s: r.mb_per_s(),
        iops: r.iops(),
        duration_ns: r.duration_ns,
        commands: r.commands,
        errors: r.errors,
        p50_ns: r.hist.quantile(0.5),
        p99_ns: r.hist.quantile(0.99),
        cpu_ns_per_command: r.cpu_ns_per_command(),
    }
}

fn check_errors(r: &RunResult, what: &str) -> Result<(), EngineError> {
    if r.errors > 0 && r.errors == r.commands {
        let e = r.first_errno.unwrap_or(libc::EIO);
        return Err(EngineError::Io(std::io::Error::other(format!(
            "{what}: every command failed ({})",
            std::io::Error::from_raw_os_error(e)
        ))));
    }
    Ok(())
}

/// Settings of `bench`.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    pub common: Common,
    pub profile: String,
    pub tests: Vec<TestSpec>,
    pub rws: Vec<Rw>,
    pub runs: u32,
    pub duration: Duration,
    pub pause: Duration,
}

/// Run each test in each rw mode: one discarded preparing run, then `runs` measured runs.
/// `report` hears each finished test.
pub fn bench(
    target: &Target,
    o: &BenchOptions,
    stop: &AtomicBool,
    report: &mut dyn FnMut(&TestResult),
) -> Result<BenchRecord, EngineError> {
    bench_on(&Live(target), target, o, None, stop, report)
}

/// [`bench`] with each measured run passed through `gate` (a run several processes make together).
pub fn bench_gated(
    target: &Target,
    o: &BenchOptions,
    gate: &mut dyn RunGate,
    stop: &AtomicBool,
    report: &mut dyn FnMut(&TestResult),
) -> Result<BenchRecord, EngineError> {
    bench_on(&Live(target), target, o, Some(gate), stop, report)
}

/// [`bench`] with the commands run on `dev`.
fn bench_on<E: Engine>(
    dev: &E,
    target: &Target,
    o: &BenchOptions,
    mut gate: Option<&mut dyn RunGate>,
    stop: &AtomicBool,
    report: &mut dyn FnMut(&TestResult),
) -> Result<BenchRecord, EngineError> {
    let (mut header, mut workload) = start(Kind::Bench, target, &o.common);
    let mut tests = Vec::new();
    let mut first = true;
    'outer: for spec in &o.tests {
        for &rw in &o.rws {
            if !first && !o.pause.is_zero() {
                std::thread::sleep(o.pause);
            }
            first = false;
            let opts = o.common.run_options(o.duration, None);
            let say = |step: String| {
                if let Some(w) = opts.watch {
                    w.step(step);
                }
            };
            // preparing run, discarded
            say("preparing run (not counted)".into());
            let prep = run_once_on(dev, target, spec, rw, &opts, stop)?;
            check_errors(&prep, &spec.name())?;
            let mut runs = Vec::new();
            let mut gate_closed = false;
            for i in 0..o.runs {
                let duration_ns = match gate.as_deref_mut() {
                    Some(g) => match g.before_run(opts.duration_ns, stop) {
                        Some(d) => d,
                        None => {
                            gate_closed = true;
                            break;
                        }
                    },
                    None => opts.duration_ns,
                };
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                say(format!("run {} of {}", i + 1, o.runs));
                let r = run_once_on(
                    dev,
                    target,
                    spec,
                    rw,
                    &RunOptions {
                        seed: o.common.seed.wrapping_add(i as u64 + 1),
                        duration_ns,
                        ..opts
                    },
                    stop,
                )?;
                check_errors(&r, &spec.name())?;
                if let Some(g) = gate.as_deref_mut() {
                    g.after_run(&r);
                }
                runs.push(r);
            }
            if gate_closed && !runs.is_empty() {
                let t = summarize(spec, rw, &runs);
                report(&t);
                tests.push(t);
                break 'outer;
            }
            if runs.is_empty() {
                break 'outer;
            }
            let t = summarize(spec, rw, &runs);
            report(&t);
            tests.push(t);
            if stop.load(Ordering::Relaxed) {
                break 'outer;
            }
        }
    }
    end(&mut header, &mut workload, stop);
    Ok(BenchRecord {
        header,
        workload,
        profile: o.profile.clone(),
        runs: o.runs,
        duration_ns: o.duration.as_nanos() as u64,
        pause_ns: o.pause.as_nanos() as u64,
        tests,
    })
}

fn summarize(spec: &TestSpec, rw: Rw, runs: &[RunResult]) -> TestResult {
    let values: Vec<RunValues> = runs.iter().map(run_values).collect();
    let best = values
        .iter()
        .max_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s))
        .expect("at least one run");
    let n = values.len() as f64;
    let mean = values.iter().map(|v| v.mb_per_s).sum::<f64>() / n;
    let sd = if values.len() > 1 {
        (values
            .iter()
            .map(|v| (v.mb_per_s - mean).powi(2))
            .sum::<f64>()
            / (n - 1.0))
            .sqrt()
    } else {
        0.0
    };
    let mut hist = Histogram::new();
    let mut submit = Histogram::new();
    let mut clat = Histogram::new();
    for r in runs {
        hist.merge(&r.hist);
        submit.merge(&r.submit_hist);
        clat.merge(&r.clat_hist);
    }
    let cmds: u64 = runs.iter().map(|r| r.commands).sum();
    let cpu: u64 = runs.iter().map(|r| r.cpu_ns).sum();
    TestResult {
        name: spec.name(),
        rw: rw.into(),
        read_pct: match rw {
            Rw::Mix(p) => Some(p),
            _ => None,
        },
        load: Load {
            block_size: spec.block_size,
            queue_depth: spec.queue_depth,
            threads: spec.threads,
            engine: runs[0].engine,
            reap: runs[0].reap,
        },
        mb_per_s: best.mb_per_s,
        iops: best.iops,
        mean_mb_per_s: mean,
        stddev_mb_per_s: sd,
        mean_iops: values.iter().map(|v| v.iops).sum::<f64>() / n,
        latency: hist.summary(),
        histogram: Some(hist.to_out()),
        submit_latency: submit.summary(),
        completion_latency: Some(clat.summary()),
        cpu_ns_per_command: if cmds > 0 {
            cpu as f64 / cmds as f64
        } else {
            0.0
        },
        errors: runs.iter().map(|r| r.errors).sum(),
        runs: values,
    }
}

/// Settings of `sweep`.
#[derive(Debug, Clone)]
pub struct SweepOptions {
    pub common: Common,
    pub access: Access,
    pub block_size: u64,
    pub rw: Rw,
    pub qds: Vec<u32>,
    pub threads: Vec<u32>,
    pub duration: Duration,
}

/// Run every (queue depth, threads) cell once, after one discarded warm-up run.
pub fn sweep(
    target: &Target,
    o: &SweepOptions,
    stop: &AtomicBool,
    report: &mut dyn FnMut(&SweepCell),
) -> Result<SweepRecord, EngineError> {
    sweep_gated(target, o, None, stop, report)
}

/// [`sweep`] with each cell's run passed through `gate` (a run several processes make together).
pub fn sweep_gated(
    target: &Target,
    o: &SweepOptions,
    mut gate: Option<&mut dyn RunGate>,
    stop: &AtomicBool,
    report: &mut dyn FnMut(&SweepCell),
) -> Result<SweepRecord, EngineError> {
    let (mut header, mut workload) = start(Kind::Sweep, target, &o.common);
    let opts = o.common.run_options(o.duration, None);
    let spec_of = |qd: u32, th: u32| TestSpec {
        access: o.access,
        block_size: o.block_size,
        queue_depth: qd,
        threads: th,
    };
    let warm = RunOptions {
        duration_ns: opts.duration_ns.min(1_000_000_000),
        ..opts
    };
    let say = |step: String| {
        if let Some(w) = opts.watch {
            w.step(step);
        }
    };
    say("warm-up (not counted)".into());
    run_once(target, &spec_of(1, 1), o.rw, &warm, stop)?;
    let mut cells = Vec::new();
    let n = o.threads.len() * o.qds.len();
    'outer: for &th in &o.threads {
        for &qd in &o.qds {
            if stop.load(Ordering::Relaxed) {
                break 'outer;
            }
            let duration_ns = match gate.as_deref_mut() {
                Some(g) => match g.before_run(opts.duration_ns, stop) {
                    Some(d) => d,
                    None => break 'outer,
                },
                None => opts.duration_ns,
            };
            if stop.load(Ordering::Relaxed) {
                break 'outer;
            }
            say(format!("cell {} of {n}", cells.len() + 1));
            let cell_opts = RunOptions {
                duration_ns,
                ..opts
            };
            let r = run_once(target, &spec_of(qd, th), o.rw, &cell_opts, stop)?;
            check_errors(&r, &spec_of(qd, th).name())?;
            if let Some(g) = gate.as_deref_mut() {
                g.after_run(&r);
            }
            let cell = SweepCell {
                queue_depth: qd,
                threads: th,
                engine: r.engine,
                reap: r.reap,
                iops: r.iops(),
                mb_per_s: r.mb_per_s(),
                p50_ns: r.hist.quantile(0.5),
                p99_ns: r.hist.quantile(0.99),
                errors: r.errors,
            };
            report(&cell);
            cells.push(cell);
        }
    }
    let best = cells
        .iter()
        .max_by(|a, b| a.iops.total_cmp(&b.iops))
        .cloned();
    let base = cells
        .iter()
        .find(|c| c.queue_depth == 1 && c.threads == 1)
        .map(|c| c.iops);
    let queueing_gain = match (&best, base) {
        (Some(b), Some(q1)) if q1 > 0.0 => Some(b.iops / q1),
        _ => None,
    };
    end(&mut header, &mut workload, stop);
    Ok(SweepRecord {
        header,
        workload,
        pattern: format!(
            "{}{}",
            match o.access {
                Access::Seq => "SEQ",
                Access::Rnd => "RND",
            },
            crate::units::short_size(o.block_size)
        ),
        rw: o.rw.into(),
        block_size: o.block_size,
        duration_ns: o.duration.as_nanos() as u64,
        cells,
        queueing_gain,
        best,
    })
}
