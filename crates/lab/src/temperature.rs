//! A lab disk's temperature: the model's `[temperature]` section and the state that follows it.
//!
//! The temperature starts at `start_c` when the disk is served and approaches `busy_c` while
//! commands are in flight (from a command's arrival to its completion), `idle_c` while none is,
//! first-order with the time constant: over `dt` it moves `1 - exp(-dt / time_constant)` of the
//! way to its target. The FUSE mount serves it as `temp1_input` beside `disk.img`, in millidegrees
//! with a newline, as hwmon does.

use crate::units::de_duration_ns;
use drivescope_record::TruthTemperature;
use serde::{Deserialize, Serialize};
use std::sync::Mutex;

/// The file name served beside the image.
pub const TEMP_NAME: &str = "temp1_input";

/// A model's `[temperature]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Temperature {
    /// Where it settles with no command in flight, °C.
    pub idle_c: f64,
    /// Where it settles while commands are in flight, °C.
    pub busy_c: f64,
    /// Where it starts when the disk is served (a cold drive), °C; the idle value by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_c: Option<f64>,
    #[serde(deserialize_with = "de_duration_ns", rename = "time_constant")]
    pub time_constant_ns: u64,
}

impl Temperature {
    /// Why the section cannot be used, if it cannot.
    pub fn problem(&self) -> Option<&'static str> {
        let plausible = |c: f64| c.is_finite() && (-40.0..=150.0).contains(&c);
        let start_ok = self.start_c.is_none_or(plausible);
        if !(plausible(self.idle_c) && plausible(self.busy_c) && start_ok) {
            return Some("temperature: idle_c, busy_c and start_c must lie in -40..=150");
        }
        if self.time_constant_ns == 0 {
            return Some("temperature.time_constant must be above 0");
        }
        None
    }

    pub fn start(&self) -> f64 {
        self.start_c.unwrap_or(self.idle_c)
    }

    /// As `lab truth` states it.
    pub fn truth(&self) -> TruthTemperature {
        TruthTemperature {
            start_c: self.start(),
            idle_c: self.idle_c,
            busy_c: self.busy_c,
            time_constant_ns: self.time_constant_ns,
        }
    }
}

struct State {
    /// Time (ns on the device's clock) the temperature below holds for.
    t_ns: u64,
    celsius: f64,
    /// Until when some command is in flight.
    busy_until_ns: u64,
}

/// The temperature of a disk being served.
pub struct Heat {
    model: Temperature,
    state: Mutex<State>,
}

impl Heat {
    /// A disk served at `now_ns`, at its start temperature.
    pub fn new(model: &Temperature, now_ns: u64) -> Heat {
        Heat {
            model: model.clone(),
            state: Mutex::new(State {
                t_ns: now_ns,
                celsius: model.start(),
                busy_until_ns: now_ns,
            }),
        }
    }

    fn relax(&self, s: &mut State, target: f64, until: u64) {
        if until > s.t_ns {
            let dt = (until - s.t_ns) as f64 / self.model.time_constant_ns as f64;
            s.celsius = target + (s.celsius - target) * (-dt).exp();
            s.t_ns = until;
        }
    }

    fn advance(&self, s: &mut State, now_ns: u64) {
        let busy_end = s.busy_until_ns.min(now_ns);
        self.relax(s, self.model.busy_c, busy_end);
        self.relax(s, self.model.idle_c, now_ns);
    }

    /// A command in flight from `arrival_ns` to `done_ns`.
    pub fn command(&self, arrival_ns: u64, done_ns: u64) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        self.advance(&mut s, arrival_ns);
        s.busy_until_ns = s.busy_until_ns.max(done_ns);
    }

    /// The temperature at `now_ns`, °C.
    pub fn celsius_at(&self, now_ns: u64) -> f64 {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        self.advance(&mut s, now_ns);
        s.celsius
    }

    /// The `temp1_input` text at `now_ns`: millidegrees and a newline.
    pub fn text_at(&self, now_ns: u64) -> String {
        format!("{}\n", (self.celsius_at(now_ns) * 1000.0).round() as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn cold() -> Temperature {
        Temperature {
            idle_c: 22.0,
            busy_c: 26.0,
            start_c: Some(9.0),
            time_constant_ns: 8 * S,
        }
    }

    #[test]
    fn it_rises_towards_busy_under_load_first_order() {
        let h = Heat::new(&cold(), 0);
        assert_eq!(h.celsius_at(0), 9.0);
        // Busy for one time constant: 1 - 1/e of the way from 9 to 26.
        h.command(0, 8 * S);
        let want = 26.0 - 17.0 * (-1.0f64).exp();
        assert!((h.celsius_at(8 * S) - want).abs() < 1e-9);
        // Much later, under load all along, it sits at the busy value.
        h.command(8 * S, 200 * S);
        assert!((h.celsius_at(200 * S) - 26.0).abs() < 1e-6);
    }

    #[test]
    fn it_falls_to_idle_when_no_command_is_in_flight() {
        let h = Heat::new(&cold(), 0);
        h.command(0, 100 * S);
        let busy = h.celsius_at(100 * S);
        assert!(busy > 25.9);
        // Idle for five time constants: within 1 % of the way to idle.
        let idle = h.celsius_at(140 * S);
        assert!((idle - 22.0).abs() < 0.01 * (busy - 22.0) + 1e-9, "{idle}");
        assert_eq!(
            h.text_at(140 * S),
            format!("{}\n", (idle * 1000.0).round() as i64)
        );
    }

    #[test]
    fn an_idle_disk_warms_from_its_start_to_idle() {
        let h = Heat::new(&cold(), 5 * S);
        let c = h.celsius_at(5 * S + 24 * S);
        let want = 22.0 - 13.0 * (-3.0f64).exp();
        assert!((c - want).abs() < 1e-9, "{c}");
    }

    #[test]
    fn implausible_sections_are_refused() {
        let mut t = cold();
        assert_eq!(t.problem(), None);
        t.time_constant_ns = 0;
        assert!(t.problem().is_some());
        t = cold();
        t.busy_c = f64::NAN;
        assert!(t.problem().is_some());
    }
}
