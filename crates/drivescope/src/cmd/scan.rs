//! `drivescope scan`: arguments -> ScanConfig -> drivescope_core::scan::run -> outputs.

use crate::finish::Cmd;
use crate::opts::args::{parse_checkpoint, Every};
use crate::opts::destructive::open_scan_target;
use crate::opts::store::StoreOpts;
use crate::plan::scan::ScanPlan;
use crate::progress;
use crate::runner::{Measure, Measured, Session};
use anyhow::Context;
use clap::Args;
use drivescope_core::scan::live::Live;
use drivescope_core::scan::{self, Progress, ScanConfig};
use drivescope_core::units;
use drivescope_probe::Identity;
use drivescope_report::curve_csv::CurveCsv;
use drivescope_report::failed_list::FailedList;
use drivescope_report::text;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Args)]
pub struct ScanArgs {
    /// Block device (/dev/sdb, /dev/sdb1, /dev/nvme0n1), regular file, or null:SIZE (e.g.
    /// null:4T). With --resume, defaults to the device of the resumed run.
    #[arg(required_unless_present = "resume")]
    pub target: Option<String>,
    #[command(flatten)]
    pub scan: crate::opts::scan::ScanOpts,
    /// Quick scan: 256 equal regions, reading --dwell at the head of each (seeks included).
    #[arg(long)]
    pub quick: bool,
    /// Quick scan: time spent reading at the head of each region (3s, 500ms).
    #[arg(long, default_value = "3s", value_parser = crate::opts::args::parse_positive_duration)]
    pub dwell: Duration,
    /// Quick scan: number of regions.
    #[arg(long, default_value_t = 256, hide = true, value_parser = crate::opts::args::parse_count)]
    pub regions: u32,
    /// Write scan: write the range in order, each command timed (destroys the data; block
    /// devices only, with --destructive and --confirm).
    #[arg(long)]
    pub write: bool,
    /// With --write: write a pattern that names each sector, then read it all back and report
    /// sectors that came back wrong, misplaced (another sector's data) or lost.
    #[arg(long, requires = "write")]
    pub verify: bool,
    #[command(flatten)]
    pub destructive: crate::opts::destructive::DestructiveOpts,
    /// Continue the interrupted scan RUN (a stored run number, or `last`) from where it
    /// stopped, with its parameters; saved as a new run that names RUN. A scan that was killed
    /// (or crashed, or the machine went down) continues from its last checkpoint.
    #[arg(long, value_name = "RUN", conflicts_with_all = ["quick", "verify", "offset", "length", "block_size", "queue_depth", "points", "reap", "error_budget", "retries"])]
    pub resume: Option<String>,
    /// Save the full scan's progress in the results store this often (60s, 5m; `off` for
    /// never), as one run that the scan's result replaces when it ends: after a kill, a crash
    /// or a power cut, `runs` shows it as interrupted and `--resume` continues from there.
    /// Not with --quick, --verify or --no-store.
    #[arg(long, value_name = "INTERVAL", default_value = "60s", value_parser = parse_checkpoint,
          conflicts_with_all = ["quick", "verify", "no_store"])]
    pub checkpoint: Every,
    /// Print one JSON document (schema drivescope/1) on stdout instead of the text; stderr then
    /// carries only warnings and errors.
    #[arg(long)]
    pub json: bool,
    /// Write the transfer-rate curve as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub curve_csv: Option<std::path::PathBuf>,
    /// Write every failed sector as CSV to FILE (lba,offset,errno,latency_ns), one row per
    /// sector, as the scan finds them; the summary and --json group them into extents.
    #[arg(long, value_name = "FILE")]
    pub failed_list: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub store: crate::opts::store::StoreOpts,
    /// Only warnings and errors on stderr (no progress, no `saved as run N`).
    #[arg(long, short)]
    pub quiet: bool,
    /// On a terminal, plain progress lines instead of the full-screen live view.
    #[arg(long)]
    pub no_live: bool,
}

/// The scan the arguments ask for.
pub fn plan(args: ScanArgs) -> anyhow::Result<ScanPlan> {
    if args.target.is_none() && args.resume.is_none() {
        anyhow::bail!("give a target (a device, a file or null:SIZE)");
    }
    Ok(ScanPlan {
        cfg: ScanConfig {
            quick: args
                .quick
                .then_some((args.regions, args.dwell.as_nanos() as u64)),
            ..args.scan.config(args.write, args.verify)
        },
        target: args.target,
        resume: args.resume,
        checkpoint: args.checkpoint,
        curve_csv: args.curve_csv,
        failed_list: args.failed_list,
        destructive: args.destructive,
        store: args.store,
        json: args.json,
        quiet: args.quiet,
        no_live: args.no_live,
    })
}

impl Measure for ScanPlan {
    type Record = scan::ScanRecord;
    const CMD: Cmd = Cmd::Scan;
    const RESUMABLE: bool = true;

    fn measure(self, s: &Session) -> anyhow::Result<Measured<scan::ScanRecord>> {
        let prior = match &self.resume {
            Some(run) => Some(load_resumable(s, &self.store, run)?),
            None => None,
        };
        let spec = match (&self.target, &prior) {
            (Some(t), _) => t.clone(),
            (None, Some((_, p))) => p.header.target.path.clone(),
            (None, None) => anyhow::bail!("give a target (a device, a file or null:SIZE)"),
        };
        let write = self.cfg.write || prior.as_ref().is_some_and(|(_, p)| p.write);
        let target = open_scan_target(
            &spec,
            write,
            "scan",
            &self.destructive,
            &self.store.protected(),
        )?;
        let cfg = match &prior {
            Some((_, p)) => ScanConfig::of_record(p),
            None => self.cfg.clone(),
        };
        let plan = scan::plan(&cfg, &target)?;
        let device = s.device(&spec);
        if let Some((id, p)) = &prior {
            crate::resume::check_same_device(p.header.device.as_ref(), &device, *id)?;
            say_resuming(*id, p);
        }
        let stop = s.stop();
        let prog = Arc::new(Progress::default());
        let failed_list = FailedListFile::create(self.failed_list.as_deref(), prior.as_ref())?;
        let resumed_from = prior.as_ref().map(|(id, _)| *id);
        let mut cuts = {
            let device = device.clone();
            let stamp = move |mut rec: scan::ScanRecord, me| {
                rec.header.device = device.clone();
                rec.resumed_from = resumed_from;
                rec.checkpoint = Some(me);
                rec.into()
            };
            let full = cfg.quick.is_none() && cfg.verify.is_none();
            s.checkpoints(self.checkpoint, &self.store, full, None, "scan", stamp)
        };
        let display = Display::start(
            &self,
            &cfg,
            &spec,
            device.as_ref(),
            &plan,
            &target,
            &prog,
            stop,
        );
        let poll = crate::temperature::watch(device.as_ref());
        let result = scan::run(
            &drivescope_core::engine::Live(&target),
            &target,
            prior
                .as_ref()
                .map_or(scan::Start::New(&cfg), |(_, p)| scan::Start::Resume(p)),
            scan::Observer::counting(prog, stop)
                .with_events(failed_list.sink())
                .with_checkpoints(cuts.take()),
        );
        // The terminal is back to normal before anything more is printed.
        display.finish();
        // The last checkpoint is written before the result replaces it.
        let written = cuts.finish();
        let mut rec = result?;
        rec.checkpoints
            .iter_mut()
            .for_each(|c| c.writer_cpu_ns = written.cpu_ns);
        failed_list.finish()?;
        rec.header.device = device;
        rec.resumed_from = resumed_from;
        let before = prior.as_ref().map(|(_, p)| p.temperature.clone());
        let before_s = prior
            .as_ref()
            .map_or(0.0, |(_, p)| p.duration_ns as f64 / 1e9);
        rec.temperature = crate::temperature::series(poll, before.flatten(), before_s);
        say_how_it_ended(&rec, &spec);
        drivescope_analysis::annotate(&mut rec);
        write_curve(&rec, self.curve_csv.as_deref())?;
        Ok(Measured::with_findings(
            rec,
            text::print_scan,
            self.json,
            self.store,
            written.run,
        ))
    }
}

/// `--curve-csv FILE`: the transfer-rate curve as CSV.
fn write_curve(rec: &scan::ScanRecord, path: Option<&std::path::Path>) -> anyhow::Result<()> {
    let Some(path) = path else { return Ok(()) };
    let run = drivescope_report::Run::new(None, rec.clone());
    super::emit(&CurveCsv, std::slice::from_ref(&run), Some(path))
}

/// Say where a resumed scan continues (a resume point outside the range is refused by the scan, in
/// its own words).
fn say_resuming(id: i64, p: &scan::ScanRecord) {
    let done = p
        .resume
        .as_ref()
        .and_then(|s| s.next_offset.checked_sub(p.offset));
    if let Some(done) = done.filter(|d| *d < p.length && d.is_multiple_of(p.block_size.max(1))) {
        let from = match &p.checkpoint {
            Some(_) => format!(" (its last checkpoint, {})", p.header.ended_at),
            None => String::new(),
        };
        eprintln!(
            "drivescope: resuming run {id} at {} of {}{from}",
            units::format_size(done),
            units::format_size(p.length)
        );
    }
}

/// A scan that stopped early says so before its results.
fn say_how_it_ended(rec: &scan::ScanRecord, spec: &str) {
    if let Some(why) = &rec.device_lost {
        eprintln!(
            "drivescope: {spec}: {why}; the run ended after {} of {}",
            units::format_size(rec.covered),
            units::format_size(rec.length)
        );
    } else if rec.interrupted {
        eprintln!(
            "drivescope: interrupted after {} of {}; the results below cover what was {}",
            units::format_size(rec.covered),
            units::format_size(rec.length),
            if rec.write { "written" } else { "read" }
        );
    }
}

/// `--failed-list FILE`: every failed sector as the scan finds it (a resumed scan's file starts with
/// the first part's).
struct FailedListFile {
    file: Option<(Arc<Mutex<FailedList<std::fs::File>>>, std::path::PathBuf)>,
}

impl FailedListFile {
    fn create(
        path: Option<&std::path::Path>,
        prior: Option<&(i64, scan::ScanRecord)>,
    ) -> anyhow::Result<FailedListFile> {
        let Some(path) = path else {
            return Ok(FailedListFile { file: None });
        };
        let list = Arc::new(Mutex::new(FailedList::create(path)?));
        if let Some((_, p)) = prior {
            // The first part's failed sectors (their latencies are not kept).
            let sector = p.header.target.logical_block_size as u64;
            let mut l = list.lock().expect("failed list");
            for x in &p.failed_sector_runs() {
                l.extent(x, sector);
            }
        }
        Ok(FailedListFile {
            file: Some((list, path.to_path_buf())),
        })
    }

    fn sink(&self) -> Option<scan::FailedSink> {
        let list = self.file.as_ref()?.0.clone();
        Some(Box::new(move |e| list.lock().expect("failed list").row(e)))
    }

    fn finish(self) -> anyhow::Result<()> {
        let Some((list, path)) = self.file else {
            return Ok(());
        };
        let list = Arc::into_inner(list)
            .expect("the scan has ended")
            .into_inner()
            .expect("failed list");
        list.finish()
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(())
    }
}

/// How the scan's progress is shown while it runs.
enum Display {
    Plain(progress::Display),
    Live(crate::live::term::LiveView),
    Nothing,
}

impl Display {
    /// The full-screen live view where it is wanted and can start, else plain progress lines
    /// (unless --quiet).
    #[allow(clippy::too_many_arguments)]
    fn start(
        args: &ScanPlan,
        cfg: &ScanConfig,
        spec: &str,
        device: Option<&Identity>,
        plan: &scan::Plan,
        target: &drivescope_core::target::Target,
        prog: &Arc<Progress>,
        stop: &Arc<AtomicBool>,
    ) -> Display {
        let total = match cfg.quick {
            None => progress::Total::Bytes(plan.length),
            Some((regions, _)) => progress::Total::Regions(regions as u64),
        };
        let display = if args.live_wanted() {
            let block = target.logical_block_size as u64;
            let _ = prog.live.set(Live::new(plan.start, plan.length, block));
            let command = match (cfg.quick, cfg.verify) {
                (Some(_), _) => "quick scan",
                (None, Some(_)) => "verify",
                (None, None) => "scan",
            };
            let title = crate::live::view::title(command, spec, device);
            match crate::live::term::start(prog.clone(), total, title, stop.clone()) {
                Ok(view) => Display::Live(view),
                Err(e) => {
                    eprintln!("drivescope: warning: no live view ({e}); plain progress instead");
                    Display::Plain(progress::start(prog.clone(), total))
                }
            }
        } else if crate::say::quiet() {
            Display::Nothing
        } else {
            Display::Plain(progress::start(prog.clone(), total))
        };
        // Debug builds only: the run panics once the live view is up, so a test can see the
        // terminal restored and the message printed.
        #[cfg(debug_assertions)]
        if matches!(display, Display::Live(_))
            && std::env::var_os("DRIVESCOPE_DEBUG_PANIC_LIVE").is_some()
        {
            std::thread::sleep(std::time::Duration::from_millis(700));
            panic!("DRIVESCOPE_DEBUG_PANIC_LIVE: a panic while the live view is up");
        }
        display
    }

    /// Restore the terminal.
    fn finish(self) {
        match self {
            Display::Plain(d) => d.finish(),
            Display::Live(v) => v.finish(),
            Display::Nothing => {}
        }
    }
}

/// The stored run to resume, checked to be an interrupted scan.
fn load_resumable(
    s: &Session,
    store: &StoreOpts,
    run: &str,
) -> anyhow::Result<(i64, scan::ScanRecord)> {
    let not_it = "a scan; only scans can be resumed";
    let (id, rec) = s.resumable(store, run, None, not_it, |r: &scan::ScanRecord| {
        match (r.interrupted, r.resume.is_some()) {
            (true, true) => None,
            (true, false) => {
                Some("was not a full scan that can be continued; nothing to resume".into())
            }
            (false, _) => Some("finished; nothing to resume".into()),
        }
    })?;
    Ok((id.0, rec))
}
