//! The help overlay: a box in the middle of the frame, the keys every view has first (stop,
//! log scale, help), then what the view shows.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

/// One view's help.
pub struct Help<'a> {
    /// What stopping does, on two lines.
    pub stop: [&'a str; 2],
    /// What the log scale applies to.
    pub log: &'a str,
    /// What the view shows: a name (empty: the line goes on the one above) and its text.
    pub about: Vec<(&'a str, String)>,
}

/// A key or name and its text, the text starting in column 12.
fn entry(key: &str, text: &str) -> String {
    format!("{key:<11}{text}")
}

impl Help<'_> {
    /// The overlay's lines.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![
            entry("q, Ctrl-C", self.stop[0]),
            entry("", self.stop[1]),
            entry("l", self.log),
            entry("?", "this help (Esc closes it)"),
        ];
        out.extend(self.about.iter().map(|(k, t)| entry(k, t)));
        out
    }

    /// Draw it over the frame.
    pub fn draw(&self, f: &mut Frame) {
        overlay(
            f,
            "help",
            self.lines().into_iter().map(Line::from).collect(),
        );
    }
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
