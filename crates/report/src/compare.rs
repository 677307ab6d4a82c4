//! Runs side by side, one column per run, one row per metric, the best and the worst value of each row
//! marked — a drive review's summary table. One model, three renderings: terminal, Markdown, HTML.

use crate::doc::Run;
use crate::metrics::{self, Better, Unit};
use serde::Serialize;

/// How a cell stands in its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    Best,
    Worst,
    None,
}

#[derive(Debug, Clone, Serialize)]
pub struct Column {
    pub label: String,
    pub kind: String,
    pub device: String,
    pub date: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub value: Option<f64>,
    pub text: String,
    pub mark: Mark,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub key: String,
    pub label: String,
    pub unit: &'static str,
    pub cells: Vec<Cell>,
}

/// The compare table.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
}

const BEST: &str = "▲";
const WORST: &str = "▼";

impl Table {
    /// Builds the table: rows in first-seen order over the runs; a run without a row's metric shows "—".
    pub fn new(runs: &[Run]) -> Table {
        let columns = runs
            .iter()
            .map(|r| Column {
                label: r.label(),
                kind: r.kind(),
                device: r.device(),
                date: r.header().map(|h| h.started_at.clone()).unwrap_or_default(),
            })
            .collect();
        let per_run: Vec<Vec<metrics::Metric>> = runs.iter().map(metrics::of).collect();
        let mut order: Vec<(String, String, Unit, Better)> = Vec::new();
        for m in per_run.iter().flatten() {
            if !order.iter().any(|o| o.0 == m.key) {
                order.push((m.key.clone(), m.label.clone(), m.unit, m.better));
            }
        }
        let rows = order
            .into_iter()
            .map(|(key, label, unit, better)| {
                let values: Vec<Option<f64>> = per_run
                    .iter()
                    .map(|ms| ms.iter().find(|m| m.key == key).map(|m| m.value))
                    .collect();
                let marks = marks(&values, better);
                let cells = values
                    .iter()
                    .zip(marks)
                    .map(|(v, mark)| Cell {
                        value: *v,
                        text: v.map_or("—".into(), |v| unit.format(v)),
                        mark,
                    })
                    .collect();
                Row {
                    key,
                    label,
                    unit: unit.suffix(),
                    cells,
                }
            })
            .collect();
        Table { columns, rows }
    }

    /// Plain text; with `color`, best values green and bold, worst red (for a terminal). Without colour the
    /// best value carries ▲ and the worst ▼.
    pub fn to_terminal(&self, color: bool) -> String {
        use anstyle::{AnsiColor, Style};
        let best = Style::new().bold().fg_color(Some(AnsiColor::Green.into()));
        let worst = Style::new().fg_color(Some(AnsiColor::Red.into()));
        let head = Style::new().bold();
        let text = |c: &Cell| match (color, c.mark) {
            (false, Mark::Best) => format!("{} {BEST}", c.text),
            (false, Mark::Worst) => format!("{} {WORST}", c.text),
            _ => c.text.clone(),
        };
        let mut widths = vec![self
            .rows
            .iter()
            .map(|r| r.label.chars().count())
            .max()
            .unwrap_or(0)
            .max(6)];
        for (i, col) in self.columns.iter().enumerate() {
            let w = self.rows.iter().map(|r| text(&r.cells[i]).chars().count());
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
            for (i, c) in self.columns.iter().enumerate() {
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
        for r in &self.rows {
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
        out
    }

    /// A Markdown table: best values bold with ▲, worst with ▼.
    pub fn to_markdown(&self) -> String {
        let esc = |s: &str| s.replace('|', "\\|");
        let mut out = String::from("| metric |");
        for c in &self.columns {
            out += &format!(
                " {}<br>{}<br>{} |",
                esc(&c.label),
                esc(&c.device),
                esc(&c.date)
            );
        }
        out += "\n|---|";
        out += &"---:|".repeat(self.columns.len());
        out += "\n";
        for r in &self.rows {
            out += &format!("| {} |", esc(&r.label));
            for c in &r.cells {
                out += &match c.mark {
                    Mark::Best => format!(" **{}** {BEST} |", esc(&c.text)),
                    Mark::Worst => format!(" {} {WORST} |", esc(&c.text)),
                    Mark::None => format!(" {} |", esc(&c.text)),
                };
            }
            out += "\n";
        }
        out
    }

    /// A standalone HTML fragment (`<table class="compare">`), styled by the report page's CSS.
    pub fn to_html(&self) -> crate::Result<String> {
        crate::page::render_compare(self)
    }
}

/// Marks the best and worst values of a row: only where at least two runs have the value and they differ.
/// Ties are all marked.
fn marks(values: &[Option<f64>], better: Better) -> Vec<Mark> {
    let present: Vec<f64> = values.iter().flatten().copied().collect();
    let (min, max) = present
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    if better == Better::Neither || present.len() < 2 || min == max {
        return vec![Mark::None; values.len()];
    }
    let (good, bad) = if better == Better::Higher {
        (max, min)
    } else {
        (min, max)
    };
    values
        .iter()
        .map(|v| match v {
            Some(v) if *v == good => Mark::Best,
            Some(v) if *v == bad => Mark::Worst,
            _ => Mark::None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    #[test]
    fn marks_follow_direction_and_skip_ties() {
        use Mark::*;
        assert_eq!(
            marks(&[Some(1.0), Some(3.0), Some(2.0)], Better::Higher),
            vec![Worst, Best, None]
        );
        assert_eq!(
            marks(&[Some(1.0), Some(3.0), Option::None], Better::Lower),
            vec![Best, Worst, None]
        );
        assert_eq!(
            marks(&[Some(2.0), Some(2.0)], Better::Lower),
            vec![None, None]
        );
        assert_eq!(marks(&[Some(2.0)], Better::Lower), vec![None]);
        assert_eq!(
            marks(&[Some(1.0), Some(2.0)], Better::Neither),
            vec![None, None]
        );
    }

    #[test]
    fn review_table_marks_the_faster_drive() {
        let runs: Vec<Run> = (1..=5)
            .map(|s| Run::new(Some(s as i64), sample::bench(s)))
            .collect();
        let t = Table::new(&runs);
        assert_eq!(t.columns.len(), 5);
        let row = t
            .rows
            .iter()
            .find(|r| r.key == "bench.SEQ1M Q8T1 read.mb_per_s")
            .expect("row");
        let vals: Vec<f64> = row.cells.iter().map(|c| c.value.unwrap()).collect();
        let best = vals.iter().cloned().fold(f64::MIN, f64::max);
        let i = row.cells.iter().position(|c| c.mark == Mark::Best).unwrap();
        assert_eq!(vals[i], best);
        assert_eq!(
            row.cells.iter().filter(|c| c.mark == Mark::Worst).count(),
            1
        );
        let md = t.to_markdown();
        assert!(md.contains(&format!("**{}** ▲", row.cells[i].text)), "{md}");
        let plain = t.to_terminal(false);
        assert!(plain.contains('▲') && plain.contains('▼'));
        let colored = t.to_terminal(true);
        assert!(colored.contains("\u{1b}[") && !colored.contains('▲'));
    }
}
