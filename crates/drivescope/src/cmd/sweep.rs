//! `drivescope sweep`: the queue-depth × threads grid and the queueing gain.

use crate::finish::{and_findings, finish};
use crate::live::workload::Done;
use crate::opts::args::{parse_duration, parse_list, parse_pct, parse_test, Grid, RwArg};
use crate::opts::workload::{self, WorkloadArgs};
use clap::Args;
use drivescope_core::bench::{self, SweepOptions, TestSpec};
use drivescope_report::text;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub w: WorkloadArgs,
    /// Access pattern and block size: RND4K, SEQ1M, RND16K, …
    #[arg(long, default_value = "RND4K", value_parser = parse_test)]
    pub pattern: TestSpec,
    /// read, write or mix.
    #[arg(long, value_enum, default_value = "read")]
    pub rw: RwArg,
    /// Reads in percent for --rw mix.
    #[arg(long, value_parser = parse_pct, default_value = "70")]
    pub mix: u8,
    /// Queue depths per thread.
    #[arg(long, default_value = "1,2,4,8,16,32,64", value_parser = parse_list)]
    pub qd: Grid,
    /// Thread counts.
    #[arg(long, default_value = "1,2,4", value_parser = parse_list)]
    pub threads: Grid,
    /// Length of each cell's run.
    #[arg(long, default_value = "3s", value_parser = parse_duration)]
    pub duration: Duration,
    /// Under an MPI launcher: end every rank's cell when the first rank's ends (a deadline
    /// shared by all ranks; see docs/scale.md).
    #[cfg(feature = "mpi")]
    #[arg(long)]
    pub stonewall: bool,
}

/// The sweep's settings over an opened target.
pub fn options(a: &SweepArgs, rw: bench::Rw, common: bench::Common) -> SweepOptions {
    SweepOptions {
        common,
        access: a.pattern.access,
        block_size: a.pattern.block_size,
        rw,
        qds: a.qd.0.clone(),
        threads: a.threads.0.clone(),
        duration: a.duration,
    }
}

pub fn run(a: SweepArgs) -> anyhow::Result<ExitCode> {
    #[cfg(feature = "mpi")]
    if crate::mpi::launched() {
        return crate::mpi::sweep::run(a);
    }
    let rw = workload::one_rw(a.rw, a.mix, "sweep")?;
    let (qds, threads) = (a.qd.0.clone(), a.threads.0.clone());
    let stop = Arc::new(AtomicBool::new(false));
    crate::signals::stop_on_interrupt(&stop)?;
    let mut opened = workload::open(&a.w, &[rw], &stop)?;
    let device = crate::identity::of(&a.w.target);
    // A warm-up of at most a second, then every cell.
    let planned =
        a.duration.min(Duration::from_secs(1)) + a.duration * (qds.len() * threads.len()) as u32;
    let live = workload::watch(
        &a.w,
        "sweep",
        Some(planned),
        Done::Grid {
            qds: qds.clone(),
            threads: threads.clone(),
            cells: Vec::new(),
        },
        &stop,
    );
    opened.common.watch = live.as_ref().map(|l| l.watch);
    let quiet = a.w.quiet;
    let direct = opened.target.direct;
    let result = bench::sweep(
        &opened.target,
        &options(&a, rw, opened.common),
        &stop,
        &mut |c| match &live {
            Some(l) => {
                if let Done::Grid { cells, .. } = &mut *l.finished.lock().expect("finished") {
                    cells.push(c.clone());
                }
            }
            None if !quiet => eprintln!("{}", text::sweep_line(c, direct)),
            None => {}
        },
    );
    if let Some(l) = live {
        l.finish();
    }
    let mut rec = result?;
    rec.header.device = device;
    let rec = workload::annotated(rec, &a.w.store);
    finish(
        rec,
        &and_findings(text::print_sweep),
        a.w.finish(None, None),
    )
}
