//! The live counters a full scan keeps when asked, checked against its own record: over a
//! scripted device with one slow command and one bad sector.

use super::live::{Live, LIVE_BINS};
use super::scripted_tests::{target, touches};
use super::{run_inner, ScanConfig};
use crate::engine::scripted::{Call, Reply, Scripted};
use crate::scan::Progress;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

const MIB: u64 = 1024 * 1024;
const BS: u64 = 64 * 1024;

#[test]
fn a_scan_fills_the_live_curve_bands_and_marks_as_it_goes() {
    // 64 MiB: 1024 commands, two per live bin. Command 300 takes 80 ms (slow at 50 ms), LBA
    // 100000 (in command 781) is bad.
    let size = 64 * MIB;
    let slow_at = 300 * BS;
    let bad = std::slice::from_ref(&(100_000..100_001));
    let dev = Scripted::new(|c: &Call| {
        if touches(c.offset, c.len, bad) {
            Reply::err(100_000, libc::EIO)
        } else if c.offset == slow_at {
            Reply::ok(80_000_000)
        } else {
            Reply::ok(100_000)
        }
    });
    let t = target(size);
    let progress = Arc::new(Progress::default());
    progress.live.set(Live::new(0, size, 512)).unwrap();
    let rec = run_inner(
        &dev,
        &t,
        &ScanConfig::default(),
        None,
        progress.clone(),
        &AtomicBool::new(false),
        None,
    )
    .unwrap();
    let s = progress.live.get().unwrap().snapshot();

    // The bands are the record's, command for command.
    let want: Vec<u64> = rec.bands.iter().map(|b| b.count).collect();
    assert_eq!(s.bands.to_vec(), want);
    // Every bin got its two commands but the failed one's; the marks sit where they happened.
    let bin_of = |off: u64| (off * LIVE_BINS as u64 / size) as usize;
    let bad_bin = bin_of(100_000 * 512);
    // The first pass skips ahead after the failure; later passes read what it skipped, out
    // of order (unpaced).
    for (i, b) in s.bins.iter().enumerate() {
        let want = if i == bad_bin { BS } else { 2 * BS };
        assert_eq!(b.bytes + b.unpaced_bytes, want, "bin {i}");
        assert!(b.mb_s().is_some(), "bin {i}");
        assert_eq!(b.slow, u64::from(i == bin_of(slow_at)), "bin {i}");
        assert_eq!(b.failed, u64::from(i == bad_bin), "bin {i}");
    }
    // 100 µs a command: 655 MB/s, and the slow bin far below.
    let rate = s.bins[0].mb_s().unwrap();
    assert!((rate - 655.36).abs() < 30.0, "{rate}");
    assert!(s.bins[bin_of(slow_at)].mb_s().unwrap() < 2.0);
    assert_eq!(s.quantile_ns(0.5), Some(rec.latency.percentiles_ns["50"]));
}

/// A scan of `size` bytes over `dev` with the live counters kept: its record and what the
/// counters hold at the end.
fn scan_live<F: FnMut(&Call) -> Reply + Send>(
    dev: &Scripted<F>,
    size: u64,
    cfg: &ScanConfig,
) -> (super::ScanRecord, super::live::Snapshot) {
    let t = target(size);
    let progress = Arc::new(Progress::default());
    progress.live.set(Live::new(0, size, 512)).unwrap();
    let rec = run_inner(
        dev,
        &t,
        cfg,
        None,
        progress.clone(),
        &AtomicBool::new(false),
        None,
    )
    .unwrap();
    let snap = progress.live.get().unwrap().snapshot();
    (rec, snap)
}

#[test]
fn the_live_percentiles_are_the_records() {
    // 64 MiB in 4 KiB commands (16384), latencies spread from 20 µs to 2.5 ms by offset, a
    // few of 40 ms and one bad sector (its command's latency is not counted).
    let bad = std::slice::from_ref(&(70_000..70_001));
    let dev = Scripted::new(|c: &Call| {
        let k = c.offset / 4096;
        if touches(c.offset, c.len, bad) {
            Reply::err(300_000, libc::EIO)
        } else if k % 1000 == 999 {
            Reply::ok(40_000_000 + k)
        } else {
            Reply::ok(20_000 + (k * 7919 % 2477) * 1_000 + k % 13)
        }
    });
    let cfg = ScanConfig {
        block_size: 4096,
        ..ScanConfig::default()
    };
    let (rec, s) = scan_live(&dev, 64 * MIB, &cfg);
    assert_eq!(s.lat.count(), rec.latency.count);
    for (label, q) in [("50", 0.5), ("90", 0.9), ("99", 0.99), ("99.9", 0.999)] {
        assert_eq!(
            s.quantile_ns(q),
            Some(rec.latency.percentiles_ns[label]),
            "p{label}"
        );
    }
    assert_eq!(s.lat.min(), Some(rec.latency.min_ns));
    assert_eq!(s.lat.max(), Some(rec.latency.max_ns));
}

#[test]
fn a_quick_scan_fills_the_live_counters_as_its_record_counts() {
    // 64 MiB in 16 regions of 4 MiB, 10 ms of dwell each: 1 ms a 64 KiB command after the
    // region's first (the seek, 5 ms). Region 5's first command is slow (60 ms); LBA 82050
    // (region 10, its second command) is bad.
    let size = 64 * MIB;
    let region = size / 16;
    let bad = std::slice::from_ref(&(82_050..82_051));
    let dev = Scripted::new(|c: &Call| {
        if touches(c.offset, c.len, bad) {
            Reply::err(200_000, libc::EIO)
        } else if c.offset == 5 * region {
            Reply::ok(60_000_000)
        } else if c.offset.is_multiple_of(region) {
            Reply::ok(5_000_000)
        } else {
            Reply::ok(1_000_000)
        }
    });
    let cfg = ScanConfig {
        quick: Some((16, 10_000_000)),
        ..ScanConfig::default()
    };
    let (rec, s) = scan_live(&dev, size, &cfg);
    assert!(rec.failed_commands >= 1 && rec.slow_total >= 1, "{rec:?}");
    let want: Vec<u64> = rec.bands.iter().map(|b| b.count).collect();
    assert_eq!(s.bands.to_vec(), want);
    let bytes: u64 = s.bins.iter().map(|b| b.bytes + b.unpaced_bytes).sum();
    assert_eq!(bytes, rec.bytes);
    let failed: u64 = s.bins.iter().map(|b| b.failed).sum();
    assert_eq!(failed, rec.failed_commands);
    let slow: u64 = s.bins.iter().map(|b| b.slow).sum();
    assert_eq!(slow, rec.slow_total);
    assert_eq!(s.quantile_ns(0.99), Some(rec.latency.percentiles_ns["99"]));
    // Each region's bins have a rate; the marks sit in the bins of the regions they came from.
    let bin_of = |off: u64| (off * LIVE_BINS as u64 / size) as usize;
    for r in rec.regions.as_ref().unwrap() {
        assert!(
            s.bins[bin_of(r.offset)].mb_s().is_some(),
            "region {}",
            r.index
        );
    }
    assert_eq!(s.bins[bin_of(5 * region)].slow, 1);
    assert_eq!(s.bins[bin_of(82_050 * 512)].failed, 1);
    // Between the regions nothing was read.
    assert_eq!(s.bins[bin_of(region / 2)].bytes, 0);
}
