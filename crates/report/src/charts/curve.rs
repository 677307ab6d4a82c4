//! Transfer rate vs position: every scan's curve in one chart (read and write of a device, and several runs,
//! overlaid for comparison).

use super::{position_unit, style, Chart};
use crate::doc::Run;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use drivescope_record::Document;

/// A run's index, the run, and its (position, MB/s) points.
type Curve<'a> = (usize, &'a Run, Vec<(f64, f64)>);

pub fn chart(runs: &[Run]) -> Option<Chart> {
    let curves: Vec<Curve<'_>> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let Document::Scan(s) = &r.doc else {
                return None;
            };
            let pts: Vec<(f64, f64)> = s
                .curve
                .iter()
                .map(|c| (c.offset as f64 + c.length as f64 / 2.0, c.mb_per_s))
                .collect();
            (!pts.is_empty()).then_some((i, r, pts))
        })
        .collect();
    if curves.is_empty() {
        return None;
    }
    let max_pos = curves
        .iter()
        .flat_map(|c| c.2.iter().map(|p| p.0))
        .fold(0.0, f64::max);
    let ends = runs.iter().filter_map(|r| match &r.doc {
        Document::Scan(s) => Some(s.offset as f64 + s.length as f64),
        _ => None,
    });
    let max_pos = ends.fold(max_pos, f64::max);
    let max_rate = curves
        .iter()
        .flat_map(|c| c.2.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let layout = Layout::new(curves.len());
    // Positions are scaled in the display unit (GiB, TiB) so ticks fall on round numbers of it.
    let (div, unit) = position_unit(max_pos);
    let x = Scale::linear(0.0, max_pos / div, layout.left, layout.right);
    let y = Scale::linear(0.0, max_rate * 1.05, layout.bottom, layout.top);
    let title = "Transfer rate vs position";
    let x_title = format!("Position ({unit})");
    let mut s = frame::start(title, &layout, &x, &y, &Axes::rate(&x_title));
    let mut marks = 0;
    let mut legend = Vec::new();
    for (i, run, pts) in &curves {
        let (color, dashed) = style(run, *i);
        let px: Vec<(f64, f64)> = pts
            .iter()
            .map(|(p, r)| (x.px(*p / div), y.px(*r)))
            .collect();
        s.data_line(&px, color, dashed, &run.label());
        marks += px.len();
        legend.push(Entry {
            text: format!("{} ({} points)", run.legend(), pts.len()),
            color,
            dashed,
        });
    }
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: "curve".into(),
        title: title.into(),
        caption: "Mean transfer rate of each position bin; writes dashed.".into(),
        svg: s.finish(),
        marks,
    })
}
