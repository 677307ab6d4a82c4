//! A hook around each measured run of a bench, for runs that several processes make together
//! (a multi-host run lines its ranks up at it; see docs/scale.md).

use super::RunResult;
use std::sync::atomic::AtomicBool;

/// Asked before each measured run and told each one's result. A plain bench has none.
pub trait RunGate {
    /// Before a measured run that would last `duration_ns`: returns how long this run may last,
    /// or `None` when it must not start (another process stopped or failed); the bench then
    /// ends with the tests it has.
    fn before_run(&mut self, duration_ns: u64, stop: &AtomicBool) -> Option<u64>;
    /// The finished run.
    fn after_run(&mut self, r: &RunResult);
}
