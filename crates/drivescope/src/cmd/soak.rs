//! `drivescope soak`: one test sustained over time, with its steps.

use super::args::{parse_duration, parse_pct, parse_test, RwArg};
use super::workload::{self, WorkloadArgs};
use crate::live::workload::Done;
use clap::Args;
use drivescope_core::bench::{self, SoakOptions, TestSpec};
use drivescope_report::text;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
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
    #[arg(long, default_value = "10m", value_parser = parse_duration)]
    pub duration: Duration,
    /// Interval of the time series.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub interval: Duration,
    /// Relative change of the rate that counts as a step, in percent.
    #[arg(long, default_value = "20", value_parser = parse_pct)]
    pub step: u8,
    /// Under an MPI launcher: end every rank's run when the first rank's ends (a deadline
    /// shared by all ranks; see docs/scale.md).
    #[cfg(feature = "mpi")]
    #[arg(long)]
    pub stonewall: bool,
}

/// The soak's one rw mode, its duration and interval checked.
pub fn plan(a: &SoakArgs) -> anyhow::Result<bench::Rw> {
    if a.duration.is_zero() || a.interval.is_zero() || a.interval > a.duration {
        anyhow::bail!(
            "--duration and --interval must be above 0, the interval no longer than the duration"
        );
    }
    workload::one_rw(a.rw, a.mix, "soak")
}

/// The soak's settings over an opened target.
pub fn options(a: &SoakArgs, rw: bench::Rw, common: bench::Common) -> SoakOptions {
    SoakOptions {
        common,
        test: a.test,
        rw,
        duration: a.duration,
        interval: a.interval,
        step_threshold: a.step as f64 / 100.0,
    }
}

pub fn run(a: SoakArgs) -> anyhow::Result<ExitCode> {
    #[cfg(feature = "mpi")]
    if crate::mpi::launched() {
        return crate::mpi::soak::run(a);
    }
    let rw = plan(&a)?;
    let stop = Arc::new(AtomicBool::new(false));
    crate::signals::stop_on_interrupt(&stop)?;
    let mut opened = workload::open(&a.w, &[rw], &stop)?;
    let device = crate::identity::of(&a.w.target);
    let live = workload::watch(&a.w, "soak", Some(a.duration), Done::Nothing, &stop);
    opened.common.watch = live.as_ref().map(|l| l.watch);
    let result = bench::soak(&opened.target, &options(&a, rw, opened.common), &stop);
    if let Some(l) = live {
        l.finish();
    }
    let mut rec = result?;
    rec.header.device = device;
    workload::output(&rec, &a.w, stop.load(Ordering::Relaxed), text::print_soak)
}
