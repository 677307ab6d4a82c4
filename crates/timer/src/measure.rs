//! The runs of a measurement, mode by mode, and their summaries.

use crate::cgroup::{self, Cgroup};
use crate::child::{run_once, Outcome};
use crate::error::TimerError;
use crate::traced::{self, TracePlan};
use crate::{caches, diskstats, stats};
use drivescope_record::{
    DeviceIo, Header, IoSource, ModeResult, ModeSummary, TimeMode, TimeRecord, TimedRun,
};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What to run and how.
#[derive(Debug, Clone)]
pub struct Plan {
    pub argv: Vec<String>,
    /// With `--shell`: the command line (`argv` is then `sh -c LINE`).
    pub shell: Option<String>,
    pub cwd: PathBuf,
    pub prepare: Option<String>,
    pub runs: u32,
    pub warmup: u32,
    /// In order; cold needs root (see [`caches::can_drop_caches`]).
    pub modes: Vec<TimeMode>,
    pub ignore_failure: bool,
    pub show_output: bool,
    /// The block devices behind `cwd`, the file system's first.
    pub watched: Vec<String>,
    /// The members of a file system over several devices (btrfs) behind `cwd`: its own device is only one
    /// of them, so the summaries add the members' counters (see [`finish`]). Empty otherwise.
    pub members: Vec<String>,
    /// Things the caller found worth recording.
    pub notes: Vec<String>,
    /// `--trace`: the first timed run of the first mode is traced (see [`crate::traced`]).
    pub trace: Option<TracePlan>,
}

impl Plan {
    /// The devices whose counters each run records: the watched ones, then the members not among them.
    pub fn counted(&self) -> Vec<String> {
        let mut all = self.watched.clone();
        all.extend(
            self.members
                .iter()
                .filter(|m| !self.watched.contains(m))
                .cloned(),
        );
        all
    }
}

/// A step done, for a live view.
#[derive(Debug, Clone)]
pub enum Progress<'a> {
    Warmup {
        mode: TimeMode,
        index: u32,
    },
    Run {
        mode: TimeMode,
        run: &'a TimedRun,
    },
    /// The run about to be traced.
    Tracing {
        mode: TimeMode,
        index: u32,
    },
    /// Why a run that was to be traced was not: one line, the timing goes on.
    NotTraced(&'a str),
}

/// The command failed (and `-i` was not given): the runs so far, and the failing one.
#[derive(Debug)]
pub struct Failed {
    pub record: Box<TimeRecord>,
    pub mode: TimeMode,
    /// The run that failed (0 for a warm-up or prepare run).
    pub index: u32,
    /// What failed: the command, or the `--prepare` command.
    pub what: &'static str,
    pub outcome: Outcome,
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match (self.outcome.exit_code, self.outcome.signal) {
            (Some(c), _) => format!("exit code {c}"),
            (None, Some(s)) => format!("signal {s}"),
            _ => "an unknown status".into(),
        };
        let run = if self.index == 0 {
            format!("an untimed {} run", self.mode)
        } else {
            format!("{} run {}", self.mode, self.index)
        };
        write!(f, "the {} failed with {how} in {run}", self.what)?;
        if self.what == "command" {
            write!(f, " (-i to ignore failures)")?;
        }
        Ok(())
    }
}

/// Why a measurement stopped.
#[derive(Debug)]
pub enum Stop {
    Failed(Box<Failed>),
    Error(TimerError),
}

impl From<TimerError> for Stop {
    fn from(e: TimerError) -> Stop {
        Stop::Error(e)
    }
}

struct Runner<'a> {
    plan: &'a Plan,
    cgroup: Option<Cgroup>,
}

impl Runner<'_> {
    fn prepare(&self) -> Result<Option<Outcome>, TimerError> {
        let Some(p) = &self.plan.prepare else {
            return Ok(None);
        };
        let argv = ["sh", "-c", p].map(String::from);
        let o = run_once(&argv, &self.plan.cwd, self.plan.show_output, None)?;
        Ok((o.exit_code != Some(0)).then_some(o))
    }

    /// Before every run: the prepare command, then dirty data written out (so the run does not pay for
    /// someone else's writeback), and for a cold run the page cache dropped.
    fn before(&self, mode: TimeMode, index: u32, rec: &TimeRecord) -> Result<(), Stop> {
        if let Some(outcome) = self.prepare()? {
            return Err(Stop::Failed(Box::new(Failed {
                record: Box::new(rec.clone()),
                mode,
                index,
                what: "prepare command",
                outcome,
            })));
        }
        match mode {
            TimeMode::Cold => caches::drop_caches()?,
            // SAFETY: sync(2) has no preconditions.
            TimeMode::Warm => unsafe { libc::sync() },
        }
        Ok(())
    }

    fn timed(&self, index: u32) -> Result<(TimedRun, Outcome), TimerError> {
        let cg_before = self
            .cgroup
            .as_ref()
            .map(|c| c.io_stat())
            .transpose()
            .map_err(TimerError::CgroupStat)?;
        let before = diskstats::snapshot().map_err(TimerError::Diskstats)?;
        let o = run_once(
            &self.plan.argv,
            &self.plan.cwd,
            self.plan.show_output,
            self.cgroup.as_ref().map(Cgroup::procs_fd),
        )?;
        let after = diskstats::snapshot().map_err(TimerError::Diskstats)?;
        let cgroup_io = match (&self.cgroup, cg_before) {
            (Some(c), Some(b)) => {
                let now = c.io_stat().map_err(TimerError::CgroupStat)?;
                let mut d = cgroup::io_delta(&b, &now);
                for io in &mut d {
                    let name = io.device.split_once(':').and_then(|(ma, mi)| {
                        diskstats::name_of(&after, ma.parse().ok()?, mi.parse().ok()?)
                    });
                    if let Some(n) = name {
                        io.device = format!("{} {n}", io.device);
                    }
                }
                Some(d)
            }
            _ => None,
        };
        let run = TimedRun {
            index,
            wall_ns: o.wall_ns,
            user_ns: o.user_ns,
            sys_ns: o.sys_ns,
            exit_code: o.exit_code,
            signal: o.signal,
            devices: diskstats::deltas(&before, &after, &self.plan.counted()),
            cgroup_io,
            outlier: false,
        };
        Ok((run, o))
    }
}

/// Runs the plan; `header` becomes the record's (its end time is the caller's to set). Stops early, with
/// the runs so far and `interrupted`, when `stop` is set.
pub fn measure(
    plan: &Plan,
    header: Header,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<TimeRecord, Stop> {
    let t0 = Instant::now();
    let mut notes = plan.notes.clone();
    let cgroup = match Cgroup::create() {
        Ok(c) => Some(c),
        Err(why) => {
            notes.push(format!(
                "{why}: the I/O is the devices' counters, other processes' I/O on them included"
            ));
            None
        }
    };
    let mut rec = TimeRecord {
        header,
        command: plan.argv.clone(),
        shell: plan.shell.clone(),
        prepare: plan.prepare.clone(),
        runs: plan.runs,
        warmup: plan.warmup,
        ignore_failure: plan.ignore_failure,
        devices: plan.watched.clone(),
        members: plan.members.clone(),
        io_source: if cgroup.is_some() {
            IoSource::Cgroup
        } else {
            IoSource::Diskstats
        },
        modes: Vec::new(),
        notes,
        fingerprint: None,
        interrupted: false,
        duration_ns: 0,
        prediction: None,
    };
    let runner = Runner { plan, cgroup };
    for &mode in &plan.modes {
        // A warm mode always has one untimed run first: that is what makes it warm.
        let untimed = match mode {
            TimeMode::Cold => plan.warmup,
            TimeMode::Warm => plan.warmup.max(1),
        };
        for w in 1..=untimed {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            runner.before(mode, 0, &rec)?;
            progress(Progress::Warmup { mode, index: w });
            let o = run_once(&plan.argv, &plan.cwd, plan.show_output, None)?;
            if stop.load(Ordering::Relaxed) {
                break;
            }
            if o.exit_code != Some(0) && !plan.ignore_failure {
                return Err(failed(&rec, mode, 0, o));
            }
        }
        let mut result = ModeResult {
            mode,
            runs: Vec::new(),
            summary: ModeSummary::default(),
        };
        for index in 1..=plan.runs {
            if stop.load(Ordering::Relaxed) {
                rec.interrupted = true;
                break;
            }
            runner.before(mode, index, &rec)?;
            let traced_run = plan
                .trace
                .as_ref()
                .filter(|_| index == 1 && rec.modes.is_empty());
            let tracing = match traced_run {
                Some(t) => start_trace(t, plan, mode, index, &mut rec, progress),
                None => None,
            };
            let (run, o) = runner.timed(index)?;
            if let Some(t) = tracing {
                finish_trace(t, mode, index, &mut rec, progress);
            }
            if stop.load(Ordering::Relaxed) {
                // SIGINT reaches the command too: a run cut short is no measurement.
                rec.interrupted = true;
                break;
            }
            progress(Progress::Run { mode, run: &run });
            let ok = run.succeeded();
            result.runs.push(run);
            if !ok && !plan.ignore_failure {
                rec.modes.push(finish(
                    result,
                    &plan.watched,
                    &plan.members,
                    plan.ignore_failure,
                ));
                return Err(failed(&rec, mode, index, o));
            }
        }
        if !result.runs.is_empty() {
            rec.modes.push(finish(
                result,
                &plan.watched,
                &plan.members,
                plan.ignore_failure,
            ));
        }
        if rec.interrupted || stop.load(Ordering::Relaxed) {
            rec.interrupted = true;
            break;
        }
    }
    rec.duration_ns = t0.elapsed().as_nanos() as u64;
    Ok(rec)
}

/// Starts the trace of a run; where it cannot start, says why (once, and in the record's notes).
fn start_trace(
    t: &TracePlan,
    plan: &Plan,
    mode: TimeMode,
    index: u32,
    rec: &mut TimeRecord,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Option<traced::Tracing> {
    match traced::start(t, &plan.counted(), &plan.argv) {
        Ok(t) => {
            progress(Progress::Tracing { mode, index });
            Some(t)
        }
        Err(why) => {
            not_traced(rec, progress, why);
            None
        }
    }
}

/// Stops a run's trace and attaches its fingerprint, or says why there is none.
fn finish_trace(
    t: traced::Tracing,
    mode: TimeMode,
    index: u32,
    rec: &mut TimeRecord,
    progress: &mut dyn FnMut(Progress<'_>),
) {
    match traced::stop(t, mode, index) {
        Ok(f) => rec.fingerprint = Some(f),
        Err(why) => not_traced(rec, progress, why),
    }
}

fn not_traced(rec: &mut TimeRecord, progress: &mut dyn FnMut(Progress<'_>), why: String) {
    let line = format!("not traced: {why}; the runs are timed without a fingerprint");
    progress(Progress::NotTraced(&line));
    rec.notes.push(line);
}

fn failed(rec: &TimeRecord, mode: TimeMode, index: u32, outcome: Outcome) -> Stop {
    Stop::Failed(Box::new(Failed {
        record: Box::new(rec.clone()),
        mode,
        index,
        what: "command",
        outcome,
    }))
}

/// The device a run's summary numbers are of: the file system's own when known, else the busiest; for a file
/// system over several members, the members together (their bytes and commands added, busy while the busiest
/// member was: the array was busy at least that long, and no counter says how the members' busy times overlap).
pub fn summarized(run: &TimedRun, watched: &[String], members: &[String]) -> Option<DeviceIo> {
    if members.len() > 1 {
        let found: Vec<&DeviceIo> = members.iter().filter_map(|n| run.device(n)).collect();
        return (!found.is_empty()).then(|| {
            found.iter().fold(
                DeviceIo {
                    name: members.join("+"),
                    ..DeviceIo::default()
                },
                |a, d| DeviceIo {
                    read_bytes: a.read_bytes + d.read_bytes,
                    read_ios: a.read_ios + d.read_ios,
                    written_bytes: a.written_bytes + d.written_bytes,
                    write_ios: a.write_ios + d.write_ios,
                    busy_ns: a.busy_ns.max(d.busy_ns),
                    ..a
                },
            )
        });
    }
    match watched.first() {
        Some(name) => run.device(name).cloned(),
        None => run.devices.iter().max_by_key(|d| d.busy_ns).cloned(),
    }
}

/// Flags outliers and summarises the runs that count (those that succeeded, or all with `-i`).
pub fn finish(
    mut m: ModeResult,
    watched: &[String],
    members: &[String],
    ignore_failure: bool,
) -> ModeResult {
    let counted: Vec<usize> = (0..m.runs.len())
        .filter(|&i| ignore_failure || m.runs[i].succeeded())
        .collect();
    let of = |f: &dyn Fn(&TimedRun) -> f64| -> Vec<f64> {
        counted.iter().map(|&i| f(&m.runs[i])).collect()
    };
    let wall = of(&|r| r.wall_ns as f64);
    let flags = stats::outliers(&wall);
    let dev = |r: &TimedRun| summarized(r, watched, members).unwrap_or_default();
    let summary = ModeSummary {
        count: counted.len() as u32,
        failed: m.runs.iter().filter(|r| !r.succeeded()).count() as u32,
        outliers: flags.iter().filter(|f| **f).count() as u32,
        wall_ns: stats::spread(&wall),
        user_ns: stats::spread(&of(&|r| r.user_ns as f64)),
        sys_ns: stats::spread(&of(&|r| r.sys_ns as f64)),
        busy_ns: stats::spread(&of(&|r| dev(r).busy_ns as f64)),
        read_bytes: stats::spread(&of(&|r| dev(r).read_bytes as f64)),
        written_bytes: stats::spread(&of(&|r| dev(r).written_bytes as f64)),
        busy_share: 0.0,
        cpu_share: 0.0,
    };
    let wall_mean = summary.wall_ns.mean.max(1.0);
    let summary = ModeSummary {
        busy_share: (summary.busy_ns.mean / wall_mean).min(1.0),
        cpu_share: (summary.user_ns.mean + summary.sys_ns.mean) / wall_mean,
        ..summary
    };
    for (k, &i) in counted.iter().enumerate() {
        m.runs[i].outlier = flags[k];
    }
    m.summary = summary;
    m
}

#[cfg(test)]
#[path = "measure_tests.rs"]
mod tests;
