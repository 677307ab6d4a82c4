//! `drivescope soak` on every rank: one sustained run on each rank's target at once, started
//! together by the gate; rank 0 merges, prints and stores one `multi` record.

use super::drive::{drive, finish_workload, open_workload, Asked};
use crate::finish::Outcome;
use crate::plan::soak::SoakPlan;
use drivescope_core::bench;

pub fn run(a: SoakPlan) -> anyhow::Result<Outcome> {
    if a.resume.is_some() {
        anyhow::bail!("under an MPI launcher a soak starts anew: --resume runs in one process");
    }
    drive(
        &a.w.target,
        a.stonewall,
        |target, rank, stop| {
            let opened = open_workload(&a.w, target, rank, &[a.rw], stop)?;
            Ok((a.options(opened.common), opened))
        },
        |(opts, opened), gate, stop, mine| {
            // None: another rank stopped or failed before the run began.
            if let Some(mut rec) = bench::soak_gated(&opened.target, &opts, Some(gate), stop)? {
                rec.header.device = crate::identity::of(&mine.target);
                mine.windows = vec![gate.windows.clone()];
                mine.histograms = std::mem::take(&mut gate.histograms);
                mine.soak = Some(rec);
            }
            Ok(())
        },
        |members, g| {
            let asked = Asked {
                command: "soak",
                template: &a.w.target,
                stonewall: a.stonewall,
                profile: a.test.name(),
                runs: 1,
                duration_ns: a.duration.as_nanos() as u64,
            };
            finish_workload(asked, g, members, &a.w)
        },
    )
}
