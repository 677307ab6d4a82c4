//! The run's monotonic clock: nanoseconds since the run started (`Instant` reads the vDSO).

use std::time::Instant;

/// Shared by every worker of a run, so their timestamps compare.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    base: Instant,
}

impl Default for Clock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock {
    pub fn new() -> Self {
        Clock {
            base: Instant::now(),
        }
    }

    /// Nanoseconds since the clock started.
    #[inline]
    pub fn now_ns(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }
}
