//! The run's monotonic clock: nanoseconds since the run started (`Instant` reads the vDSO).
//! [`Now`] is what workloads read a run's time through, so a scripted device in unit tests can
//! stand a virtual clock in its place.

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

/// A run's time: nanoseconds since the run started.
pub trait Now {
    fn now_ns(&self) -> u64;
}

impl Now for Clock {
    #[inline]
    fn now_ns(&self) -> u64 {
        Clock::now_ns(self)
    }
}
