//! Thermal throttling: a device that slows down after a while of sustained work and recovers when idle.
//!
//! The model is a heat budget counted in seconds of work. Every media transfer adds its busy time to the heat;
//! idle time (the media doing nothing) takes heat away. While the heat is at or above `after` (the device has
//! worked `after` without enough rest) the media runs at `factor` × its rate. The heat may run [`MARGIN`] past
//! `after`, so that the short pauses of a busy device (each command's overhead, the host's turnaround) do not
//! lift the throttle, and it never runs further, so a long run stays throttled and a rest of `cooling` always
//! brings it back to cool: idle time takes heat away at `after × (1 + MARGIN) / cooling` per second. Partial
//! cooling gives partial recovery: after an idle time `x < cooling` the device runs at full speed for
//! `x × after × (1 + MARGIN) / cooling − after × MARGIN` of work before it throttles again. Cache hits and writes
//! taken by a write cache do not heat the media.

use crate::units::de_duration_ns;
use serde::{Deserialize, Serialize};

/// `[throttle]`: after `after` of continuous work the media rate is multiplied by `factor`; `cooling` of idle
/// time restores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Throttle {
    /// The media rate while throttled, as a fraction of the full rate (0 < factor < 1).
    pub factor: f64,
    /// Busy time from cool to throttled.
    #[serde(deserialize_with = "de_duration_ns", rename = "after")]
    pub after_ns: u64,
    /// Idle time from throttled to cool.
    #[serde(deserialize_with = "de_duration_ns", rename = "cooling")]
    pub cooling_ns: u64,
}

impl Throttle {
    /// Why the section is invalid, if it is.
    pub fn check(&self) -> Result<(), String> {
        if !(self.factor.is_finite() && self.factor > 0.0 && self.factor < 1.0) {
            return Err("throttle.factor must lie in (0, 1)".into());
        }
        if self.after_ns == 0 || self.cooling_ns == 0 {
            return Err("throttle.after and throttle.cooling must be positive".into());
        }
        Ok(())
    }
}

/// How far past `after` the heat may run, as a share of `after`.
pub const MARGIN: f64 = 0.05;

/// The device's heat, in ns of work, and when the media last stopped working.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Heat {
    heat_ns: f64,
    idle_from: u64,
}

impl Heat {
    /// The rate factor of a transfer that starts at `start` (ns on the device's clock), after cooling for the
    /// idle time since the media last worked.
    pub fn factor_at(&mut self, t: &Throttle, start: u64) -> f64 {
        let idle = start.saturating_sub(self.idle_from) as f64;
        let rate = t.after_ns as f64 * (1.0 + MARGIN) / t.cooling_ns as f64;
        self.heat_ns = (self.heat_ns - idle * rate).max(0.0);
        self.idle_from = self.idle_from.max(start);
        if self.throttled(t) {
            t.factor
        } else {
            1.0
        }
    }

    /// The media worked from `start` to `end`.
    pub fn work(&mut self, t: &Throttle, start: u64, end: u64) {
        let busy = end.saturating_sub(start.max(self.idle_from)) as f64;
        self.heat_ns = (self.heat_ns + busy).min(t.after_ns as f64 * (1.0 + MARGIN));
        self.idle_from = self.idle_from.max(end);
    }

    /// Whether the heat has reached the throttle.
    pub fn throttled(&self, t: &Throttle) -> bool {
        self.heat_ns >= t.after_ns as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn t() -> Throttle {
        Throttle {
            factor: 0.5,
            after_ns: 10 * S,
            cooling_ns: 5 * S,
        }
    }

    /// Work in 10 ms pieces from `from` for `secs` of busy time; the time the first throttled piece started.
    fn run(h: &mut Heat, from: u64, secs: u64) -> (u64, Option<u64>) {
        let t = t();
        let mut now = from;
        let mut first = None;
        let end = from + secs * S;
        while now < end {
            let f = h.factor_at(&t, now);
            if f < 1.0 && first.is_none() {
                first = Some(now - from);
            }
            h.work(&t, now, now + 10_000_000);
            now += 10_000_000;
        }
        (now, first)
    }

    #[test]
    fn throttles_after_the_busy_time_and_stays_throttled() {
        let mut h = Heat::default();
        let (now, first) = run(&mut h, 0, 30);
        assert_eq!(first, Some(10 * S));
        assert!(h.throttled(&t()));
        // A full rest restores the full budget of work.
        let (_, again) = run(&mut h, now + 5 * S, 30);
        assert_eq!(again, Some(10 * S));
    }

    #[test]
    fn partial_cooling_gives_partial_recovery() {
        let mut h = Heat::default();
        let (now, _) = run(&mut h, 0, 20);
        // 2 s of a 5 s cooling: 2/5 of the 10.5 s of heat gone, 3.7 s of work before the throttle.
        let (_, again) = run(&mut h, now + 2 * S, 20);
        let again = again.unwrap() as f64 / S as f64;
        assert!((again - 3.7).abs() < 0.02, "{again}");
        // A pause of a few milliseconds does not lift it.
        let mut h = Heat::default();
        let (now, _) = run(&mut h, 0, 20);
        assert_eq!(h.factor_at(&t(), now + 50_000_000), 0.5);
    }

    #[test]
    fn bad_sections_are_refused() {
        let mut x = t();
        x.factor = 1.0;
        assert!(x.check().is_err());
        let mut x = t();
        x.cooling_ns = 0;
        assert!(x.check().is_err());
        assert!(t().check().is_ok());
    }
}
