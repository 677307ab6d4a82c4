//! A diagnosis's charts, each captioned with what its experiment showed: an array's members and its own rates,
//! the warm-up stream over time, the rate by position, the working-set curve, the queue depths and the sustained write.

use super::{slug, style, Chart};
use crate::doc::Run;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry};
use drivescope_record::{DiagnoseRecord, Document, Experiment, StreamPoint, TemperatureSeries};

/// What the experiment showed, for the caption: its findings' claims, or its outcome line.
fn shown(d: &DiagnoseRecord, e: Experiment) -> String {
    d.outcomes
        .iter()
        .find(|o| o.experiment == e)
        .map(|o| o.text.clone())
        .unwrap_or_default()
}

/// Stretches gathered into at most `n` time bins: (end s, MB/s).
fn over_time(points: &[StreamPoint], n: usize) -> Vec<(f64, f64)> {
    let per = points.len().div_ceil(n.max(1)).max(1);
    let mut out = Vec::new();
    let mut prev_t = 0u64;
    for c in points.chunks(per) {
        let end = c.last().map_or(prev_t, |p| p.t_ns);
        let bytes: u64 = c.iter().map(|p| p.bytes).sum();
        if end > prev_t {
            out.push((end as f64 / 1e9, bytes as f64 * 1e3 / (end - prev_t) as f64));
        }
        prev_t = end;
    }
    out
}

/// One line chart of `pts` (x, y), with the run's colour; over time, the drive's temperature `temp` on a
/// second axis.
#[allow(clippy::too_many_arguments)]
fn line(
    run: &Run,
    i: usize,
    id: &str,
    title: String,
    x_label: &str,
    y_label: Option<&str>,
    caption: String,
    pts: &[(f64, f64)],
    temp: Option<&TemperatureSeries>,
) -> Option<Chart> {
    if pts.len() < 2 {
        return None;
    }
    let layout = super::temperature::layout(1, temp);
    let max_x = pts.iter().map(|p| p.0).fold(0.0, f64::max);
    let max_y = pts.iter().map(|p| p.1).fold(0.0, f64::max) * 1.05;
    let x = Scale::range(0.0, max_x, layout.left, layout.right);
    let y = Scale::linear(0.0, max_y.max(1e-9), layout.bottom, layout.top);
    let axes = match y_label {
        None => Axes::rate(x_label),
        Some(l) => Axes::labelled(x_label, l),
    };
    let mut s = frame::start(&title, &layout, &x, &y, &axes);
    let (color, _) = style(run, i);
    let px: Vec<(f64, f64)> = pts.iter().map(|(a, b)| (x.px(*a), y.px(*b))).collect();
    s.data_line(&px, color, false, &run.label());
    let mut legend = vec![Entry {
        text: format!("{} ({} points)", run.legend(), pts.len()),
        color,
        dashed: false,
    }];
    legend.extend(super::temperature::overlay(&mut s, &layout, &x, temp));
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: format!("{id}-{}", slug(run, i)),
        title,
        caption,
        svg: s.finish(),
        marks: pts.len(),
    })
}

pub fn charts(run: &Run, i: usize) -> Vec<Chart> {
    let Document::Diagnose(d) = &run.doc else {
        return Vec::new();
    };
    let label = run.label();
    let mut out = Vec::new();
    if let Some(a) = &d.array {
        out.extend(super::array::chart(
            format!("array-{}", slug(run, i)),
            &label,
            a,
            format!("Array: {}", shown(d, Experiment::Array)),
        ));
    }
    if let Some(w) = &d.warm_up {
        out.extend(line(
            run,
            i,
            "warmup",
            format!("Sequential reads from the first command — {label}"),
            "Time (s)",
            None,
            format!("Warm-up: {}", shown(d, Experiment::WarmUp)),
            &over_time(&w.points, 240),
            d.temperature.as_ref(),
        ));
    }
    if let Some(t) = &d.throttle {
        out.extend(line(
            run,
            i,
            "throttle",
            format!(
                "Sequential reads again after {:.0} s of rest — {label}",
                t.idle_ns as f64 / 1e9
            ),
            "Time (s)",
            None,
            format!("Throttle: {}", shown(d, Experiment::Throttle)),
            &over_time(&t.points, 240),
            // Its time axis starts at the read after the rest, not at the run's start.
            None,
        ));
    }
    if let Some(z) = &d.zones {
        let pts: Vec<(f64, f64)> = z
            .curve
            .iter()
            .map(|p| (p.offset as f64 / (1u64 << 20) as f64, p.mb_per_s))
            .collect();
        out.extend(line(
            run,
            i,
            "zones",
            format!("Rate by position — {label}"),
            "Position (MiB)",
            None,
            format!("Zones: {}", shown(d, Experiment::Zones)),
            &pts,
            None,
        ));
    }
    if let Some(c) = &d.read_cache {
        let mut pts: Vec<(f64, f64)> = c
            .points
            .iter()
            .map(|p| (p.size as f64 / (1u64 << 20) as f64, p.again_mb_per_s))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        out.extend(line(
            run,
            i,
            "workingset",
            format!("Second read by working set — {label}"),
            "Working set (MiB)",
            None,
            format!("Read cache: {}", shown(d, Experiment::ReadCache)),
            &pts,
            None,
        ));
    }
    if let Some(q) = &d.queueing {
        out.extend(line(
            run,
            i,
            "queueing",
            format!("RND4K IOPS by queue depth — {label}"),
            "Queue depth",
            Some("IOPS"),
            format!("Queueing: {}", shown(d, Experiment::Queueing)),
            &[(1.0, q.q1_iops), (q.queue_depth as f64, q.deep_iops)],
            None,
        ));
    }
    if let Some(w) = &d.write_cache {
        out.extend(line(
            run,
            i,
            "write",
            format!("Sustained sequential write — {label}"),
            "Time (s)",
            None,
            format!("Write cache: {}", shown(d, Experiment::WriteCache)),
            &over_time(&w.points, 240),
            // Its time is from the write's first command, not the run's start.
            None,
        ));
    }
    out
}
