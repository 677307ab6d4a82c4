//! The response-time histogram on a log time axis, with the tester's bands (<1 ms … ≥500 ms) shaded.

use super::{slug, style, Chart};
use crate::doc::Run;
use crate::format::{duration, duration_tick, thousands};
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Layout};
use crate::svg::n;
use drivescope_record::Document;
use drivescope_stats::{BandCount, HistogramOut};

pub fn chart(run: &Run, i: usize) -> Option<Chart> {
    let (histogram, bands): (&HistogramOut, &[BandCount]) = match &run.doc {
        Document::Scan(s) => (&s.histogram, &s.bands),
        _ => return None,
    };
    let buckets: Vec<(f64, f64, f64)> = histogram
        .buckets
        .iter()
        .map(|b| ((b.low_ns as f64).max(1.0), b.high_ns as f64, b.count as f64))
        .collect();
    if buckets.is_empty() {
        return None;
    }
    let lo = buckets.iter().map(|b| b.0).fold(f64::INFINITY, f64::min);
    let hi = buckets.iter().map(|b| b.1).fold(0.0, f64::max);
    let top = buckets.iter().map(|b| b.2).fold(1.0, f64::max);
    let layout = Layout::new(0);
    let x = Scale::log(lo, hi, layout.left, layout.right);
    let y = Scale::log(0.5, top * 2.0, layout.bottom, layout.top);
    let title = format!("Response times — {}", run.label());
    let axes = Axes {
        x_title: "Response time (log scale)",
        y_title: "Commands (log scale)",
        x_fmt: &duration_tick,
        // The axis starts a decade under one command so single-command buckets show; label whole counts only.
        y_fmt: &|v| {
            if v >= 1.0 {
                thousands(v)
            } else {
                String::new()
            }
        },
    };
    let mut s = frame::start(&title, &layout, &x, &y, &axes);
    // Bands: shade every other band and label it with its share of the commands.
    let total: f64 = bands.iter().map(|b| b.count as f64).sum();
    let mut prev = x.lo;
    for (bi, b) in bands.iter().enumerate() {
        let label = b.label.as_str();
        let upper = b.upper_ns.map(|u| u as f64);
        if label == "failed" {
            continue;
        }
        let end = upper.unwrap_or(x.hi).min(x.hi);
        if end <= x.lo || prev >= x.hi {
            prev = end.max(prev);
            continue;
        }
        let (x0, x1) = (x.px(prev.max(x.lo)), x.px(end));
        if bi % 2 == 0 {
            let a = [
                ("x", n(x0)),
                ("y", n(layout.top)),
                ("width", n(x1 - x0)),
                ("height", n(layout.bottom - layout.top)),
                ("fill", "#f2f2f2".into()),
                ("class", "band".into()),
            ];
            s.leaf("rect", &a, None);
        }
        if x1 - x0 > 30.0 {
            let count = b.count as f64;
            let share = if total > 0.0 {
                count / total * 100.0
            } else {
                0.0
            };
            s.text(
                (x0 + x1) / 2.0,
                layout.top + 14.0,
                "middle",
                &[("font-size", "11".into())],
                label,
            );
            s.text(
                (x0 + x1) / 2.0,
                layout.top + 27.0,
                "middle",
                &[("font-size", "10".into()), ("fill", "#555".into())],
                &format!("{share:.2} %"),
            );
        }
        prev = end;
    }
    let (color, _) = style(run, i);
    s.open(
        "g",
        &[("class", "bars".into()), ("fill", color.to_string())],
    );
    for (lo, hi, c) in &buckets {
        let (x0, x1) = (x.px(*lo), x.px(*hi));
        let y0 = y.px(c.max(y.lo));
        let tip = format!(
            "{} – {}: {} commands",
            duration(*lo),
            duration(*hi),
            thousands(*c)
        );
        s.open(
            "rect",
            &[
                ("class", "mark".into()),
                ("x", n(x0)),
                ("y", n(y0)),
                ("width", n((x1 - x0).max(0.6))),
                ("height", n(layout.bottom - y0)),
            ],
        );
        s.leaf("title", &[], Some(&tip));
        s.close("rect");
    }
    s.close("g");
    if let Some(failed) = bands
        .iter()
        .find(|b| b.label == "failed")
        .map(|b| b.count as f64)
    {
        s.text(
            layout.right - 6.0,
            layout.top + 44.0,
            "end",
            &[("fill", "#b00".into())],
            &format!("failed: {}", thousands(failed)),
        );
    }
    Some(Chart {
        id: format!("histogram-{}", slug(run, i)),
        title,
        caption: format!(
            "{} non-empty buckets; shaded columns are the response-time bands.",
            buckets.len()
        ),
        svg: s.finish(),
        marks: buckets.len(),
    })
}
