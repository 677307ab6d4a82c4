//! The charts of a report, as SVG. Every chart says how many data marks it drew (`marks`): one per curve bin,
//! histogram bucket, region, sweep cell, series sample or bench result — the same count the run documents hold.

mod array;
mod bench;
mod curve;
mod diagnose;
mod durability;
#[cfg(test)]
mod ends_tests;
mod fingerprint;
mod histogram;
mod multi;
mod overlay;
mod regions;
mod screen;
mod series;
mod steady;
mod steady_pages;
mod sweep;
mod temperature;
mod time;
pub mod trend;

use crate::doc::Run;
use crate::svg::PALETTE;

/// One chart of a report.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Chart {
    /// Unique in a report; also the PNG file name (`ID.png`).
    pub id: String,
    pub title: String,
    /// What the chart shows, in a sentence.
    pub caption: String,
    pub svg: String,
    /// Data marks drawn.
    pub marks: usize,
}

/// Every chart the runs call for, in report order: transfer-rate curves (all scans overlaid), bench results,
/// quick scans, histograms, sweeps, time series, diagnoses, screens, multi-rank scans, timed workloads.
pub fn build(runs: &[Run]) -> Vec<Chart> {
    let mut out = Vec::new();
    out.extend(curve::chart(runs));
    out.extend(bench::chart(runs));
    for (i, r) in runs.iter().enumerate() {
        out.extend(regions::chart(r, i));
    }
    for (i, r) in runs.iter().enumerate() {
        out.extend(histogram::chart(r, i));
    }
    for (i, r) in runs.iter().enumerate() {
        out.extend(sweep::chart(r, i));
    }
    for (i, r) in runs.iter().enumerate() {
        out.extend(series::chart(r, i));
    }
    for (i, r) in runs.iter().enumerate() {
        out.extend(steady::chart(r, i));
        out.extend(steady_pages::charts(r, i));
    }
    for (i, r) in runs.iter().enumerate() {
        out.extend(diagnose::charts(r, i));
    }
    for (i, r) in runs.iter().enumerate() {
        out.extend(durability::charts(r, i));
    }
    for (i, r) in runs.iter().enumerate() {
        out.extend(screen::charts(r, i));
    }
    for (i, r) in runs.iter().enumerate() {
        out.extend(multi::charts(r, i));
    }
    for (i, r) in runs.iter().enumerate() {
        out.extend(time::chart(r, i));
        out.extend(fingerprint::charts(r, i));
    }
    out
}

/// The colour of the `i`-th run, and whether its lines are dashed (writes are, so read and write of one device
/// stay apart in grey print).
pub(crate) fn style(run: &Run, i: usize) -> (&'static str, bool) {
    (
        PALETTE[i % PALETTE.len()],
        run.direction() == drivescope_record::Direction::Write,
    )
}

/// A file- and id-safe slug for a run.
pub(crate) fn slug(run: &Run, i: usize) -> String {
    match run.id {
        Some(id) => format!("run{id}"),
        None => format!("doc{}", i + 1),
    }
}

/// Chooses an IEC unit for positions up to `max` bytes: (divisor, name).
pub(crate) fn position_unit(max: f64) -> (f64, &'static str) {
    const TIB: f64 = (1u64 << 40) as f64;
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    if max >= 2.0 * TIB {
        (TIB, "TiB")
    } else if max >= 2.0 * GIB {
        (GIB, "GiB")
    } else {
        (MIB, "MiB")
    }
}
