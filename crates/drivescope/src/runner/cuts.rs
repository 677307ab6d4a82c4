//! A running job's checkpoints: the cuts the job hands over, and the thread that saves them.

use crate::checkpoints::{Writer, Written};
use drivescope_core::checkpoint::Checkpoints;

/// The checkpoints of one job (none when its run is not saved).
pub struct Cuts<R> {
    writer: Option<Writer>,
    checkpoints: Option<Checkpoints<R>>,
}

impl<R> Cuts<R> {
    pub(super) fn new(writer: Option<Writer>, checkpoints: Option<Checkpoints<R>>) -> Cuts<R> {
        Cuts {
            writer,
            checkpoints,
        }
    }

    /// What the job hands its snapshots to (taken once, by the library call).
    pub fn take(&mut self) -> Option<Checkpoints<R>> {
        self.checkpoints.take()
    }

    /// The writer and the cuts apart, for a job that hands its cuts on (a screen's group of scans).
    pub fn into_parts(self) -> (Option<Writer>, Option<Checkpoints<R>>) {
        (self.writer, self.checkpoints)
    }

    /// Wait for the last snapshot to be written (after the job has ended): the run they went to.
    pub fn finish(self) -> Written {
        drop(self.checkpoints);
        self.writer.map(|w| w.finish()).unwrap_or_default()
    }
}
