//! Drawing one frame of the live view: the transfer curve by position with the slow and
//! failed commands marked under it, the response-time bands with a small histogram, the rates,
//! percentiles and position, and the keys. A pure function of [`Shown`] and [`ViewState`].

use super::view::{Shown, ViewState};
use crate::progress::{hms, Total};
use drivescope_core::scan::live::{BinSnap, BANDS};
use drivescope_core::units::format_size;
use drivescope_stats::BAND_LABELS;
use drivescope_units::format_ns;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::Line;
use ratatui::widgets::canvas::{Canvas, Line as Segment};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

/// The key line at the bottom.
pub const KEYS: &str = "q stop (results kept, resumable)   l log scale   ? help";
/// Marks under the curve.
pub const SLOW_MARK: char = '!';
pub const FAILED_MARK: char = 'X';
/// Width of the curve's value labels on its left.
const GUTTER: u16 = 7;
/// Width of the response-time panel.
const BANDS_W: u16 = 32;

/// Where the parts of a frame go.
#[derive(Debug, Clone, Copy)]
pub struct Areas {
    pub title: Rect,
    pub curve: Rect,
    /// The curve's plot, inside its frame: one column per share of the range.
    pub plot: Rect,
    /// The row of slow and failed marks, under the plot's columns.
    pub marks: Rect,
    pub axis: Rect,
    pub bands: Rect,
    pub stats: Rect,
    pub keys: Rect,
}

pub fn areas(area: Rect) -> Areas {
    let [title, body, stats, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(6),
        Constraint::Length(3),
        Constraint::Length(1),
    ])
    .areas(area);
    let [curve, bands] =
        Layout::horizontal([Constraint::Min(20), Constraint::Length(BANDS_W)]).areas(body);
    let inner = Block::bordered().inner(curve);
    let [graph, marks, axis] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    let [_, plot] =
        Layout::horizontal([Constraint::Length(GUTTER), Constraint::Min(1)]).areas(graph);
    let col = |r: Rect| Rect {
        x: plot.x,
        width: plot.width,
        ..r
    };
    Areas {
        title,
        curve,
        plot,
        marks: col(marks),
        axis: col(axis),
        bands,
        stats,
        keys,
    }
}

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
fn axis_value(v: f64) -> String {
    if v >= 99_999.5 {
        format!("{:.0}K", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// The plot column (from the plot's left) that bin `i` of `n` falls in, `width` columns wide.
pub fn column_of_bin(i: usize, n: usize, width: u16) -> u16 {
    (i as u64 * width as u64 / n.max(1) as u64) as u16
}

pub fn draw(f: &mut Frame, s: &Shown, v: &ViewState) {
    let a = areas(f.area());
    f.render_widget(Paragraph::new(s.title.as_str()), a.title);
    curve(f, s, &a);
    bands(f, s, v, a.bands);
    f.render_widget(Paragraph::new(stats(s, a.stats.width)), a.stats);
    f.render_widget(
        Paragraph::new(KEYS).style(Style::default().fg(Color::DarkGray)),
        a.keys,
    );
    if v.help {
        help(f);
    }
}

fn curve(f: &mut Frame, s: &Shown, a: &Areas) {
    let snap = &s.snap;
    let n = snap.bins.len().max(1);
    let rates: Vec<Option<f64>> = snap.bins.iter().map(|b| b.mb_s()).collect();
    let top = rates.iter().flatten().copied().fold(0.0, f64::max) * 1.1;
    let top = if top > 0.0 { top } else { 1.0 };
    f.render_widget(Block::bordered().title("MB/s by position"), a.curve);
    // Value labels: the top, the middle and zero.
    let gutter = Rect {
        x: a.plot.x - GUTTER,
        width: GUTTER - 1,
        ..a.plot
    };
    let labels = value_labels(gutter.height as usize, top, top / 2.0);
    f.render_widget(Paragraph::new(labels), gutter);
    // The curve: one point per bin at its middle, joined where neighbours both have a rate; a
    // quick scan's regions lie apart: joined across the bins between that were not read.
    let x = |i: usize| (i as f64 + 0.5) / n as f64;
    let untouched =
        |b: &BinSnap| b.bytes == 0 && b.unpaced_bytes == 0 && b.failed == 0 && b.slow == 0;
    let quick = s.quick();
    let mut next = vec![None; n];
    let mut ahead: Option<usize> = None;
    for i in (0..snap.bins.len()).rev() {
        next[i] = ahead.filter(|_| i + 1 < snap.bins.len());
        if rates[i].is_some() {
            ahead = Some(i);
        } else if !(quick && untouched(&snap.bins[i])) {
            ahead = None;
        }
    }
    let canvas = Canvas::default()
        .marker(Marker::Braille)
        .x_bounds([0.0, 1.0])
        .y_bounds([0.0, top])
        .paint(move |ctx| {
            for i in 0..n {
                let Some(y1) = rates[i] else { continue };
                let (x2, y2) = match next[i].and_then(|j| Some((j, rates[j]?))) {
                    Some((j, y2)) => (x(j), y2),
                    None => (x(i), y1),
                };
                ctx.draw(&Segment {
                    x1: x(i),
                    y1,
                    x2,
                    y2,
                    color: Color::Cyan,
                });
            }
        });
    f.render_widget(canvas, a.plot);
    // Marks: failed over slow where both fall in one column.
    let w = a.marks.width;
    let mut row = vec![' '; w as usize];
    for (i, b) in snap.bins.iter().enumerate() {
        let c = column_of_bin(i, n, w) as usize;
        if c >= row.len() {
            continue;
        }
        if b.failed > 0 {
            row[c] = FAILED_MARK;
        } else if b.slow > 0 && row[c] != FAILED_MARK {
            row[c] = SLOW_MARK;
        }
    }
    f.render_widget(
        Paragraph::new(row.into_iter().collect::<String>()).style(Style::default().fg(Color::Red)),
        a.marks,
    );
    // The range's ends under the plot.
    let left = format_size(snap.start);
    let right = format_size(snap.start + snap.length);
    let pad = (w as usize).saturating_sub(left.chars().count() + right.chars().count());
    f.render_widget(
        Paragraph::new(format!("{left}{}{right}", " ".repeat(pad))),
        a.axis,
    );
}

fn bands(f: &mut Frame, s: &Shown, v: &ViewState, area: Rect) {
    band_panel(f, &s.snap.bands, v.log, area);
}

/// The response-time bands as counts with bars (on a log scale with `log`), in a box.
pub fn band_panel(f: &mut Frame, counts: &[u64; BANDS], log: bool, area: Rect) {
    let title = if log {
        "response time (log)"
    } else {
        "response time"
    };
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let max = counts.iter().copied().max().unwrap_or(0);
    let bar_w = (inner.width as usize).saturating_sub(18);
    let len = |c: u64| -> usize {
        if max == 0 || c == 0 {
            return 0;
        }
        let frac = if log {
            ((c as f64).ln_1p() / (max as f64).ln_1p()).clamp(0.0, 1.0)
        } else {
            c as f64 / max as f64
        };
        ((frac * bar_w as f64).round() as usize).max(1)
    };
    let lines: Vec<Line> = (0..BANDS)
        .map(|i| {
            Line::from(format!(
                "{:>7} {:>9} {}",
                BAND_LABELS[i],
                counts[i],
                "█".repeat(len(counts[i]))
            ))
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

/// The rates, percentiles and position, in `width` columns: p99.9 where it fits.
fn stats(s: &Shown, width: u16) -> Vec<Line<'static>> {
    let rate = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.1} MB/s"));
    let q = |q: f64| s.snap.quantile_ns(q).map_or("-".to_string(), format_ns);
    let st = &s.status;
    let (at, lba) = s.position();
    let counts = format!("slow {}  failed {}", st.slow, st.failed);
    let with = format!(
        "p50 {}  p99 {}  p99.9 {}  {counts}",
        q(0.5),
        q(0.99),
        q(0.999)
    );
    let latency = if with.chars().count() <= width as usize {
        with
    } else {
        format!("p50 {}  p99 {}  {counts}", q(0.5), q(0.99))
    };
    let place = match st.total {
        Total::Regions(n) => format!("region {} of {n}", st.done),
        Total::Bytes(_) => format!(
            "at {} (LBA {lba}) of {}",
            format_size(at),
            format_size(s.snap.start + s.snap.length)
        ),
    };
    vec![
        Line::from(format!(
            "now {}  mean {}  min {}",
            rate(s.current_mb_s),
            rate(Some(st.rate_mb_s)),
            rate(s.min_mb_s()),
        )),
        Line::from(latency),
        Line::from(format!(
            "{:.1}%  {place}  elapsed {}  {}",
            st.frac * 100.0,
            hms(s.elapsed),
            st.when(),
        )),
    ]
}

fn help(f: &mut Frame) {
    let text = vec![
        Line::from("q, Ctrl-C  stop: the results so far are printed and saved,"),
        Line::from("           and the scan can be resumed (--resume)"),
        Line::from("l          log scale for the response-time bars"),
        Line::from("?          this help (Esc closes it)"),
        Line::from(format!(
            "curve      MB/s by position; {SLOW_MARK} slow command, {FAILED_MARK} failed"
        )),
    ];
    overlay(f, "help", text);
}

/// A box in the middle of the frame over what is drawn there.
pub fn overlay(f: &mut Frame, title: &str, text: Vec<Line>) {
    let area = f.area();
    let w = 66.min(area.width);
    let h = (text.len() as u16 + 2).min(area.height);
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(text).block(Block::bordered().title(title)),
        r,
    );
}
