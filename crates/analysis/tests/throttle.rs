//! The thermal-throttle rule on soak and scan records built from the real record types: a lasting fall in
//! the rate over time is a throttle where position cannot explain it, and nothing where it can.

use drivescope_analysis::findings;
use drivescope_probe::{BlockInfo, BlockRole, Hardware, Transport};
use drivescope_record::{Confidence, Direction, Document, FindingCode, Identity, Step};
use drivescope_report::sample;

const S: u64 = 1_000_000_000;

fn throttle(doc: impl Into<Document>) -> Option<drivescope_record::Finding> {
    findings(&doc.into())
        .into_iter()
        .find(|f| f.code == FindingCode::ThermalThrottle)
}

/// Rates over a series of 1 s intervals: `fast` for `after` s, then `slow`.
fn stepped(series: &mut [drivescope_stats::SeriesPoint], after: u64, fast: f64, slow: f64) {
    for p in series {
        p.mb_per_s = if p.t_ns <= after * S { fast } else { slow };
    }
}

/// A read soak over one region at 480 MB/s that falls to 216 after 30 s.
fn hot_soak() -> drivescope_record::SoakRecord {
    let mut s = sample::soak(3, 120);
    s.rw = Direction::Read;
    stepped(&mut s.series, 30, 480.0, 216.0);
    s.steady_mb_per_s = 216.0;
    s.steps = vec![Step {
        t_ns: 30 * S,
        from_mb_per_s: 480.0,
        to_mb_per_s: 216.0,
        change: Some(216.0 / 480.0 - 1.0),
    }];
    s
}

#[test]
fn a_read_soak_that_falls_for_good_is_a_throttle() {
    let f = throttle(hot_soak()).expect("a throttle");
    assert_eq!(f.confidence, Confidence::Medium);
    let t = f.number("time_to_throttle_s").unwrap();
    assert!((29.0..=31.0).contains(&t), "{t}");
    assert!((f.number("factor").unwrap() - 0.45).abs() < 1e-9);
    assert_eq!(f.number("cooling_s"), None, "no rest in the run");
}

#[test]
fn a_soak_that_dips_and_comes_back_or_starts_slow_or_writes_is_not_a_throttle() {
    // A dip of 20 s in the middle: not lasting.
    let mut s = hot_soak();
    for p in &mut s.series {
        p.mb_per_s = if (30 * S..50 * S).contains(&p.t_ns) {
            216.0
        } else {
            480.0
        };
    }
    assert!(throttle(s).is_none());
    // Slow, then fast: a warm-up.
    let mut s = hot_soak();
    stepped(&mut s.series, 30, 216.0, 480.0);
    assert!(throttle(s).is_none());
    // A write soak's fall is a write cache filling.
    let mut s = hot_soak();
    s.rw = Direction::Write;
    assert!(throttle(s).is_none());
    // A fall of 10 %: noise, not a step.
    let mut s = hot_soak();
    stepped(&mut s.series, 30, 480.0, 432.0);
    assert!(throttle(s).is_none());
}

/// A disk that does not rotate (flash).
fn flash(size: u64) -> Identity {
    let mut b = BlockInfo::new(
        "nvme9n1",
        "/dev/nvme9n1".into(),
        BlockRole::Disk,
        Transport::Nvme,
    );
    b.size_bytes = Some(size);
    b.rotational = Some(false);
    b.hardware = Some(Hardware {
        model: Some("ACME NVMe".into()),
        serial: Some("SAMPLE-FLASH".into()),
        ..Hardware::default()
    });
    Identity::of_block(b)
}

#[test]
fn a_scan_that_falls_over_time_is_a_throttle_only_on_a_device_without_zones() {
    let size = 1 << 40;
    let mut hdd = sample::scan(1, size, 1000, 0, 0, Direction::Read);
    let secs = hdd.series.len() as u64;
    assert!(secs >= 20, "{secs} intervals");
    stepped(&mut hdd.series, secs / 4, 480.0, 216.0);
    // On a rotating disk the fall may be its zones: nothing said.
    assert!(throttle(hdd.clone()).is_none());
    // Nor on a device not known to rotate or not.
    let mut unknown = hdd.clone();
    unknown.header.device = None;
    assert!(throttle(unknown).is_none());
    // On flash there are no zones: the device slowed.
    let mut ssd = hdd.clone();
    ssd.header.device = Some(flash(size));
    let f = throttle(ssd.clone()).expect("a throttle");
    assert!((f.number("factor").unwrap() - 0.45).abs() < 1e-9);
    // The same flash scanned at one rate throughout has none.
    let mut flat = ssd.clone();
    stepped(&mut flat.series, secs, 480.0, 480.0);
    assert!(throttle(flat).is_none());
    // A write scan's fall may be its write cache.
    let mut w = ssd;
    w.write = true;
    assert!(throttle(w).is_none());
}
