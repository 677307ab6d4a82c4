//! `drivescope time`: a real workload timed cold and warm, with how much of it was the disk.

use crate::finish::{Cmd, Refused};
use crate::opts::store::StoreOpts;
use crate::runner::{Measure, Measured, Session};
use anyhow::{bail, Context};
use clap::Args;
use drivescope_record::{Header, Kind, TargetInfo, TargetType, TimeMode, TimeRecord};
use drivescope_timer::{measure, Plan, Progress, Stop};
use std::path::PathBuf;

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    drivescope time -- cargo build --release\n  \
    drivescope time --cwd /mnt/new --prepare 'cargo clean' -- cargo build\n  \
    drivescope time --warm --runs 10 --shell 'git status'\n  \
    drivescope time --trace --cold --runs 3 --cwd ~/src/linux -- git status\n\n\
    Without --cold or --warm both are measured. Cold runs need root (they write /proc/sys/vm/drop_caches); \
    --cold as another user is refused (exit code 3), and without --cold or --warm only warm runs are made. \
    A command that fails fails the measurement (exit code 1) unless -i is given. \
    --trace needs root too; where the trace cannot be taken the runs are timed without it, and one line \
    says why.")]
pub struct TimeArgs {
    /// Timed runs per mode.
    #[arg(long, short = 'r', default_value_t = 5, value_parser = crate::opts::args::parse_count)]
    pub runs: u32,
    /// Untimed runs before the timed ones of each mode (a warm mode always makes at least one).
    #[arg(long, short = 'w', default_value_t = 0)]
    pub warmup: u32,
    /// A shell command run before every run, untimed (e.g. `make clean`).
    #[arg(long, short = 'p', value_name = "CMD")]
    pub prepare: Option<String>,
    /// The directory the command runs in; its block devices are the ones watched.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub cwd: PathBuf,
    /// Only cold runs: dirty data synced and the page cache dropped before every run (needs root).
    #[arg(long)]
    pub cold: bool,
    /// Only warm runs: after one untimed run, so the command's files are in the page cache.
    #[arg(long)]
    pub warm: bool,
    /// A failing command does not fail the measurement.
    #[arg(short = 'i', long = "ignore-failure")]
    pub ignore_failure: bool,
    /// Let the command's output through (it is hidden otherwise; a failing command's stderr is shown).
    #[arg(long)]
    pub show_output: bool,
    /// Trace the block requests of the first timed run of the first mode (root) and add its I/O
    /// fingerprint: request sizes, sequential or random, queue depth, service times, think time.
    #[arg(long)]
    pub trace: bool,
    /// Trace as --trace does and keep every request in FILE (a compact binary trace, documented in
    /// docs/time-trace.md), the input of `replay`.
    #[arg(long, value_name = "FILE")]
    pub keep_trace: Option<PathBuf>,
    /// The command as one shell line, run with `sh -c`.
    #[arg(long, value_name = "CMD")]
    pub shell: Option<String>,
    /// Print the run's JSON document on stdout instead of the text; stderr then carries only warnings
    /// and errors.
    #[arg(long)]
    pub json: bool,
    /// Only warnings and errors on stderr (no progress lines, no `saved as run N`).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub store: StoreOpts,
    #[command(flatten)]
    pub predict: super::time_predict::PredictArgs,
    /// The command and its arguments, after `--`.
    #[arg(
        last = true,
        value_name = "COMMAND",
        required_unless_present = "shell",
        conflicts_with = "shell"
    )]
    pub command: Vec<String>,
}

/// The members of a file system over several devices (btrfs) under `dir`; none for one device, or for an md
/// or device-mapper array (whose own device counts what the file system asked of it).
fn members_of(dir: &std::path::Path) -> Vec<String> {
    use drivescope_probe::array::{members, ArrayKind};
    match members(dir, &drivescope_probe::Roots::default()) {
        Ok(a) if a.kind == ArrayKind::Btrfs && a.is_array() => {
            a.members.into_iter().map(|m| m.name).collect()
        }
        _ => Vec::new(),
    }
}

/// The block devices under `dir`, as /proc/diskstats names them: the file system's own first.
fn devices_of(dir: &std::path::Path) -> Vec<String> {
    match drivescope_probe::identify(dir, &drivescope_probe::Roots::default()) {
        Ok(id) => {
            let mut names: Vec<String> = Vec::new();
            for b in id.block_devices() {
                if !names.contains(&b.name) {
                    names.push(b.name.clone());
                }
            }
            names
        }
        Err(e) => {
            eprintln!(
                "drivescope: warning: could not find the devices under {}: {e:#}",
                dir.display()
            );
            Vec::new()
        }
    }
}

impl Measure for TimeArgs {
    type Record = TimeRecord;
    const CMD: Cmd = Cmd::Time;

    fn measure(mut self, s: &Session) -> anyhow::Result<Measured<TimeRecord>> {
        let a = &mut self;
        a.trace |= a.predict.wanted();
        let cwd =
            std::fs::canonicalize(&a.cwd).with_context(|| format!("--cwd {}", a.cwd.display()))?;
        if !cwd.is_dir() {
            bail!("--cwd {}: not a directory", cwd.display());
        }
        let plan = plan(a, cwd)?;
        let stop = s.stop();
        let target = TargetInfo {
            path: plan.cwd.display().to_string(),
            kind: TargetType::File,
            size: 0,
            logical_block_size: 512,
        };
        let mut header = Header::now(Kind::Time, target);
        header.device = s.device(&plan.cwd.display().to_string());
        let (watched, members) = (plan.watched.clone(), plan.members.clone());
        let runs = a.runs;
        let mut say = |p: Progress<'_>| {
            let line = progress_line(&p, (&watched, &members), runs);
            // Why a trace was not taken is a warning: said even with --quiet.
            match p {
                Progress::NotTraced(_) => crate::warn!("{line}"),
                _ => crate::note!("{line}"),
            }
        };
        let mut rec = match measure(&plan, header, stop, &mut say) {
            Ok(rec) => rec,
            Err(Stop::Error(e)) => return Err(e.into()),
            Err(Stop::Failed(f)) => {
                let tail = f.outcome.stderr_tail.trim_end();
                if !tail.is_empty() {
                    eprintln!("drivescope: the {}'s last output on stderr:", f.what);
                    for line in tail.lines() {
                        eprintln!("  | {line}");
                    }
                }
                bail!("{f}");
            }
        };
        rec.header.end_now();
        drivescope_analysis::annotate(&mut rec);
        super::time_predict::apply(&a.predict, &a.store, &mut rec)?;
        let (json, store) = (self.json, self.store);
        Ok(Measured::with_findings(
            rec,
            super::time_predict::print,
            json,
            store,
            None,
        ))
    }
}

/// The timing the arguments ask for: cold and warm runs (warm only where the page cache cannot be
/// dropped, said once), the command or shell line, the devices behind `cwd`.
fn plan(a: &TimeArgs, cwd: PathBuf) -> anyhow::Result<Plan> {
    let mut notes = Vec::new();
    let cold_why = drivescope_timer::can_drop_caches();
    let modes = match (a.cold, a.warm) {
        (true, false) | (true, true) if cold_why.is_some() => {
            return Err(Refused(format!(
                "--cold: {} (run as root, or measure --warm only)",
                cold_why.unwrap_or_default()
            ))
            .into());
        }
        (true, false) => vec![TimeMode::Cold],
        (false, true) => vec![TimeMode::Warm],
        _ if cold_why.is_some() => {
            let why = cold_why.unwrap_or_default();
            eprintln!("drivescope: warm runs only: {why}");
            notes.push(format!("warm runs only: {why}"));
            vec![TimeMode::Warm]
        }
        _ => vec![TimeMode::Cold, TimeMode::Warm],
    };
    let (argv, shell) = match &a.shell {
        Some(line) => (
            ["sh", "-c", line.as_str()].map(String::from).to_vec(),
            Some(line.clone()),
        ),
        None => (a.command.clone(), None),
    };
    Ok(Plan {
        argv,
        shell,
        watched: devices_of(&cwd),
        members: members_of(&cwd),
        cwd,
        prepare: a.prepare.clone(),
        runs: a.runs,
        warmup: a.warmup,
        modes,
        ignore_failure: a.ignore_failure,
        show_output: a.show_output,
        notes,
        trace: trace_plan(a),
    })
}

/// `--trace` / `--keep-trace FILE`.
fn trace_plan(a: &TimeArgs) -> Option<drivescope_timer::TracePlan> {
    (a.trace || a.keep_trace.is_some()).then(|| drivescope_timer::TracePlan {
        keep: a.keep_trace.clone(),
    })
}

/// A progress line: an untimed run, or a timed one with how busy the main device (or an array's members
/// together) was.
fn progress_line(p: &Progress<'_>, devices: (&[String], &[String]), runs: u32) -> String {
    match p {
        Progress::Warmup { mode, index } => format!("{mode} untimed run {index}"),
        Progress::Tracing { mode, index } => {
            format!("{mode} run {index}/{runs} is traced (--trace)")
        }
        Progress::NotTraced(why) => why.to_string(),
        Progress::Run { mode, run } => {
            let (watched, members) = devices;
            let dev = (!watched.is_empty())
                .then(|| drivescope_timer::summarized(run, watched, members))
                .flatten();
            format!(
                "{mode} run {}/{runs}: {}{}",
                run.index,
                drivescope_units::format_latency(run.wall_ns as f64),
                dev.map_or(String::new(), |d| format!(
                    ", disk busy {}, {} read",
                    drivescope_units::format_latency(d.busy_ns as f64),
                    drivescope_units::format_bytes(d.read_bytes as f64)
                ))
            )
        }
    }
}
