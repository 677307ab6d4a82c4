//! Drawing one frame of a bench, sweep, soak, diagnosis or steady-state live view: the rate over
//! time, the response-time bands, what has finished (a steady-state test's convergence panel is
//! `steady_render`'s), the rates and percentiles of the test that runs now, and the keys. A pure
//! function of [`WorkShown`] and [`ViewState`].

use super::steady_render;
use super::view::ViewState;
use super::widgets::bands::{self, BANDS_W};
use super::widgets::curve;
use super::widgets::gutter::{self, GUTTER};
use super::widgets::help::Help;
use super::workload::{Done, Span, WorkShown};
use crate::progress::hms;
use drivescope_units::format_ns;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// The key line at the bottom.
pub const KEYS: &str = "q stop (results so far kept)   l log scale   ? help";
/// Rows of the finished part at most (the latest are shown).
const DONE_ROWS: usize = 8;

pub fn draw(f: &mut Frame, s: &WorkShown, v: &ViewState) {
    let rows = done_lines(&s.done, s).len();
    let done_h = match s.done {
        Done::Nothing => 0,
        Done::Rounds(_) => steady_render::HEIGHT,
        _ => (rows.clamp(1, DONE_ROWS) + 2) as u16,
    };
    let [title, body, done, stats, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(6),
        Constraint::Length(done_h),
        Constraint::Length(3),
        Constraint::Length(1),
    ])
    .areas(f.area());
    f.render_widget(Paragraph::new(s.title.as_str()), title);
    let [chart, bands] =
        Layout::horizontal([Constraint::Min(20), Constraint::Length(BANDS_W)]).areas(body);
    rate_chart(f, s, chart);
    bands::draw(f, &s.snap.bands, v.log, bands);
    finished(f, s, done);
    f.render_widget(Paragraph::new(stats_lines(s)), stats);
    f.render_widget(
        Paragraph::new(KEYS).style(Style::default().fg(Color::DarkGray)),
        keys,
    );
    if v.help {
        Help {
            stop: [
                "stop: the tests finished so far are printed",
                "and saved, as on an interrupt",
            ],
            log: "log scale for the response-time bars",
            about: vec![
                (
                    "chart",
                    match s.span {
                        Span::Run => "MB/s over time, all tests of the run".into(),
                        Span::Phase { .. } => "MB/s over time of the test that runs now".into(),
                    },
                ),
                ("bands", "response times of the test that runs now".into()),
            ],
        }
        .draw(f);
    }
}

/// The rate over time: seconds on x (to the planned end when known), MB/s on y; of the whole
/// run, or of the test that runs now.
fn rate_chart(f: &mut Frame, s: &WorkShown, area: Rect) {
    let (title, planned, elapsed) = match s.span {
        Span::Run => ("MB/s over time", s.planned, s.elapsed),
        Span::Phase { planned } => ("MB/s of the test that runs now", planned, s.phase_elapsed),
    };
    f.render_widget(Block::bordered().title(title), area);
    let inner = Block::bordered().inner(area);
    let [graph, axis_row] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    let [_, plot] =
        Layout::horizontal([Constraint::Length(GUTTER), Constraint::Min(1)]).areas(graph);
    let top = s.history.iter().map(|p| p.1).fold(0.0, f64::max) * 1.1;
    let top = if top > 0.0 { top } else { 1.0 };
    let end = planned
        .map(|p| p.as_secs_f64())
        .unwrap_or(0.0)
        .max(elapsed.as_secs_f64())
        .max(1.0);
    gutter::draw(f, plot, top, top / 2.0);
    curve::draw(f, plot, curve::polyline(&s.history), end, top);
    let axis = Rect {
        x: plot.x,
        width: plot.width,
        ..axis_row
    };
    gutter::draw_ends(f, axis, "0s", &hms(std::time::Duration::from_secs_f64(end)));
}

/// The finished part's lines: the latest lines, or the grid.
pub fn done_lines(d: &Done, s: &WorkShown) -> Vec<String> {
    match d {
        Done::Nothing => Vec::new(),
        Done::Lines { lines, .. } => lines[lines.len().saturating_sub(DONE_ROWS)..].to_vec(),
        Done::Rounds(c) => c.lines(),
        Done::Grid {
            qds,
            threads,
            cells,
        } => {
            let mut out = vec![format!(
                "IOPS  {}",
                qds.iter()
                    .map(|q| format!("{:>9}", format!("Q{q}")))
                    .collect::<String>()
            )];
            for &t in threads {
                let mut row = format!("{:<5} ", format!("T{t}"));
                for &q in qds {
                    let cell = cells
                        .iter()
                        .find(|c| c.queue_depth == q && c.threads == t)
                        .map(|c| compact(c.iops));
                    let running = s.snap.phase.what.contains(&format!(" Q{q}T{t} "))
                        && s.snap.phase.step.starts_with("cell");
                    row.push_str(&format!(
                        "{:>9}",
                        cell.unwrap_or_else(|| if running { "run".into() } else { "·".into() })
                    ));
                }
                out.push(row);
            }
            out
        }
    }
}

/// 12345 as `12.3 K`, 1234567 as `1.23 M`.
pub fn compact(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2} M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.1} K", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

fn finished(f: &mut Frame, s: &WorkShown, area: Rect) {
    if area.height == 0 {
        return;
    }
    if let Done::Rounds(c) = &s.done {
        return steady_render::draw(f, c, area);
    }
    let lines: Vec<Line> = done_lines(&s.done, s).into_iter().map(Line::from).collect();
    let lines = if lines.is_empty() {
        vec![Line::from("nothing yet").style(Style::default().fg(Color::DarkGray))]
    } else {
        lines
    };
    let title = match &s.done {
        Done::Lines { title, .. } => title.as_str(),
        Done::Grid { .. } => "finished cells",
        Done::Nothing | Done::Rounds(_) => "",
    };
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title)),
        area,
    );
}

fn stats_lines(s: &WorkShown) -> Vec<Line<'static>> {
    let rate = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.1} MB/s"));
    let h = &s.snap.hist;
    let q = |q: f64| {
        if h.count() == 0 {
            "-".to_string()
        } else {
            format_ns(h.quantile(q))
        }
    };
    let p = &s.snap.phase;
    let what = match (p.what.is_empty(), p.step.is_empty()) {
        (true, _) => "starting".to_string(),
        (false, true) => p.what.clone(),
        (false, false) => format!("{} · {}", p.what, p.step),
    };
    let when = match (s.planned, s.left()) {
        (Some(plan), Some(left)) => format!(
            "elapsed {} of ~{}  ETA {}",
            hms(s.elapsed),
            hms(plan),
            hms(left)
        ),
        _ => format!("elapsed {}", hms(s.elapsed)),
    };
    vec![
        Line::from(format!(
            "now {}  {}  mean {}",
            rate(s.now_mb_s),
            s.now_iops
                .map_or("- IOPS".to_string(), |r| format!("{} IOPS", compact(r))),
            rate(s.mean_mb_s()),
        )),
        Line::from(format!(
            "{what}  p50 {}  p99 {}  p99.9 {}  failed {}",
            q(0.5),
            q(0.99),
            q(0.999),
            s.snap.failed,
        )),
        Line::from(when),
    ]
}
