//! A queue-depth sweep: IOPS vs queue depth, one line per thread count.

use super::{slug, Chart};
use crate::doc::Run;
use crate::format::thousands;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use crate::svg::{n, PALETTE};
use drivescope_record::Document;

pub fn chart(run: &Run, i: usize) -> Option<Chart> {
    let Document::Sweep(sweep) = &run.doc else {
        return None;
    };
    let cells: Vec<(f64, f64, f64)> = sweep
        .cells
        .iter()
        .map(|c| (c.queue_depth as f64, c.threads as f64, c.iops))
        .collect();
    if cells.is_empty() {
        return None;
    }
    let mut threads: Vec<f64> = cells.iter().map(|c| c.1).collect();
    threads.sort_by(f64::total_cmp);
    threads.dedup();
    let layout = Layout::new(threads.len());
    let qd_max = cells.iter().map(|c| c.0).fold(1.0, f64::max);
    let x = Scale::log_range(1.0, qd_max, layout.left, layout.right);
    let y = Scale::linear(
        0.0,
        cells.iter().map(|c| c.2).fold(0.0, f64::max) * 1.05,
        layout.bottom,
        layout.top,
    );
    let what = format!("{} {}", sweep.pattern, sweep.rw);
    let title = format!("{} IOPS vs queue depth — {}", what.trim(), run.label());
    let axes = Axes {
        y_fmt: &|v| thousands(v),
        ..Axes::labelled("Queue depth per thread (log scale)", "IOPS")
    };
    let mut s = frame::start(&title, &layout, &x, &y, &axes);
    let mut legend = Vec::new();
    for (k, t) in threads.iter().enumerate() {
        let color = PALETTE[k % PALETTE.len()];
        let mut pts: Vec<(f64, f64)> = cells
            .iter()
            .filter(|c| c.1 == *t)
            .map(|c| (c.0, c.2))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let px: Vec<(f64, f64)> = pts.iter().map(|(q, v)| (x.px(*q), y.px(*v))).collect();
        let line: Vec<String> = px
            .iter()
            .map(|(a, b)| format!("{},{}", n(*a), n(*b)))
            .collect();
        s.leaf(
            "polyline",
            &[
                ("points", line.join(" ")),
                ("fill", "none".into()),
                ("stroke", color.into()),
                ("stroke-width", "1.5".into()),
            ],
            None,
        );
        for ((q, v), (a, b)) in pts.iter().zip(&px) {
            s.open(
                "circle",
                &[
                    ("class", "mark".into()),
                    ("cx", n(*a)),
                    ("cy", n(*b)),
                    ("r", "3.5".into()),
                    ("fill", color.into()),
                ],
            );
            s.leaf(
                "title",
                &[],
                Some(&format!("Q{q} T{t}: {} IOPS", thousands(*v))),
            );
            s.close("circle");
        }
        legend.push(Entry {
            text: format!("{t} thread{}", if *t == 1.0 { "" } else { "s" }),
            color,
            dashed: false,
        });
    }
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: format!("sweep-{}", slug(run, i)),
        title,
        caption: format!("{} cells; one line per thread count.", cells.len()),
        svg: s.finish(),
        marks: cells.len(),
    })
}
