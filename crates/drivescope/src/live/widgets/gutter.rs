//! The axes around a plot: the value labels in a gutter on its left, and the ends of its
//! range on the row under it.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Width of the gutter left of a plot: six columns of labels and one blank.
pub const GUTTER: u16 = 7;

/// The value labels of a plot's gutter `h` rows high: `top` on the first row, zero on the
/// last, `mid` (the value drawn halfway up) between when there is room; six columns each.
pub fn value_labels(h: usize, top: f64, mid: f64) -> Vec<Line<'static>> {
    let mut labels = vec![Line::from(""); h];
    if h > 0 {
        labels[0] = Line::from(format!("{:>6}", axis_value(top)));
        labels[h - 1] = Line::from(format!("{:>6}", 0));
        if h >= 5 {
            labels[h / 2] = Line::from(format!("{:>6}", axis_value(mid)));
        }
    }
    labels
}

/// An axis value in six columns: thousands as `K` past 99999.
pub fn axis_value(v: f64) -> String {
    if v >= 99_999.5 {
        format!("{:.0}K", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// The gutter of `plot`: the columns left of it, as high as it.
pub fn left_of(plot: Rect) -> Rect {
    Rect {
        x: plot.x.saturating_sub(GUTTER),
        width: GUTTER - 1,
        ..plot
    }
}

/// Draw the value labels left of `plot`: `top`, `mid` halfway up, and zero.
pub fn draw(f: &mut Frame, plot: Rect, top: f64, mid: f64) {
    let r = left_of(plot);
    f.render_widget(Paragraph::new(value_labels(r.height as usize, top, mid)), r);
}

/// `left` at the start and `right` at the end of `width` columns.
pub fn ends(left: &str, right: &str, width: u16) -> String {
    let pad = (width as usize).saturating_sub(left.chars().count() + right.chars().count());
    format!("{left}{}{right}", " ".repeat(pad))
}

/// Draw the range's ends on the row `area` under a plot.
pub fn draw_ends(f: &mut Frame, area: Rect, left: &str, right: &str) {
    f.render_widget(Paragraph::new(ends(left, right, area.width)), area);
}
