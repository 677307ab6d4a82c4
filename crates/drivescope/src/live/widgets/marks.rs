//! The row of marks under a curve by position: where a command was slow or failed.

use drivescope_core::scan::live::BinSnap;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// A slow command in the column.
pub const SLOW_MARK: char = '!';
/// A failed command in the column.
pub const FAILED_MARK: char = 'X';

/// The plot column (from the plot's left) that bin `i` of `n` falls in, `width` columns wide.
pub fn column_of_bin(i: usize, n: usize, width: u16) -> u16 {
    (i as u64 * width as u64 / n.max(1) as u64) as u16
}

/// The marks row, `width` columns: failed over slow where both fall in one column.
pub fn row(bins: &[BinSnap], width: u16) -> String {
    let n = bins.len().max(1);
    let mut row = vec![' '; width as usize];
    for (i, b) in bins.iter().enumerate() {
        let Some(c) = row.get_mut(column_of_bin(i, n, width) as usize) else {
            continue;
        };
        if b.failed > 0 {
            *c = FAILED_MARK;
        } else if b.slow > 0 && *c != FAILED_MARK {
            *c = SLOW_MARK;
        }
    }
    row.into_iter().collect()
}

/// Draw the marks row of `bins` in `area`, under the plot's columns.
pub fn draw(f: &mut Frame, area: Rect, bins: &[BinSnap]) {
    f.render_widget(
        Paragraph::new(row(bins, area.width)).style(Style::default().fg(Color::Red)),
        area,
    );
}
