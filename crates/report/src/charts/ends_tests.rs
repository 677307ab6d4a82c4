//! Every chart whose x axis is a range (positions, time, queue depths) ends at the range's end: no
//! label past it, and the last label the end itself or the last nice value before it.

use super::*;
use crate::sample;
use crate::svg::frame::Layout;
use crate::svg::n;
use drivescope_record::{Direction, Document};

/// The x axis's tick labels of a chart, left to right.
fn x_labels(svg: &str) -> Vec<String> {
    let y = format!(" y=\"{}\"", n(Layout::new(0).bottom + 19.0));
    svg.split("<text")
        .skip(1)
        .filter(|t| t.split('>').next().is_some_and(|head| head.contains(&y)))
        .filter_map(|t| {
            let text = t.split_once('>')?.1;
            Some(text.split('<').next()?.to_string())
        })
        .collect()
}

fn chart_of(doc: Document, id: &str) -> Chart {
    let runs = [Run::new(Some(1), doc)];
    let charts = build(&runs);
    let ids: Vec<String> = charts.iter().map(|c| c.id.clone()).collect();
    charts
        .into_iter()
        .find(|c| c.id.starts_with(id))
        .unwrap_or_else(|| panic!("no chart {id} in {ids:?}"))
}

#[test]
fn the_scan_curve_of_a_256_mib_device_ends_at_256_mib() {
    let scan = sample::scan(1, 256 << 20, 100, 0, 0, Direction::Read);
    let c = chart_of(Document::from(scan), "curve");
    assert_eq!(x_labels(&c.svg), ["0", "100", "200", "256"], "{}", c.svg);
}

#[test]
fn a_scan_curve_ending_near_a_nice_value_stops_there() {
    let scan = sample::scan(1, 1010 << 20, 101, 0, 0, Direction::Read);
    let c = chart_of(Document::from(scan), "curve");
    assert_eq!(x_labels(&c.svg), ["0", "500", "1000"], "{}", c.svg);
}

#[test]
fn quick_scan_regions_end_at_the_device_end() {
    let scan = sample::quick_scan(2, 256 << 20, 16);
    let c = chart_of(Document::from(scan), "regions");
    assert_eq!(x_labels(&c.svg), ["0", "100", "200", "256"], "{}", c.svg);
}

#[test]
fn a_soak_over_time_ends_at_its_last_second() {
    let soak = sample::soak(3, 130);
    let c = chart_of(Document::from(soak), "series");
    assert_eq!(x_labels(&c.svg), ["0", "50", "100", "130"], "{}", c.svg);
}

#[test]
fn a_sweep_ends_at_its_deepest_queue() {
    let sweep = sample::sweep(4);
    let c = chart_of(Document::from(sweep), "sweep");
    assert_eq!(
        x_labels(&c.svg),
        ["1", "2", "5", "10", "20", "50", "64"],
        "{}",
        c.svg
    );
}
