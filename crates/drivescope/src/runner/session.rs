//! A measuring command's session: the stop that SIGINT and SIGTERM set, the device's identity, the
//! run it continues and its checkpoints, owned once for every command.

use super::Cuts;
use crate::opts::args::Every;
use crate::opts::store::StoreOpts;
use drivescope_probe::Identity;
use drivescope_record::{Checkpoint, Document, FromDocument, Kind};
use drivescope_store::RunId;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// What a measurement runs in.
pub struct Session {
    stop: Arc<AtomicBool>,
}

impl Session {
    /// A session of this process: the first SIGINT or SIGTERM asks the run to stop and keep its
    /// results, a second ends the process at once (exit 130).
    pub fn new() -> anyhow::Result<Session> {
        let stop = Arc::new(AtomicBool::new(false));
        #[cfg(test)]
        if tests::stopped() {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            return Ok(Session { stop });
        }
        crate::signals::stop_on_interrupt(&stop)?;
        Ok(Session { stop })
    }

    /// Set when the run is asked to stop.
    pub fn stop(&self) -> &Arc<AtomicBool> {
        &self.stop
    }

    /// What is known of the device behind `spec` (its serial numbers, model, path).
    pub fn device(&self, spec: &str) -> Option<Identity> {
        crate::identity::of(spec)
    }

    /// The stored run `run` names (a number or `last`, of `kind` when given) to continue: refused
    /// while its process runs, an error when it is not `what` or `left` says nothing is left to do.
    pub fn resumable<T: FromDocument>(
        &self,
        store: &StoreOpts,
        run: &str,
        kind: Option<Kind>,
        what: &str,
        left: impl FnOnce(&T) -> Option<String>,
    ) -> anyhow::Result<(RunId, T)> {
        crate::resume::load(store, run, kind, what, left)
    }

    /// A job's checkpoints saved in `store` every `every` (when both are set and `wanted`), in place
    /// of `over` when given: `stamp` makes each snapshot the document saved; `job` names it in
    /// messages (`scan`, `diagnosis`).
    pub fn checkpoints<R: Send + 'static>(
        &self,
        every: Every,
        store: &StoreOpts,
        wanted: bool,
        over: Option<RunId>,
        job: &'static str,
        stamp: impl Fn(R, Checkpoint) -> Document + Send + 'static,
    ) -> Cuts<R> {
        #[cfg(test)]
        let stamp = {
            let stop = tests::stop_at_first_checkpoint().then(|| self.stop.clone());
            move |rec: R, me: Checkpoint| {
                if let Some(stop) = &stop {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                stamp(rec, me)
            }
        };
        match (every.0, store.location()) {
            (Some(every), Ok(Some(path))) if wanted => {
                let (w, c) = crate::checkpoints::start(path, every, over, job, stamp);
                Cuts::new(Some(w), Some(c))
            }
            _ => Cuts::new(None, None),
        }
    }
}

#[cfg(test)]
pub mod tests {
    //! The in-process tests' sessions: stopped before they start, as by a SIGINT at once.
    use std::cell::Cell;

    thread_local! {
        static STOPPED: Cell<bool> = const { Cell::new(false) };
        static AT_CHECKPOINT: Cell<bool> = const { Cell::new(false) };
    }

    /// Sessions started on this thread from now on stop at their first checkpoint (`true`), as a
    /// SIGINT in the middle of a run would.
    pub fn stop_at_checkpoint(stop: bool) {
        AT_CHECKPOINT.with(|s| s.set(stop));
    }

    pub(super) fn stop_at_first_checkpoint() -> bool {
        AT_CHECKPOINT.with(|s| s.get())
    }

    /// Sessions started on this thread from now on are stopped (`true`) or not.
    pub fn stop_sessions(stopped: bool) {
        STOPPED.with(|s| s.set(stopped));
    }

    pub(super) fn stopped() -> bool {
        STOPPED.with(|s| s.get())
    }
}
