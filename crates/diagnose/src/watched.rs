//! Every experiment's commands run under one watch: the scan's lost-device rule ([`LostWatch`]) decides whether a
//! failed command is a bad spot or a device gone, and what failed or was slow is gathered by place ([`Seen`]).
//! The experiments read on around a bad spot; only the rule ends a diagnosis as lost.

use crate::spots::Seen;
use drivescope_core::engine::{Completion, Engine, EngineConfig, EngineError, Job, Next};
use drivescope_core::scan::lost_watch::{LostWatch, TAG_WATCH_PROBE};
use std::sync::atomic::AtomicBool;

/// The watch a diagnosis keeps over all its experiments.
#[derive(Debug)]
pub(crate) struct Watch {
    pub lost: LostWatch,
    pub seen: Seen,
    /// A command was refused for a reason that is not the medium's (a full file system, a read-only one): the
    /// errno, which ends the experiment.
    pub refused: Option<i32>,
}

/// Errors that say nothing of the medium: the command was refused (no space, no permission, a bad request).
fn refused(errno: i32) -> bool {
    matches!(
        errno,
        libc::ENOSPC
            | libc::EDQUOT
            | libc::EROFS
            | libc::EFBIG
            | libc::EINVAL
            | libc::EBADF
            | libc::EPERM
            | libc::EACCES
            | libc::EOPNOTSUPP
    )
}

impl Watch {
    /// Run `job` on `dev` under the watch, its reads judged slow or not when `judge`.
    pub fn run<E: Engine, J: Job>(
        &mut self,
        dev: &E,
        cfg: &EngineConfig,
        seed: u64,
        stop: &AtomicBool,
        judge: bool,
        job: J,
    ) -> Result<J, EngineError> {
        self.seen.start_run(judge);
        let mut w = Watched { job, watch: self };
        let ran = dev.run(cfg, seed, &dev.clock(), stop, &mut w);
        let job = w.job;
        // What a stop left undecided counts as met.
        self.seen.settle(self.lost.lost().is_some());
        ran.map(|()| job)
    }

    /// The error that ends an experiment once the device is lost, or a command was refused.
    pub fn lost_error(&mut self) -> Option<EngineError> {
        if let Some(errno) = self.refused.take() {
            return Some(EngineError::Io(std::io::Error::from_raw_os_error(errno)));
        }
        self.lost
            .lost()
            .map(|why| EngineError::Io(std::io::Error::other(why.to_string())))
    }
}

/// A job run under the watch.
pub(crate) struct Watched<'w, J> {
    pub job: J,
    pub watch: &'w mut Watch,
}

impl<J: Job> Job for Watched<'_, J> {
    fn next(&mut self, now_ns: u64, in_flight: usize) -> Next {
        if self.watch.refused.is_some() {
            return if in_flight > 0 {
                Next::Wait
            } else {
                Next::Done
            };
        }
        match self.watch.lost.next(now_ns, in_flight) {
            Some(n) => n,
            None => {
                let n = self.job.next(now_ns, in_flight);
                if let Next::Issue(c) = &n {
                    self.watch.seen.issued(c);
                }
                n
            }
        }
    }

    fn complete(&mut self, c: &Completion) {
        if c.cmd.tag == TAG_WATCH_PROBE {
            self.watch.lost.probe(c);
        } else if let Some(errno) = c.result.err().filter(|e| refused(*e)) {
            self.watch.refused.get_or_insert(errno);
            self.job.complete(c);
        } else {
            self.watch.lost.command(c);
            self.watch.seen.command(c);
            self.job.complete(c);
        }
        // A failure is a bad spot once the rule has decided so; failures that end with the device lost were its
        // going away.
        if !self.watch.lost.deciding() {
            let gone = self.watch.lost.lost().is_some();
            self.watch.seen.settle(gone);
        }
    }
}
