//! `drivescope replay TRACE TARGET`: a kept trace issued again on a device or in a directory's test file.

use crate::finish::{Cmd, Refused};
use crate::opts::destructive::{self, DestructiveOpts};
use crate::runner::{Measure, Measured, Session};
use anyhow::Context;
use clap::Args;
use drivescope_core::replay::{self, Options};
use drivescope_core::target::Target;
use drivescope_core::testfile::TestFile;
use drivescope_record::{Header, Kind, ReplayRecord, ReplayTotals};
use drivescope_report::text::print_replay;
use drivescope_trace::{Capture, Reducer, Sink, TracedRun};
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    drivescope time --cold --runs 1 --trace --keep-trace build.trace -- make\n  \
    drivescope replay build.trace /dev/sdb\n  \
    drivescope replay --wrap build.trace /mnt/usb\n\n\
    Each request is issued once as many requests have completed here as had completed a reaction time \
    before it in the trace (or the queue is shallower than the trace kept it), after the think time the \
    trace shows (closed-loop: the replay waits for the disk, never for the trace's clock). On a device only reads are issued unless --destructive (with --confirm) lets writes \
    through; in a directory the requests go to a test file drivescope creates, fills and removes, writes \
    included. See docs/replay.md.")]
pub struct ReplayArgs {
    /// A trace kept with `time --trace --keep-trace FILE`.
    pub trace: PathBuf,
    /// A block device, or a directory for a test file.
    pub target: PathBuf,
    /// The traced device to replay, when the trace holds several (as /sys/block names it).
    #[arg(long, value_name = "NAME")]
    pub device: Option<String>,
    /// Fold offsets past the target's end onto it (else such a trace is refused).
    #[arg(long)]
    pub wrap: bool,
    /// Issue each request as soon as what it waited for has completed, without the trace's think time.
    #[arg(long)]
    pub no_think: bool,
    /// Largest test file in a directory (a trace reaching further needs --wrap). 64K, 1G: binary units.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = crate::opts::args::parse_positive_size)]
    pub size: u64,
    #[command(flatten)]
    pub destructive: DestructiveOpts,
    /// Print the replay's JSON document on stdout instead of the text.
    #[arg(long)]
    pub json: bool,
    /// Only warnings and errors on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub store: crate::opts::store::StoreOpts,
}

impl Measure for ReplayArgs {
    type Record = ReplayRecord;
    const CMD: Cmd = Cmd::Replay;

    fn measure(self, s: &Session) -> anyhow::Result<Measured<ReplayRecord>> {
        let a = self;
        let path = a.trace.display().to_string();
        let trace = replay::read_trace(&a.trace)?;
        let opts = Options {
            device: a.device.clone(),
            wrap: a.wrap,
            no_think: a.no_think,
        };
        let spec = a.target.display().to_string();
        let meta = std::fs::metadata(&a.target).with_context(|| spec.clone())?;
        let mut _test = None;
        let target = if meta.is_dir() {
            let reach = replay::reach_of(&trace, &opts)?;
            let size = reach
                .div_ceil(1 << 20)
                .max(1)
                .saturating_mul(1 << 20)
                .min(a.size);
            let test = TestFile::create(&a.target, size)?;
            let t = Target::open_test_file(&test, false)?;
            crate::note!(
                "filling a {} test file in {spec}",
                drivescope_units::format_bytes(size as f64)
            );
            replay::fill(&t)?;
            _test = Some(test);
            t
        } else if meta.file_type().is_block_device() {
            if a.destructive.destructive {
                destructive::open(&spec, &a.destructive, &[])?
            } else {
                Target::open_read(&spec)?
            }
        } else {
            return Err(Refused(format!(
                "{spec}: replay goes to a block device or a directory (drivescope never writes to an \
                 existing file)"
            ))
            .into());
        };
        let stop = s.stop();
        let mut header = Header::now(Kind::Replay, target.info());
        header.device = s.device(&spec);
        crate::note!(
            "replaying {} of {path} on {}",
            drivescope_units::count(trace.requests.len() as u64, "request"),
            target.spec
        );
        let watch = kernel_watch(&target);
        let mut rec = replay::run(&trace, &path, &target, header, &opts, stop)?;
        rec.kernel = watch.and_then(|w| w.finish(&mut rec.notes));
        rec.header.end_now();
        drop(target);
        Ok(Measured::new(rec, print_replay, a.json, a.store, None))
    }
}

/// The replay's block requests reduced as they come (a capture's sink).
struct Tally(Reducer);

impl Sink for Tally {
    fn request(&mut self, r: &drivescope_trace::Request) {
        self.0.push(r);
    }
}

/// A block trace of the target's disk while the replay runs.
struct KernelWatch {
    capture: Capture<Tally>,
    devices: Vec<String>,
}

/// Trace the disk under `target` (as root, where tracefs can be used; said in a note otherwise).
fn kernel_watch(target: &Target) -> Option<KernelWatch> {
    let name = target.block_name().or_else(|| {
        let dir = target.path.as_ref()?.parent()?.to_path_buf();
        let id = drivescope_probe::identify(&dir, &drivescope_probe::Roots::default()).ok()?;
        let name = id.block_devices().next().map(|b| b.name.clone());
        name
    })?;
    if drivescope_trace::unavailable().is_some() {
        return None;
    }
    let devices = drivescope_trace::devices::resolve(std::slice::from_ref(&name)).ok()?;
    match Capture::start(&devices, Tally(Reducer::new())) {
        Ok(capture) => Some(KernelWatch {
            capture,
            devices: devices.iter().map(|d| d.name.clone()).collect(),
        }),
        Err(e) => {
            eprintln!("drivescope: warning: the replay's block requests are not traced: {e}");
            None
        }
    }
}

impl KernelWatch {
    fn finish(self, notes: &mut Vec<String>) -> Option<ReplayTotals> {
        let (tally, stats) = match self.capture.finish() {
            Ok(x) => x,
            Err(e) => {
                notes.push(format!("the replay's block trace failed: {e}"));
                return None;
            }
        };
        let fp = tally.0.finish(TracedRun {
            mode: drivescope_record::TimeMode::Cold,
            run: 1,
            devices: self.devices,
            wall_ns: stats.wall_ns,
            unmatched: stats.unmatched,
            lost_events: stats.lost_events,
        });
        if stats.lost_events > 0 {
            notes.push(format!(
                "the kernel dropped {} of the replay's block trace",
                drivescope_units::count(stats.lost_events, "event")
            ));
        }
        Some(ReplayTotals {
            requests: fp.requests,
            bytes: fp.classes.iter().map(|c| c.bytes).sum(),
            io_ns: fp.busy_ns,
            wall_ns: fp.wall_ns,
        })
    }
}
