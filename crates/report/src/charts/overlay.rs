//! Several scans' rate curves in one chart: by position when they are the same size, by share of each
//! otherwise (a screen's drives, a multi-rank scan's ranks).

use super::{position_unit, Chart};
use crate::doc::Run;
use crate::svg::axis::Scale;
use crate::svg::frame::{self, Axes, Entry, Layout};
use crate::svg::PALETTE;
use drivescope_record::ScanRecord;

/// One scan's line: its palette index, legend text, target (the line's label) and record.
pub struct Line<'a> {
    pub color: usize,
    pub legend: String,
    pub target: String,
    pub scan: &'a ScanRecord,
}

pub fn curves(run: &Run, id: &str, caption: &str, lines: &[Line], write: bool) -> Option<Chart> {
    let scans: Vec<(usize, &Line)> = lines
        .iter()
        .filter(|l| !l.scan.curve.is_empty())
        .map(|l| (l.color, l))
        .collect();
    if scans.is_empty() {
        return None;
    }
    let same_size = scans
        .windows(2)
        .all(|w| w[0].1.scan.length == w[1].1.scan.length);
    let longest = scans.iter().map(|(_, l)| l.scan.length).max().unwrap_or(0) as f64;
    let (div, x_title) = if same_size {
        let (div, unit) = position_unit(longest);
        (div, format!("Position ({unit})"))
    } else {
        (0.0, "Position (% of each drive)".to_string())
    };
    let x_of = |s: &ScanRecord, pos: f64| {
        if same_size {
            pos / div
        } else {
            (pos - s.offset as f64) * 100.0 / s.length.max(1) as f64
        }
    };
    let top = scans
        .iter()
        .flat_map(|(_, l)| l.scan.curve.iter().map(|p| p.mb_per_s))
        .fold(0.0, f64::max);
    let layout = Layout::new(scans.len());
    let x_hi = if same_size { longest / div } else { 100.0 };
    let x = Scale::range(0.0, x_hi, layout.left, layout.right);
    let y = Scale::linear(0.0, top * 1.05, layout.bottom, layout.top);
    let title = format!("Transfer rate vs position — {}", run.label());
    let mut s = frame::start(&title, &layout, &x, &y, &Axes::rate(&x_title));
    let mut marks = 0;
    let mut legend = Vec::new();
    for (k, line) in &scans {
        let scan = line.scan;
        let color = PALETTE[k % PALETTE.len()];
        let px: Vec<(f64, f64)> = scan
            .curve
            .iter()
            .map(|p| {
                let mid = p.offset as f64 + p.length as f64 / 2.0;
                (x.px(x_of(scan, mid)), y.px(p.mb_per_s))
            })
            .collect();
        s.data_line(&px, color, write, &line.target);
        marks += px.len();
        legend.push(Entry {
            text: format!("{} ({} points)", line.legend, px.len()),
            color,
            dashed: write,
        });
    }
    frame::legend(&mut s, &layout, &legend);
    Some(Chart {
        id: id.to_string(),
        title,
        caption: caption.to_string(),
        svg: s.finish(),
        marks,
    })
}
