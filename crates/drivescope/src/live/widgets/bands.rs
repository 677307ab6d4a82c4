//! The response-time bands as counts with bars, in a box.

use drivescope_core::scan::live::BANDS;
use drivescope_stats::BAND_LABELS;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

/// Width of the bands' box.
pub const BANDS_W: u16 = 32;

/// The bands' lines for a box `width` columns wide inside: label, count and a bar as long as
/// its share of the largest count (on a log scale with `log`); a count above zero gets one
/// block at the least.
pub fn lines(counts: &[u64; BANDS], log: bool, width: u16) -> Vec<String> {
    let max = counts.iter().copied().max().unwrap_or(0);
    let bar_w = (width as usize).saturating_sub(18);
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
    (0..BANDS)
        .map(|i| {
            format!(
                "{:>7} {:>9} {}",
                BAND_LABELS[i],
                counts[i],
                "█".repeat(len(counts[i]))
            )
        })
        .collect()
}

/// Draw the bands in a box over `area`, titled for the scale.
pub fn draw(f: &mut Frame, counts: &[u64; BANDS], log: bool, area: Rect) {
    let title = if log {
        "response time (log)"
    } else {
        "response time"
    };
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let text: Vec<Line> = lines(counts, log, inner.width)
        .into_iter()
        .map(Line::from)
        .collect();
    f.render_widget(Paragraph::new(text), inner);
}
