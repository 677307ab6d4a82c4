//! A link cap: every read shape tops out at one rate that a usual link delivers.

use super::model::*;
use super::support::*;
use drivescope_record::{Experiment, FindingCode, Verdict};

/// Flash of `media` MB/s behind a link of `link` MB/s.
fn behind(media: f64, link: Option<f64>) -> Model {
    Model {
        outer: media,
        inner: media,
        link,
        ..ssd()
    }
}

fn capped_at(link: f64, name: &str) {
    let d = diagnose(behind(link * 1.7, Some(link)), &options(60));
    let code = FindingCode::LinkCap;
    let f = d.found(code.clone());
    assert!(f.claim.contains(name), "{}", f.claim);
    assert_eq!(d.number(code.clone(), "ceiling_mb_per_s"), link);
    near("min", d.number(code.clone(), "min_mb_per_s"), link, 0.01);
    near("max", d.number(code, "max_mb_per_s"), link, 0.01);
    let l = d.rec.link.as_ref().unwrap();
    assert_eq!(l.shapes.len(), 2);
    assert!(l.top_share > 0.9);
    assert_eq!(d.verdict(Experiment::Link), Verdict::Found);
}

#[test]
fn a_usb_2_link_caps_every_shape_at_40_mb_per_s() {
    capped_at(40.0, "USB 2.0");
}

#[test]
fn a_sata_6_gb_link_caps_faster_flash_at_600_mb_per_s() {
    capped_at(600.0, "SATA 6 Gb/s");
}

#[test]
fn flat_media_at_a_rate_no_link_delivers_is_left_alone() {
    let d = diagnose(behind(500.0, None), &options(60));
    assert!(d.finding(FindingCode::LinkCap).is_none(), "{:?}", d.codes());
    assert_eq!(d.verdict(Experiment::Link), Verdict::NotFound);
    let l = d.rec.link.as_ref().unwrap();
    assert!(l
        .shapes
        .iter()
        .all(|s| (s.mb_per_s / 500.0 - 1.0).abs() < 0.01));
    assert!(d.outcome(Experiment::Link).text.contains("no usual link"));
}

#[test]
fn a_rate_that_changes_with_the_shape_is_no_cap() {
    // One lane and a 1 ms access per command: larger commands move more per access.
    let m = Model {
        lanes: 1,
        ..behind(500.0, None)
    };
    let d = diagnose(m, &options(60));
    assert!(d.finding(FindingCode::LinkCap).is_none(), "{:?}", d.codes());
    let l = d.rec.link.as_ref().unwrap();
    let rate = |bs: u64| bs as f64 * 1e3 / (1e6 + bs as f64 * 1e3 / 500.0);
    near("top", l.top_mb_per_s, rate(MIB), 0.02);
    for s in &l.shapes {
        near("shape", s.mb_per_s, rate(s.block_size), 0.02);
    }
}

#[test]
fn a_rate_that_changes_with_position_reads_no_other_shapes() {
    let d = diagnose(hdd(), &options(60));
    let l = d.rec.link.as_ref().unwrap();
    assert!(l.shapes.is_empty());
    assert!(l.top_share < 0.3, "{}", l.top_share);
    assert!(d.finding(FindingCode::LinkCap).is_none());
    assert!(d
        .outcome(Experiment::Link)
        .text
        .contains("changes with position"));
}
