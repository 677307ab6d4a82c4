//! A timed workload's chart: each mode's runs as a strip of dots (wall time), the disk's busy time of each
//! run beside it, and the median as a bar across the strip; the mode's label carries its busy share.

use super::{slug, Chart};
use crate::doc::Run;
use crate::format::duration_tick;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use crate::svg::{n, PALETTE};
use drivescope_record::Document;

const WALL: &str = PALETTE[0];
const BUSY: &str = PALETTE[1];

pub fn chart(run: &Run, i: usize) -> Option<Chart> {
    let Document::Time(r) = &run.doc else {
        return None;
    };
    let modes: Vec<_> = r.modes.iter().filter(|m| !m.runs.is_empty()).collect();
    if modes.is_empty() {
        return None;
    }
    let top = modes
        .iter()
        .flat_map(|m| m.runs.iter().map(|x| x.wall_ns as f64))
        .fold(1.0, f64::max);
    let layout = Layout::new(2);
    let y = Scale::linear(0.0, top * 1.1, layout.bottom, layout.top);
    let frame_x = frame::categories(&layout);
    let axes = Axes {
        x_title: "Mode",
        y_title: "Time per run",
        x_fmt: &|_| String::new(),
        y_fmt: &duration_tick,
    };
    let title = format!("Run times, cold and warm — {}", run.label());
    let mut s = frame::start(&title, &layout, &frame_x, &y, &axes);
    let slot = (layout.right - layout.left) / modes.len() as f64;
    let mut marks = 0;
    for (g, m) in modes.iter().enumerate() {
        let mid = layout.left + slot * (g as f64 + 0.5);
        let label = format!(
            "{} ({} runs, disk busy {:.0} %)",
            m.mode,
            m.runs.len(),
            m.summary.busy_share * 100.0
        );
        s.text(
            mid,
            layout.bottom + 19.0,
            "middle",
            &[("font-size", "11".into())],
            &label,
        );
        let k = m.runs.len().max(1) as f64;
        let med = y.px(m.summary.wall_ns.median);
        s.line(mid - slot * 0.3, med, mid + slot * 0.3, med, "#333", &[]);
        for (j, x) in m.runs.iter().enumerate() {
            // Spread the runs across the strip in the order they ran.
            let off = (j as f64 + 0.5) / k - 0.5;
            let px = mid + off * slot * 0.5;
            let busy = m.runs[j]
                .device(r.devices.first().map_or("", String::as_str))
                .map_or(0, |d| d.busy_ns);
            for (v, color, what) in [(x.wall_ns, WALL, "wall"), (busy, BUSY, "disk busy")] {
                s.open(
                    "circle",
                    &[
                        ("class", "mark".into()),
                        ("cx", n(if what == "wall" { px } else { px + 6.0 })),
                        ("cy", n(y.px(v as f64))),
                        ("r", if x.outlier { "6".into() } else { "4".into() }),
                        ("fill", color.to_string()),
                    ],
                );
                let tip = format!(
                    "{} run {}: {what} {}{}",
                    m.mode,
                    x.index,
                    duration_tick(v as f64),
                    if x.outlier { " (outlier)" } else { "" }
                );
                s.leaf("title", &[], Some(&tip));
                s.close("circle");
                marks += 1;
            }
        }
    }
    frame::legend(
        &mut s,
        &layout,
        &[
            Entry {
                text: "wall time of a run (large: an outlier); the bar: the median".into(),
                color: WALL,
                dashed: false,
            },
            Entry {
                text: "time the disk was busy during that run".into(),
                color: BUSY,
                dashed: false,
            },
        ],
    );
    Some(Chart {
        id: format!("time-runs-{}", slug(run, i)),
        title,
        caption: "Each timed run's wall time and the time the file system's disk was busy during it, per mode."
            .into(),
        svg: s.finish(),
        marks,
    })
}
