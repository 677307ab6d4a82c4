//! A line on a plot's canvas in braille dots: the transfer curve by position (one point per
//! bin at its middle) or any polyline, such as a rate over time.

use drivescope_core::scan::live::BinSnap;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::symbols::Marker;
use ratatui::widgets::canvas::{Canvas, Line as Segment};
use ratatui::Frame;

/// One straight piece of a line, in the plot's own units; a point where both ends are equal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seg {
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
}

/// A bin no command has touched: nothing read, failed or slow there.
fn untouched(b: &BinSnap) -> bool {
    b.bytes == 0 && b.unpaced_bytes == 0 && b.failed == 0 && b.slow == 0
}

/// For each bin, the bin its point joins: the next one when it has a rate too; in a quick
/// scan (regions read here and there) the next bin with a rate past any bins between that
/// were not read, so the regions show as one curve. A bin read without a rate (all failed)
/// breaks the line in both.
pub fn joins(bins: &[BinSnap], rates: &[Option<f64>], quick: bool) -> Vec<Option<usize>> {
    let mut next = vec![None; bins.len()];
    let mut ahead: Option<usize> = None;
    for i in (0..bins.len()).rev() {
        next[i] = ahead;
        if rates[i].is_some() {
            ahead = Some(i);
        } else if !(quick && untouched(&bins[i])) {
            ahead = None;
        }
    }
    next
}

/// The curve by position on x from 0 to 1: each bin's rate (already on the plot's scale) at
/// its middle, joined as [`joins`] says; a point where it joins nothing.
pub fn by_position(bins: &[BinSnap], rates: &[Option<f64>], quick: bool) -> Vec<Seg> {
    let n = bins.len().max(1);
    let x = |i: usize| (i as f64 + 0.5) / n as f64;
    let next = joins(bins, rates, quick);
    (0..bins.len())
        .filter_map(|i| {
            let y1 = rates[i]?;
            let (x2, y2) = match next[i].and_then(|j| Some((j, rates[j]?))) {
                Some((j, y2)) => (x(j), y2),
                None => (x(i), y1),
            };
            Some(Seg {
                x1: x(i),
                y1,
                x2,
                y2,
            })
        })
        .collect()
}

/// The points joined in order; a single point drawn as one.
pub fn polyline(points: &[(f64, f64)]) -> Vec<Seg> {
    let seg = |a: (f64, f64), b: (f64, f64)| Seg {
        x1: a.0,
        y1: a.1,
        x2: b.0,
        y2: b.1,
    };
    match points {
        [p] => vec![seg(*p, *p)],
        _ => points.windows(2).map(|w| seg(w[0], w[1])).collect(),
    }
}

/// Draw `segs` in `plot`, x from 0 to `x_max` and y from 0 to `y_max`.
pub fn draw(f: &mut Frame, plot: Rect, segs: Vec<Seg>, x_max: f64, y_max: f64) {
    let canvas = Canvas::default()
        .marker(Marker::Braille)
        .x_bounds([0.0, x_max])
        .y_bounds([0.0, y_max])
        .paint(move |ctx| {
            for s in &segs {
                ctx.draw(&Segment {
                    x1: s.x1,
                    y1: s.y1,
                    x2: s.x2,
                    y2: s.y2,
                    color: Color::Cyan,
                });
            }
        });
    f.render_widget(canvas, plot);
}
