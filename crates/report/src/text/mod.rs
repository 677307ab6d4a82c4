//! Terminal text: each kind of run as its command prints it (scan summary, bench table, sweep grid, soak
//! series) with the progress lines of bench and sweep, a generic view of any other run, the compare table,
//! the description of a target or the device listing of `info`, and the listing of stored runs.

mod bench;
mod capacity;
mod compare;
mod diagnose;
mod diagnose_spots;
mod durability;
mod extents;
mod findings;
mod fingerprint;
mod info;
mod multi;
#[cfg(test)]
mod params_tests;
mod power_cut;
mod prediction;
mod replay;
mod runs;
mod scan;
#[cfg(test)]
mod scan_rate_tests;
#[cfg(test)]
mod scan_stopped_tests;
mod screen;
mod show;
mod soak;
mod sparkline;
mod steady;
mod steady_convergence;
mod steady_wa;
mod sweep;
mod temperature;
mod time;
mod time_members;

pub use bench::{bench_line, print_bench};
pub use capacity::print_capacity;
pub use compare::table as compare_table;
pub use diagnose::print_diagnose;
pub use durability::{print_durability, verdict_words as durability_verdict};
pub use findings::print_findings;
pub use fingerprint::print_fingerprint;
pub use info::info;
pub use multi::print_multi;
pub use prediction::print_prediction;
pub use replay::print_replay;
pub use runs::{headline, runs, took, ListedRun};
pub use scan::print_scan;
pub use screen::print_screen;
pub use show::show;
pub use soak::print_soak;
pub use sparkline::sparkline;
pub use steady::{format_tracked, print_steady, steady_progress};
pub use steady_convergence::{convergence, Convergence, RoundMark, Standing, WindowFigures};
pub use sweep::{print_sweep, sweep_line};
pub use time::{print_time, sentence as time_sentence};

use crate::compare::Table;
use crate::exporter::Exporter;
use crate::{Result, Run};
use drivescope_record::Document;
use std::io::Write;

/// What the text shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// Each run as its command printed it when it ran, then `(run N · kind · device)`; a kind without a
    /// summary of its own in the generic view (`drivescope show`). Runs are separated by a blank line.
    Summary,
    /// The runs side by side (`drivescope compare`); `color` for a terminal, ▲/▼ marks otherwise.
    Compare { color: bool },
}

impl Exporter for Text {
    fn export(&self, runs: &[Run], out: &mut dyn Write) -> Result<()> {
        match self {
            Text::Summary => {
                for (i, run) in runs.iter().enumerate() {
                    if i > 0 {
                        writeln!(out)?;
                    }
                    summary(run, out)?;
                }
            }
            Text::Compare { color } => {
                out.write_all(compare::table(&Table::new(runs), *color).as_bytes())?
            }
        }
        Ok(())
    }
}

fn summary(run: &Run, out: &mut dyn Write) -> std::io::Result<()> {
    match &run.doc {
        Document::Scan(r) => print_scan(r, out)?,
        Document::Bench(r) => print_bench(r, out)?,
        Document::Sweep(r) => print_sweep(r, out)?,
        Document::Soak(r) => print_soak(r, out)?,
        Document::Diagnose(r) => {
            print_diagnose(r, out)?;
            return writeln!(out, "({} · {} · {})", run.label(), run.kind(), run.device());
        }
        Document::Screen(r) => {
            // The screen's summary ends with its findings.
            print_screen(r, out)?;
            return writeln!(out, "({} · {} · {})", run.label(), run.kind(), run.device());
        }
        Document::Time(r) => print_time(r, out)?,
        Document::Multi(r) => print_multi(r, out)?,
        Document::Capacity(r) => print_capacity(r, out)?,
        Document::Steady(r) => print_steady(r, out)?,
        Document::Durability(r) => print_durability(r, out)?,
        Document::Replay(r) => print_replay(r, out)?,
        Document::Info(_) | Document::Unknown { .. } => return out.write_all(show(run).as_bytes()),
    }
    if let Some(h) = run.header() {
        print_findings(&h.findings, out)?;
    }
    writeln!(out, "({} · {} · {})", run.label(), run.kind(), run.device())
}

/// The mark on every line of a run measured through the page cache.
pub fn buffered_mark(direct: bool) -> &'static str {
    if direct {
        ""
    } else {
        "  [BUFFERED: page cache, not the device]"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_record::{Direction, InfoRecord};

    fn summary_text(runs: &[Run]) -> String {
        String::from_utf8(Text::Summary.to_bytes(runs).unwrap()).unwrap()
    }

    #[test]
    fn each_kind_prints_as_its_command_did_then_names_the_run() {
        let scan = Run::new(
            Some(4),
            sample::scan(2, 1 << 30, 100, 30, 2, Direction::Read),
        );
        let t = summary_text(std::slice::from_ref(&scan));
        assert!(t.starts_with("drivescope scan /dev/sdx (1.0 GiB, "), "{t}");
        assert!(t.contains("\n  slow (>= "), "{t}");
        assert!(
            t.ends_with("\n(run 4 · scan · ACME HD4002 (SAMPLE-0002))\n"),
            "{t}"
        );
        let bench = Run::new(Some(5), sample::bench(1));
        let b = summary_text(std::slice::from_ref(&bench));
        assert!(b.starts_with("drivescope bench ") && b.contains("Read [MB/s]"));
        let sweep = summary_text(&[Run::new(Some(6), sample::sweep(1))]);
        assert!(sweep.contains("queueing gain"), "{sweep}");
        let soak = summary_text(&[Run::new(Some(7), sample::soak(1, 60))]);
        assert!(soak.contains("  series    "), "{soak}");
        // Runs one after another, a blank line between them.
        let two = summary_text(&[scan, bench]);
        assert!(two.contains("(SAMPLE-0002))\n\ndrivescope bench "), "{two}");
    }

    #[test]
    fn a_kind_without_a_summary_prints_generically() {
        let info = Run::new(
            None,
            InfoRecord::of_devices(vec![sample::device(1, 1 << 40)]),
        );
        let t = summary_text(std::slice::from_ref(&info));
        assert_eq!(t, show(&info));
        assert!(t.starts_with("unsaved run · info"), "{t}");
    }

    #[test]
    fn a_buffered_run_says_so_on_every_line_of_its_tables() {
        let mut r = sample::bench(1);
        r.workload.direct = false;
        let mut out = Vec::new();
        print_bench(&r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("  SEQ") || l.starts_with("  RND"))
            .collect();
        // The read/write table has a row per test name, the details one per test.
        assert_eq!(rows.len(), r.tests.len() / 2 + r.tests.len());
        assert!(text.lines().next().unwrap().ends_with(buffered_mark(false)));
        for l in rows {
            assert!(l.ends_with(buffered_mark(false)), "{l}");
        }
        assert_eq!(
            bench_line(&r.tests[0], false),
            bench_line(&r.tests[0], true) + buffered_mark(false)
        );
    }
}
