//! When a polling engine polls: after each poll it learns whether a completion came within the
//! budget ([`super::POLL_BUDGET_NS`]). While most polls find one, every wait polls; once most
//! come back empty (a slow device: a disk's seek, a network round trip) only one wait in
//! [`PROBE_EVERY`] polls, so a slow device costs almost no CPU while the engine still notices
//! when the device turns fast again (a cache, the end of a slow zone).

/// While polling is off, one wait in this many still polls, to see whether hits resume.
pub const PROBE_EVERY: u32 = 64;

/// Scale of the smoothed miss rate (1.0 = every poll missed).
const ONE: u32 = 1 << 10;

/// The smoothed share of polls that found no completion within the budget.
#[derive(Debug, Clone, Copy, Default)]
pub struct PollGate {
    /// Smoothed miss rate, in units of 1/[`ONE`].
    miss: u32,
    /// Waits skipped since the last poll (while the miss rate is high).
    skipped: u32,
}

impl PollGate {
    /// Whether the next wait should poll before sleeping.
    #[inline]
    pub fn should_poll(&mut self) -> bool {
        if self.miss < ONE / 2 {
            return true;
        }
        self.skipped += 1;
        if self.skipped >= PROBE_EVERY {
            self.skipped = 0;
            return true;
        }
        false
    }

    /// The outcome of a poll: `hit` when a completion came within the budget.
    #[inline]
    pub fn record(&mut self, hit: bool) {
        let target = if hit { 0 } else { ONE };
        // Exponential smoothing over about the last eight polls.
        self.miss = self.miss - self.miss / 8 + target / 8;
    }

    /// The smoothed miss rate, 0.0 to 1.0.
    #[cfg(test)]
    pub fn miss_rate(&self) -> f64 {
        self.miss as f64 / ONE as f64
    }
}

#[cfg(test)]
mod tests {
    use super::{PollGate, PROBE_EVERY};

    fn polls_in(g: &mut PollGate, waits: u32) -> u32 {
        (0..waits).filter(|_| g.should_poll()).count() as u32
    }

    #[test]
    fn a_fast_device_is_polled_on_every_wait() {
        let mut g = PollGate::default();
        for _ in 0..1000 {
            assert!(g.should_poll());
            g.record(true);
        }
        assert_eq!(g.miss_rate(), 0.0);
    }

    #[test]
    fn a_slow_device_is_probed_once_in_probe_every_waits_and_polling_resumes_when_it_speeds_up() {
        let mut g = PollGate::default();
        // Polls keep missing: within a few waits polling stops.
        let mut polled = 0;
        for _ in 0..8 {
            if g.should_poll() {
                polled += 1;
                g.record(false);
            }
        }
        assert!(polled <= 8 && g.miss_rate() >= 0.5, "{}", g.miss_rate());
        // From then on one wait in PROBE_EVERY polls (and misses).
        let mut probes = 0;
        for _ in 0..PROBE_EVERY * 10 {
            if g.should_poll() {
                probes += 1;
                g.record(false);
            }
        }
        assert_eq!(probes, 10);
        // The device turns fast: the probes hit, and after a few of them every wait polls.
        let mut waits = 0;
        while g.miss_rate() >= 0.5 {
            waits += 1;
            if g.should_poll() {
                g.record(true);
            }
            assert!(waits < PROBE_EVERY * 8, "polling never resumed");
        }
        assert_eq!(polls_in(&mut g, 100), 100);
    }

    #[test]
    fn occasional_misses_do_not_stop_polling() {
        let mut g = PollGate::default();
        // One poll in four misses (a device with a long tail): polling goes on.
        for i in 0..1000 {
            assert!(g.should_poll(), "stopped at wait {i}");
            g.record(i % 4 != 0);
        }
    }
}
