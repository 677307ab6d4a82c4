//! `drivescope sweep` on every rank: each cell of the grid run by every rank at once, lined up
//! by the gate; rank 0 merges each cell over the ranks, prints and stores one `multi` record.

use super::drive::{drive, finish_workload, open_workload, Asked};
use crate::finish::Outcome;
use crate::plan::sweep::SweepPlan;
use drivescope_core::bench;

pub fn run(a: SweepPlan) -> anyhow::Result<Outcome> {
    drive(
        &a.w.target,
        a.stonewall,
        |target, rank, stop| {
            let opened = open_workload(&a.w, target, rank, &[a.rw], stop)?;
            Ok((a.options(opened.common), opened))
        },
        |(opts, opened), gate, stop, mine| {
            let mut rec = bench::sweep_gated(&opened.target, &opts, Some(gate), stop, &mut |_| {})?;
            rec.header.device = crate::identity::of(&mine.target);
            // One run per cell: each cell is a test of the multi record.
            mine.windows = gate.windows.iter().map(|w| vec![*w]).collect();
            mine.histograms = std::mem::take(&mut gate.histograms);
            mine.sweep = Some(rec);
            Ok(())
        },
        |members, g| {
            let asked = Asked {
                command: "sweep",
                template: &a.w.target,
                stonewall: a.stonewall,
                profile: members
                    .iter()
                    .find_map(|m| m.sweep.as_ref())
                    .map(|s| s.pattern.clone())
                    .unwrap_or_default(),
                runs: 1,
                duration_ns: a.duration.as_nanos() as u64,
            };
            finish_workload(asked, g, members, &a.w)
        },
    )
}
