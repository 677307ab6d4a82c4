//! End-to-end scans of real kernel devices the tests create: loop over tmpfs, zram.

use common::typed::{check_scan, drivescope_record};
use common::*;
use drivescope_record::{EngineKind, Kind, Reap, ScanRecord, TargetType};
use drivescope_testkit as common;

const MIB: u64 = 1 << 20;

#[test]
fn full_scan_of_a_tmpfs_loop_device_is_exact() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let dev = TmpfsLoop::new(64 * MIB);
    let p = dev.path().to_str().unwrap();
    let cpus = std::thread::available_parallelism().unwrap().get();
    // (queue depth, --reap, the wait mode the document must name)
    for (qd, reap, expect) in [
        ("1", "auto", if cpus > 1 { Reap::Poll } else { Reap::Sleep }),
        ("1", "sleep", Reap::Sleep),
        ("1", "poll", Reap::Poll),
        ("4", "auto", Reap::Sleep),
        ("4", "poll", Reap::Poll),
    ] {
        let d: ScanRecord = drivescope_record(&["scan", p, "--queue-depth", qd, "--reap", reap]);
        assert_eq!(d.reap, expect, "QD{qd} --reap {reap}");
        check_scan(&d);
        assert_eq!(d.header.kind, Kind::Scan);
        assert_eq!(d.bytes, 64 * MIB);
        assert_eq!(d.commands, 1024);
        assert_eq!(d.curve.len(), 1000);
        assert_eq!(d.engine, EngineKind::IoUring);
        assert_eq!(d.header.target.kind, TargetType::Block);
        assert_eq!(d.header.target.size, 64 * MIB);
        assert!(d.zone_ratio.unwrap() > 0.0);
        assert_eq!(d.queue_depth, qd.parse::<u32>().unwrap());
    }
}

#[test]
fn partial_ranges_have_right_offsets_and_lbas() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let dev = TmpfsLoop::new(32 * MIB);
    let p = dev.path().to_str().unwrap();
    // 1 MiB in, 10 MiB + 4 KiB long: the last command is 4 KiB.
    let len = 10 * MIB + 4096;
    let d: ScanRecord = drivescope_record(&[
        "scan",
        p,
        "--offset",
        "1M",
        "--length",
        &len.to_string(),
        "--points",
        "7",
    ]);
    check_scan(&d);
    assert_eq!(d.offset, MIB);
    assert_eq!(d.length, len);
    assert_eq!(d.commands, 161);
    assert_eq!(d.bytes, len);
    assert_eq!(d.curve.len(), 7);
    assert_eq!(d.curve[0].offset, MIB);

    // percentages of the device
    let d: ScanRecord = drivescope_record(&[
        "scan", p, "--offset", "50%", "--length", "25%", "--slow", "0ms",
    ]);
    check_scan(&d);
    assert_eq!(d.offset, 16 * MIB);
    assert_eq!(d.length, 8 * MIB);
    // with a 0 ms threshold every command is slow, each listed with its offset and LBA
    assert_eq!(d.slow_total, 128);
    assert_eq!(d.slow.len(), 128);
    let mut offs: Vec<u64> = d.slow.iter().map(|e| e.offset).collect();
    offs.sort_unstable();
    for (i, off) in offs.iter().enumerate() {
        assert_eq!(*off, 16 * MIB + i as u64 * 65536);
    }
    for e in &d.slow {
        assert_eq!(e.lba * 512, e.offset);
    }
}

#[test]
fn psync_engine_and_block_sizes() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let dev = TmpfsLoop::new(16 * MIB);
    let p = dev.path().to_str().unwrap();
    let d: ScanRecord = drivescope_record(&["scan", p, "--engine", "psync", "--block-size", "1M"]);
    check_scan(&d);
    assert_eq!(d.engine, EngineKind::Psync);
    assert_eq!(d.reap, Reap::Sleep, "psync blocks in its own call");
    assert_eq!(d.commands, 16);
    assert_eq!(d.curve.len(), 16, "no more bins than commands");
    let d: ScanRecord =
        drivescope_record(&["scan", p, "--block-size", "4K", "--queue-depth", "32"]);
    check_scan(&d);
    assert_eq!(d.commands, 4096);
}

#[test]
fn zram_is_scanned_with_psync_at_qd1() {
    if skip_without_root("creates zram devices") {
        return;
    }
    let z = Zram::new(64 * MIB);
    let p = z.path.to_str().unwrap();
    let d: ScanRecord = drivescope_record(&["scan", p]);
    check_scan(&d);
    assert_eq!(
        d.engine,
        EngineKind::Psync,
        "auto picks psync on a device that completes inline"
    );
    assert_eq!(d.bytes, 64 * MIB);
    let d: ScanRecord = drivescope_record(&["scan", p, "--queue-depth", "8"]);
    check_scan(&d);
    assert_eq!(d.engine, EngineKind::IoUring);
}

#[test]
fn quick_scan_visits_256_regions() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let dev = TmpfsLoop::new(64 * MIB);
    let p = dev.path().to_str().unwrap();
    let d: ScanRecord = drivescope_record(&["scan", "--quick", p, "--dwell", "2ms"]);
    assert_eq!(d.header.kind, Kind::QuickScan);
    assert_eq!(d.dwell_ns, Some(2_000_000));
    let regions = d.regions.as_ref().expect("regions");
    assert_eq!(regions.len(), 256);
    for (i, r) in regions.iter().enumerate() {
        assert_eq!(r.index, i as u32);
        assert_eq!(r.offset, i as u64 * 256 * 1024);
        assert!(r.first_ns > 0);
        assert!(r.mb_per_s > 0.0);
    }
    let hist: u64 = d.histogram.buckets.iter().map(|b| b.count).sum();
    assert_eq!(hist, d.commands);
    assert!(d.commands >= 256);
}

#[test]
fn curve_csv_matches_json() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let dev = TmpfsLoop::new(8 * MIB);
    let p = dev.path().to_str().unwrap();
    let csv = std::env::temp_dir().join(format!("ds-curve-{}.csv", std::process::id()));
    let d: ScanRecord = drivescope_record(&[
        "scan",
        p,
        "--points",
        "10",
        "--curve-csv",
        csv.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::remove_file(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "offset,length,lba,mb_per_s,min_ns,max_ns");
    assert_eq!(lines.len(), 11);
    let first: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(first[0], d.curve[0].offset.to_string());
    assert_eq!(first[1], d.curve[0].length.to_string());
}
