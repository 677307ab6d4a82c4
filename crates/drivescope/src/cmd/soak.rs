//! `drivescope soak`: one test sustained over time, with its steps.

use crate::finish::Cmd;
use crate::live::workload::Done;
use crate::opts::args::{
    parse_checkpoint, parse_pct, parse_positive_duration, parse_test, Every, RwArg,
};
use crate::opts::workload::{self, WorkloadArgs};
use crate::plan::soak::SoakPlan;
use crate::runner::{Measure, Measured, Session};
use clap::Args;
use drivescope_core::bench::{self, SoakOptions, SoakRun, TestSpec};
use drivescope_record::{Kind, SoakRecord};
use drivescope_report::text;
use drivescope_store::RunId;
use std::time::Duration;

#[derive(Args)]
#[command(mut_arg("target", |a| a.required(false).default_value("").hide_default_value(true)))]
pub struct SoakArgs {
    #[command(flatten)]
    pub w: WorkloadArgs,
    /// The test, e.g. 'SEQ1M Q8T1'.
    #[arg(long = "test", default_value = "SEQ1M Q8T1", value_parser = parse_test)]
    pub test: TestSpec,
    /// read, write or mix.
    #[arg(long, value_enum, default_value = "read")]
    pub rw: RwArg,
    /// Reads in percent for --rw mix.
    #[arg(long, value_parser = parse_pct, default_value = "70")]
    pub mix: u8,
    /// Total length.
    #[arg(long, default_value = "10m", value_parser = parse_positive_duration)]
    pub duration: Duration,
    /// Interval of the time series.
    #[arg(long, default_value = "1s", value_parser = parse_positive_duration)]
    pub interval: Duration,
    /// Relative change of the rate that counts as a step, in percent.
    #[arg(long, default_value = "20", value_parser = crate::opts::args::parse_positive_pct)]
    pub step: u8,
    /// Continue the stopped soak RUN (a stored run number, or `last`: the newest soak) for
    /// the rest of its duration, with its test and settings, on its target (the target may
    /// be given again: the same one). The series goes on after a gap that the document
    /// marks, and the run is saved in place of RUN. A soak that was killed (or crashed, or the
    /// machine went down) continues from its last checkpoint.
    #[arg(long, value_name = "RUN", conflicts_with_all = ["test", "rw", "mix", "duration", "interval", "step"])]
    pub resume: Option<String>,
    /// Save the soak's series so far in the results store this often (60s, 5m; `off` for
    /// never), as one run that the soak's result replaces when it ends: after a kill, a crash
    /// or a power cut, `runs` shows it as interrupted and `--resume` continues it. Each
    /// checkpoint ends on an interval of the series; the commands never stop for it.
    #[arg(long, value_name = "INTERVAL", default_value = "60s", value_parser = parse_checkpoint,
          conflicts_with = "no_store")]
    pub checkpoint: Every,
    /// Under an MPI launcher: end every rank's run when the first rank's ends (a deadline
    /// shared by all ranks; see docs/scale.md).
    #[cfg(feature = "mpi")]
    #[arg(long)]
    pub stonewall: bool,
}

/// The soak the arguments ask for: its one rw mode, its duration and interval checked (a soak to
/// continue takes its own).
pub fn plan(a: SoakArgs) -> anyhow::Result<SoakPlan> {
    if a.resume.is_none() && a.w.target.is_empty() {
        anyhow::bail!("give a target (a directory, a device, a file or null:SIZE)");
    }
    if a.resume.is_none() && a.interval > a.duration {
        anyhow::bail!("--interval must be no longer than --duration");
    }
    Ok(SoakPlan {
        rw: match a.resume {
            Some(_) => bench::Rw::Read, // the resumed run's own replaces it
            None => workload::one_rw(a.rw, a.mix, "soak")?,
        },
        test: a.test,
        duration: a.duration,
        interval: a.interval,
        step_threshold: a.step as f64 / 100.0,
        resume: a.resume,
        checkpoint: a.checkpoint,
        #[cfg(feature = "mpi")]
        stonewall: a.stonewall,
        #[cfg(not(feature = "mpi"))]
        stonewall: false,
        w: a.w,
    })
}

impl Measure for SoakPlan {
    type Record = SoakRecord;
    const CMD: Cmd = Cmd::Soak;
    const RESUMABLE: bool = true;

    fn measure(mut self, s: &Session) -> anyhow::Result<Measured<SoakRecord>> {
        let a = &mut self;
        let prior = match &a.resume {
            Some(run) => Some(load_resumable(s, a, run)?),
            None => None,
        };
        if let Some((_, p)) = &prior {
            a.w.size = Some(p.workload.size);
            if a.w.target.is_empty() {
                a.w.target = p.header.target.path.clone();
            }
        }
        let device = s.device(&a.w.target);
        if let Some((id, p)) = &prior {
            let ran_on = &p.header.target.path;
            crate::resume::check_same_target(&p.header, ran_on, &a.w.target, &device, id.0)?;
        }
        let stop = s.stop();
        let rws = [prior.as_ref().map_or(Ok(a.rw), |(_, p)| resumed_rw(p))?];
        let mut opened = workload::open(&a.w, &rws, stop)?;
        let o = match &prior {
            Some((_, p)) => SoakOptions::of_record(p, opened.common)?,
            None => a.options(opened.common),
        };
        let left = o.duration.saturating_sub(Duration::from_nanos(
            prior.as_ref().map_or(0, |(_, p)| p.duration_ns),
        ));
        if let Some((id, p)) = &prior {
            say_resuming(*id, p, o.duration);
        }
        let over = prior.as_ref().map(|(id, _)| *id);
        let mut cuts = {
            let device = device.clone();
            let stamp = move |mut rec: SoakRecord, me| {
                rec.header.device = device.clone();
                rec.checkpoint = Some(me);
                rec.into()
            };
            s.checkpoints(a.checkpoint, &a.w.store, true, over, "soak", stamp)
        };
        let live = workload::watch(&a.w, "soak", Some(left), Done::Nothing, stop);
        opened.common.watch = live.as_ref().map(|l| l.watch);
        let o = SoakOptions {
            common: opened.common,
            ..o
        };
        let before = prior
            .as_ref()
            .map(|(_, p)| (p.temperature.clone(), p.duration_ns as f64 / 1e9));
        let poll = crate::temperature::watch(device.as_ref());
        let run = SoakRun {
            prior: prior.map(|(_, p)| p),
            checkpoints: cuts.take(),
        };
        let result = bench::soak_run(&opened.target, &o, run, stop);
        if let Some(l) = live {
            l.finish();
        }
        // The last checkpoint is written before the result replaces it.
        let written = cuts.finish();
        let mut rec = result?;
        rec.header.device = device;
        // A soak on a directory is a soak on that directory: its test file is gone when it ends.
        if let Some(tf) = opened.test_file() {
            rec.workload.test_file = Some(tf.display().to_string());
            rec.header.target.path = a.w.target.clone();
        }
        let (before, before_s) = before.unwrap_or((None, 0.0));
        rec.temperature = crate::temperature::series(poll, before, before_s);
        let rec = workload::annotated(rec, &a.w.store);
        let (json, store) = (self.w.json, self.w.store);
        let replace = written.run.or(over);
        Ok(Measured::with_findings(
            rec,
            text::print_soak,
            json,
            store,
            replace,
        ))
    }
}

/// Say where a resumed soak continues.
fn say_resuming(id: RunId, p: &SoakRecord, duration: Duration) {
    eprintln!(
        "drivescope: resuming soak run {} after {:.1} s of {:.1} s{}",
        id.0,
        p.duration_ns as f64 / 1e9,
        duration.as_secs_f64(),
        match &p.checkpoint {
            Some(_) => format!(" (its last checkpoint, {})", p.header.ended_at),
            None => String::new(),
        }
    );
}

/// The stored soak to continue, checked to have stopped before its duration.
fn load_resumable(s: &Session, a: &SoakPlan, run: &str) -> anyhow::Result<(RunId, SoakRecord)> {
    s.resumable(
        &a.w.store,
        run,
        Some(Kind::Soak),
        "a soak",
        |r: &SoakRecord| {
            r.resume.is_none().then(|| {
            if r.workload.interrupted {
                "stopped too close to its end (or was saved by an older version); nothing to resume".into()
            } else {
                "ran its whole duration; nothing to resume".into()
            }
        })
        },
    )
}

/// The resumed soak's rw mode.
fn resumed_rw(p: &SoakRecord) -> anyhow::Result<bench::Rw> {
    let common = bench::Common {
        engine: p.load.engine,
        reap: p.load.reap,
        data: p.workload.data,
        size: p.workload.size,
        seed: 0,
        watch: None,
    };
    Ok(SoakOptions::of_record(p, common)?.rw)
}
