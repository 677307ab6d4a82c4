//! A soak's time series: transfer rate over time, with the detected steps marked; a scan's, when it
//! kept the drive's temperature. The temperature goes on a second axis.

use super::{slug, style, Chart};
use crate::doc::Run;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry};
use drivescope_record::{Document, ScanRecord, TemperatureSeries};
use drivescope_stats::SeriesPoint;

fn rates(series: &[SeriesPoint]) -> Vec<(f64, f64)> {
    series
        .iter()
        .map(|p| (p.t_ns as f64 / 1e9, p.mb_per_s))
        .collect()
}

pub fn chart(run: &Run, i: usize) -> Option<Chart> {
    let soak = match &run.doc {
        Document::Soak(soak) => soak,
        Document::Scan(scan) => return scan_chart(run, i, scan),
        _ => return None,
    };
    let pts = rates(&soak.series);
    if pts.is_empty() {
        return None;
    }
    let temp = soak.temperature.as_ref();
    let layout = super::temperature::layout(1, temp);
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
    let mut legend = vec![Entry {
        text: format!("{} ({} samples)", run.legend(), pts.len()),
        color,
        dashed: false,
    }];
    let warm = super::temperature::overlay(&mut s, &layout, &x, temp);
    let also = if warm.is_some() {
        "; the red dotted line the drive's temperature (right axis)"
    } else {
        ""
    };
    legend.extend(warm);
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: format!("series-{}", slug(run, i)),
        title,
        caption: format!(
            "Transfer rate per interval; dashed verticals are steps, the green line the steady rate{also}."
        ),
        svg: s.finish(),
        marks: pts.len(),
    })
}

/// A scan's rate over time with the drive's temperature: drawn only when the scan kept readings (the
/// transfer-rate curve by position is its chart otherwise).
fn scan_chart(run: &Run, i: usize, scan: &ScanRecord) -> Option<Chart> {
    let temp: &TemperatureSeries = super::temperature::drawable(scan.temperature.as_ref())?;
    let pts = rates(&scan.series);
    if pts.len() < 2 {
        return None;
    }
    let layout = super::temperature::layout(1, Some(temp));
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
    let title = format!("Scan rate over time — {}", run.label());
    let mut s = frame::start(&title, &layout, &x, &y, &Axes::rate("Time (s)"));
    let (color, dashed) = style(run, i);
    let px: Vec<(f64, f64)> = pts.iter().map(|(t, r)| (x.px(*t), y.px(*r))).collect();
    s.data_line(&px, color, dashed, &run.label());
    let mut legend = vec![Entry {
        text: format!("{} ({} samples)", run.legend(), pts.len()),
        color,
        dashed,
    }];
    legend.extend(super::temperature::overlay(&mut s, &layout, &x, Some(temp)));
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: format!("scan-series-{}", slug(run, i)),
        title,
        caption: "Transfer rate per interval of the scan; the red dotted line is the drive's temperature (right axis).".into(),
        svg: s.finish(),
        marks: pts.len(),
    })
}
