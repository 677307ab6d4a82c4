//! A ceiling: every read shape tops out at one rate over most positions. Named after a usual link when its range
//! of what it delivers in practice holds the rate; a ceiling on the path or in the device all the same when none
//! does.

use super::model::*;
use super::support::*;
use crate::DiagnoseOptions;
use drivescope_record::{Confidence, Experiment, FindingCode, Verdict};

/// Flash of `media` MB/s behind a link of `link` MB/s.
fn behind(media: f64, link: Option<f64>) -> Model {
    Model {
        outer: media,
        inner: media,
        link,
        ..ssd()
    }
}

/// A diagnosis of `m` finds a ceiling at `rate` MB/s over every shape; its claim.
fn capped(m: Model, rate: f64) -> String {
    let d = diagnose(m, &options(60));
    let code = FindingCode::LinkCap;
    let f = d.found(code.clone());
    near(
        "ceiling",
        d.number(code.clone(), "ceiling_mb_per_s"),
        rate,
        0.01,
    );
    near("min", d.number(code.clone(), "min_mb_per_s"), rate, 0.01);
    near("max", d.number(code, "max_mb_per_s"), rate, 0.01);
    let l = d.rec.link.as_ref().unwrap();
    assert_eq!(l.shapes.len(), 2);
    assert_eq!(d.verdict(Experiment::Link), Verdict::Found);
    let text = &d.outcome(Experiment::Link).text;
    assert_eq!(text, &f.claim);
    assert!(!text.starts_with("none"), "{text}");
    f.claim.clone()
}

fn capped_at(link: f64, name: &str) {
    let claim = capped(behind(link * 1.7, Some(link)), link);
    assert!(claim.contains(&format!("matches {name} (")), "{claim}");
    assert!(!claim.contains("no usual link"), "{claim}");
}

#[test]
fn a_usb_2_link_caps_every_shape_at_40_mb_per_s() {
    capped_at(40.0, "USB 2.0");
}

#[test]
fn a_1_gbe_link_through_a_file_protocol_caps_every_shape_at_110_mb_per_s() {
    capped_at(110.0, "1 GbE");
}

#[test]
fn a_sata_6_gb_link_caps_faster_flash_at_550_mb_per_s() {
    capped_at(550.0, "SATA 6 Gb/s");
}

#[test]
fn a_disk_capped_at_a_rate_no_link_delivers_is_capped_on_the_path_or_in_the_device() {
    // 250 falling to 150 MB/s behind 180: flat at 180 over ~80 % of the positions, then falling with position.
    let m = Model {
        outer: 250.0,
        inner: 150.0,
        link: Some(180.0),
        ..hdd()
    };
    let d = diagnose(m.clone(), &options(60));
    let f = d.found(FindingCode::LinkCap);
    assert_eq!(f.confidence, Confidence::High);
    let claim = capped(m, 180.0);
    assert!(claim.starts_with("reads top out at 18"), "{claim}");
    assert!(
        claim.contains("whatever the block size, queue depth or position"),
        "{claim}"
    );
    assert!(
        claim.contains("a ceiling on the path or in the device"),
        "{claim}"
    );
    assert!(claim.contains("a hard disk is not flat"), "{claim}");
    assert!(claim.contains("no usual link delivers that"), "{claim}");
    assert!(!claim.contains("matches"), "{claim}");
}

#[test]
fn flat_media_at_a_rate_no_link_delivers_is_a_ceiling_in_the_device() {
    let d = diagnose(behind(480.0, None), &options(60));
    let f = d.found(FindingCode::LinkCap);
    // Flat flash may be the device's own top: a ceiling all the same, but no hard-disk claim and less sure.
    assert_eq!(f.confidence, Confidence::Medium);
    assert!(!f.claim.contains("hard disk"), "{}", f.claim);
    assert!(!f.claim.contains("matches"), "{}", f.claim);
    let l = d.rec.link.as_ref().unwrap();
    assert!(l
        .shapes
        .iter()
        .all(|s| (s.mb_per_s / 480.0 - 1.0).abs() < 0.01));
    near(
        "ceiling",
        d.number(FindingCode::LinkCap, "ceiling_mb_per_s"),
        480.0,
        0.01,
    );
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
    assert_eq!(d.verdict(Experiment::Link), Verdict::NotFound);
    let text = &d.outcome(Experiment::Link).text;
    assert!(text.contains("changes with the shape"), "{text}");
    assert!(!text.contains("usual link"), "{text}");
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

#[test]
fn the_outer_zone_of_a_two_zone_disk_at_a_link_s_rate_is_no_ceiling_claimed() {
    // 47.5 GB in two zones, 121.7 then 96.3 MB/s: the outer half is flat at a rate 1 GbE delivers, and every shape
    // reads it alike. A ceiling over a disk looks the same; said inconclusive, not "matches 1 GbE".
    let m = Model {
        size: 47_549_784_064,
        outer: 121.65,
        inner: 96.34,
        zones: 2,
        access_ns: 12_825_695,
        ..hdd()
    };
    let o = DiagnoseOptions {
        size: m.size,
        ..options(130)
    };
    let d = diagnose(m, &o);
    assert!(d.finding(FindingCode::LinkCap).is_none(), "{:?}", d.codes());
    assert_eq!(d.verdict(Experiment::Link), Verdict::Inconclusive);
    let text = &d.outcome(Experiment::Link).text;
    assert!(text.contains("outer zone"), "{text}");
}

#[test]
fn a_disk_still_warming_up_that_falls_gently_claims_no_ceiling() {
    // 1.7 GB in 16 zones from 205 to 162 MB/s, at 0.57× for its first 92 s: every experiment reads it slowed, the
    // outer fifth within 5 % of 116 MB/s (a 1 GbE rate), falling a percent a zone.
    let m = Model {
        size: 1_673_924_608,
        outer: 204.6,
        inner: 161.6,
        zones: 16,
        access_ns: 9_522_264,
        warm_up: Some((91_740_564_452, 0.5705)),
        read_cache: Some((161_837_056, 3605.0)),
        ..hdd()
    };
    let o = DiagnoseOptions {
        size: m.size,
        ..options(102)
    };
    let d = diagnose(m, &o);
    assert!(d.finding(FindingCode::LinkCap).is_none(), "{:?}", d.codes());
    let text = &d.outcome(Experiment::Link).text;
    assert!(text.contains("falls gently"), "{text}");
}

#[test]
fn a_20_mb_per_s_link_is_found_though_a_slot_outlasts_each_shape() {
    // Behind 20 MB/s, 1.5 s of a shape reads 30 MB: less than two 16 MiB slots of the 1 GiB region, and the
    // shapes' rates were part-filled stretches' (22.6 and 21.3 against 20.1).
    let m = Model {
        size: 10_383_982_592,
        access_ns: 20_610,
        lanes: 7,
        ..behind(2470.0, Some(20.13))
    };
    let o = DiagnoseOptions {
        size: m.size,
        ..options(166)
    };
    let d = diagnose(m, &o);
    near(
        "ceiling",
        d.number(FindingCode::LinkCap, "ceiling_mb_per_s"),
        20.13,
        0.03,
    );
}

#[test]
fn a_read_cache_does_not_serve_one_shape_what_the_other_read() {
    // Flat flash at 132 MB/s with a 257 MiB read cache: the second shape re-read the 200 MB the first had just
    // read, from the cache (1311 MB/s), and the rate "changed with the shape".
    let m = Model {
        size: 16_210_067_456,
        access_ns: 59_296,
        lanes: 61,
        read_cache: Some((269_832_192, 1747.7)),
        ..behind(132.4, None)
    };
    let o = DiagnoseOptions {
        size: m.size,
        ..options(93)
    };
    let d = diagnose(m, &o);
    let l = d.rec.link.as_ref().unwrap();
    assert_eq!(l.shapes.len(), 2);
    for s in &l.shapes {
        near("shape", s.mb_per_s, 132.4, 0.03);
    }
    near(
        "ceiling",
        d.number(FindingCode::LinkCap, "ceiling_mb_per_s"),
        132.4,
        0.03,
    );
}
