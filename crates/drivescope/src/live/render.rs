//! Drawing one frame of the live view: the transfer curve by position with the slow and
//! failed commands marked under it, the response-time bands with a small histogram, the rates,
//! percentiles and position, and the keys. A pure function of [`Shown`] and [`ViewState`].

use super::view::{Shown, ViewState};
use super::widgets::bands::{self, BANDS_W};
use super::widgets::curve;
use super::widgets::gutter::{self, GUTTER};
use super::widgets::help::Help;
use super::widgets::marks::{self, FAILED_MARK, SLOW_MARK};
use crate::progress::{hms, Total};
use drivescope_core::units::format_size;
use drivescope_units::format_ns;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// The key line at the bottom.
pub const KEYS: &str = "q stop (results kept, resumable)   l log scale   ? help";

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
    let bins = &s.snap.bins;
    let rates: Vec<Option<f64>> = bins.iter().map(|b| b.mb_s()).collect();
    let top = rates.iter().flatten().copied().fold(0.0, f64::max) * 1.1;
    let top = if top > 0.0 { top } else { 1.0 };
    f.render_widget(Block::bordered().title("MB/s by position"), a.curve);
    gutter::draw(f, a.plot, top, top / 2.0);
    curve::draw(
        f,
        a.plot,
        curve::by_position(bins, &rates, s.quick()),
        1.0,
        top,
    );
    marks::draw(f, a.marks, bins);
    gutter::draw_ends(
        f,
        a.axis,
        &format_size(s.snap.start),
        &format_size(s.snap.start + s.snap.length),
    );
}

fn bands(f: &mut Frame, s: &Shown, v: &ViewState, area: Rect) {
    bands::draw(f, &s.snap.bands, v.log, area);
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
    Help {
        stop: [
            "stop: the results so far are printed and saved,",
            "and the scan can be resumed (--resume)",
        ],
        log: "log scale for the response-time bars",
        about: vec![(
            "curve",
            format!("MB/s by position; {SLOW_MARK} slow command, {FAILED_MARK} failed"),
        )],
    }
    .draw(f);
}
