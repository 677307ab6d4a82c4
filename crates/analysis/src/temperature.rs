//! The drive's temperature as evidence: a post-pass over the findings of a record that has a
//! temperature series. A warm-up says how warm the drive was over its slow start ("first 20 s at
//! 0.50× …, drive at 9 °C → 23 °C"); a thermal throttle says how hot it ran. Findings of other
//! codes, and records without readings, are left as they are.

use drivescope_record::{Finding, Outcome, TemperatureSeries};

/// The stretch of the run (seconds from its start, the series' time axis) a finding speaks of.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    pub code: String,
    pub from_s: f64,
    pub to_s: f64,
}

/// The windows the findings' own numbers name: a warm-up from the start to its step
/// (`warm_up_s`). A thermal throttle's window is the experiment's, which its caller knows; without
/// one the whole series is its window.
pub fn windows(findings: &[Finding]) -> Vec<Window> {
    findings
        .iter()
        .filter_map(|f| match f.code.as_str() {
            "warm_up" => f.number("warm_up_s").map(|to_s| Window {
                code: "warm_up".into(),
                from_s: 0.0,
                to_s,
            }),
            _ => None,
        })
        .collect()
}

/// Readings this far from a window's ends still stand for them: one polling interval.
fn slack(series: &TemperatureSeries) -> f64 {
    series.interval_s.max(5.0)
}

/// Add the temperature over each finding's window to its claim and evidence (`temperature_start_c`,
/// `temperature_end_c`, and for a throttle `temperature_max_c`). A finding whose window the
/// readings do not reach is left as it is.
pub fn annotate(findings: &mut [Finding], series: Option<&TemperatureSeries>, windows: &[Window]) {
    let Some(series) = series.filter(|s| !s.points.is_empty()) else {
        return;
    };
    let whole = Window {
        code: String::new(),
        from_s: series.points[0].t_s,
        to_s: series.points[series.points.len() - 1].t_s,
    };
    for f in findings.iter_mut() {
        let code = f.code.as_str().to_string();
        if f.evidence.numbers.contains_key("temperature_start_c") {
            continue;
        }
        let w = match (code.as_str(), windows.iter().find(|w| w.code == code)) {
            ("warm_up" | "thermal_throttle", Some(w)) => w,
            ("thermal_throttle", None) => &whole,
            _ => continue,
        };
        let slack = slack(series);
        let (Some(a), Some(b)) = (series.near(w.from_s, slack), series.near(w.to_s, slack)) else {
            continue;
        };
        if b.t_s <= a.t_s {
            continue;
        }
        let n = &mut f.evidence.numbers;
        n.insert("temperature_start_c".into(), a.celsius);
        n.insert("temperature_end_c".into(), b.celsius);
        let mut words = format!(", drive at {:.0} °C → {:.0} °C", a.celsius, b.celsius);
        if code == "thermal_throttle" {
            let max = series
                .points
                .iter()
                .filter(|p| p.t_s >= a.t_s && p.t_s <= b.t_s)
                .map(|p| p.celsius)
                .fold(f64::MIN, f64::max);
            n.insert("temperature_max_c".into(), max);
            words.push_str(&format!(" (max {max:.0} °C)"));
        }
        f.claim.push_str(&words);
    }
}

/// [`annotate`] with the findings' own [`windows`], keeping the outcome lines that repeat a claim
/// in step with it.
pub fn annotate_with_outcomes(
    findings: &mut [Finding],
    outcomes: &mut [Outcome],
    series: Option<&TemperatureSeries>,
) {
    let before: Vec<String> = findings.iter().map(|f| f.claim.clone()).collect();
    let w = windows(findings);
    annotate(findings, series, &w);
    for (f, old) in findings.iter().zip(before) {
        if f.claim != old {
            for o in outcomes.iter_mut().filter(|o| o.text == old) {
                o.text = f.claim.clone();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::{Confidence, FindingCode, TemperaturePoint};

    fn series(points: &[(f64, f64)]) -> TemperatureSeries {
        TemperatureSeries {
            source: Some("lab".into()),
            interval_s: 5.0,
            points: points
                .iter()
                .map(|&(t_s, celsius)| TemperaturePoint { t_s, celsius })
                .collect(),
            note: None,
        }
    }

    fn warm_up(s: f64) -> Finding {
        Finding::new(
            FindingCode::WarmUp,
            Confidence::High,
            format!("first {s:.0} s at 0.50× the steady rate (75 then 150 MB/s)"),
            &[("warm_up_s", s), ("factor", 0.5)],
        )
    }

    fn cold_start() -> TemperatureSeries {
        series(&[
            (0.1, 9.4),
            (5.1, 16.2),
            (10.1, 20.0),
            (15.1, 22.1),
            (20.1, 23.2),
            (25.1, 23.6),
        ])
    }

    #[test]
    fn a_warm_up_names_the_temperature_over_its_window() {
        let mut f = vec![warm_up(20.0)];
        let mut o = vec![Outcome {
            experiment: drivescope_record::Experiment::WarmUp,
            verdict: drivescope_record::Verdict::Found,
            text: f[0].claim.clone(),
        }];
        annotate_with_outcomes(&mut f, &mut o, Some(&cold_start()));
        assert!(
            f[0].claim
                .ends_with("(75 then 150 MB/s), drive at 9 °C → 23 °C"),
            "{}",
            f[0].claim
        );
        assert_eq!(f[0].number("temperature_start_c"), Some(9.4));
        assert_eq!(f[0].number("temperature_end_c"), Some(23.2));
        assert_eq!(o[0].text, f[0].claim);
        // Once only.
        annotate_with_outcomes(&mut f, &mut o, Some(&cold_start()));
        assert_eq!(f[0].claim.matches("°C →").count(), 1);
    }

    #[test]
    fn without_readings_over_the_window_nothing_is_claimed() {
        let mut f = vec![warm_up(20.0)];
        let claim = f[0].claim.clone();
        annotate_with_outcomes(&mut f, &mut [], None);
        annotate_with_outcomes(&mut f, &mut [], Some(&TemperatureSeries::default()));
        // Readings that stop before the warm-up ends do not speak for its end.
        annotate_with_outcomes(&mut f, &mut [], Some(&series(&[(0.0, 9.0), (5.0, 15.0)])));
        assert_eq!(f[0].claim, claim);
        assert_eq!(f[0].number("temperature_start_c"), None);
    }

    #[test]
    fn a_thermal_throttle_names_how_hot_the_drive_ran() {
        // Matched by its code's text, as documents write it.
        let mut f = vec![Finding::new(
            FindingCode::Other("thermal_throttle".into()),
            Confidence::High,
            "reads fell to 0.40× after 30 s of load".into(),
            &[("factor", 0.4)],
        )];
        let s = series(&[(0.0, 41.0), (10.0, 60.0), (20.0, 74.0), (30.0, 71.0)]);
        annotate(&mut f, Some(&s), &[]);
        assert_eq!(
            f[0].claim,
            "reads fell to 0.40× after 30 s of load, drive at 41 °C → 71 °C (max 74 °C)"
        );
        assert_eq!(f[0].number("temperature_max_c"), Some(74.0));
        // With the experiment's window: only its readings.
        let mut g = vec![Finding::new(
            FindingCode::Other("thermal_throttle".into()),
            Confidence::High,
            "x".into(),
            &[],
        )];
        let w = Window {
            code: "thermal_throttle".into(),
            from_s: 10.0,
            to_s: 20.0,
        };
        annotate(&mut g, Some(&s), &[w]);
        assert_eq!(g[0].claim, "x, drive at 60 °C → 74 °C (max 74 °C)");
    }

    #[test]
    fn other_findings_are_left_alone() {
        let mut f = vec![Finding::new(
            FindingCode::Zones,
            Confidence::High,
            "zones".into(),
            &[],
        )];
        annotate_with_outcomes(&mut f, &mut [], Some(&cold_start()));
        assert_eq!(f[0].claim, "zones");
    }
}
