//! What bench, sweep and soak share: their target (a directory gets a test file drivescope
//! creates, fills and removes; a device or an existing file is only read), and options.

use crate::live::workload::{Done, Finished, Span, WorkloadSource};
use crate::opts::args::{parse_positive_size, DataArg, EngineArg, ReapArg, RwArg};
use clap::Args;
use drivescope_core::bench::watch::Watch;
use drivescope_core::bench::{fill, Common, Rw};
use drivescope_core::engine::DataPattern;
use drivescope_core::target::{Target, TargetType};
use drivescope_core::testfile::{fit, free_space, Fit, TestFile};
use drivescope_core::units::format_size;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The test file's (or device region's) size when `--size` is not given.
pub const DEFAULT_SIZE: u64 = 1 << 30;

#[derive(Args, Clone)]
pub struct WorkloadArgs {
    /// A directory (a test file is created there, filled with random data, and removed), a
    /// block device (write tests only with --destructive and --confirm), an existing file
    /// (read tests only) or null:SIZE.
    pub target: String,
    /// Test file size, or the region of the device used (binary units: 1G = 1 GiB) [default:
    /// 1GiB; in a directory with less free space, what fits, said on stderr].
    #[arg(long, value_parser = parse_positive_size)]
    pub size: Option<u64>,
    /// I/O engine (auto: psync at QD1 on devices that complete inline, io_uring otherwise).
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: EngineArg,
    /// How io_uring waits for completions: sleep (as fio), poll (watch the ring for up to
    /// 50 µs before sleeping, while most such polls find a completion; spends a CPU), or auto
    /// (poll at queue depth 8 and more when the test's threads leave a CPU free).
    #[arg(long, value_enum, default_value = "auto")]
    pub reap: ReapArg,
    /// Write data: random (incompressible) or zero (to compare with compressing devices).
    #[arg(long, value_enum, default_value = "random")]
    pub data: DataArg,
    /// Measure through the page cache where the file system has no O_DIRECT (ramfs, some
    /// network file systems). Results are then not the device's, and every line says so.
    #[arg(long)]
    pub allow_buffered: bool,
    /// Print one JSON document (schema drivescope/1) on stdout instead of the text; stderr then
    /// carries only warnings and errors.
    #[arg(long)]
    pub json: bool,
    /// Only warnings and errors on stderr (no progress lines, no `saved as run N`).
    #[arg(long, short)]
    pub quiet: bool,
    /// On a terminal, plain progress lines instead of the full-screen live view.
    #[arg(long)]
    pub no_live: bool,
    #[command(flatten)]
    pub store: crate::opts::store::StoreOpts,
    #[command(flatten)]
    pub destructive: crate::opts::destructive::DestructiveOpts,
}

/// The opened target, and the test file when drivescope made one (removed on drop).
pub struct Opened {
    pub target: Target,
    pub common: Common,
    _test_file: Option<TestFile>,
}

/// Open the target for tests in `rws`; create and fill a test file for a directory.
pub fn open(a: &WorkloadArgs, rws: &[Rw], stop: &AtomicBool) -> anyhow::Result<Opened> {
    open_or(a, rws, stop, "use --rw read")
}

/// [`open`], where a refused device write suggests `read_only` instead.
pub fn open_or(
    a: &WorkloadArgs,
    rws: &[Rw],
    stop: &AtomicBool,
    read_only: &str,
) -> anyhow::Result<Opened> {
    let wanted = a.size();
    if wanted == 0 {
        anyhow::bail!("--size must be above 0");
    }
    let data: DataPattern = a.data.into();
    let writes = rws.iter().any(|r| r.writes());
    let is_dir = !a.target.starts_with("null:") && Path::new(&a.target).is_dir();
    let (target, test_file) = if is_dir {
        if !wanted.is_multiple_of(4096) {
            anyhow::bail!("--size must be a multiple of 4 KiB for a test file");
        }
        let size = fitted(&a.target, wanted, a.size.is_some())?;
        let tf = TestFile::create(Path::new(&a.target), size)?;
        let target = Target::open_test_file(&tf, a.allow_buffered)?;
        crate::note!(
            "filling test file {} ({}) with {} data",
            tf.path().display(),
            format_size(size),
            if data == DataPattern::Zero {
                "zero"
            } else {
                "random"
            }
        );
        fill(&target, size, data, stop)?;
        (target, Some(tf))
    } else {
        let target = Target::open_read(&a.target)?;
        if writes && target.kind == TargetType::Block {
            drop(target);
            let target =
                crate::opts::destructive::open(&a.target, &a.destructive, &a.store.protected())
                    .map_err(|e| match e.downcast::<crate::finish::Refused>() {
                        Ok(r) => anyhow::Error::new(crate::finish::Refused(format!(
                            "{} (or {read_only})",
                            r.0
                        ))),
                        Err(e) => e,
                    })?;
            (target, None)
        } else if writes && target.kind != TargetType::Null {
            return Err(crate::finish::Refused(format!(
                "{}: write tests on an existing file are refused (drivescope writes only to test \
                 files it creates); use --rw read, or give a directory",
                a.target
            ))
            .into());
        } else {
            (target, None)
        }
    };
    let size = wanted.min(target.size);
    let bs_floor = size / 4096 * 4096;
    if bs_floor == 0 {
        anyhow::bail!("{} is smaller than 4 KiB", a.target);
    }
    Ok(Opened {
        common: Common {
            engine: a.engine.into(),
            reap: a.reap.into(),
            data,
            size: bs_floor,
            seed: 0x5EED,
            watch: None,
        },
        target,
        _test_file: test_file,
    })
}

/// The test file's size in directory `dir`: `wanted` when it fits the free space; else the
/// default shrunk to what fits (said on stderr, also with --quiet: the run is not what was
/// planned), or a one-line refusal naming the space and `--size`.
fn fitted(dir: &str, wanted: u64, given: bool) -> anyhow::Result<u64> {
    let Some(free) = free_space(Path::new(dir))
        .map_err(|e| anyhow::anyhow!("{dir}: cannot read its free space: {e}"))?
    else {
        return Ok(wanted);
    };
    match fit(wanted, free, given) {
        Fit::Whole(size) => Ok(size),
        Fit::Shrunk(size) => {
            crate::warn!(
                "warning: {dir} has {} free: the test file is {} instead of {} (--size to choose)",
                format_size(free),
                format_size(size),
                format_size(wanted)
            );
            Ok(size)
        }
        Fit::Refused { room } => {
            let hint = if room > 0 {
                format!("give --size {}M or less", room >> 20)
            } else {
                "free some space or give another directory".to_string()
            };
            Err(crate::finish::Refused(format!(
                "{dir} has {} free: a {} test file does not fit; {hint}",
                format_size(free),
                format_size(wanted)
            ))
            .into())
        }
    }
}

impl Opened {
    /// The test file drivescope made in a directory target.
    pub fn test_file(&self) -> Option<&Path> {
        self._test_file.as_ref().map(|t| t.path())
    }
}

/// A live view of a workload run on the terminal: its counters (set them in the run's
/// options), what has finished (the report callback adds to it), and the view itself (the
/// terminal is restored when it is dropped).
pub struct Watching {
    pub watch: &'static Watch,
    pub finished: Finished,
    view: crate::live::term::LiveView,
}

impl Watching {
    /// Add a finished test's or experiment's line.
    pub fn line(&self, l: String) {
        if let Done::Lines { lines, .. } = &mut *self.finished.lock().expect("finished") {
            lines.push(l);
        }
    }

    /// Show `done` as what has finished (a steady-state test's rounds so far).
    pub fn set(&self, done: Done) {
        *self.finished.lock().expect("finished") = done;
    }

    /// Restore the terminal (before the summary is printed).
    pub fn finish(self) {
        self.view.finish()
    }
}

/// The live view, when stdout and stderr are both a terminal and neither --no-live, --quiet
/// nor --json is given; `None` means plain progress lines. `planned`: the run's length by
/// its settings, for the time axis and the ETA.
pub fn watch(
    a: &WorkloadArgs,
    command: &str,
    planned: Option<Duration>,
    done: Done,
    stop: &Arc<AtomicBool>,
) -> Option<Watching> {
    let view = View {
        off: a.no_live || a.quiet || a.json,
        planned,
        span: Span::Run,
    };
    watch_target(&a.target, command, view, done, stop)
}

/// What a live view of a run on a target is asked for.
pub struct View {
    /// --no-live, --quiet or --json: plain progress lines (or none).
    pub off: bool,
    /// The run's length by its settings, for the time axis and the ETA.
    pub planned: Option<Duration>,
    /// What the rate chart spans.
    pub span: Span,
}

/// The live view of a run on `target`, when stdout and stderr are both a terminal and `view`
/// is not off; `None` means plain progress lines.
pub fn watch_target(
    target: &str,
    command: &str,
    view: View,
    done: Done,
    stop: &Arc<AtomicBool>,
) -> Option<Watching> {
    use std::io::IsTerminal;
    if view.off || !std::io::stdout().is_terminal() || !std::io::stderr().is_terminal() {
        return None;
    }
    let watch = Watch::leaked();
    let finished: Finished = Arc::new(Mutex::new(done));
    let device = crate::identity::of(target);
    let title = crate::live::view::title(command, target, device.as_ref());
    let mut source = WorkloadSource::new(title, watch, view.planned, finished.clone());
    source.span = view.span;
    match crate::live::term::start_with(source, stop.clone()) {
        Ok(view) => Some(Watching {
            watch,
            finished,
            view,
        }),
        Err(e) => {
            eprintln!("drivescope: warning: no live view ({e}); plain progress instead");
            None
        }
    }
}

/// The rw modes for `--rw` and `--mix`.
/// Whether `target` names an existing regular file (not a directory, a device or `null:`).
pub fn is_existing_file(target: &str) -> bool {
    !target.starts_with("null:") && std::fs::metadata(target).is_ok_and(|m| m.is_file())
}

pub fn rw_modes(rw: RwArg, mix: Option<u8>) -> Vec<Rw> {
    let pct = mix.unwrap_or(70);
    let mut v = match rw {
        RwArg::Read => vec![Rw::Read],
        RwArg::Write => vec![Rw::Write],
        RwArg::Both => vec![Rw::Read, Rw::Write],
        RwArg::Mix => vec![Rw::Mix(pct)],
    };
    if mix.is_some() && rw != RwArg::Mix {
        v.push(Rw::Mix(pct));
    }
    v
}

/// The single rw mode of a sweep or soak (`both` is a bench-only choice).
pub fn one_rw(rw: RwArg, mix: u8, command: &str) -> anyhow::Result<Rw> {
    Ok(match rw {
        RwArg::Read => Rw::Read,
        RwArg::Write => Rw::Write,
        RwArg::Mix => Rw::Mix(mix),
        RwArg::Both => anyhow::bail!("a {command} runs one of read, write or mix"),
    })
}

/// A bench or sweep from start to record: the target opened (a test file made and filled), the run
/// shown (the live view with `done`, or plain lines), `measure` run with the settings the target
/// takes and the live view when it is up, and the record given its device and findings.
/// A record of a run on a workload region (bench, sweep): its workload, where the test file is named.
pub trait OnRegion: drivescope_record::Record {
    fn workload_mut(&mut self) -> &mut drivescope_record::Workload;
}

impl OnRegion for drivescope_record::BenchRecord {
    fn workload_mut(&mut self) -> &mut drivescope_record::Workload {
        &mut self.workload
    }
}

impl OnRegion for drivescope_record::SweepRecord {
    fn workload_mut(&mut self) -> &mut drivescope_record::Workload {
        &mut self.workload
    }
}

#[allow(clippy::too_many_arguments)]
pub fn measured<T, E>(
    w: &WorkloadArgs,
    rws: &[Rw],
    command: &str,
    planned: Duration,
    done: Done,
    stop: &Arc<AtomicBool>,
    measure: impl FnOnce(&Target, Common, &AtomicBool, Option<&Watching>) -> Result<T, E>,
) -> anyhow::Result<T>
where
    T: OnRegion,
    anyhow::Error: From<E>,
{
    let mut opened = open(w, rws, stop)?;
    let live = watch(w, command, Some(planned), done, stop);
    opened.common.watch = live.as_ref().map(|l| l.watch);
    let result = measure(&opened.target, opened.common, stop, live.as_ref());
    if let Some(l) = live {
        l.finish();
    }
    let mut rec = result?;
    rec.header_mut().device = crate::identity::of(&w.target);
    // A run on a directory is a run on that directory: its test file is gone when the run
    // ends, and runs on the same directory belong together.
    if let Some(tf) = opened.test_file() {
        rec.workload_mut().test_file = Some(tf.display().to_string());
        rec.header_mut().target.path = w.target.clone();
    }
    Ok(annotated(rec, &w.store))
}

impl WorkloadArgs {
    /// The size asked for, or the default (1 GiB).
    pub fn size(&self) -> u64 {
        self.size.unwrap_or(DEFAULT_SIZE)
    }

    /// How the run's record leaves: printed as `--json` asks, saved in place of `replace` when given (its
    /// checkpoints, or the run it continues); `resume_with` names the command that continues it.
    #[cfg(feature = "mpi")]
    pub fn finish(
        &self,
        replace: Option<drivescope_store::RunId>,
        resume_with: Option<crate::finish::Cmd>,
    ) -> crate::finish::Finish<'_> {
        crate::finish::Finish {
            json: self.json,
            store: &self.store,
            replace,
            resume_with,
        }
    }
}

/// A bench, sweep or soak record with its findings: the analysis rules over it, and what earlier stored
/// runs of the device say about a cache it measured.
pub fn annotated<T: drivescope_record::Record>(
    mut rec: T,
    store: &crate::opts::store::StoreOpts,
) -> T {
    drivescope_analysis::annotate(&mut rec);
    let earlier = crate::cache_check::findings(&rec.clone().into(), store);
    rec.header_mut().findings.extend(earlier);
    rec
}
