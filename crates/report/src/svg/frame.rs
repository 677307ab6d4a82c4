//! The frame every chart shares: plot area, title, grid, ticks, axis titles with units, legend.

use super::axis::Scale;
use super::{n, Svg};

pub const WIDTH: f64 = 900.0;
const PLOT_H: f64 = 300.0;
const LEFT: f64 = 84.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 44.0;
const LEGEND_LINE: f64 = 18.0;

/// Where the plot area lies in a chart with `legend` entries.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
    pub height: f64,
}

impl Layout {
    pub fn new(legend: usize) -> Layout {
        let bottom = TOP + PLOT_H;
        Layout {
            left: LEFT,
            right: WIDTH - RIGHT,
            top: TOP,
            bottom,
            height: bottom + 56.0 + legend as f64 * LEGEND_LINE,
        }
    }
}

/// A legend entry: text, colour, dashed or not.
pub struct Entry {
    pub text: String,
    pub color: &'static str,
    pub dashed: bool,
}

/// Axis titles (with units) and tick label formatters.
pub struct Axes<'a> {
    pub x_title: &'a str,
    pub y_title: &'a str,
    pub x_fmt: &'a dyn Fn(f64) -> String,
    pub y_fmt: &'a dyn Fn(f64) -> String,
}

impl<'a> Axes<'a> {
    /// Titled axes with plain number ticks on both.
    pub fn labelled(x_title: &'a str, y_title: &'a str) -> Axes<'a> {
        Axes {
            x_title,
            y_title,
            x_fmt: &super::axis::label,
            y_fmt: &super::axis::label,
        }
    }

    /// A transfer rate (MB/s) over `x_title`.
    pub fn rate(x_title: &'a str) -> Axes<'a> {
        Axes::labelled(x_title, "Transfer rate (MB/s)")
    }
}

/// The x scale of a chart whose x axis is categories (bars or strips in slots): no ticks, no grid.
pub fn categories(layout: &Layout) -> Scale {
    Scale {
        lo: 0.0,
        hi: 0.0,
        log: false,
        p0: layout.left,
        p1: layout.right,
    }
}

/// Starts a chart: title, grid, ticks and axis titles; data goes on top, then [`legend`].
pub fn start(title: &str, layout: &Layout, x: &Scale, y: &Scale, axes: &Axes<'_>) -> Svg {
    let mut s = Svg::new(WIDTH, layout.height, title);
    s.text(
        WIDTH / 2.0,
        24.0,
        "middle",
        &[("font-size", "15".into()), ("font-weight", "bold".into())],
        title,
    );
    s.open(
        "g",
        &[("class", "grid".into()), ("stroke-width", "1".into())],
    );
    // A categorical x axis (hi == lo) draws its own labels.
    for t in if x.hi > x.lo { x.ticks() } else { Vec::new() } {
        let px = x.px(t);
        s.line(px, layout.top, px, layout.bottom, "#e3e3e3", &[]);
        s.line(px, layout.bottom, px, layout.bottom + 5.0, "#333", &[]);
        s.text(px, layout.bottom + 19.0, "middle", &[], &(axes.x_fmt)(t));
    }
    for t in y.ticks() {
        let py = y.px(t);
        s.line(layout.left, py, layout.right, py, "#e3e3e3", &[]);
        s.line(layout.left - 5.0, py, layout.left, py, "#333", &[]);
        s.text(layout.left - 8.0, py + 4.0, "end", &[], &(axes.y_fmt)(t));
    }
    s.close("g");
    s.leaf(
        "rect",
        &[
            ("x", n(layout.left)),
            ("y", n(layout.top)),
            ("width", n(layout.right - layout.left)),
            ("height", n(layout.bottom - layout.top)),
            ("fill", "none".into()),
            ("stroke", "#333".into()),
        ],
        None,
    );
    s.text(
        (layout.left + layout.right) / 2.0,
        layout.bottom + 40.0,
        "middle",
        &[("class", "axis-title".into())],
        axes.x_title,
    );
    let (cx, cy) = (22.0, (layout.top + layout.bottom) / 2.0);
    s.text(
        cx,
        cy,
        "middle",
        &[
            ("class", "axis-title".into()),
            ("transform", format!("rotate(-90 {} {})", n(cx), n(cy))),
        ],
        axes.y_title,
    );
    s
}

/// The legend, under the x axis title.
pub fn legend(s: &mut Svg, layout: &Layout, entries: &[Entry]) {
    for (i, e) in entries.iter().enumerate() {
        let y = layout.bottom + 58.0 + i as f64 * LEGEND_LINE;
        let mut a = vec![("stroke-width", "3".to_string())];
        if e.dashed {
            a.push(("stroke-dasharray", "6 3".into()));
        }
        s.line(
            layout.left,
            y - 4.0,
            layout.left + 28.0,
            y - 4.0,
            e.color,
            &a,
        );
        s.text(layout.left + 36.0, y, "start", &[], &e.text);
    }
}
