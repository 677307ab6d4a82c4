//! Bench results as grouped bars: one group per test (name and read/write), one bar per run.

use super::{style, Chart};
use crate::doc::Run;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use crate::svg::n;
use drivescope_record::{BenchRecord, Document, TestResult};

pub fn chart(runs: &[Run]) -> Option<Chart> {
    let benches: Vec<(usize, &Run, &BenchRecord)> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match &r.doc {
            Document::Bench(b) if !b.tests.is_empty() => Some((i, r, b.as_ref())),
            _ => None,
        })
        .collect();
    if benches.is_empty() {
        return None;
    }
    let name = |t: &TestResult| format!("{} {}", t.name, t.rw);
    let mut groups: Vec<String> = Vec::new();
    for (_, _, b) in &benches {
        for t in &b.tests {
            let g = name(t);
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
    }
    let max = benches
        .iter()
        .flat_map(|(_, _, b)| b.tests.iter().map(|t| t.mb_per_s))
        .fold(0.0, f64::max);
    let layout = Layout::new(benches.len());
    let y = Scale::linear(0.0, max * 1.05, layout.bottom, layout.top);
    // The x axis is categorical; a unit scale only places the frame.
    let x = Scale {
        lo: 0.0,
        hi: groups.len() as f64,
        log: false,
        p0: layout.left,
        p1: layout.right,
    };
    let axes = Axes {
        x_fmt: &|_| String::new(),
        ..Axes::rate("")
    };
    let frame_x = Scale {
        lo: 0.0,
        hi: 0.0,
        ..x
    };
    let mut s = frame::start("Bench results", &layout, &frame_x, &y, &axes);
    let slot = (layout.right - layout.left) / groups.len() as f64;
    let bar = slot * 0.8 / benches.len() as f64;
    let mut marks = 0;
    let mut legend = Vec::new();
    for (g, gname) in groups.iter().enumerate() {
        s.text(
            layout.left + slot * (g as f64 + 0.5),
            layout.bottom + 19.0,
            "middle",
            &[("font-size", "11".into())],
            gname,
        );
    }
    for (k, (i, run, b)) in benches.iter().enumerate() {
        let (color, _) = style(run, *i);
        s.open("g", &[("fill", color.to_string())]);
        for t in &b.tests {
            let v = t.mb_per_s;
            let Some(g) = groups.iter().position(|g| *g == name(t)) else {
                continue;
            };
            let x0 = layout.left + slot * g as f64 + slot * 0.1 + bar * k as f64;
            let y0 = y.px(v);
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
            s.leaf(
                "title",
                &[],
                Some(&format!("{}: {} {v:.1} MB/s", run.label(), name(t))),
            );
            s.close("rect");
            marks += 1;
        }
        s.close("g");
        legend.push(Entry {
            text: run.legend(),
            color,
            dashed: false,
        });
    }
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: "bench".into(),
        title: "Bench results".into(),
        caption: "Mean MB/s of each test, one bar per run.".into(),
        svg: s.finish(),
        marks,
    })
}
