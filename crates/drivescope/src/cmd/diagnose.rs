//! `drivescope diagnose`: bounded experiments that explain a device's numbers, printed as findings.

use super::args::parse_duration;
use super::workload::{self, WorkloadArgs};
use crate::live::workload::Done;
use clap::Args;
use drivescope_core::bench::Rw;
use drivescope_core::scan::hostname;
use drivescope_diagnose::{diagnose, DiagnoseOptions};
use drivescope_record::{Header, Kind};
use drivescope_report::text::print_diagnose;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

#[derive(Args)]
pub struct DiagnoseArgs {
    #[command(flatten)]
    pub w: WorkloadArgs,
    /// Time the whole diagnosis may take (a small device finishes sooner). An experiment the budget cuts short
    /// says so instead of guessing.
    #[arg(long, default_value = "3m", value_parser = parse_duration)]
    pub budget: Duration,
}

pub fn run(a: DiagnoseArgs) -> anyhow::Result<ExitCode> {
    if a.budget.is_zero() {
        anyhow::bail!("--budget must be above 0");
    }
    let stop = Arc::new(AtomicBool::new(false));
    crate::signals::stop_on_interrupt(&stop)?;
    let is_dir = !a.w.target.starts_with("null:") && Path::new(&a.w.target).is_dir();
    let block = std::fs::metadata(&a.w.target).is_ok_and(|m| m.file_type().is_block_device());
    let writes = is_dir || (block && a.w.destructive.destructive);
    let no_writes_why = if block {
        "read-only: write experiments on a device need --destructive and --confirm".to_string()
    } else {
        "an existing file is only read; give a directory for write experiments".to_string()
    };
    let rws: &[Rw] = if writes {
        &[Rw::Read, Rw::Write]
    } else {
        &[Rw::Read]
    };
    let mut opened = workload::open_or(
        &a.w,
        rws,
        &stop,
        "leave out --destructive for a read-only diagnosis",
    )?;
    let live = workload::watch(
        &a.w,
        "diagnose",
        Some(a.budget),
        Done::Lines {
            title: "experiments (the last one runs now)".into(),
            lines: Vec::new(),
        },
        &stop,
    );
    opened.common.watch = live.as_ref().map(|l| l.watch);
    let target = &opened.target;
    let device = crate::identity::of(&a.w.target);
    let mut header = Header::new(
        Kind::Diagnose,
        target.info(),
        hostname(),
        humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
    );
    header.device = device;
    let o = DiagnoseOptions {
        engine: opened.common.engine,
        data: opened.common.data,
        size: opened.common.size,
        budget: a.budget,
        writes,
        no_writes_why,
        whole_device: block && opened.common.size >= target.size,
        block_device: block,
        watch: opened.common.watch,
    };
    let quiet = a.w.quiet;
    let mut say = |e: drivescope_record::Experiment, what: &str| match &live {
        Some(l) => {
            l.watch.step(format!("experiment: {}", e.label()));
            l.line(format!("{}: {what}", e.label()));
        }
        None if !quiet => eprintln!("drivescope: {}: {what}", e.label()),
        None => {}
    };
    let mut rec = diagnose(target, header, &o, &stop, &mut say);
    if let Some(l) = live {
        l.finish();
    }
    rec.header.ended_at = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    if a.w.json {
        print_diagnose(&rec, &mut std::io::stderr())?;
        super::print_json(&rec)?;
    } else {
        print_diagnose(&rec, &mut std::io::stdout())?;
    }
    // Saved after the results are out, so a store problem never costs a measurement.
    a.w.store.save(&rec.clone().into());
    Ok(if rec.device_error.is_some() {
        ExitCode::from(super::EXIT_DEVICE_LOST)
    } else if stop.load(Ordering::Relaxed) {
        ExitCode::from(super::EXIT_INTERRUPTED)
    } else {
        ExitCode::SUCCESS
    })
}
