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

/// The inner/outer ratio a model's stream would read: the mean of its last 5 % over its first 5 %.
fn true_ratio(m: &Model) -> f64 {
    let mean = |from: f64, to: f64| {
        (0..50)
            .map(|i| {
                m.rate_at(((from + (to - from) * (i as f64 + 0.5) / 50.0) * m.size as f64) as u64)
            })
            .sum::<f64>()
            / 50.0
    };
    mean(0.95, 1.0) / mean(0.0, 0.05)
}

#[test]
fn a_large_flash_whose_outer_regions_a_read_cache_serves_shows_no_zones() {
    // 16 GB of flat flash on a busy host; a read cache holds the last 280 MiB the stream read, so the quick scan's
    // first regions read at the cache's rate. A mean of the outer 5 % put the inner edge at 0.83 of it, and the
    // host's noise made the ten stretches "fall steadily".
    let m = Model {
        size: 15_990_976_512,
        outer: 292.0,
        inner: 292.0,
        lanes: 2,
        access_ns: 52_000,
        read_cache: Some((293_150_720, 1817.0)),
        noise: Some(Noise {
            seed: 1_934_102_294_337_790_500,
            jitter_ns: 41_133,
            slow_share: 0.0057,
            slow_ns: 2_865_953,
        }),
        ..ssd()
    };
    let o = DiagnoseOptions {
        size: m.size,
        ..options(175)
    };
    let d = diagnose(m, &o);
    assert_eq!(d.rec.zones.as_ref().unwrap().source, CurveSource::QuickScan);
    assert!(d.finding(FindingCode::Zones).is_none(), "{:?}", d.codes());
    let text = &d.outcome(Experiment::Zones).text;
    assert!(text.contains("inner/outer 1.0"), "{text}");
}

#[test]
fn a_quick_scan_on_a_busy_host_gives_the_zone_ratio_of_the_media() {
    // 4.2 GB falling from 155 to 89 MB/s, six commands overlapping; a few completions come 36 ms late, each
    // halving its region's rate. Read once each, a mean of a dozen regions moved by 0.15.
    let m = Model {
        size: 4_215_689_216,
        outer: 155.5,
        inner: 88.9,
        zones: 1,
        access_ns: 5_932_594,
        lanes: 6,
        noise: Some(Noise {
            seed: 11_581_694_976_249_296_390,
            jitter_ns: 70_597,
            slow_share: 0.0018,
            slow_ns: 36_249_205,
        }),
        ..hdd()
    };
    let truth = true_ratio(&m);
    let o = DiagnoseOptions {
        size: m.size,
        ..options(137)
    };
    let d = diagnose(m, &o);
    assert_eq!(d.rec.zones.as_ref().unwrap().source, CurveSource::QuickScan);
    let ratio = d.number(FindingCode::Zones, "zone_ratio");
    assert!((ratio - truth).abs() <= 0.06, "{ratio} against {truth}");
}

#[test]
fn regions_a_read_cache_serves_are_left_out_of_the_zone_ratio() {
    // 1.9 GB in 16 zones from 128 to 92 MB/s; a 920 MiB read cache holds the outer regions the stream read last,
    // at 544 MB/s: the outer edge read off them made inner/outer 0.17.
    let m = Model {
        size: 1_910_517_760,
        outer: 128.0,
        inner: 91.5,
        zones: 16,
        access_ns: 2_523_259,
        lanes: 24,
        read_cache: Some((963_436_544, 560.7)),
        ..hdd()
    };
    let truth = true_ratio(&m);
    let o = DiagnoseOptions {
        size: m.size,
        ..options(141)
    };
    let d = diagnose(m, &o);
    assert_eq!(d.rec.zones.as_ref().unwrap().source, CurveSource::QuickScan);
    let ratio = d.number(FindingCode::Zones, "zone_ratio");
    assert!((ratio - truth).abs() <= 0.06, "{ratio} against {truth}");
}

#[test]
fn a_disk_the_stream_region_leaves_a_fifth_of_is_judged_to_its_inner_edge() {
    // 335 MB: the stream region is four slots of 64 MiB (256 MiB), 80 % of the disk; its curve stops short of the
    // inner zones, and gave inner/outer 0.77 where the disk's is 0.71.
    let m = Model {
        size: 335_450_112,
        outer: 99.2,
        inner: 70.4,
        zones: 15,
        access_ns: 3_453_163,
        lanes: 6,
        ..hdd()
    };
    let truth = true_ratio(&m);
    let o = DiagnoseOptions {
        size: m.size,
        ..options(175)
    };
    let d = diagnose(m, &o);
    let z = d.rec.zones.as_ref().unwrap();
    assert_eq!(z.source, CurveSource::QuickScan);
    assert!(z.curve.last().unwrap().offset > 320_000_000);
    let ratio = d.number(FindingCode::Zones, "zone_ratio");
    assert!((ratio - truth).abs() <= 0.06, "{ratio} against {truth}");
}
