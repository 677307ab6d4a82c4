//! The convergence panel of a steady-state test's live view: a bar per finished round of the
//! tracked variable (IOPS, or mean latency for the latency test) on one scale, the round numbers,
//! the current measurement window marked under its rounds, then the window's average, range and
//! excursion against what the rule allows, and where the run stands. The panel's data is
//! `drivescope_report::text::convergence`; this only lays it out.

use super::workload_render::compact;
use drivescope_report::text::{Convergence, Standing};
use drivescope_units::format_latency;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// Rows of the bars.
const BAR_ROWS: usize = 4;
/// Columns of a round: a bar two wide and a gap.
const COL: usize = 3;
/// Columns of the scale left of the bars: a value and ` │`.
const GUTTER_W: usize = 10;
/// The panel's height: its border, the bars, the round numbers, the window's mark and three
/// lines (the window, its limits, the standing).
pub const HEIGHT: u16 = (2 + BAR_ROWS + 2 + 3) as u16;
/// A bar's top cell by eighths filled, 1 to 8.
const EIGHTHS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The window's rounds, and the run's standing once steady.
const WINDOW: Color = Color::Cyan;
const STEADY: Color = Color::Green;
const OVER: Color = Color::Yellow;

pub fn draw(f: &mut Frame, c: &Convergence, area: Rect) {
    let block = Block::bordered().title(format!("convergence of {}", c.tracked));
    let width = block.inner(area).width as usize;
    f.render_widget(Paragraph::new(lines(c, width)).block(block), area);
}

/// The tracked value short enough for the scale: `98.0 K`, `812.4 µs`.
fn short(c: &Convergence, v: f64) -> String {
    if c.latency {
        format_latency(v)
    } else {
        compact(v)
    }
}

/// The panel's lines at `width` columns: as many of the latest rounds as fit.
pub fn lines(c: &Convergence, width: usize) -> Vec<Line<'static>> {
    let fit = width.saturating_sub(GUTTER_W) / COL;
    let shown = &c.rounds[c.rounds.len().saturating_sub(fit)..];
    let top = shown.iter().map(|m| m.value).fold(0.0, f64::max);
    let eighths: Vec<usize> = shown
        .iter()
        .map(|m| match top > 0.0 && m.value > 0.0 {
            true => ((m.value / top * (BAR_ROWS * 8) as f64).round() as usize).max(1),
            false => 0,
        })
        .collect();
    let style = |in_window: bool| match in_window {
        true => Style::default().fg(WINDOW),
        false => Style::default(),
    };
    let mut out = Vec::new();
    for row in 0..BAR_ROWS {
        let below = (BAR_ROWS - 1 - row) * 8;
        let label = match row {
            0 if top > 0.0 => short(c, top),
            r if r == BAR_ROWS - 1 => "0".into(),
            _ => String::new(),
        };
        let mut spans = vec![Span::raw(format!("{label:>w$} │", w = GUTTER_W - 2))];
        for (m, &e) in shown.iter().zip(&eighths) {
            let ch = match e.saturating_sub(below) {
                0 => ' ',
                n => EIGHTHS[n.min(8) - 1],
            };
            spans.push(Span::styled(format!("{ch}{ch} "), style(m.in_window)));
        }
        out.push(Line::from(spans));
    }
    let mut numbers = vec![Span::raw(format!("{:>w$}", "round", w = GUTTER_W - 1))];
    numbers.push(Span::raw(" "));
    for m in shown {
        numbers.push(Span::styled(format!("{:>2} ", m.round), style(m.in_window)));
    }
    out.push(Line::from(numbers));
    out.push(window_mark(shown.iter().map(|m| m.in_window)));
    let (window_style, standing_style) = match c.standing {
        Standing::Reached { .. } => (Style::default(), Style::default().fg(STEADY)),
        Standing::NotReached { .. } => (Style::default().fg(OVER), Style::default().fg(OVER)),
        _ if c.window.is_some() => (Style::default().fg(OVER), Style::default()),
        _ => (Style::default(), Style::default()),
    };
    out.push(Line::from(c.window_line()));
    out.push(Line::from(c.limits_line()).style(window_style));
    out.push(Line::from(c.standing_line()).style(standing_style));
    out
}

/// `└── window ──┘` under the window's rounds, from the first's bar to the last's.
fn window_mark(in_window: impl Iterator<Item = bool>) -> Line<'static> {
    let marked: Vec<usize> = in_window.enumerate().filter(|p| p.1).map(|p| p.0).collect();
    let (Some(&a), Some(&b)) = (marked.first(), marked.last()) else {
        return Line::from("");
    };
    // The mark stands from the first bar's left column to the last bar's right one.
    let inner = (b - a) * COL;
    let word = " window ";
    let mark = if inner >= word.chars().count() {
        let left = (inner - word.chars().count()) / 2;
        let right = inner - word.chars().count() - left;
        format!("└{}{word}{}┘", "─".repeat(left), "─".repeat(right))
    } else {
        format!("└{}┘", "─".repeat(inner))
    };
    Line::from(vec![
        Span::raw(" ".repeat(GUTTER_W + a * COL)),
        Span::styled(mark, Style::default().fg(WINDOW)),
    ])
}
