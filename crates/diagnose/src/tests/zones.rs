//! Zones: the rate by position falls from the outer edge inward on a hard disk, and is flat on flash; a file's
//! positions are not the disk's.

use super::model::*;
use super::support::*;
use drivescope_record::{Confidence, CurveSource, Experiment, FindingCode, Verdict};

#[test]
fn a_hard_disk_falling_from_200_to_100_mb_per_s_is_found_from_the_warm_up_stream() {
    let d = diagnose(hdd(), &options(60));
    let code = FindingCode::Zones;
    assert_eq!(d.found(code.clone()).confidence, Confidence::High);
    // The last 5 % of positions against the first 5 %: ~103 against ~198 MB/s.
    let ratio = d.number(code.clone(), "zone_ratio");
    assert!((0.49..0.55).contains(&ratio), "{ratio}");
    assert_eq!(d.number(code, "falling_share"), 1.0);
    let z = d.rec.zones.as_ref().unwrap();
    assert_eq!(z.source, CurveSource::Stream);
    assert_eq!(z.curve.len(), 64);
    near("outer", z.curve[0].mb_per_s, 200.0, 0.03);
    near("inner", z.curve[63].mb_per_s, 100.0, 0.03);
}

#[test]
fn flat_flash_shows_no_zones() {
    let d = diagnose(ssd(), &options(60));
    assert!(d.finding(FindingCode::Zones).is_none(), "{:?}", d.codes());
    assert_eq!(d.verdict(Experiment::Zones), Verdict::NotFound);
    assert!(d.outcome(Experiment::Zones).text.contains("1.00"));
}

#[test]
fn a_file_on_a_hard_disk_makes_no_zone_claim() {
    let o = DiagnoseOptions {
        block_device: false,
        whole_device: false,
        ..options(60)
    };
    let d = diagnose(hdd(), &o);
    assert!(d.finding(FindingCode::Zones).is_none(), "{:?}", d.codes());
    assert!(d.rec.zones.is_none());
    assert_eq!(d.verdict(Experiment::Zones), Verdict::Skipped);
    assert!(d.skipped(Experiment::Zones).unwrap().contains("a file"));
}

#[test]
fn part_of_a_hard_disk_is_judged_from_a_quick_scan_of_the_whole() {
    let o = DiagnoseOptions {
        size: 512 * MIB,
        whole_device: false,
        ..options(60)
    };
    let d = diagnose(hdd(), &o);
    let z = d.rec.zones.as_ref().unwrap();
    assert_eq!(z.source, CurveSource::QuickScan);
    assert_eq!(z.curve.len(), 256);
    // The scan reaches the inner edge the diagnosed region does not.
    assert!(z.curve.last().unwrap().offset > 900 * MIB);
    let ratio = d.number(FindingCode::Zones, "zone_ratio");
    assert!((0.45..0.6).contains(&ratio), "{ratio}");
}

#[test]
fn a_quick_scan_of_flat_flash_finds_no_zones() {
    let o = DiagnoseOptions {
        size: 512 * MIB,
        whole_device: false,
        ..options(60)
    };
    let d = diagnose(ssd(), &o);
    assert_eq!(d.rec.zones.as_ref().unwrap().source, CurveSource::QuickScan);
    assert!(d.finding(FindingCode::Zones).is_none(), "{:?}", d.codes());
    assert_eq!(d.verdict(Experiment::Zones), Verdict::NotFound);
}

use crate::DiagnoseOptions;

#[test]
fn a_disk_larger_than_the_stream_region_is_judged_from_a_quick_scan_of_the_whole() {
    // 4 TB: the stream reads the outer 1 GiB, flat at the outer rate; the quick scan reaches the inner zones.
    let m = Model {
        size: 4_000_000_000_000,
        ..hdd()
    };
    let o = DiagnoseOptions {
        size: m.size,
        ..options(60)
    };
    let d = diagnose(m, &o);
    assert_eq!(d.rec.zones.as_ref().unwrap().source, CurveSource::QuickScan);
    let ratio = d.number(FindingCode::Zones, "zone_ratio");
    assert!((0.45..0.6).contains(&ratio), "{ratio}");
    // Flat over the outer 1 GiB is not flat over the disk: no ceiling.
    assert!(d.finding(FindingCode::LinkCap).is_none(), "{:?}", d.codes());
}
