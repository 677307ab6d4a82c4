//! `drivescope sweep`: the queue-depth × threads grid and the queueing gain.

use crate::finish::Cmd;
use crate::live::workload::Done;
use crate::opts::args::{parse_list, parse_pct, parse_positive_duration, parse_test, Grid, RwArg};
use crate::opts::workload::{self, WorkloadArgs};
use crate::plan::sweep::SweepPlan;
use crate::runner::{Measure, Measured, Session};
use clap::Args;
use drivescope_core::bench::{self, TestSpec};
use drivescope_report::text;
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
    #[arg(long, default_value = "3s", value_parser = parse_positive_duration)]
    pub duration: Duration,
    /// Under an MPI launcher: end every rank's cell when the first rank's ends (a deadline
    /// shared by all ranks; see docs/scale.md).
    #[cfg(feature = "mpi")]
    #[arg(long)]
    pub stonewall: bool,
}

/// The sweep the arguments ask for.
pub fn plan(a: SweepArgs) -> anyhow::Result<SweepPlan> {
    Ok(SweepPlan {
        rw: workload::one_rw(a.rw, a.mix, "sweep")?,
        pattern: a.pattern,
        qds: a.qd.0,
        threads: a.threads.0,
        duration: a.duration,
        #[cfg(feature = "mpi")]
        stonewall: a.stonewall,
        #[cfg(not(feature = "mpi"))]
        stonewall: false,
        w: a.w,
    })
}

impl Measure for SweepPlan {
    type Record = drivescope_record::SweepRecord;
    const CMD: Cmd = Cmd::Sweep;

    fn measure(self, s: &Session) -> anyhow::Result<Measured<Self::Record>> {
        let grid = Done::Grid {
            qds: self.qds.clone(),
            threads: self.threads.clone(),
            cells: Vec::new(),
        };
        let p = &self;
        let rec = workload::measured(
            &p.w,
            &[p.rw],
            "sweep",
            p.planned(),
            grid,
            s.stop(),
            |t, c, stop, live| {
                bench::sweep(t, &p.options(c), stop, &mut |cell| match live {
                    Some(l) => {
                        if let Done::Grid { cells, .. } = &mut *l.finished.lock().expect("finished")
                        {
                            cells.push(cell.clone());
                        }
                    }
                    None => crate::say!("{}", text::sweep_line(cell, t.direct)),
                })
            },
        )?;
        let (json, store) = (self.w.json, self.w.store);
        Ok(Measured::with_findings(
            rec,
            text::print_sweep,
            json,
            store,
            None,
        ))
    }
}
