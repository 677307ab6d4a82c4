//! An array diagnosis's rates as bars: each member alone and its share of all members at once, the members'
//! sums alone and together, and the array by one reader, by several and (where writes were allowed) by one
//! writer, so that what the array gets from its members shows at a glance.

use super::Chart;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use crate::svg::n;
use drivescope_record::ArrayReads;

const ALONE: &str = "#1f77b4";
const TOGETHER: &str = "#ff7f0e";
const ARRAY: &str = "#2ca02c";

/// The bars: (group label, bar label, colour, MB/s), in drawing order.
fn bars(r: &ArrayReads) -> Vec<(String, &'static str, &'static str, f64)> {
    let mut out = Vec::new();
    for (i, m) in r.array.members.iter().enumerate() {
        if let Some(a) = r.alone_mb_per_s.get(i) {
            out.push((m.name.clone(), "alone", ALONE, *a));
        }
        if let Some(t) = r.together_mb_per_s.get(i) {
            out.push((m.name.clone(), "together", TOGETHER, *t));
        }
    }
    let all = "all members".to_string();
    out.push((all.clone(), "alone", ALONE, r.alone_mb_per_s.iter().sum()));
    out.push((all, "together", TOGETHER, r.together_mb_per_s.iter().sum()));
    if let Some(v) = r.array_mb_per_s {
        out.push(("array".into(), "1 reader", ARRAY, v));
    }
    if let Some(v) = r.readers_mb_per_s {
        out.push(("array".into(), "readers", ARRAY, v));
    }
    if let Some(v) = r.write_mb_per_s {
        out.push(("array".into(), "1 writer", ARRAY, v));
    }
    out
}

/// The chart of `r`, titled with the run's `label` and captioned with what the experiment showed.
pub fn chart(id: String, label: &str, r: &ArrayReads, caption: String) -> Option<Chart> {
    let bars = bars(r);
    let max = bars.iter().map(|b| b.3).fold(0.0, f64::max);
    if bars.is_empty() || max.is_nan() || max <= 0.0 {
        return None;
    }
    let mut groups: Vec<&str> = Vec::new();
    for b in &bars {
        if !groups.contains(&b.0.as_str()) {
            groups.push(&b.0);
        }
    }
    let title = format!("Array and members, MB/s — {label}");
    let layout = Layout::new(3);
    let y = Scale::linear(0.0, max * 1.05, layout.bottom, layout.top);
    let frame_x = frame::categories(&layout);
    let axes = Axes {
        x_fmt: &|_| String::new(),
        ..Axes::rate("")
    };
    let mut s = frame::start(&title, &layout, &frame_x, &y, &axes);
    let slot = (layout.right - layout.left) / groups.len() as f64;
    let font = super::bench::label_font(
        &groups.iter().map(|g| g.to_string()).collect::<Vec<_>>(),
        slot,
    );
    let mut marks = 0;
    for (g, name) in groups.iter().enumerate() {
        s.text(
            layout.left + slot * (g as f64 + 0.5),
            layout.bottom + 15.0,
            "middle",
            &[("font-size", n(font))],
            name,
        );
        let in_group: Vec<_> = bars.iter().filter(|b| b.0 == *name).collect();
        let bar = slot * 0.8 / in_group.len() as f64;
        for (k, (_, what, color, v)) in in_group.iter().enumerate() {
            let x0 = layout.left + slot * g as f64 + slot * 0.1 + bar * k as f64;
            let y0 = y.px(*v);
            s.open(
                "rect",
                &[
                    ("class", "mark".into()),
                    ("fill", color.to_string()),
                    ("x", n(x0)),
                    ("y", n(y0)),
                    ("width", n(bar * 0.92)),
                    ("height", n(layout.bottom - y0)),
                ],
            );
            s.leaf("title", &[], Some(&format!("{name} {what}: {v:.1} MB/s")));
            s.close("rect");
            marks += 1;
        }
    }
    let readers = format!("the array: 1 reader, {} readers", r.readers);
    let array = if r.write_mb_per_s.is_some() {
        format!("{readers}, 1 writer")
    } else {
        readers
    };
    let legend = [
        ("each alone", ALONE),
        ("all members at once", TOGETHER),
        (array.as_str(), ARRAY),
    ]
    .map(|(t, c)| Entry {
        text: t.to_string(),
        color: c,
        dashed: false,
    });
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id,
        title,
        caption,
        svg: s.finish(),
        marks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::{Array, ArrayKind, ArrayMember};
    use std::path::PathBuf;

    fn reads(write: Option<f64>) -> ArrayReads {
        ArrayReads {
            array: Array {
                target: PathBuf::from("/mnt/pool"),
                kind: ArrayKind::Btrfs,
                name: "5b0d".into(),
                level: Some("raid1".into()),
                profiles: vec!["raid1".into()],
                members: (0..3)
                    .map(|i| ArrayMember {
                        name: format!("loop{i}"),
                        dev_path: PathBuf::from(format!("/dev/loop{i}")),
                        major_minor: None,
                    })
                    .collect(),
                controller: None,
                notes: Vec::new(),
                missing: Vec::new(),
                paths_meet: None,
            },
            block_size: 1 << 20,
            queue_depth: 4,
            duration_ns: 1_000_000_000,
            alone_mb_per_s: vec![40.0, 39.0, 41.0],
            together_mb_per_s: vec![13.0, 14.0, 13.5],
            array_mb_per_s: Some(40.0),
            readers: 3,
            readers_mb_per_s: Some(40.5),
            write_mb_per_s: write,
        }
    }

    #[test]
    fn every_member_both_sums_and_the_array_are_a_bar() {
        let c = chart("array-1".into(), "run 1", &reads(None), "Array: …".into()).unwrap();
        // 3 members × (alone, together) + the sums × 2 + the array by 1 and 3 readers.
        assert_eq!(c.marks, 10);
        for t in [
            "loop0 alone: 40.0 MB/s",
            "loop2 together: 13.5 MB/s",
            "all members alone: 120.0 MB/s",
            "all members together: 40.5 MB/s",
            "array 1 reader: 40.0 MB/s",
            "array readers: 40.5 MB/s",
        ] {
            assert!(c.svg.contains(t), "{t} in {}", c.svg);
        }
        assert!(!c.svg.contains("1 writer"));
        let w = chart("array-1".into(), "run 1", &reads(Some(38.0)), String::new()).unwrap();
        assert_eq!(w.marks, 11);
        assert!(w.svg.contains("array 1 writer: 38.0 MB/s"));
    }
}
