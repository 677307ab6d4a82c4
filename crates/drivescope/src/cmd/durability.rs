//! `drivescope durability`: what a commit costs, and whether flushes reach the media. The
//! measuring is `drivescope_core::durability::run`, the verdict `drivescope_analysis::durability`.

use crate::finish::{Cmd, Outcome, Refused};
use crate::opts::destructive::{self, DestructiveOpts};
use crate::opts::store::StoreOpts;
use crate::runner::{Measure, Measured, Session};
use clap::Args;
use drivescope_core::durability::run::{self as durable, DurabilityPlan, Place};
use drivescope_record::durability::{CacheWord, DurabilityRecord};
use drivescope_record::{Header, Kind, TargetInfo, TargetType};
use std::path::Path;
use std::time::Duration;

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    drivescope durability /var/lib/postgresql\n  \
    drivescope durability /dev/sdX --destructive --confirm SERIAL --budget 30s\n\n\
    In a directory it writes test files it makes and removes; on a block device (only with \
    --destructive and --confirm) it overwrites the start of the device. A device whose flushes \
    return before the data can have reached the media exits with code 5.")]
pub struct DurabilityArgs {
    /// A directory (test files are made and removed there) or a block device.
    #[arg(value_name = "TARGET", required_unless_present = "listen")]
    pub target: Option<String>,
    #[command(flatten)]
    pub power: super::durability_power_cut::PowerCutArgs,
    #[command(flatten)]
    pub gate: DestructiveOpts,
    /// Time the run may take: about a third for the commit costs, the rest for the flush
    /// experiment (a sustained write, then timed write-and-flush pairs).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = crate::opts::args::parse_positive_duration)]
    pub budget: Duration,
    /// The commits per second your workload needs at one committer (a database committing one
    /// transaction at a time): a run whose 4 KiB write+fdatasync commits into written blocks are
    /// slower says so (finding `commit_rate`).
    #[arg(long, value_name = "N", value_parser = parse_rate)]
    pub need_commits: Option<f64>,
    /// Print the run's JSON document on stdout instead of the text; stderr then carries only
    /// warnings and errors.
    #[arg(long)]
    pub json: bool,
    /// Only warnings and errors on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub store: StoreOpts,
}

/// A positive number of commits per second.
fn parse_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "{s:?} is not a positive number of commits per second"
        )),
    }
}

/// Where the run writes: a writable directory, or a block device through the write gate.
fn place(a: &DurabilityArgs) -> anyhow::Result<(Place, TargetInfo)> {
    let spec = a.target.as_deref().unwrap_or_default();
    let meta = std::fs::metadata(spec).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow::anyhow!("{spec}: no such directory or device"),
        _ => anyhow::anyhow!("{spec}: {e}"),
    })?;
    if meta.is_dir() {
        if !drivescope_core::durability::writable_dir(Path::new(spec)) {
            return Err(Refused(format!(
                "{spec}: read-only; durability writes its test files there"
            ))
            .into());
        }
        let info = TargetInfo {
            path: spec.to_string(),
            kind: TargetType::File,
            size: 0,
            logical_block_size: 512,
        };
        return Ok((Place::Dir(spec.into()), info));
    }
    if !std::os::unix::fs::FileTypeExt::is_block_device(&meta.file_type()) {
        return Err(Refused(format!(
            "{spec}: durability writes to a directory (test files it makes) or a block device, \
             never to an existing file"
        ))
        .into());
    }
    let target = destructive::open(spec, &a.gate, &a.store.protected())?;
    let info = target.info();
    Ok((
        Place::Device {
            path: spec.into(),
            size: target.size,
        },
        info,
    ))
}

pub fn run(a: DurabilityArgs) -> anyhow::Result<Outcome> {
    if a.power.asked() {
        return super::durability_power_cut::run(a);
    }
    crate::runner::main(a)
}

impl Measure for DurabilityArgs {
    type Record = DurabilityRecord;
    const CMD: Cmd = Cmd::Durability;

    fn measure(self, s: &Session) -> anyhow::Result<Measured<DurabilityRecord>> {
        let a = self;
        let (place, info) = place(&a)?;
        let mut header = Header::now(Kind::Durability, info);
        header.device = s.device(a.target.as_deref().unwrap_or_default());
        let cache = CacheWord::of(header.device.as_ref());
        let budget_ns = a.budget.as_nanos() as u64;
        let mut plan = DurabilityPlan::new(place, budget_ns);
        plan.watch = drivescope_core::durability::device_flushes::watched(header.device.as_ref());
        let measured = durable::run(&plan, s.stop(), &mut |line| crate::note!("{line}"))?;
        header.end_now();
        let mut rec = measured.into_record(header, cache, budget_ns);
        rec.need_commits_per_s = a.need_commits;
        drivescope_analysis::durability::assess(&mut rec);
        let text = drivescope_report::text::print_durability;
        Ok(Measured::with_findings(rec, text, a.json, a.store, None))
    }
}
