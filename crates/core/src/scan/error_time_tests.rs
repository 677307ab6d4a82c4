//! A full scan's rate beside its wall-clock mean: the reads without the time spent on errors. One bad sector whose
//! command and re-reads take long pulls the wall-clock mean well under the disk's pace; the rate without errors is
//! that pace, truth known.

use super::scripted_tests::{scan, target};
use super::ScanConfig;
use crate::engine::scripted::{Call, Reply, Scripted};

const MIB: u64 = 1 << 20;
const BS: u64 = 64 << 10;
/// 64 KiB in 528.5 µs: 124 MB/s.
const READ_NS: u64 = 528_500;

#[test]
fn the_rate_without_errors_is_the_pass_s_and_the_wall_clock_mean_is_said_to_be_one() {
    let bad = 100 * MIB + 4096;
    let dev = Scripted::new(move |c: &Call| {
        if c.offset <= bad && bad < c.offset + c.len as u64 {
            // A failing read retries inside the drive before it gives up: 100 ms for the command, 30 ms a sector.
            let ns = if c.len as u64 == BS {
                100_000_000
            } else {
                30_000_000
            };
            return Reply::err(ns, libc::EIO);
        }
        Reply::ok(READ_NS * c.len as u64 / BS)
    })
    .unlogged();
    let r = scan(&dev, &target(256 * MIB), &ScanConfig::default());
    let pace = BS as f64 * 1e3 / READ_NS as f64;
    let clean = r.mb_per_s.without_errors.unwrap();
    assert!((clean / pace - 1.0).abs() < 0.01, "{clean} vs {pace}");
    let wall = r.mb_per_s.mean;
    assert!(wall < clean * 0.97, "{wall}: the errors' time is in it");
    // The time on errors: the command, its one failing sector, and what the probe and re-reads took.
    let error_ns = r.mb_per_s.error_ns.unwrap();
    assert!(
        error_ns >= 130_000_000 && error_ns < r.duration_ns,
        "{error_ns}"
    );
    // A clean scan says nothing more.
    let dev = Scripted::new(|c: &Call| Reply::ok(READ_NS * c.len as u64 / BS)).unlogged();
    let r = scan(&dev, &target(64 * MIB), &ScanConfig::default());
    assert_eq!(
        (r.mb_per_s.without_errors, r.mb_per_s.error_ns),
        (None, None)
    );
}
