//! `drivescope sweep` on every rank: each cell of the grid run by every rank at once, lined up
//! by the gate; rank 0 merges each cell over the ranks, prints and stores one `multi` record.

use super::drive::{drive, record, Asked};
use crate::cmd::sweep::{options, SweepArgs};
use crate::cmd::workload;
use drivescope_core::bench;
use std::process::ExitCode;

pub fn run(a: SweepArgs) -> anyhow::Result<ExitCode> {
    let mut w = a.w.clone();
    w.quiet = true;
    w.no_live = true;
    drive(
        &a.w.target,
        a.stonewall,
        |target, rank, stop| {
            let rw = workload::one_rw(a.rw, a.mix, "sweep")?;
            let mut w = w.clone();
            w.target = target.to_string();
            let mut opened = workload::open(&w, &[rw], stop)?;
            opened.common.seed ^= u64::from(rank) << 32;
            Ok((options(&a, rw, opened.common), opened))
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
            let rec = record(asked, g, members);
            workload::output(&rec, &a.w, false, crate::cmd::text_multi)?;
            Ok(())
        },
    )
}
