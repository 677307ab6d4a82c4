//! `drivescope bench`: CrystalDiskMark's profiles and custom tests.

use crate::finish::Cmd;
use crate::live::workload::Done;
use crate::opts::args::{
    parse_duration, parse_pct, parse_positive_duration, parse_profile, parse_test, RwArg,
};
use crate::opts::workload::{self, WorkloadArgs};
use crate::plan::bench::BenchPlan;
use crate::runner::{Measure, Measured, Session};
use clap::Args;
use drivescope_core::bench::{self, profile, TestSpec};
use drivescope_report::text;
use std::time::Duration;

#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub w: WorkloadArgs,
    /// default (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1), nvme, peak or realworld.
    #[arg(long, default_value = "default", value_parser = parse_profile)]
    pub profile: String,
    /// A custom test such as 'RND16K Q4T2' (repeatable; replaces the profile's tests).
    #[arg(long = "test", value_name = "TEST", value_parser = parse_test)]
    pub tests: Vec<TestSpec>,
    /// read, write, both, or mix [default: both; read on an existing file, which drivescope
    /// never writes].
    #[arg(long, value_enum)]
    pub rw: Option<RwArg>,
    /// Add a mixed read/write variant of each test with PCT % reads (default 70 with --rw mix).
    #[arg(long, value_parser = parse_pct, value_name = "PCT")]
    pub mix: Option<u8>,
    /// Measured runs per test (a discarded preparing run comes first).
    #[arg(long, default_value_t = 5, value_parser = crate::opts::args::parse_count)]
    pub runs: u32,
    /// Length of each run.
    #[arg(long, default_value = "5s", value_parser = parse_positive_duration)]
    pub duration: Duration,
    /// Pause between tests.
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    pub pause: Duration,
    /// Under an MPI launcher: end every rank's run when the first rank's ends (a deadline
    /// shared by all ranks; see docs/scale.md).
    #[cfg(feature = "mpi")]
    #[arg(long)]
    pub stonewall: bool,
}

/// The bench the arguments ask for: its tests and rw modes (an existing file gets read tests only).
pub fn plan(a: BenchArgs) -> anyhow::Result<BenchPlan> {
    let tests: Vec<TestSpec> = if a.tests.is_empty() {
        profile(&a.profile)?
    } else {
        a.tests.clone()
    };
    let rw = match a.rw {
        Some(rw) => rw,
        None if workload::is_existing_file(&a.w.target) => {
            crate::note!(
                "{} is an existing file: read tests only (drivescope writes only to test files \
                 it creates; give a directory for write tests)",
                a.w.target
            );
            RwArg::Read
        }
        None => RwArg::Both,
    };
    Ok(BenchPlan {
        rws: workload::rw_modes(rw, a.mix),
        profile: if a.tests.is_empty() {
            a.profile
        } else {
            "custom".into()
        },
        tests,
        runs: a.runs,
        duration: a.duration,
        pause: a.pause,
        #[cfg(feature = "mpi")]
        stonewall: a.stonewall,
        #[cfg(not(feature = "mpi"))]
        stonewall: false,
        w: a.w,
    })
}

impl Measure for BenchPlan {
    type Record = drivescope_record::BenchRecord;
    const CMD: Cmd = Cmd::Bench;

    fn measure(self, s: &Session) -> anyhow::Result<Measured<Self::Record>> {
        let lines = Done::Lines {
            title: "finished tests".into(),
            lines: Vec::new(),
        };
        let (p, planned) = (&self, self.planned());
        let rec = workload::measured(
            &p.w,
            &p.rws,
            "bench",
            planned,
            lines,
            s.stop(),
            |t, c, stop, live| {
                bench::bench(t, &p.options(c), stop, &mut |r| match live {
                    Some(l) => l.line(text::bench_line(r, t.direct)),
                    None => crate::say!("{}", text::bench_line(r, t.direct)),
                })
            },
        )?;
        let (json, store) = (self.w.json, self.w.store);
        Ok(Measured::with_findings(
            rec,
            text::print_bench,
            json,
            store,
            None,
        ))
    }
}
