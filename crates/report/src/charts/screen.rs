//! A group screen's charts: every drive's rate curve in one chart (by position when the drives are the same
//! size, by share of each drive otherwise), and the drives' commands per response-time band side by side.

use super::overlay::{self, Line};
use super::{slug, Chart};
use crate::doc::Run;
use crate::format::thousands;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use crate::svg::{n, PALETTE};
use drivescope_record::{Document, ScanRecord, ScreenRecord};

pub fn charts(run: &Run, i: usize) -> Vec<Chart> {
    let Document::Screen(r) = &run.doc else {
        return Vec::new();
    };
    let mut out = Vec::new();
    out.extend(curves(run, r, i));
    out.extend(bands(run, r, i));
    out
}

/// The legend text of drive `k`: its target, model and serial when known.
fn name(r: &ScreenRecord, k: usize) -> String {
    let h = crate::screen::Head::of(&r.members[k]);
    let id: Vec<String> = [h.model, h.serial].into_iter().flatten().collect();
    if id.is_empty() {
        h.target
    } else {
        format!("{} · {}", h.target, id.join(" "))
    }
}

fn scans(r: &ScreenRecord) -> Vec<(usize, &ScanRecord)> {
    r.members
        .iter()
        .enumerate()
        .filter_map(|(k, m)| Some((k, m.scan.as_deref()?)))
        .collect()
}

fn curves(run: &Run, r: &ScreenRecord, i: usize) -> Option<Chart> {
    let lines: Vec<Line> = scans(r)
        .into_iter()
        .map(|(k, scan)| Line {
            color: k,
            legend: name(r, k),
            target: r.members[k].target.clone(),
            scan,
        })
        .collect();
    overlay::curves(
        run,
        &format!("screen-curve-{}", slug(run, i)),
        "Mean transfer rate of each position bin of every drive of the screen, one line per drive.",
        &lines,
        r.write,
    )
}

fn bands(run: &Run, r: &ScreenRecord, i: usize) -> Option<Chart> {
    let scans: Vec<(usize, &ScanRecord)> = scans(r)
        .into_iter()
        .filter(|(_, s)| !s.bands.is_empty())
        .collect();
    let labels: Vec<String> = scans
        .iter()
        .flat_map(|(_, s)| s.bands.iter().map(|b| b.label.clone()))
        .fold(Vec::new(), |mut v, l| {
            if !v.contains(&l) {
                v.push(l);
            }
            v
        });
    if labels.is_empty() {
        return None;
    }
    let count =
        |s: &ScanRecord, l: &str| s.bands.iter().find(|b| b.label == l).map_or(0, |b| b.count);
    let top = scans
        .iter()
        .flat_map(|(_, s)| s.bands.iter().map(|b| b.count as f64))
        .fold(1.0, f64::max);
    let layout = Layout::new(scans.len());
    let y = Scale::log(0.5, top * 2.0, layout.bottom, layout.top);
    // A categorical x axis: the frame draws no x ticks, the groups are labelled here.
    let frame_x = frame::categories(&layout);
    let axes = Axes {
        x_title: "Response-time band",
        y_title: "Commands (log scale)",
        x_fmt: &|_| String::new(),
        y_fmt: &|v| {
            if v >= 1.0 {
                thousands(v)
            } else {
                String::new()
            }
        },
    };
    let title = format!("Commands per response-time band — {}", run.label());
    let mut s = frame::start(&title, &layout, &frame_x, &y, &axes);
    let slot = (layout.right - layout.left) / labels.len() as f64;
    let bar = slot * 0.8 / scans.len() as f64;
    for (g, l) in labels.iter().enumerate() {
        let x = layout.left + slot * (g as f64 + 0.5);
        s.text(
            x,
            layout.bottom + 19.0,
            "middle",
            &[("font-size", "11".into())],
            l,
        );
    }
    let mut marks = 0;
    let mut legend = Vec::new();
    for (j, (k, scan)) in scans.iter().enumerate() {
        let color = PALETTE[k % PALETTE.len()];
        s.open("g", &[("fill", color.to_string())]);
        for (g, l) in labels.iter().enumerate() {
            let c = count(scan, l);
            if c == 0 {
                continue;
            }
            let x0 = layout.left + slot * g as f64 + slot * 0.1 + bar * j as f64;
            let y0 = y.px(c as f64);
            s.open(
                "rect",
                &[
                    ("class", "mark".into()),
                    ("x", n(x0)),
                    ("y", n(y0)),
                    ("width", n(bar * 0.92)),
                    ("height", n(layout.bottom - y0)),
                ],
            );
            let tip = format!(
                "{}: {l} {} commands",
                r.members[*k].target,
                thousands(c as f64)
            );
            s.leaf("title", &[], Some(&tip));
            s.close("rect");
            marks += 1;
        }
        s.close("g");
        legend.push(Entry {
            text: name(r, *k),
            color,
            dashed: false,
        });
    }
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: format!("screen-bands-{}", slug(run, i)),
        title,
        caption: "Commands of each drive per response-time band (failed: commands that failed), one bar per \
                  drive; bands without commands have no bar."
            .into(),
        svg: s.finish(),
        marks,
    })
}
