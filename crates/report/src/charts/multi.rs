//! A multi-rank scan's chart: every rank's rate curve in one chart, one line per rank.

use super::overlay::{self, Line};
use super::{slug, Chart};
use crate::doc::Run;
use drivescope_record::Document;

pub fn charts(run: &Run, i: usize) -> Vec<Chart> {
    let Document::Multi(r) = &run.doc else {
        return Vec::new();
    };
    let lines: Vec<Line> = r
        .members
        .iter()
        .enumerate()
        .filter_map(|(k, m)| {
            Some(Line {
                color: k,
                legend: format!("rank {} on {} · {}", m.rank, m.host, m.target),
                target: m.target.clone(),
                scan: m.scan.as_deref()?,
            })
        })
        .collect();
    overlay::curves(
        run,
        &format!("multi-curve-{}", slug(run, i)),
        "Mean transfer rate of each position bin of every rank's scan, one line per rank, all measured at once.",
        &lines,
        false,
    )
    .into_iter()
    .collect()
}
