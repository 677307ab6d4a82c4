//! The collective calls around each measured run. Every rank makes the same calls in the same
//! order whatever happens to it: before each run one all-reduce of a state flag (go on, stop,
//! failed), then the barrier; a rank that leaves the bench early (done, interrupted, failed)
//! makes one last all-reduce with its flag, which meets the others' next one, so a failure
//! or Ctrl-C ends every rank at the same point and none waits forever.

use super::now_ns;
use drivescope_core::bench::{RunGate, RunResult};
use drivescope_record::RunWindow;
use drivescope_stats::HistogramOut;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// A rank's state as the all-reduce carries it (the highest wins): it goes on; it finished
/// its bench; it was interrupted; it failed.
pub const GO: i64 = 0;
pub const DONE: i64 = 1;
pub const STOPPED: i64 = 2;
pub const FAILED: i64 = 3;

pub struct MpiGate<'a> {
    world: &'a SimpleCommunicator,
    stonewall: bool,
    /// The state every rank agreed on, once it is not [`GO`]: no collective of the gate follows.
    pub closed: Option<i64>,
    start_ns: u64,
    /// The measured runs in order, on the common clock.
    pub windows: Vec<RunWindow>,
    /// Each measured run's latency histogram, in order.
    pub histograms: Vec<HistogramOut>,
}

impl<'a> MpiGate<'a> {
    pub fn new(world: &'a SimpleCommunicator, stonewall: bool) -> Self {
        MpiGate {
            world,
            stonewall,
            closed: None,
            start_ns: 0,
            windows: Vec::new(),
            histograms: Vec::new(),
        }
    }

    /// One all-reduce of the ranks' states; closes the gate unless all go on.
    pub fn agree(&mut self, mine: i64) -> i64 {
        let mut all = GO;
        self.world
            .all_reduce_into(&mine, &mut all, SystemOperation::max());
        if all != GO {
            self.closed = Some(all);
        }
        all
    }

    /// A measured run that began at the last [`RunGate::before_run`] ended now, with `bytes`
    /// and `commands` (those without error).
    pub fn ended(&mut self, bytes: u64, commands: u64) {
        self.windows.push(RunWindow {
            start_ns: self.start_ns,
            end_ns: now_ns(),
            bytes,
            commands,
        });
    }

    /// The rank leaves the bench with `mine` (at least [`DONE`]): meets the others' next
    /// all-reduce, unless the gate was closed already. Returns the state every rank agreed on.
    pub fn leave(&mut self, mine: i64) -> i64 {
        match self.closed {
            Some(s) => s.max(mine),
            None => self.agree(mine.max(DONE)),
        }
    }
}

impl RunGate for MpiGate<'_> {
    fn before_run(&mut self, duration_ns: u64, stop: &AtomicBool) -> Option<u64> {
        let mine = if stop.load(Ordering::Relaxed) {
            STOPPED
        } else {
            GO
        };
        if self.agree(mine) != GO {
            // Another rank stopped or failed: this one stops too.
            stop.store(true, Ordering::Relaxed);
            return None;
        }
        self.world.barrier();
        self.start_ns = now_ns();
        if !self.stonewall {
            return Some(duration_ns);
        }
        // Stonewall: every rank ends at the earliest rank's end, start + duration.
        let mut deadline = 0u64;
        self.world.all_reduce_into(
            &(self.start_ns + duration_ns),
            &mut deadline,
            SystemOperation::min(),
        );
        Some(deadline.saturating_sub(now_ns()).max(1_000_000))
    }

    fn after_run(&mut self, r: &RunResult) {
        self.ended(r.bytes, r.commands - r.errors);
        self.histograms.push(r.hist.to_out());
    }
}
