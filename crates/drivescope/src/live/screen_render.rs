//! Drawing one frame of the screen view: one panel per drive, stacked, each with its transfer
//! curve on a MB/s scale all drives share (so they compare at a glance), its row of slow and
//! failed marks, and a status line; what runs before the scans; the keys. A pure function of
//! [`GroupShown`] and [`ViewState`].

use super::screen::{DriveShown, End, GroupShown, State};
use super::view::ViewState;
use super::widgets::curve;
use super::widgets::gutter::{self, GUTTER};
use super::widgets::help::Help;
use super::widgets::marks::{self, FAILED_MARK, SLOW_MARK};
use crate::progress::{hms, Total};
use drivescope_units::format_ns;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

/// The key line at the bottom.
pub const KEYS: &str = "q stop all (results kept, resumable)   l log scale   ? help";
/// Rows of a drive's curve at the least.
const MIN_PLOT: u16 = 2;
/// Rows of a drive's panel besides its curve: its name, its marks and its status.
const PANEL_EXTRA: u16 = 3;

/// Where one drive's panel goes.
#[derive(Debug, Clone, Copy)]
pub struct Panel {
    /// The rule with the drive's name.
    pub head: Rect,
    /// The curve: one column per share of the drive's range.
    pub plot: Rect,
    /// The row of slow and failed marks, under the plot's columns.
    pub marks: Rect,
    pub status: Rect,
}

/// Where the parts of a frame go.
#[derive(Debug, Clone)]
pub struct Areas {
    pub title: Rect,
    pub phase: Option<Rect>,
    /// The panels of the drives that fit, first drives first.
    pub panels: Vec<Panel>,
    /// The line that says how many drives did not fit.
    pub more: Option<Rect>,
    pub keys: Rect,
}

fn row(area: Rect, y: u16) -> Rect {
    Rect {
        y,
        height: 1,
        ..area
    }
}

/// The frame's layout for `drives` drives, with a phase line or not.
pub fn areas(area: Rect, drives: usize, phase: bool) -> Areas {
    let bottom = area.y + area.height.saturating_sub(1);
    let title = row(area, area.y);
    let keys = row(area, bottom);
    let mut y = area.y + 1;
    let phase = phase.then(|| {
        y += 1;
        row(area, y - 1)
    });
    let body = bottom.saturating_sub(y);
    let least = MIN_PLOT + PANEL_EXTRA;
    let (shown, more) = if drives as u64 * least as u64 <= body as u64 {
        (drives as u16, None)
    } else {
        let n = body.saturating_sub(1) / least;
        (n, Some(row(area, bottom.saturating_sub(1))))
    };
    let h = body
        .saturating_sub(u16::from(more.is_some()))
        .checked_div(shown)
        .unwrap_or(0);
    let panels = (0..shown)
        .map(|k| {
            let top = y + k * h;
            let plot_h = h - PANEL_EXTRA;
            let plot = Rect {
                x: area.x + GUTTER,
                y: top + 1,
                width: area.width.saturating_sub(GUTTER),
                height: plot_h,
            };
            Panel {
                head: row(area, top),
                plot,
                marks: Rect {
                    y: top + 1 + plot_h,
                    height: 1,
                    ..plot
                },
                status: row(area, top + 2 + plot_h),
            }
        })
        .collect();
    Areas {
        title,
        phase,
        panels,
        more,
        keys,
    }
}

/// The shared scale: the fastest bin of any drive, with room above it.
fn top_mb_s(s: &GroupShown) -> f64 {
    let top = s
        .drives
        .iter()
        .flat_map(|d| d.snap.bins.iter().filter_map(|b| b.mb_s()))
        .fold(0.0, f64::max)
        * 1.1;
    if top > 0.0 {
        top
    } else {
        1.0
    }
}

/// Height on the plot of a rate: MB/s, or on the log scale ln(1 + MB/s).
fn scaled(mb_s: f64, log: bool) -> f64 {
    if log {
        mb_s.ln_1p()
    } else {
        mb_s
    }
}

pub fn draw(f: &mut Frame, s: &GroupShown, v: &ViewState) {
    let a = areas(f.area(), s.drives.len(), s.phase.is_some());
    let together: f64 = s.drives.iter().filter_map(|d| d.current_mb_s).sum();
    f.render_widget(
        Paragraph::new(format!(
            "{}  {} drives  now {together:.1} MB/s together  elapsed {}",
            s.title,
            s.drives.len(),
            hms(s.elapsed)
        )),
        a.title,
    );
    if let (Some(r), Some(p)) = (a.phase, &s.phase) {
        f.render_widget(
            Paragraph::new(p.as_str()).style(Style::default().fg(Color::Yellow)),
            r,
        );
    }
    let top = top_mb_s(s);
    for (d, p) in s.drives.iter().zip(&a.panels) {
        panel(f, d, p, top, v.log);
    }
    if let Some(r) = a.more {
        let hidden = s.drives.len() - a.panels.len();
        f.render_widget(
            Paragraph::new(format!(
                "+{hidden} more drive{} below (a taller terminal shows them)",
                if hidden == 1 { "" } else { "s" }
            )),
            r,
        );
    }
    f.render_widget(
        Paragraph::new(KEYS).style(Style::default().fg(Color::DarkGray)),
        a.keys,
    );
    if v.help {
        help(f);
    }
}

fn panel(f: &mut Frame, d: &DriveShown, p: &Panel, top: f64, log: bool) {
    let scale = if log { "MB/s, log" } else { "MB/s" };
    f.render_widget(
        Block::new()
            .borders(Borders::TOP)
            .title(format!(" {} ({scale}) ", d.device)),
        p.head,
    );
    // The rate drawn halfway up.
    let mid = if log {
        (top.ln_1p() / 2.0).exp_m1()
    } else {
        top / 2.0
    };
    gutter::draw(f, p.plot, top, mid);
    let bins = &d.snap.bins;
    let rates: Vec<Option<f64>> = bins
        .iter()
        .map(|b| b.mb_s().map(|r| scaled(r, log)))
        .collect();
    let quick = matches!(d.status.total, Total::Regions(_));
    let segs = curve::by_position(bins, &rates, quick);
    curve::draw(f, p.plot, segs, 1.0, scaled(top, log));
    marks::draw(f, p.marks, bins);
    f.render_widget(Paragraph::new(status(d)), p.status);
}

/// ` 60.0%  ETA 0:00:01  now 104.9  mean 98.3 MB/s  p99 10.49 ms  slow 1  failed 1`
pub fn status(d: &DriveShown) -> String {
    let st = &d.status;
    let when = match d.state {
        State::Waiting => "waiting".to_string(),
        State::Running => st.when(),
        State::Ended(End::Done) => "done".to_string(),
        State::Ended(End::Stopped) => "stopped".to_string(),
        State::Ended(End::Lost) => "device lost".to_string(),
        State::Ended(End::Failed) => "failed".to_string(),
    };
    let now = d
        .current_mb_s
        .map_or("-".to_string(), |r| format!("{r:.1}"));
    let p99 = d.snap.quantile_ns(0.99).map_or("-".to_string(), format_ns);
    format!(
        "{:5.1}%  {when}  now {now}  mean {:.1} MB/s  p99 {p99}  slow {}  failed {}",
        st.frac * 100.0,
        st.rate_mb_s,
        st.slow,
        st.failed,
    )
}

fn help(f: &mut Frame) {
    Help {
        stop: [
            "stop every drive: the results so far are printed and",
            "saved, and the group can be resumed (screen --resume)",
        ],
        log: "log scale for the MB/s axis",
        about: vec![
            (
                "curves",
                format!(
                    "MB/s by position, one scale for all; {SLOW_MARK} slow, {FAILED_MARK} failed"
                ),
            ),
            (
                "drives",
                "as many as fit the height, first ones first; a line".into(),
            ),
            (
                "",
                "says how many more (a taller terminal shows them)".into(),
            ),
        ],
    }
    .draw(f);
}
