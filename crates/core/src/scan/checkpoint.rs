//! Checkpoints: a running full scan hands a snapshot of itself to a callback at a bounded
//! interval. A snapshot is the document the scan would save if it were stopped at that moment
//! (interrupted, with its resume state), so a scan that is killed (SIGKILL, a crash, a power
//! cut) continues from its last snapshot with `scan --resume`, and the continuation counts
//! every command once.
//!
//! A snapshot is taken at a settled moment: the scan issues no new command until every command
//! in flight has completed and every sector re-read it owes is done, so the snapshot's totals,
//! lists and curve hold exactly the commands before its resume point. That costs one queue's
//! worth of idle device time per snapshot; building the document costs a copy of the
//! accumulators on the scan's thread. Writing it is the callback's business (off the scan's
//! thread: it must not block).

use super::lost::Ask;
use super::record::{CheckpointCost, ScanRecord};
use super::sequential::SequentialScan;
use crate::engine::{Completion, Job, Next, Now};

/// Where a running scan's snapshots go, and how often.
pub type Checkpoints = crate::checkpoint::Checkpoints<ScanRecord>;

pub use crate::checkpoint::{background_thread, still_running, this_process, thread_cpu_ns};

/// The sequential scan, with `snapshot` called every `every_ns` at a settled moment.
pub(super) struct Checkpointed<'c, F, C> {
    pub scan: SequentialScan,
    every_ns: u64,
    due_ns: u64,
    clock: &'c C,
    snapshot: F,
    count: u64,
    held_ns: u64,
    /// Since when a new main command has waited for the snapshot to be taken.
    held_since: Option<u64>,
}

impl<'c, F: FnMut(&SequentialScan, u64), C: Now> Checkpointed<'c, F, C> {
    pub fn new(scan: SequentialScan, every_ns: u64, clock: &'c C, snapshot: F) -> Self {
        let every_ns = every_ns.max(1);
        Checkpointed {
            scan,
            every_ns,
            due_ns: every_ns,
            clock,
            snapshot,
            count: 0,
            held_ns: 0,
            held_since: None,
        }
    }

    /// What the snapshots cost the scan so far (the writer's CPU is the caller's to add).
    pub fn cost(&self) -> CheckpointCost {
        CheckpointCost {
            every_ns: self.every_ns,
            count: self.count,
            held_ns: self.held_ns,
            writer_cpu_ns: 0,
        }
    }

    /// A snapshot is due: what to issue while the scan settles, or `None` to go on as usual
    /// (the snapshot was taken, or none will be).
    #[cold]
    fn settle(&mut self, now_ns: u64, in_flight: usize) -> Option<Next> {
        let scan = &mut self.scan;
        let end = scan.params.start + scan.params.length;
        if scan.acc.lost.is_some()
            || scan.next_offset() >= end
            || scan.passes.pass != drivescope_record::Pass::First
        {
            // The device is gone, or only the last commands of the first pass are left, or the
            // passes over failed areas have begun (bounded by their budget; their state is
            // saved when the run stops): the run saves its own document.
            self.due_ns = u64::MAX;
            return None;
        }
        if in_flight == 0 && scan.acc.retries.is_idle() && !scan.passes.awaiting() {
            let since = self.held_since.take().unwrap_or(now_ns);
            if scan.next_offset() > scan.params.start {
                (self.snapshot)(scan, now_ns);
                self.count += 1;
            }
            let resumed = self.clock.now_ns();
            self.held_ns += resumed.saturating_sub(since);
            self.due_ns = resumed.saturating_add(self.every_ns);
            return None;
        }
        // Sector re-reads still go out (as they would without a snapshot to take); the time
        // a new main command waits is what the snapshot costs.
        match scan.acc.prober.next(now_ns) {
            Ask::Issue(c) => return Some(Next::Issue(c)),
            // A probe after its pause: the scan pauses (the snapshot waits for its answer).
            Ask::Later(_) if in_flight == 0 => return None,
            _ => {}
        }
        if let Some(c) = scan.acc.retries.next() {
            return Some(Next::Issue(c));
        }
        if in_flight == 0 {
            return None;
        }
        self.held_since.get_or_insert(now_ns);
        Some(Next::Wait)
    }
}

impl<F: FnMut(&SequentialScan, u64), C: Now> Job for Checkpointed<'_, F, C> {
    #[inline]
    fn next(&mut self, now_ns: u64, in_flight: usize) -> Next {
        if now_ns >= self.due_ns {
            if let Some(n) = self.settle(now_ns, in_flight) {
                return n;
            }
        }
        self.scan.next(now_ns, in_flight)
    }

    #[inline]
    fn complete(&mut self, c: &Completion) {
        self.scan.complete(c)
    }
}
