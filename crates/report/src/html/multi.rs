//! A multi-rank run's section of the report page: the aggregate of each test, then one row per
//! rank with its own rate in each test, the slowest and fastest marked (rendered by
//! `templates/multi.html`).

use crate::doc::Run;
use crate::format::duration;
use serde::Serialize;

/// One cell of the per-rank table: its text and its mark ("best", "worst" or "").
#[derive(Serialize)]
pub(super) struct Cell(String, &'static str);

#[derive(Serialize)]
pub(super) struct MultiView {
    label: String,
    what: String,
    /// Per test: name, MB/s, IOPS, p99, start spread, slowest, fastest.
    tests: Vec<[String; 7]>,
    /// Test names, the per-rank table's columns.
    heads: Vec<String>,
    /// Per rank: rank, host, target, then a cell per test (or the rank's error).
    ranks: Vec<(String, String, String, Vec<Cell>, String)>,
}

pub(super) fn view(run: &Run) -> Option<MultiView> {
    let drivescope_record::Document::Multi(r) = &run.doc else {
        return None;
    };
    let rate = |rank: &drivescope_record::RankRate| {
        format!(
            "rank {} on {} ({:.1} MB/s)",
            rank.rank, rank.host, rank.mb_per_s
        )
    };
    let tests = r
        .tests
        .iter()
        .map(|t| {
            let p99 = t.latency.percentiles_ns.get("99").copied().unwrap_or(0);
            [
                format!("{} {}", t.name, t.rw),
                format!("{:.1}", t.mb_per_s),
                format!("{:.0}", t.iops),
                duration(p99 as f64),
                duration(t.start_spread_ns as f64),
                rate(&t.slowest),
                rate(&t.fastest),
            ]
        })
        .collect();
    let ranks = r
        .members
        .iter()
        .map(|m| {
            let mine = m.tests();
            let cells = r
                .tests
                .iter()
                .map(
                    |t| match mine.iter().find(|x| x.name == t.name && x.rw == t.rw) {
                        None => Cell("—".into(), ""),
                        Some(x) => {
                            let mark = if t.ranks < 2 {
                                ""
                            } else if m.rank == t.slowest.rank {
                                "worst"
                            } else if m.rank == t.fastest.rank {
                                "best"
                            } else {
                                ""
                            };
                            Cell(format!("{:.1}", x.mb_per_s), mark)
                        }
                    },
                )
                .collect();
            (
                m.rank.to_string(),
                m.host.clone(),
                m.target.clone(),
                cells,
                m.error.clone().unwrap_or_default(),
            )
        })
        .collect();
    Some(MultiView {
        label: run.label(),
        what: format!(
            "drivescope {} on {} ranks, target {}; aggregate = all bytes / (latest end − earliest start)",
            r.command, r.ranks, r.target_template
        ),
        tests,
        heads: r.tests.iter().map(|t| format!("{} {}", t.name, t.rw)).collect(),
        ranks,
    })
}
