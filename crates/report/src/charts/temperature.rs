//! The drive's temperature on a rate-over-time chart: its own scale on a second axis at the right,
//! drawn over the chart's time axis (seconds from the run's start).

use crate::svg::axis::Scale;
use crate::svg::frame::{Entry, Layout};
use crate::svg::{n, Svg};
use drivescope_record::TemperatureSeries;

/// The temperature's colour.
pub const COLOR: &str = "#d62728";
/// Room the right axis's labels take from the plot.
const AXIS_ROOM: f64 = 48.0;

/// The series, when it holds readings to draw.
pub fn drawable(t: Option<&TemperatureSeries>) -> Option<&TemperatureSeries> {
    t.filter(|t| t.points.len() >= 2)
}

/// A layout with `legend` entries, and room at the right for the temperature axis when `t` has one.
pub fn layout(legend: usize, t: Option<&TemperatureSeries>) -> Layout {
    let mut l = Layout::new(legend + drawable(t).is_some() as usize);
    if drawable(t).is_some() {
        l.right -= AXIS_ROOM;
    }
    l
}

/// Draw the readings within the time axis `x` on a right-hand °C axis; the legend entry for them.
pub fn overlay(
    s: &mut Svg,
    layout: &Layout,
    x: &Scale,
    t: Option<&TemperatureSeries>,
) -> Option<Entry> {
    let t = drawable(t)?;
    let pts: Vec<(f64, f64)> = t
        .points
        .iter()
        .filter(|p| p.t_s <= x.hi)
        .map(|p| (p.t_s, p.celsius))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let lo = pts.iter().map(|p| p.1).fold(f64::MAX, f64::min).floor() - 1.0;
    let hi = pts.iter().map(|p| p.1).fold(f64::MIN, f64::max).ceil() + 1.0;
    let y = Scale::linear(lo, hi, layout.bottom, layout.top);
    s.open("g", &[("class", "temperature-axis".into())]);
    s.line(
        layout.right,
        layout.top,
        layout.right,
        layout.bottom,
        COLOR,
        &[],
    );
    for v in y.ticks() {
        let py = y.px(v);
        s.line(layout.right, py, layout.right + 5.0, py, COLOR, &[]);
        s.text(
            layout.right + 8.0,
            py + 4.0,
            "start",
            &[("fill", COLOR.into())],
            &format!("{v:.0} °C"),
        );
    }
    s.close("g");
    let mut p = String::new();
    for (i, (a, b)) in pts.iter().enumerate() {
        if i > 0 {
            p.push(' ');
        }
        p.push_str(&format!("{},{}", n(x.px(*a)), n(y.px(*b))));
    }
    s.leaf(
        "polyline",
        &[
            ("class", "temperature-line".into()),
            ("data-points", pts.len().to_string()),
            ("points", p),
            ("fill", "none".into()),
            ("stroke", COLOR.into()),
            ("stroke-width", "1.5".into()),
            ("stroke-dasharray", "2 2".into()),
        ],
        None,
    );
    let (a, b) = t.min_max().unwrap_or((lo, hi));
    Some(Entry {
        text: format!(
            "drive temperature, right axis: {a:.0} → {b:.0} °C (min → max, every {:.0} s)",
            t.interval_s
        ),
        color: COLOR,
        dashed: true,
    })
}

#[cfg(test)]
mod tests {
    use crate::doc::Run;
    use drivescope_record::{Document, TemperaturePoint, TemperatureSeries};

    fn warming(seconds: u64) -> TemperatureSeries {
        TemperatureSeries {
            source: Some("hwmon /sys/class/hwmon/hwmon1/temp1_input".into()),
            interval_s: 5.0,
            points: (0..=seconds / 5)
                .map(|k| TemperaturePoint {
                    t_s: k as f64 * 5.0,
                    celsius: 30.0 + k as f64,
                })
                .collect(),
            note: None,
        }
    }

    fn svg(doc: impl Into<Document>) -> Vec<super::super::Chart> {
        super::super::build(&[Run::new(Some(1), doc)])
    }

    #[test]
    fn a_soak_draws_its_temperature_on_a_second_axis() {
        let mut soak = crate::sample::soak(3, 60);
        let plain = svg(soak.clone());
        assert!(!plain.iter().any(|c| c.svg.contains("temperature")));
        soak.temperature = Some(warming(60));
        let charts = svg(soak);
        let c = charts.iter().find(|c| c.id.starts_with("series-")).unwrap();
        assert!(
            c.svg
                .contains(r#"class="temperature-line" data-points="13""#),
            "{}",
            c.svg
        );
        assert!(c.svg.contains("42 °C"), "the right axis's labels");
        assert!(c.svg.contains("30 → 42 °C (min → max, every 5 s)"));
        // The rate's marks stay the series' samples.
        assert_eq!(c.marks, 60);
    }

    #[test]
    fn a_scan_with_readings_gets_a_rate_over_time_chart_and_one_without_does_not() {
        let mut scan =
            crate::sample::scan(3, 1 << 30, 200, 0, 0, drivescope_record::Direction::Read);
        assert!(!svg(scan.clone())
            .iter()
            .any(|c| c.id.starts_with("scan-series")));
        let secs = scan.series.len() as u64;
        assert!(secs >= 2);
        scan.temperature = Some(warming(secs));
        let charts = svg(scan);
        let c = charts
            .iter()
            .find(|c| c.id.starts_with("scan-series"))
            .unwrap();
        assert!(c.svg.contains("temperature-line"));
    }
}
