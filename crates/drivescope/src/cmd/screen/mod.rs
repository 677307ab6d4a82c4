//! `drivescope screen`: arguments -> the drives opened (through the write gate, all of them before
//! anything is written) -> SMART -> shared-path reads -> drivescope_core::screen::scan_all (with the
//! group's checkpoints, screen_checkpoint) -> SMART again -> verdicts -> outputs.

mod checkpoint;
mod criteria;
mod history;
mod smart;

use crate::finish::Cmd;
use crate::live::screen as screen_live;
use crate::opts::args::{parse_checkpoint, parse_duration, Every};
use crate::opts::destructive::DestructiveOpts;
use crate::opts::store::StoreOpts;
use crate::progress_group::{self, Shown};
use crate::runner::{Measure, Measured, Session};
use anyhow::Context;
use clap::Args;
use drivescope_core::scan::live::Live;
use drivescope_core::scan::{self, Progress, ScanConfig, ScanRecord};
use drivescope_core::screen::group::{self, set_result};
use drivescope_core::screen::{self, Drive, SharedOptions};
use drivescope_core::target::Target;
use drivescope_core::units;
use drivescope_record::{Criteria, Document, Kind, Member, ScreenRecord, SharedPath};
use drivescope_report::text;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct ScreenArgs {
    /// Block devices (/dev/sdb /dev/sdc …), files, or null:SIZE, scanned at the same time, one
    /// worker each. With --resume, the group's drives.
    #[arg(required_unless_present = "resume", num_args = 1..)]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub scan: crate::opts::scan::ScanOpts,
    /// Write every drive's range in order, timing each command (destroys the data on every
    /// drive; block devices only, with --destructive and one --confirm per drive).
    #[arg(long)]
    pub write: bool,
    /// With --write: write a pattern that names each sector, read it all back, and report
    /// sectors that came back wrong, misplaced or lost.
    #[arg(long, requires = "write")]
    pub verify: bool,
    /// Allow writing to the block devices, destroying their data (with --write).
    #[arg(long)]
    pub destructive: bool,
    #[arg(long, value_name = "SERIAL", help = confirm_help())]
    pub confirm: Vec<String>,
    /// With --destructive: write even over a partition table or file-system signature.
    #[arg(long)]
    pub force: bool,
    /// Before the scan: each drive's sequential read (1 MiB, 4 in flight) alone for this long,
    /// one after another, then all together, to find a path they share (0 for none).
    #[arg(long, default_value = "3s", value_parser = parse_duration, value_name = "TIME")]
    pub shared_path: Duration,
    /// Verdict rules as a TOML file (docs/json.md); the flags below override it.
    #[arg(long, value_name = "FILE")]
    pub criteria: Option<std::path::PathBuf>,
    /// Fail a drive with more failed sectors than this.
    #[arg(long, value_name = "N")]
    pub max_failed: Option<u64>,
    /// Warn on a drive with more slow commands (at or over --slow) than this.
    #[arg(long, value_name = "N")]
    pub max_slow: Option<u64>,
    /// Warn on a drive with any command at or over this latency.
    #[arg(long, value_parser = crate::opts::args::parse_positive_duration, value_name = "TIME")]
    pub max_latency: Option<Duration>,
    /// Warn on a drive whose rate is this many percent below its siblings' median over a stretch.
    #[arg(long, value_name = "PCT", value_parser = crate::opts::args::parse_open_pct)]
    pub below_siblings: Option<f64>,
    /// Continue the interrupted screen RUN (a stored run number, or `last`): each drive from
    /// where its scan stopped; drives that had finished keep their results. A screen that was
    /// killed (or crashed, or the machine went down) continues from its last checkpoint.
    #[arg(long, value_name = "RUN", conflicts_with_all = ["targets", "write", "verify", "offset", "length", "block_size", "queue_depth", "points", "reap", "error_budget", "retries"])]
    pub resume: Option<String>,
    /// Save the group's progress in the results store this often (60s, 5m; `off` for never):
    /// every drive's scan so far, as one run that the group's result replaces when it ends.
    /// After a kill, a crash or a power cut, `runs` shows it as interrupted and `--resume`
    /// continues every unfinished drive from there. Not with --verify or --no-store.
    #[arg(long, value_name = "INTERVAL", default_value = "60s", value_parser = parse_checkpoint,
          conflicts_with_all = ["verify", "no_store"])]
    pub checkpoint: Every,
    /// Print one JSON document (schema drivescope/1) on stdout instead of the text; stderr then
    /// carries only warnings and errors.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: crate::opts::store::StoreOpts,
    /// Only warnings and errors on stderr (no progress, no `saved as run N`).
    #[arg(long, short)]
    pub quiet: bool,
    /// On a terminal, plain progress lines instead of the full-screen live view.
    #[arg(long)]
    pub no_live: bool,
}

/// `--confirm`'s help, with the example spelled by the gate's own function.
fn confirm_help() -> String {
    format!(
        "Name each device to write, once per drive and in the order of the drives: its serial \
         number, or, for a device without one, its model (kernel name when it has none) and size \
         as `drivescope info` shows them (\"{}\")",
        drivescope_core::safety::confirmation_example()
    )
}

impl Measure for ScreenArgs {
    type Record = ScreenRecord;
    const CMD: Cmd = Cmd::Screen;
    const RESUMABLE: bool = true;

    fn measure(self, s: &Session) -> anyhow::Result<Measured<ScreenRecord>> {
        let args = self;
        let g = Prepared::new(&args)?;
        let (prior, devices) = (&g.prior, &g.devices);
        let priors = g.priors();
        let smart_before = smart::before(devices);
        let stop = s.stop();
        let started = Instant::now();
        let started_at = drivescope_record::now_rfc3339();
        let (to_scan, drives) = g.drives(&priors);
        // The live view opens before the shared-path reads, which it names while they run.
        let (view, group) = start_live(&args, &g, &drives, &to_scan, stop);
        let shared = match &prior {
            Some((_, p)) => p.shared_path.clone(),
            None => shared_path(&args, &g.targets, stop, group.as_deref()),
        };
        let mut rec = new_record(&args, &g, shared, started_at);
        let continues: Vec<Option<i64>> = (0..g.specs.len())
            .map(|i| group::continues(priors[i], &rec.members[i]))
            .collect();
        let (writer, checkpoints) = start_checkpoints(
            s,
            &args,
            &g,
            &rec,
            &to_scan,
            &continues,
            &smart_before,
            started,
        );
        if let Some(g) = &group {
            g.scans_start();
        }
        let display = (!crate::say::quiet() && view.is_none()).then(|| plain_progress(&drives));
        let results = scan_all(&drives, stop, group.as_deref(), checkpoints.as_ref());
        drop(checkpoints);
        // The terminal is back to normal before anything more is printed.
        if let Some(d) = display {
            d.finish();
        }
        if let Some(v) = view {
            v.finish();
        }
        // The last checkpoint is written before the result replaces it.
        let written = writer.map(|w| w.finish()).unwrap_or_default();
        let smart_after = smart::after(devices, &to_scan);
        merge(&mut rec, &to_scan, results, devices, &continues);
        smart::fill(&mut rec.members, &to_scan, smart_before, smart_after);
        save_members(&mut rec, &args.store);
        rec.header.end_now();
        rec.duration_ns = started.elapsed().as_nanos() as u64;
        drivescope_analysis::screen::judge(&mut rec);
        let (json, store, replace) = (args.json, args.store, written.run);
        Ok(Measured::new(rec, text::print_screen, json, store, replace))
    }
}

/// A group checked before anything is read or written: its drives (a resumed group's own), every one
/// opened (and, to write, through the gate: one refusal refuses the whole group), each range checked,
/// and a resumed drive on the device it ran on.
struct Prepared {
    prior: Option<(i64, ScreenRecord)>,
    specs: Vec<String>,
    write: bool,
    criteria: Criteria,
    cfg: ScanConfig,
    targets: Vec<Target>,
    devices: Vec<Option<drivescope_probe::Identity>>,
}

impl Prepared {
    fn new(args: &ScreenArgs) -> anyhow::Result<Prepared> {
        let prior = match &args.resume {
            Some(run) => Some(load_resumable(args, run)?),
            None => None,
        };
        let specs: Vec<String> = match &prior {
            Some((_, p)) => p.members.iter().map(|m| m.target.clone()).collect(),
            None => args.targets.clone(),
        };
        check_distinct(&specs)?;
        let write = args.write || prior.as_ref().is_some_and(|(_, p)| p.write);
        let criteria = criteria(args, prior.as_ref().map(|(_, p)| p))?;
        let cfg = args.scan.config(write, args.verify);
        // Every drive is opened (and, to write, passes the gate) before anything is read or written:
        // one refusal refuses the whole group.
        let targets = open_all(&specs, write, args)?;
        // What each drive does: a fresh scan, a resumed one, or nothing (it had finished).
        let priors: Vec<Option<&ScanRecord>> = match &prior {
            Some((_, p)) => p.members.iter().map(resumable_scan).collect(),
            None => vec![None; specs.len()],
        };
        for (t, p) in targets.iter().zip(&priors) {
            let c = p.map_or_else(|| cfg.clone(), ScanConfig::of_record);
            scan::plan(&c, t).with_context(|| t.spec.clone())?;
        }
        let devices: Vec<_> = specs.iter().map(|s| crate::identity::of(s)).collect();
        // A drive continues on the device it ran on (after a power cut the names may have moved).
        if let Some((id, _)) = &prior {
            for (i, p) in priors.iter().enumerate() {
                if let Some(p) = p {
                    crate::resume::check_same_device(p.header.device.as_ref(), &devices[i], *id)
                        .with_context(|| specs[i].clone())?;
                }
            }
        }
        Ok(Prepared {
            prior,
            specs,
            write,
            criteria,
            cfg,
            targets,
            devices,
        })
    }

    /// The drives to scan (a resumed group's unfinished ones) and what to do on each.
    fn drives<'a>(&'a self, priors: &[Option<&'a ScanRecord>]) -> (Vec<usize>, Vec<Drive<'a>>) {
        let to_scan: Vec<usize> = match &self.prior {
            Some((_, p)) => (0..self.specs.len())
                .filter(|&i| priors[i].is_some() || p.members[i].scan.is_none())
                .collect(),
            None => (0..self.specs.len()).collect(),
        };
        let drives = to_scan
            .iter()
            .map(|&i| Drive {
                target: &self.targets[i],
                cfg: priors[i].map_or_else(|| self.cfg.clone(), ScanConfig::of_record),
                prior: priors[i],
                progress: Arc::new(Progress::default()),
            })
            .collect();
        (to_scan, drives)
    }

    /// What each drive does: a fresh scan, a resumed one (`Some`), or nothing (it had finished).
    fn priors(&self) -> Vec<Option<&ScanRecord>> {
        match &self.prior {
            Some((_, p)) => p.members.iter().map(resumable_scan).collect(),
            None => vec![None; self.specs.len()],
        }
    }
}

/// The full-screen live view of the group, where it is wanted and can start.
fn start_live(
    args: &ScreenArgs,
    g: &Prepared,
    drives: &[Drive],
    to_scan: &[usize],
    stop: &Arc<AtomicBool>,
) -> (
    Option<crate::live::term::LiveView>,
    Option<Arc<screen_live::Group>>,
) {
    if !live_wanted(args, &g.cfg) {
        return (None, None);
    }
    let group = screen_live::Group::new(drives.len());
    let members = drives
        .iter()
        .zip(to_scan)
        .map(|(d, &i)| {
            let plan = scan::plan(&d.cfg, d.target).ok();
            let (start, length) = plan.map_or((0, 0), |p| (p.start, p.length));
            screen_live::Member::new(
                crate::live::view::device(&g.specs[i], g.devices[i].as_ref()),
                d.progress.clone(),
                length,
                Live::new(start, length, d.target.logical_block_size as u64),
            )
        })
        .collect();
    let title = format!("drivescope screen{}", if g.write { " --write" } else { "" });
    match screen_live::start(title, members, group.clone(), stop.clone()) {
        Ok(v) => (Some(v), Some(group)),
        Err(e) => {
            eprintln!("drivescope: warning: no live view ({e}); plain progress instead");
            (None, None)
        }
    }
}

/// Plain progress: a line (or, on a terminal, a bar) per drive.
fn plain_progress(drives: &[Drive]) -> crate::progress::Display {
    progress_group::start(
        drives
            .iter()
            .map(|d| Shown {
                name: d.target.spec.clone(),
                progress: d.progress.clone(),
                total: scan::plan(&d.cfg, d.target).map_or(0, |p| p.length),
            })
            .collect(),
    )
}

/// The group's document as the scans start (a resumed group's members as it left them); each
/// drive's result goes into its member.
fn new_record(
    args: &ScreenArgs,
    g: &Prepared,
    shared: Option<SharedPath>,
    started_at: String,
) -> ScreenRecord {
    let prior = g.prior.as_ref().map(|(_, p)| p);
    ScreenRecord {
        header: group::header(&g.specs, &g.targets, started_at),
        members: match prior {
            Some(p) => p.members.clone(),
            None => g.specs.iter().map(|s| group::new_member(s)).collect(),
        },
        shared_path: shared,
        criteria: g.criteria.clone(),
        write: g.write,
        verify: args.verify || prior.is_some_and(|p| p.verify),
        interrupted: false,
        duration_ns: 0,
        resumed_from: g.prior.as_ref().map(|(id, _)| *id),
        checkpoint: None,
    }
}

/// The group's checkpoints saved in the store (not with --verify), when it has one.
#[allow(clippy::too_many_arguments)]
fn start_checkpoints(
    s: &Session,
    args: &ScreenArgs,
    g: &Prepared,
    rec: &ScreenRecord,
    to_scan: &[usize],
    continues: &[Option<i64>],
    smart_before: &[Option<drivescope_probe::Smart>],
    started: Instant,
) -> (
    Option<crate::checkpoints::Writer>,
    Option<drivescope_core::screen::GroupCheckpoints>,
) {
    if args.checkpoint.0.is_none() || g.cfg.verify.is_some() {
        return (None, None);
    }
    let mut draft = rec.clone();
    for &i in to_scan {
        let m = &mut draft.members[i];
        m.smart_before = m.smart_before.take().or(smart_before[i].clone());
    }
    let group = checkpoint::Group {
        draft,
        scanned: to_scan.to_vec(),
        devices: g.devices.clone(),
        continues: continues.to_vec(),
        started,
    };
    let priors = g.priors();
    let resumed = to_scan.iter().map(|&i| priors[i].is_some()).collect();
    checkpoint::start(s, &args.store, args.checkpoint, group, resumed)
}

/// Each drive's result into its member, in the order given; drives that had finished keep theirs.
fn merge(
    rec: &mut ScreenRecord,
    to_scan: &[usize],
    results: Vec<Result<ScanRecord, screen::DriveError>>,
    devices: &[Option<drivescope_probe::Identity>],
    continues: &[Option<i64>],
) {
    for (&i, r) in to_scan.iter().zip(results) {
        let m = &mut rec.members[i];
        m.verdict = None;
        if let Err(e) = &r {
            eprintln!("drivescope: {}: {e}", m.target);
        }
        let new = r.is_ok();
        set_result(m, r, devices[i].clone(), continues[i]);
        if let Some(s) = m.scan.as_deref_mut().filter(|_| new) {
            drivescope_analysis::annotate(s);
        }
    }
}

/// Every drive's scan at once, each drive's end shown on the live view when it is up.
fn scan_all(
    drives: &[Drive],
    stop: &AtomicBool,
    group: Option<&screen_live::Group>,
    checkpoints: Option<&drivescope_core::screen::GroupCheckpoints>,
) -> Vec<Result<ScanRecord, screen::DriveError>> {
    match group {
        Some(g) => screen::scan_all(
            &screen::live_devices(drives),
            drives,
            stop,
            &|i, r| g.end(i, screen_live::End::of(r)),
            checkpoints,
        ),
        None => screen::scan_all(
            &screen::live_devices(drives),
            drives,
            stop,
            &|_, _| {},
            checkpoints,
        ),
    }
}

/// Each new scan saved as a run of its own (also one a checkpoint kept when its drive finished),
/// which the group names; the group is interrupted when a drive's scan was; each drive's model
/// history from the store.
fn save_members(rec: &mut ScreenRecord, store: &StoreOpts) {
    rec.interrupted = group::interrupted(rec);
    for m in &mut rec.members {
        if let (None, Some(s)) = (m.run, &m.scan) {
            m.run = store.save(&Document::Scan(s.clone()));
        }
    }
    history::fill(&mut rec.members, store);
}

/// The same drive twice would be scanned twice at once, each halving the other.
fn check_distinct(specs: &[String]) -> anyhow::Result<()> {
    let mut seen = std::collections::HashSet::new();
    for s in specs {
        let key = std::fs::canonicalize(s).unwrap_or_else(|_| s.into());
        if !s.starts_with("null:") && !seen.insert(key) {
            anyhow::bail!("{s} is given twice");
        }
    }
    Ok(())
}

/// The defaults, the group's criteria when resuming, a criteria file, then the flags.
fn criteria(args: &ScreenArgs, prior: Option<&ScreenRecord>) -> anyhow::Result<Criteria> {
    let mut c = match (&args.criteria, prior) {
        (Some(path), _) => criteria::load(path)?,
        (None, Some(p)) => p.criteria.clone(),
        (None, None) => Criteria::default(),
    };
    if let Some(v) = args.max_failed {
        c.max_failed_sectors = v;
    }
    if let Some(v) = args.max_slow {
        c.max_slow_commands = v;
    }
    if let Some(v) = args.max_latency {
        c.max_latency_ns = v.as_nanos() as u64;
    }
    if let Some(v) = args.below_siblings {
        anyhow::ensure!(
            (0.0..=100.0).contains(&v),
            "--below-siblings {v}: a percentage from 0 to 100"
        );
        c.below_siblings_pct = v;
    }
    Ok(c)
}

/// Open every drive: to read, or to write through the destructive gate with its own
/// confirmation. The first refusal refuses the group, before any drive is touched.
fn open_all(specs: &[String], write: bool, args: &ScreenArgs) -> anyhow::Result<Vec<Target>> {
    if write && !args.confirm.is_empty() && args.confirm.len() != specs.len() {
        return Err(crate::finish::Refused(format!(
            "{} drives and {} --confirm: give one --confirm per drive, in the order of the drives",
            specs.len(),
            args.confirm.len()
        ))
        .into());
    }
    let protect = args.store.protected();
    specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let d = DestructiveOpts {
                destructive: args.destructive,
                confirm: args.confirm.get(i).cloned(),
                force: args.force,
            };
            crate::opts::destructive::open_scan_target(spec, write, "screen", &d, &protect).map_err(
                |e| match e.downcast::<crate::finish::Refused>() {
                    Ok(r) => {
                        crate::finish::Refused(format!("{}; nothing was written to any drive", r.0))
                            .into()
                    }
                    Err(e) => e,
                },
            )
        })
        .collect()
}

/// The full-screen live view: stdout and stderr both on a terminal, unless --no-live, --quiet
/// or --json (or --verify, whose read-back pass the view does not draw, as for scan).
fn live_wanted(args: &ScreenArgs, cfg: &ScanConfig) -> bool {
    use std::io::IsTerminal;
    !(args.no_live || args.quiet || args.json)
        && cfg.verify.is_none()
        && std::io::stdout().is_terminal()
        && std::io::stderr().is_terminal()
}

/// Each drive alone, then all together (two drives or more; --shared-path 0 skips it). What
/// runs is said on stderr, or on the live view's `group` while it is up.
fn shared_path(
    args: &ScreenArgs,
    targets: &[Target],
    stop: &AtomicBool,
    group: Option<&screen_live::Group>,
) -> Option<SharedPath> {
    // Null targets share no path but the machine's own CPUs.
    let null = targets.iter().any(|t| t.spec.starts_with("null:"));
    if targets.len() < 2 || args.shared_path.is_zero() || null {
        return None;
    }
    let o = SharedOptions {
        duration_ns: args.shared_path.as_nanos() as u64,
        ..SharedOptions::default()
    };
    let what = format!(
        "reading each drive alone for {}, then all {} together",
        units::format_ns(o.duration_ns),
        targets.len()
    );
    match group {
        Some(g) => g.phase(Some(format!("shared path: {what}; the scans start after"))),
        None => crate::note!("{what}"),
    }
    let refs: Vec<&Target> = targets.iter().collect();
    let r = screen::shared_path(&refs, &o, stop);
    if r.alone.is_empty() {
        return None; // stopped before the reads were done
    }
    let names: Vec<String> = targets.iter().filter_map(Target::block_name).collect();
    let parent = (names.len() == targets.len())
        .then(|| {
            drivescope_probe::shared_parent::shared_parent(
                &drivescope_probe::Roots::default(),
                &names,
            )
        })
        .flatten();
    Some(SharedPath {
        block_size: o.block_size,
        queue_depth: o.queue_depth,
        duration_ns: o.duration_ns,
        alone_mb_per_s: r.alone,
        together_mb_per_s: r.together,
        parent,
    })
}

/// A member's scan to continue: interrupted (not lost) with a resume state.
fn resumable_scan(m: &Member) -> Option<&ScanRecord> {
    m.scan
        .as_deref()
        .filter(|s| s.interrupted && s.device_lost.is_none() && s.resume.is_some())
}

/// The stored group to resume, checked to be an interrupted screen.
fn load_resumable(args: &ScreenArgs, run: &str) -> anyhow::Result<(i64, ScreenRecord)> {
    let kind = Some(Kind::Screen);
    let (id, rec) = crate::resume::load(&args.store, run, kind, "a screen", |r: &ScreenRecord| {
        if !r.interrupted {
            Some("finished; nothing to resume".into())
        } else if r.verify {
            Some("wrote and verified: a verify pass cannot be continued; start it again".into())
        } else {
            None
        }
    })?;
    if rec.checkpoint.is_some() {
        eprintln!(
            "drivescope: resuming screen run {} from its last checkpoint ({})",
            id.0, rec.header.ended_at
        );
    }
    Ok((id.0, rec))
}
