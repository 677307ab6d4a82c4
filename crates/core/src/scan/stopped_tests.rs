//! A scan stopped before its end: the surface counts what the first pass never reached as untried, so good,
//! failed and untried add up to the range, whatever its size.

use super::scripted_tests::{scan_stopped, target};
use super::ScanConfig;
use crate::engine::scripted::{Call, Reply, Scripted};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const TIB: u64 = 1 << 40;

/// Scan `size` bytes, stopped (as Ctrl-C stops it) once a command at `stop_at` is issued; a bad sector at 100 MiB.
fn stopped(size: u64, stop_at: u64) -> super::ScanRecord {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let dev = Scripted::new(move |c: &Call| {
        if c.offset >= stop_at {
            flag.store(true, Ordering::Relaxed);
        }
        if c.offset <= 100 * MIB && 100 * MIB < c.offset + c.len as u64 {
            return Reply::err(1_000_000, libc::EIO);
        }
        Reply::ok(100_000)
    })
    .unlogged();
    scan_stopped(&dev, &target(size), &ScanConfig::default(), &stop)
}

#[test]
fn what_a_stopped_scan_never_reached_is_untried_and_the_surface_adds_up_to_the_range() {
    for (size, stop_at) in [(4 * GIB, 1331 * MIB), (20 * TIB, 64 * MIB), (GIB, 1024)] {
        let r = stopped(size, stop_at);
        let what = format!("{size} B stopped at {stop_at}");
        assert!(r.interrupted, "{what}");
        assert!(r.covered > 0 && r.covered < size, "{what}: {}", r.covered);
        let s = r.surface.as_ref().unwrap();
        assert_eq!(s.unreached, size - r.covered, "{what}");
        assert_eq!(s.good + s.failed + s.untried, size, "{what}: {s:?}");
        assert!(s.untried >= s.unreached, "{what}");
        // What the first pass got over: read, failed, or skipped next to the failure.
        assert_eq!(s.good, r.bytes, "{what}");
    }
}

#[test]
fn a_scan_that_ran_to_its_end_reached_everything() {
    let r = stopped(256 * MIB, u64::MAX);
    assert!(!r.interrupted);
    let s = r.surface.as_ref().unwrap();
    assert_eq!((s.unreached, s.untried), (0, 0));
    assert_eq!(s.good + s.failed, 256 * MIB);
}
