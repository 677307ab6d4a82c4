//! `drivescope bench` on every rank: each runs the bench on its own target through the gate;
//! rank 0 merges, prints and stores one `multi` record.

use super::drive::{drive, finish_workload, open_workload, Asked};
use crate::finish::Outcome;
use crate::plan::bench::BenchPlan;
use drivescope_core::bench;

pub fn run(a: BenchPlan) -> anyhow::Result<Outcome> {
    drive(
        &a.w.target,
        a.stonewall,
        |target, rank, stop| {
            let opened = open_workload(&a.w, target, rank, &a.rws, stop)?;
            Ok((a.options(opened.common), opened))
        },
        |(opts, opened), gate, stop, mine| {
            let mut rec = bench::bench_gated(&opened.target, &opts, gate, stop, &mut |_| {})?;
            rec.header.device = crate::identity::of(&mine.target);
            let mut at = 0;
            for t in &rec.tests {
                let n = t.runs.len();
                mine.windows.push(gate.windows[at..at + n].to_vec());
                at += n;
            }
            mine.bench = Some(rec);
            Ok(())
        },
        |members, g| {
            let asked = Asked {
                command: "bench",
                template: &a.w.target,
                stonewall: a.stonewall,
                profile: members
                    .iter()
                    .find_map(|m| m.bench.as_ref())
                    .map(|b| b.profile.clone())
                    .unwrap_or_default(),
                runs: a.runs,
                duration_ns: a.duration.as_nanos() as u64,
            };
            finish_workload(asked, g, members, &a.w)
        },
    )
}
