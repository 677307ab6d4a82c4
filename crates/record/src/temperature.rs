//! A drive's temperature over a run: readings polled beside the measurement (hwmon, the lab's
//! `temp1_input`, or `smartctl --json`), or why none could be read, said once.

use serde::{Deserialize, Serialize};

/// One reading: seconds from the start of the run, and degrees Celsius.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TemperaturePoint {
    pub t_s: f64,
    pub celsius: f64,
}

/// The temperature series of a run (`"temperature"` in the diagnose, soak and scan documents).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TemperatureSeries {
    /// Where it was read: `hwmon /sys/class/hwmon/hwmon2/temp1_input`, `lab …/temp1_input`,
    /// `smartctl /dev/sda`; none when no source was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Seconds between readings (never under 5: polling SMART heats some drives).
    #[serde(default)]
    pub interval_s: f64,
    /// The readings, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<TemperaturePoint>,
    /// Why the temperature could not be read, or why readings stopped: said once for the run,
    /// never per reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl TemperatureSeries {
    /// The lowest and highest reading.
    pub fn min_max(&self) -> Option<(f64, f64)> {
        let mut it = self.points.iter().map(|p| p.celsius);
        let first = it.next()?;
        Some(it.fold((first, first), |(lo, hi), c| (lo.min(c), hi.max(c))))
    }

    /// The reading nearest `t_s`, when one lies within `slack_s` of it.
    pub fn near(&self, t_s: f64, slack_s: f64) -> Option<TemperaturePoint> {
        self.points
            .iter()
            .filter(|p| (p.t_s - t_s).abs() <= slack_s)
            .min_by(|a, b| (a.t_s - t_s).abs().total_cmp(&(b.t_s - t_s).abs()))
            .copied()
    }

    /// The same series `shift_s` later on the time axis (a resumed run's readings after the part
    /// measured before), appended to `self`.
    pub fn extend_after(&mut self, later: TemperatureSeries, shift_s: f64) {
        self.points
            .extend(later.points.into_iter().map(|p| TemperaturePoint {
                t_s: p.t_s + shift_s,
                celsius: p.celsius,
            }));
        if self.source.is_none() {
            self.source = later.source;
        }
        if self.note.is_none() {
            self.note = later.note;
        }
        if self.interval_s == 0.0 {
            self.interval_s = later.interval_s;
        }
    }
}

impl From<drivescope_probe::temperature_poll::Readings> for TemperatureSeries {
    fn from(r: drivescope_probe::temperature_poll::Readings) -> Self {
        TemperatureSeries {
            source: r.source,
            interval_s: r.interval_s,
            points: r
                .points
                .into_iter()
                .map(|(t_s, celsius)| TemperaturePoint { t_s, celsius })
                .collect(),
            note: r.note,
        }
    }
}

/// The lab's temperature model as `lab truth` states it (a model's `[temperature]` section).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TruthTemperature {
    /// Where the temperature starts when the disk is served.
    pub start_c: f64,
    /// Where it settles while no command is in flight.
    pub idle_c: f64,
    /// Where it settles while commands are in flight.
    pub busy_c: f64,
    /// Time constant of the first-order approach to either, ns.
    pub time_constant_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(points: &[(f64, f64)]) -> TemperatureSeries {
        TemperatureSeries {
            source: Some("test".into()),
            interval_s: 5.0,
            points: points
                .iter()
                .map(|&(t_s, celsius)| TemperaturePoint { t_s, celsius })
                .collect(),
            note: None,
        }
    }

    #[test]
    fn min_max_and_nearest_reading() {
        let s = series(&[(0.0, 9.0), (5.0, 15.5), (10.0, 20.0), (15.0, 18.0)]);
        assert_eq!(s.min_max(), Some((9.0, 20.0)));
        assert_eq!(s.near(9.0, 3.0).unwrap().celsius, 20.0);
        assert_eq!(s.near(30.0, 5.0), None);
        assert_eq!(TemperatureSeries::default().min_max(), None);
    }

    #[test]
    fn a_document_without_readings_reads_with_its_note_only() {
        let s: TemperatureSeries =
            serde_json::from_str(r#"{"note":"no temperature could be read"}"#).unwrap();
        assert!(s.points.is_empty());
        assert_eq!(s.note.as_deref(), Some("no temperature could be read"));
        let back = serde_json::to_string(&s).unwrap();
        assert!(!back.contains("points"), "{back}");
    }

    #[test]
    fn a_resumed_series_goes_on_after_the_first() {
        let mut a = series(&[(0.0, 30.0), (5.0, 31.0)]);
        a.extend_after(series(&[(0.0, 29.0)]), 7.5);
        assert_eq!(a.points.last().unwrap().t_s, 7.5);
        assert_eq!(a.points.len(), 3);
    }
}
