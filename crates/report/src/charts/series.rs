//! A soak's time series: transfer rate over time, with the detected steps marked.

use super::{slug, style, Chart};
use crate::doc::Run;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use drivescope_record::Document;

pub fn chart(run: &Run, i: usize) -> Option<Chart> {
    let Document::Soak(soak) = &run.doc else {
        return None;
    };
    let pts: Vec<(f64, f64)> = soak
        .series
        .iter()
        .map(|p| (p.t_ns as f64 / 1e9, p.mb_per_s))
        .collect();
    if pts.is_empty() {
        return None;
    }
    let layout = Layout::new(1);
    let x = Scale::range(
        0.0,
        pts.iter().map(|p| p.0).fold(0.0, f64::max),
        layout.left,
        layout.right,
    );
    let y = Scale::linear(
        0.0,
        pts.iter().map(|p| p.1).fold(0.0, f64::max) * 1.05,
        layout.bottom,
        layout.top,
    );
    let test = &soak.test;
    let title = format!("{test} over time — {}", run.label());
    let mut s = frame::start(&title, &layout, &x, &y, &Axes::rate("Time (s)"));
    for step in &soak.steps {
        let px = x.px(step.t_ns as f64 / 1e9);
        s.line(
            px,
            layout.top,
            px,
            layout.bottom,
            "#888",
            &[("stroke-dasharray", "3 3".into()), ("class", "step".into())],
        );
        let (a, b) = (step.from_mb_per_s, step.to_mb_per_s);
        s.text(
            px + 4.0,
            layout.top + 14.0,
            "start",
            &[("font-size", "11".into())],
            &format!("{a:.0} → {b:.0} MB/s"),
        );
    }
    let steady = soak.steady_mb_per_s;
    if steady > 0.0 {
        let py = y.px(steady);
        s.line(
            layout.left,
            py,
            layout.right,
            py,
            "#2ca02c",
            &[("stroke-dasharray", "8 4".into())],
        );
        s.text(
            layout.right - 4.0,
            py - 4.0,
            "end",
            &[("font-size", "11".into())],
            &format!("steady {steady:.0} MB/s"),
        );
    }
    let (color, _) = style(run, i);
    let px: Vec<(f64, f64)> = pts.iter().map(|(t, r)| (x.px(*t), y.px(*r))).collect();
    s.data_line(&px, color, false, &run.label());
    frame::legend(
        &mut s,
        &layout,
        &[Entry {
            text: format!("{} ({} samples)", run.legend(), pts.len()),
            color,
            dashed: false,
        }],
    );
    Some(Chart {
        id: format!("series-{}", slug(run, i)),
        title,
        caption: "Transfer rate per interval; dashed verticals are steps, the green line the steady rate.".into(),
        svg: s.finish(),
        marks: pts.len(),
    })
}
