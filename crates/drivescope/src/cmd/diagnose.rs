//! `drivescope diagnose`: bounded experiments that explain a device's numbers, printed as findings.

use crate::finish::Cmd;
use crate::live::workload::Done;
use crate::opts::args::{parse_positive_duration, Every};
use crate::opts::workload::{self, WorkloadArgs};
use crate::runner::{Measure, Measured, Session};
use clap::Args;
use drivescope_core::bench::Rw;
use drivescope_diagnose::{measure, DiagnoseOptions, DiagnoseRun};
use drivescope_record::{DiagnoseRecord, Header, Kind, OwnFile, TemperatureSeries};
use drivescope_report::text::print_diagnose;
use drivescope_store::RunId;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;
use std::time::Duration;

#[derive(Args)]
#[command(mut_arg("target", |a| a.required(false).default_value("").hide_default_value(true)))]
pub struct DiagnoseArgs {
    #[command(flatten)]
    pub w: WorkloadArgs,
    /// Time the whole diagnosis may take (a small device finishes sooner). An experiment the budget cuts short
    /// says so instead of guessing.
    #[arg(long, default_value = "3m", value_parser = parse_positive_duration)]
    pub budget: Duration,
    /// Continue the stopped diagnosis RUN (a stored run number, or `last`: the newest diagnosis) on its
    /// target (the target may be given again: the same one), with its budget and size: the experiments it
    /// finished are kept, the others run (one that was cut short runs again whole), the findings are
    /// computed over all of them, and the run is saved in place of RUN. A diagnosis that was killed
    /// continues from its last checkpoint (saved after each experiment); the test file it left in a
    /// directory target is removed.
    #[arg(long, value_name = "RUN", conflicts_with = "budget")]
    pub resume: Option<String>,
    /// The member devices of the array the target is, where the system cannot say them (a hardware RAID's
    /// disks, a ZFS pool): each is read alone and all together before the array. md, device-mapper and btrfs
    /// members are found without it.
    #[arg(long, value_name = "DEV,DEV,...", value_delimiter = ',')]
    pub members: Vec<String>,
}

impl Measure for DiagnoseArgs {
    type Record = DiagnoseRecord;
    const CMD: Cmd = Cmd::Diagnose;
    const RESUMABLE: bool = true;

    fn measure(mut self, s: &Session) -> anyhow::Result<Measured<DiagnoseRecord>> {
        let a = &mut self;
        let prior = resumed(s, a)?;
        let device = s.device(&a.w.target);
        if let Some((id, p)) = &prior {
            let ran_on = ran_on(p);
            crate::resume::check_same_target(&p.header, &ran_on, &a.w.target, &device, id.0)?;
        }
        let array =
            drivescope_diagnose::array_step::find(&a.w.target, &a.members, &Default::default())
                .map_err(anyhow::Error::msg)?;
        let stop = s.stop();
        let kind = Shape::of(&a.w.target);
        let writes = match &prior {
            Some((_, p)) => p.writes,
            None => kind.dir || (kind.block && a.w.destructive.destructive),
        };
        if let Some((id, p)) = &prior {
            say_resumed(p, id.0, &a.w.target);
        }
        let rws: &[Rw] = if writes {
            &[Rw::Read, Rw::Write]
        } else {
            &[Rw::Read]
        };
        let leave_out = "leave out --destructive for a read-only diagnosis";
        let mut opened = workload::open_or(&a.w, rws, stop, leave_out)?;
        let lines = Done::Lines {
            title: "experiments (the last one runs now)".into(),
            lines: Vec::new(),
        };
        let live = workload::watch(&a.w, "diagnose", Some(a.budget), lines, stop);
        opened.common.watch = live.as_ref().map(|l| l.watch);
        let target = &opened.target;
        let mut header = Header::now(Kind::Diagnose, target.info());
        header.device = device.clone();
        let o = options(a, &opened, writes, kind);
        let mut say = |e: drivescope_record::Experiment, what: &str| say(live.as_ref(), e, what);
        let over = prior.as_ref().map(|(id, _)| *id);
        let poll = crate::temperature::watch(device.as_ref());
        let before_s = prior
            .as_ref()
            .map_or(0.0, |(_, p)| p.elapsed_ns as f64 / 1e9);
        let mut cuts = {
            let stamp = move |mut rec: DiagnoseRecord, me| {
                rec.header.device = device.clone();
                rec.header.end_now();
                rec.checkpoint = Some(me);
                rec.into()
            };
            // One checkpoint after each experiment.
            let every = Every(Some(Duration::ZERO));
            s.checkpoints(every, &a.w.store, true, over, "diagnosis", stamp)
        };
        let run = DiagnoseRun {
            prior: prior.map(|(_, p)| p),
            checkpoints: cuts.take(),
            directory: kind.dir.then(|| a.w.target.clone()),
            test_file: own_file(opened.test_file()),
            array,
            // The target's own test file or device (`measure` opens it).
            flush: None,
        };
        let test_file = opened.test_file().map(|f| f.display().to_string());
        let mut rec = measure(target, header, &o, run, stop, &mut say);
        // A diagnosis of a directory is stored as one of that directory: its test file is gone.
        if let (Some(tf), true) = (test_file, kind.dir) {
            rec.workload.test_file = Some(tf);
            rec.header.target.path = a.w.target.clone();
        }
        if let Some(l) = live {
            l.finish();
        }
        let temperature = crate::temperature::series(poll, rec.temperature.take(), before_s);
        let mut rec = concluded(rec, temperature);
        // The last checkpoint is written before the result replaces it.
        let written = cuts.finish();
        rec.header.end_now();
        let (json, store) = (self.w.json, self.w.store);
        let replace = written.run.or(over);
        Ok(Measured::new(rec, print_diagnose, json, store, replace))
    }
}

/// An experiment's progress: on the live view when it is up, else a line (unless --quiet).
fn say(live: Option<&workload::Watching>, e: drivescope_record::Experiment, what: &str) {
    match live {
        Some(l) => {
            l.watch.step(format!("experiment: {}", e.label()));
            l.line(format!("{}: {what}", e.label()));
        }
        None => crate::note!("{}: {what}", e.label()),
    }
}

/// What the target is: a directory (a test file is made there) or a block device.
/// The measured diagnosis with its temperature, and the findings worked out once, over both.
fn concluded(mut rec: DiagnoseRecord, temperature: Option<TemperatureSeries>) -> DiagnoseRecord {
    rec.temperature = temperature;
    drivescope_diagnose::assess(&mut rec);
    rec
}

#[derive(Clone, Copy)]
struct Shape {
    dir: bool,
    block: bool,
}

impl Shape {
    fn of(target: &str) -> Shape {
        Shape {
            dir: !target.starts_with("null:") && Path::new(target).is_dir(),
            block: std::fs::metadata(target).is_ok_and(|m| m.file_type().is_block_device()),
        }
    }
}

/// The stopped diagnosis `--resume` names, its size, budget and target taken over; a fresh one needs
/// a target.
fn resumed(s: &Session, a: &mut DiagnoseArgs) -> anyhow::Result<Option<(RunId, DiagnoseRecord)>> {
    let Some(run) = &a.resume else {
        if a.w.target.is_empty() {
            anyhow::bail!("give a target (a device, a directory or an existing file)");
        }
        if a.w.target.starts_with("null:") {
            anyhow::bail!(
                "{}: a null target completes every command at once, so it has no behaviour to diagnose \
                 (`scan {}` measures drivescope's own ceiling)",
                a.w.target,
                a.w.target
            );
        }
        return Ok(None);
    };
    let (id, p) = load_resumable(s, a, run)?;
    a.w.size = Some(p.workload.size);
    a.budget = Duration::from_nanos(p.budget_ns);
    if a.w.target.is_empty() {
        a.w.target = ran_on(&p);
    }
    Ok(Some((id, p)))
}

/// The diagnosis' settings over an opened target.
fn options(
    a: &DiagnoseArgs,
    opened: &workload::Opened,
    writes: bool,
    kind: Shape,
) -> DiagnoseOptions {
    let no_writes_why = if kind.block {
        "read-only: write experiments on a device need --destructive and --confirm"
    } else {
        "an existing file is only read; give a directory for write experiments"
    };
    DiagnoseOptions {
        engine: opened.common.engine,
        data: opened.common.data,
        size: opened.common.size,
        budget: a.budget,
        writes,
        no_writes_why: no_writes_why.to_string(),
        whole_device: kind.block && opened.common.size >= opened.target.size,
        block_device: kind.block,
        watch: opened.common.watch,
    }
}

/// The test file drivescope made, as the record names it (so a resumed run can remove it).
fn own_file(path: Option<&Path>) -> Option<OwnFile> {
    let p = path?;
    let inode = std::fs::metadata(p).ok()?.ino();
    Some(OwnFile {
        path: p.display().to_string(),
        inode,
    })
}

/// The stored diagnosis to continue: not running, and with experiments left.
fn load_resumable(
    s: &Session,
    a: &DiagnoseArgs,
    run: &str,
) -> anyhow::Result<(RunId, DiagnoseRecord)> {
    let kind = Some(Kind::Diagnose);
    s.resumable(
        &a.w.store,
        run,
        kind,
        "a diagnosis",
        |r: &DiagnoseRecord| {
            r.resume.is_none().then(|| {
                if r.workload.interrupted {
                    "was saved by an older version; nothing to resume".into()
                } else {
                    "ran every experiment; nothing to resume".into()
                }
            })
        },
    )
}

/// The target the stopped run `p` was given: its directory when it ran on a test file there.
fn ran_on(p: &DiagnoseRecord) -> String {
    p.resume
        .as_ref()
        .and_then(|r| r.directory.clone())
        .unwrap_or_else(|| p.header.target.path.clone())
}

/// Say what the resumed run keeps, and remove the test file a killed one left in its directory.
fn say_resumed(p: &DiagnoseRecord, id: i64, target: &str) {
    let Some(r) = &p.resume else { return };
    eprintln!(
        "drivescope: resuming diagnose run {id}: {} of {} kept{}",
        r.finished.len(),
        drivescope_units::count(r.planned.len() as u64, "experiment"),
        match &p.checkpoint {
            Some(_) => format!(" (its last checkpoint, {})", p.header.ended_at),
            None => String::new(),
        }
    );
    let Some(f) = &r.test_file else { return };
    match drivescope_diagnose::remove_stale(f, Path::new(target)) {
        Ok(true) => eprintln!("drivescope: removed the test file {} run {id} left", f.path),
        Ok(false) => {}
        Err(e) => eprintln!("drivescope: warning: the test file run {id} left: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::TemperaturePoint;

    /// A diagnosis as a run stores it (findings left out: they are worked out when read), its first
    /// 1.2 s of streaming reads slowed to under a third of the rate: a warm-up.
    fn measured() -> DiagnoseRecord {
        let doc = include_str!("../../tests/fixtures/old/92d1a42/diagnose.json");
        let mut doc: serde_json::Value = serde_json::from_str(doc).expect("JSON");
        for p in doc["warm_up"]["points"].as_array_mut().expect("points") {
            if p["t_ns"].as_u64().expect("t_ns") < 1_200_000_000 {
                p["bytes"] = (p["bytes"].as_u64().expect("bytes") * 3 / 10).into();
            }
        }
        let mut rec: DiagnoseRecord = serde_json::from_value(doc).expect("a diagnosis");
        rec.header.findings.clear();
        rec.outcomes.clear();
        rec.temperature = None;
        rec
    }

    #[test]
    fn the_findings_are_worked_out_after_the_temperature_joins_the_record() {
        let rec = measured();
        let warm_up_s = {
            let mut r = rec.clone();
            drivescope_diagnose::assess(&mut r);
            let f = r
                .header
                .findings
                .iter()
                .find(|f| f.code.as_str() == "warm_up");
            f.and_then(|f| f.number("warm_up_s"))
                .expect("a warm-up finding")
        };
        let points = (0..=20)
            .map(|i| TemperaturePoint {
                t_s: warm_up_s * f64::from(i) / 10.0,
                celsius: 35.0 + f64::from(i),
            })
            .collect();
        let series = TemperatureSeries {
            source: Some("hwmon test".into()),
            interval_s: 5.0,
            points,
            note: None,
        };
        let done = concluded(rec, Some(series.clone()));
        assert_eq!(done.temperature.as_ref(), Some(&series));
        let warm_up = done
            .header
            .findings
            .iter()
            .find(|f| f.code.as_str() == "warm_up")
            .expect("the warm-up finding");
        let numbers = &warm_up.evidence.numbers;
        assert_eq!(numbers.get("temperature_start_c"), Some(&35.0));
        assert_eq!(numbers.get("temperature_end_c"), Some(&45.0));
        assert!(warm_up.claim.contains("°C"), "{}", warm_up.claim);
        // The outcome line that repeats the claim says the same.
        assert!(done.outcomes.iter().any(|o| o.text == warm_up.claim));
    }
}
