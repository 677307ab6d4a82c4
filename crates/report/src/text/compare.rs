//! The compare table for a terminal: aligned columns, best values green and bold, worst red; without colour
//! the best value carries ▲ and the worst ▼.

use crate::compare::{Cell, Column, Mark, Table, BEST, LEGEND, WORST};
use anstyle::{AnsiColor, Style};

/// Plain text; with `color`, best values green and bold, worst red (for a terminal). Without colour the
/// best value carries ▲ and the worst ▼.
pub fn table(table: &Table, color: bool) -> String {
    let best = Style::new().bold().fg_color(Some(AnsiColor::Green.into()));
    let worst = Style::new().fg_color(Some(AnsiColor::Red.into()));
    let head = Style::new().bold();
    let text = |c: &Cell| match (color, c.mark) {
        (false, Mark::Best) => format!("{} {BEST}", c.text),
        (false, Mark::Worst) => format!("{} {WORST}", c.text),
        _ => c.text.clone(),
    };
    let mut widths = vec![table
        .rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(6)];
    for (i, col) in table.columns.iter().enumerate() {
        let w = table.rows.iter().map(|r| text(&r.cells[i]).chars().count());
        let head = [&col.label, &col.device, &col.date]
            .iter()
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(0);
        widths.push(w.max().unwrap_or(0).max(head));
    }
    let pad = |s: &str, w: usize, right: bool| {
        let n = w.saturating_sub(s.chars().count());
        if right {
            format!("{}{s}", " ".repeat(n))
        } else {
            format!("{s}{}", " ".repeat(n))
        }
    };
    let mut out = String::new();
    for (line, get) in [
        ("", (|c: &Column| c.label.clone()) as fn(&Column) -> String),
        ("", |c: &Column| c.device.clone()),
        ("", |c: &Column| c.date.clone()),
    ] {
        out += &pad(line, widths[0], false);
        for (i, c) in table.columns.iter().enumerate() {
            let s = pad(&get(c), widths[i + 1], true);
            out += "  ";
            out += &if color {
                format!("{head}{s}{head:#}")
            } else {
                s
            };
        }
        out += "\n";
    }
    for r in &table.rows {
        out += &pad(&r.label, widths[0], false);
        for (i, c) in r.cells.iter().enumerate() {
            let s = pad(&text(c), widths[i + 1], true);
            out += "  ";
            out += &match (color, c.mark) {
                (true, Mark::Best) => format!("{best}{s}{best:#}"),
                (true, Mark::Worst) => format!("{worst}{s}{worst:#}"),
                _ => s,
            };
        }
        out += "\n";
    }
    if table
        .rows
        .iter()
        .any(|r| r.cells.iter().any(|c| c.mark != Mark::None))
    {
        out += &if color {
            format!("({})\n", legend_in_colour())
        } else {
            format!("({LEGEND})\n")
        };
    }
    out
}

/// The legend where colour shows the marks.
fn legend_in_colour() -> String {
    LEGEND
        .replace("▲ best", "best in green")
        .replace("▼ worst", "worst in red")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use crate::Run;

    #[test]
    fn marks_show_as_arrows_or_colours() {
        let runs: Vec<Run> = (1..=3)
            .map(|s| Run::new(Some(s as i64), sample::bench(s)))
            .collect();
        let t = Table::new(&runs);
        let plain = table(&t, false);
        assert!(plain.contains('▲') && plain.contains('▼'));
        assert!(!plain.contains('\u{1b}'));
        let colored = table(&t, true);
        assert!(colored.contains("\u{1b}[") && !colored.contains('▲'));
        let lines: Vec<&str> = plain.lines().collect();
        assert_eq!(lines.len(), 3 + t.rows.len() + 1);
        assert!(lines.last().unwrap().contains("under 5 %"), "{plain}");
        assert!(lines[0].trim_end().ends_with("run 3"), "{plain}");
    }
}
