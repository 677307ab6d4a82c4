//! The quick scan: one bar per region, transfer rate by position.

use super::{position_unit, slug, style, Chart};
use crate::doc::Run;
use crate::format::duration;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Layout};
use crate::svg::n;
use drivescope_record::Document;

pub fn chart(run: &Run, i: usize) -> Option<Chart> {
    let Document::Scan(scan) = &run.doc else {
        return None;
    };
    let regions: Vec<(f64, f64, Option<f64>)> = scan
        .regions
        .iter()
        .flatten()
        .map(|r| (r.offset as f64, r.mb_per_s, Some(r.first_ns as f64)))
        .collect();
    if regions.is_empty() {
        return None;
    }
    let size = Some(scan.length as f64).filter(|l| *l > 0.0);
    let last = regions.iter().map(|r| r.0).fold(0.0, f64::max);
    let end = size.unwrap_or(0.0).max(last + last / regions.len() as f64);
    let layout = Layout::new(0);
    let (div, unit) = position_unit(end);
    let x = Scale::range(0.0, end / div, layout.left, layout.right);
    let y = Scale::linear(
        0.0,
        regions.iter().map(|r| r.1).fold(0.0, f64::max) * 1.05,
        layout.bottom,
        layout.top,
    );
    let title = format!("Quick scan by region — {}", run.label());
    let x_title = format!("Region start ({unit})");
    let mut s = frame::start(&title, &layout, &x, &y, &Axes::rate(&x_title));
    let width = ((layout.right - layout.left) / regions.len() as f64 * 0.8).max(0.8);
    let (color, _) = style(run, i);
    s.open(
        "g",
        &[("class", "bars".into()), ("fill", color.to_string())],
    );
    for (k, (off, rate, first)) in regions.iter().enumerate() {
        let y0 = y.px(*rate);
        s.open(
            "rect",
            &[
                ("class", "mark".into()),
                ("x", n(x.px(*off / div))),
                ("y", n(y0)),
                ("width", n(width)),
                ("height", n(layout.bottom - y0)),
            ],
        );
        let first = first
            .map(|f| format!(", first command {}", duration(f)))
            .unwrap_or_default();
        s.leaf(
            "title",
            &[],
            Some(&format!("region {k}: {rate:.1} MB/s{first}")),
        );
        s.close("rect");
    }
    s.close("g");
    Some(Chart {
        id: format!("regions-{}", slug(run, i)),
        title,
        caption: format!("{} regions read across the device.", regions.len()),
        svg: s.finish(),
        marks: regions.len(),
    })
}
