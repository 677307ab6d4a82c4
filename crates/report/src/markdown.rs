//! Markdown: a summary of each run (identity, parameters, results, first slow and failed commands), or the
//! compare table of the runs, best values bold with ▲ and worst with ▼.

use crate::compare::{Mark, Table, BEST, WORST};
use crate::doc::{Run, LIST_MAX};
use crate::exporter::Exporter;
use crate::Result;
use std::fmt::Write as _;

/// What the Markdown shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Markdown {
    /// A summary of each run, one after another (`drivescope export RUN --format md`).
    Summary,
    /// The runs side by side (`drivescope compare --format md`).
    Compare,
}

impl Exporter for Markdown {
    fn export(&self, runs: &[Run], out: &mut dyn std::io::Write) -> Result<()> {
        match self {
            Markdown::Summary => {
                for (i, run) in runs.iter().enumerate() {
                    if i > 0 {
                        out.write_all(b"\n")?;
                    }
                    out.write_all(summary(run).as_bytes())?;
                }
            }
            Markdown::Compare => out.write_all(table(&Table::new(runs)).as_bytes())?,
        }
        Ok(())
    }
}

/// A Markdown summary: identity, parameters, results (best/worst marks need two runs: see `compare`),
/// bands, and the first slow and failed commands.
fn summary(run: &Run) -> String {
    let mut o = format!("# {} — {}\n\n", run.label(), run.kind());
    for (name, v) in run.identity_fields() {
        let _ = writeln!(o, "- **{name}:** {}", v.replace('|', "\\|"));
    }
    let params = crate::params::of(&run.doc);
    if !params.is_empty() {
        let line = crate::params::line(&params).replace('|', "\\|");
        let _ = writeln!(o, "- **Parameters:** {line}");
    }
    o += "\n## Results\n\n";
    o += &table(&Table::new(std::slice::from_ref(run)));
    for list in run.event_lists() {
        if list.events.is_empty() {
            continue;
        }
        let _ = write!(
            o,
            "\n## {} commands\n\n| LBA | offset | latency (ns) | errno |\n|---:|---:|---:|---:|\n",
            if list.key == "slow" { "Slow" } else { "Failed" }
        );
        for e in list.events.iter().take(LIST_MAX) {
            let errno = e.errno.map_or(String::new(), |x| x.to_string());
            let _ = writeln!(
                o,
                "| {} | {} | {} | {errno} |",
                e.lba, e.offset, e.latency_ns
            );
        }
        if list.events.len() > LIST_MAX {
            let _ = writeln!(o, "\n…and {} more.", list.events.len() - LIST_MAX);
        }
    }
    o
}

/// A Markdown table: best values bold with ▲, worst with ▼.
pub fn table(table: &Table) -> String {
    let esc = |s: &str| s.replace('|', "\\|");
    let mut out = String::from("| metric |");
    for c in &table.columns {
        out += &format!(
            " {}<br>{}<br>{} |",
            esc(&c.label),
            esc(&c.device),
            esc(&c.date)
        );
    }
    out += "\n|---|";
    out += &"---:|".repeat(table.columns.len());
    out += "\n";
    for r in &table.rows {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_record::Direction;

    #[test]
    fn summary_has_identity_and_results() {
        let run = Run::new(
            Some(9),
            sample::scan(5, 1 << 30, 50, 3, 1, Direction::Write),
        );
        let md = String::from_utf8(Markdown::Summary.to_bytes(&[run]).unwrap()).unwrap();
        assert!(md.starts_with("# run 9 — scan"));
        assert!(md.contains("- **Serial:** SAMPLE-0005"));
        assert!(md.contains("| Rate write mean |"));
        assert!(md.contains("## Failed commands"));
    }

    #[test]
    fn compare_marks_best_bold() {
        let runs: Vec<Run> = (1..=3)
            .map(|s| Run::new(Some(s as i64), sample::bench(s)))
            .collect();
        let t = Table::new(&runs);
        // A row whose runs differ beyond the noise.
        let row = t
            .rows
            .iter()
            .find(|r| r.cells.iter().any(|c| c.mark == Mark::Best))
            .expect("a marked row");
        let best = row.cells.iter().find(|c| c.mark == Mark::Best).unwrap();
        let md = String::from_utf8(Markdown::Compare.to_bytes(&runs).unwrap()).unwrap();
        assert!(md.starts_with("| metric | run 1<br>"), "{md}");
        assert!(md.contains(&format!("**{}** ▲", best.text)), "{md}");
        assert!(md.contains(" ▼ |"), "{md}");
    }
}
