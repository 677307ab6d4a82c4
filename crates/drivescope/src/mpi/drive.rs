//! What every rank does, whatever the command: open its own target (`{rank}` and `{host}`
//! filled in), agree with the others that all could, measure through the gate, and send its
//! result (or its error) to rank 0, which gets every rank's in rank order.

use super::gate::{MpiGate, DONE, FAILED, GO, STOPPED};
use crate::finish::Outcome;
use crate::opts::workload::{self, Opened, WorkloadArgs};
use drivescope_core::bench::Rw;
use drivescope_core::rank_target::expand;
use drivescope_record::hostname;
use drivescope_record::{MultiRecord, RankResult};
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The ranks' results, once every rank has sent its own.
pub struct Gathered {
    /// The state every rank agreed on when it left (see the gate's states).
    pub state: i64,
    /// Number of ranks.
    pub size: u32,
}

impl Gathered {
    /// Every rank ends the same way: failed when any rank failed, interrupted when any was.
    pub fn outcome(&self) -> Outcome {
        match self.state {
            FAILED => Outcome::Failed,
            STOPPED => Outcome::Interrupted,
            _ => Outcome::Success,
        }
    }

    pub fn interrupted(&self) -> bool {
        self.state == STOPPED || self.state == FAILED
    }
}

/// Run one command on every rank. `open` opens the rank's target (its path expanded, its rank,
/// the flag SIGINT sets); `measure` runs the command through the gate and puts the rank's record
/// in the result; `finish`, on rank 0 only, gets every rank's result to print and store. A rank
/// that cannot open its target, or fails while measuring, is recorded with its error and the
/// others stop at their next run. No rank exits before rank 0 has finished (a launcher ends the
/// whole job when one process exits with an error).
pub fn drive<O>(
    template: &str,
    stonewall: bool,
    open: impl FnOnce(&str, u32, &AtomicBool) -> anyhow::Result<O>,
    measure: impl FnOnce(O, &mut MpiGate, &AtomicBool, &mut RankResult) -> anyhow::Result<()>,
    finish: impl FnOnce(Vec<RankResult>, &Gathered) -> anyhow::Result<()>,
) -> anyhow::Result<Outcome> {
    let universe =
        mpi::initialize().ok_or_else(|| anyhow::anyhow!("MPI is initialized already"))?;
    let world = universe.world();
    let rank = world.rank() as u32;
    let size = world.size() as u32;
    let host = hostname();
    let target = expand(template, rank, &host);
    let stop = Arc::new(AtomicBool::new(false));
    crate::signals::stop_on_interrupt(&stop)?;
    let mut gate = MpiGate::new(&world, stonewall);
    let mut mine = RankResult::new(rank, host, target.clone());
    let opened = open(&target, rank, &stop);
    // Everyone learns whether every rank could open its target before any measures.
    let all_opened = gate.agree(if opened.is_ok() { GO } else { FAILED }) == GO;
    match opened {
        Err(e) => mine.error = Some(format!("{e:#}")),
        Ok(o) if all_opened => {
            let left = match measure(o, &mut gate, &stop, &mut mine) {
                Ok(()) if stop.load(Ordering::Relaxed) => STOPPED,
                Ok(()) => DONE,
                Err(e) => {
                    mine.error = Some(format!("{e:#}"));
                    FAILED
                }
            };
            gate.leave(left);
        }
        Ok(_) => {}
    }
    let g = Gathered {
        state: gate.closed.unwrap_or(GO),
        size,
    };
    let finished = match gather(&world, &mine) {
        Ok(Some(members)) => finish(members, &g),
        Ok(None) => Ok(()),
        Err(e) => Err(e),
    };
    world.barrier();
    finished.map(|()| g.outcome())
}

/// The most bytes one gather brings to rank 0 (MPI counts and displacements are 32-bit ints).
const GATHER_LIMIT: i64 = i32::MAX as i64;

/// The bytes of every rank's result together.
fn total_len(world: &SimpleCommunicator, bytes: &[u8]) -> i64 {
    let mut total = 0i64;
    world.all_reduce_into(&(bytes.len() as i64), &mut total, SystemOperation::sum());
    total
}

/// Each rank's result goes to rank 0 as JSON: first the lengths, then the bytes. When all of
/// them together would pass [`GATHER_LIMIT`] (a long scan's or soak's time series on many
/// ranks), every rank leaves its time series out (said on rank 0); when they still would, the
/// run ends with that said.
fn gather(
    world: &SimpleCommunicator,
    mine: &RankResult,
) -> anyhow::Result<Option<Vec<RankResult>>> {
    let mut bytes = serde_json::to_vec(mine)?;
    if total_len(world, &bytes) > GATHER_LIMIT {
        let mut slim = mine.clone();
        if let Some(s) = slim.scan.as_mut() {
            s.series.clear();
        }
        if let Some(s) = slim.soak.as_mut() {
            s.series.clear();
        }
        bytes = serde_json::to_vec(&slim)?;
        let total = total_len(world, &bytes);
        if world.rank() == 0 {
            eprintln!(
                "drivescope: the ranks' results pass 2 GiB together; each rank's time series is \
                 left out (a longer --interval keeps it)"
            );
        }
        if total > GATHER_LIMIT {
            anyhow::bail!(
                "the ranks' results are {} MB together, more than one gather carries (2 GiB)",
                total / 1_000_000
            );
        }
    }
    let root = world.process_at_rank(0);
    let len = bytes.len() as i32;
    if world.rank() != 0 {
        root.gather_into(&len);
        root.gather_varcount_into(&bytes[..]);
        return Ok(None);
    }
    let mut lens = vec![0i32; world.size() as usize];
    root.gather_into_root(&len, &mut lens[..]);
    let displs: Vec<i32> = lens
        .iter()
        .scan(0, |at, &n| {
            let d = *at;
            *at += n;
            Some(d)
        })
        .collect();
    let mut all = vec![0u8; lens.iter().map(|&n| n as usize).sum()];
    {
        let mut part = PartitionMut::new(&mut all[..], &lens[..], &displs[..]);
        root.gather_varcount_into_root(&bytes[..], &mut part);
    }
    let mut members = Vec::with_capacity(lens.len());
    for (&d, &n) in displs.iter().zip(&lens) {
        members.push(serde_json::from_slice::<RankResult>(
            &all[d as usize..(d + n) as usize],
        )?);
    }
    Ok(Some(members))
}

/// A workload command's target on one rank: the rank's own path, quiet (rank 0 prints the merged
/// record), and a seed of its own, so ranks on one shared target do not all hit the same offsets.
pub fn open_workload(
    w: &WorkloadArgs,
    target: &str,
    rank: u32,
    rws: &[Rw],
    stop: &AtomicBool,
) -> anyhow::Result<Opened> {
    let mut w = w.clone();
    w.target = target.to_string();
    w.quiet = true;
    w.no_live = true;
    let mut opened = workload::open(&w, rws, stop)?;
    opened.common.seed ^= u64::from(rank) << 32;
    Ok(opened)
}

/// Rank 0's end of a workload command: the merged record printed and stored as the command's
/// `--json` and `--store` say.
pub fn finish_workload(
    asked: Asked,
    g: &Gathered,
    members: Vec<RankResult>,
    w: &WorkloadArgs,
) -> anyhow::Result<()> {
    let rec = record(asked, g, members);
    let rec = workload::annotated(rec, &w.store);
    crate::finish::finish(rec, &super::text_multi, w.finish(None, None))?;
    Ok(())
}

pub use drivescope_analysis::multi::Asked;

/// The one record rank 0 prints and stores (see [`drivescope_analysis::multi::record`]); its failed
/// ranks are named on stderr.
pub fn record(asked: Asked, g: &Gathered, members: Vec<RankResult>) -> MultiRecord {
    for m in &members {
        if let Some(e) = &m.error {
            eprintln!(
                "drivescope: rank {} on {} ({}) failed: {e}",
                m.rank, m.host, m.target
            );
        }
    }
    drivescope_analysis::multi::record(asked, g.size, g.interrupted(), members)
}
