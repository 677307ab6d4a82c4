//! A drive's numbers over time: one value per run (a rate, a latency), by the run's start date, a
//! line through the runs with a mark at each.

use super::Chart;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use crate::svg::{n, PALETTE};

/// One series of the trend: its name and (seconds since the Unix epoch, value) per run.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// The chart `id` of `series` over time, the y axis titled `y_title`; none without points.
pub fn chart(
    id: &str,
    title: &str,
    y_title: &str,
    caption: &str,
    series: &[Series],
) -> Option<Chart> {
    let all = || series.iter().flat_map(|s| s.points.iter());
    let (t0, t1) = all().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    if t0 > t1 {
        return None;
    }
    let top = all().map(|p| p.1).fold(0.0, f64::max);
    let days = |t: f64| (t - t0) / 86_400.0;
    let layout = Layout::new(series.len());
    let x = Scale::range(0.0, days(t1).max(1.0), layout.left, layout.right);
    let y = Scale::linear(0.0, (top * 1.1).max(1e-9), layout.bottom, layout.top);
    let x_title = format!("Days since the first run ({})", date(t0));
    let mut s = frame::start(title, &layout, &x, &y, &Axes::labelled(&x_title, y_title));
    let mut marks = 0;
    let mut legend = Vec::new();
    for (k, one) in series.iter().enumerate() {
        let color = PALETTE[k % PALETTE.len()];
        let px: Vec<(f64, f64)> = one
            .points
            .iter()
            .map(|&(t, v)| (x.px(days(t)), y.px(v)))
            .collect();
        s.data_line(&px, color, false, &one.name);
        for (cx, cy) in &px {
            s.leaf(
                "circle",
                &[
                    ("cx", n(*cx)),
                    ("cy", n(*cy)),
                    ("r", "3".into()),
                    ("fill", color.into()),
                ],
                None,
            );
        }
        marks += px.len();
        legend.push(Entry {
            text: format!("{} ({} runs)", one.name, px.len()),
            color,
            dashed: false,
        });
    }
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: id.to_string(),
        title: title.to_string(),
        caption: caption.to_string(),
        svg: s.finish(),
        marks,
    })
}

/// `YYYY-MM-DD` of seconds since the Unix epoch.
fn date(t: f64) -> String {
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(t.max(0.0));
    humantime::format_rfc3339_seconds(when).to_string()[..10].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_per_run_and_none_without_runs() {
        let day = 86_400.0;
        let series = [Series {
            name: "scan read MB/s".into(),
            points: vec![
                (1.7e9, 200.0),
                (1.7e9 + 30.0 * day, 180.0),
                (1.7e9 + 60.0 * day, 120.0),
            ],
        }];
        let c = chart("trend-rate", "Rate", "MB/s", "", &series).unwrap();
        assert_eq!(c.marks, 3);
        assert_eq!(c.svg.matches("<circle").count(), 3);
        assert!(c.svg.contains(r#"data-points="3""#));
        assert!(chart("t", "T", "y", "", &[]).is_none());
    }
}
