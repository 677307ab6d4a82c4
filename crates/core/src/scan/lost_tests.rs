//! The rule that ends a scan as lost (see `lost`): probes far from damage, a second probe
//! after a pause, the kernel's word; on scripted devices whose damage grows while it is read
//! and on devices that go away.

use super::lost::{AfterFailure, AfterProbe, Ask, GoneCheck, Prober, PROBE_PAUSE_NS};
use super::scripted_tests::{probes_after_failures, scan, target};
use super::ScanConfig;
use crate::engine::scripted::{Call, Reply, Scripted};
use crate::engine::{Cmd, Completion};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

const MIB: u64 = 1 << 20;
const BS: u64 = 64 * 1024;
const SECTOR: u64 = 512;
/// How far a probe lies at least from every failure (64 MiB; 1 % of ranges over 6.4 GiB).
const FAR: u64 = super::lost::FAR_MIN;
const GIB: u64 = 1 << 30;

/// A spot of `len` bytes at `at` that always fails, and a margin of `margin` bytes on each
/// side whose sectors read fine once and fail every read after (a failing drive's damage
/// growing as it is read, as the lab's `marginal` models it).
fn growing(at: u64, len: u64, margin: u64) -> impl FnMut(&Call) -> Reply + Send {
    let read: Arc<Mutex<HashSet<u64>>> = Arc::default();
    move |c: &Call| {
        let (lo, hi) = (c.offset, c.offset + c.len as u64);
        if lo < at + len && at < hi {
            return Reply::err(5_000_000, libc::EIO);
        }
        let margin_sectors = (lo / SECTOR..hi.div_ceil(SECTOR))
            .filter(|s| {
                let o = s * SECTOR;
                (o + margin >= at && o < at) || (o >= at + len && o < at + len + margin)
            })
            .collect::<Vec<_>>();
        let mut r = read.lock().unwrap();
        if margin_sectors.iter().any(|s| r.contains(s)) {
            return Reply::err(5_000_000, libc::EIO);
        }
        r.extend(margin_sectors);
        Reply::ok(if c.len as u64 == SECTOR {
            20_000
        } else {
            100_000
        })
    }
}

#[test]
fn damage_that_grows_as_it_is_read_is_mapped_and_the_device_never_called_lost() {
    // 512 MiB; 1 MiB unreadable at 200 MiB with 4 MiB of marginal sectors on each side. A
    // probe a few MiB from the damage reads a sector read fine before and fails: a rule
    // probing there called such a device lost.
    let (at, len, margin) = (200 * MIB, MIB, 4 * MIB);
    let size = 512 * MIB;
    for qd in [1u32, 4] {
        let dev = Scripted::new(growing(at, len, margin));
        let t = target(size);
        let cfg = ScanConfig {
            queue_depth: qd,
            error_budget: drivescope_record::ErrorBudget::Unlimited,
            ..ScanConfig::default()
        };
        let rec = scan(&dev, &t, &cfg);
        assert!(rec.device_lost.is_none(), "QD{qd}: {:?}", rec.device_lost);
        assert!(!rec.interrupted, "QD{qd}");
        assert_eq!(rec.covered, size, "QD{qd}");
        // Every sector of the spot is listed; beyond it, only margin sectors.
        let listed: HashSet<u64> = rec.failed.iter().map(|e| e.lba).collect();
        for lba in at / SECTOR..(at + len) / SECTOR {
            assert!(
                listed.contains(&lba),
                "QD{qd}: LBA {lba} of the spot is listed"
            );
        }
        for &lba in &listed {
            let o = lba * SECTOR;
            assert!(
                o + margin >= at && o < at + len + margin,
                "QD{qd}: LBA {lba} lies outside the spot and its margins"
            );
        }
        let s = rec.surface.as_ref().unwrap();
        assert_eq!(s.untried, 0, "QD{qd}");
        if qd == 1 {
            let calls = dev.calls();
            // A call failed when the script said so: recompute by replaying the script.
            let mut replay = growing(at, len, margin);
            let fails: std::collections::HashMap<(u64, u32, u32), bool> = calls
                .iter()
                .map(|c| ((c.offset, c.len, c.attempt), replay(c).result.is_err()))
                .collect();
            let failing = |c: &Call| fails[&(c.offset, c.len, c.attempt)];
            let probes = probes_after_failures(&calls, failing, FAR);
            assert!(probes > 0, "failures were probed");
        }
    }
}

#[test]
fn a_device_gone_from_sysfs_is_lost_at_its_first_failed_probe_without_a_pause() {
    let dir = TempDir::new();
    let sysfs = dir.0.as_path().join("sdz");
    std::fs::create_dir_all(sysfs.join("device")).unwrap();
    std::fs::write(sysfs.join("size"), "131072\n").unwrap();
    std::fs::write(sysfs.join("device/state"), "running\n").unwrap();
    let gone_at = 2_000_000;
    let dir_in_script = sysfs.clone();
    let dev = Scripted::new(move |c: &Call| {
        if c.at_ns >= gone_at {
            // The kernel removes the device as it goes.
            let _ = std::fs::remove_dir_all(&dir_in_script);
            Reply::err(30_000, libc::EIO)
        } else {
            Reply::ok(100_000)
        }
    })
    .with_sysfs(sysfs);
    let t = target(GIB);
    let rec = scan(&dev, &t, &ScanConfig::default());
    let lost = rec.device_lost.as_deref().expect("lost");
    assert!(lost.contains("kernel removed"), "{lost}");
    assert!(lost.contains("stopped responding"), "{lost}");
    let probes = dev
        .calls()
        .iter()
        .filter(|c| c.len as u64 == SECTOR)
        .count();
    assert_eq!(probes, 1, "no second probe: the kernel said gone");
    assert!(rec.duration_ns < PROBE_PAUSE_NS, "{}", rec.duration_ns);
}

#[test]
fn a_device_that_fails_everywhere_with_sysfs_silent_is_lost_after_three_far_probes() {
    // Twin of the above: the kernel keeps the device (a loop device whose backing died):
    // three probes a pause apart, far from the failure and from each other, decide.
    let dir = TempDir::new();
    let sysfs = dir.0.as_path().join("loop9");
    std::fs::create_dir_all(&sysfs).unwrap();
    std::fs::write(sysfs.join("size"), "131072\n").unwrap();
    let dead = |c: &Call| {
        if c.at_ns >= 2_000_000 {
            Reply::err(30_000, libc::EIO)
        } else {
            Reply::ok(100_000)
        }
    };
    let dev = Scripted::new(dead).with_sysfs(sysfs.clone());
    let t = target(GIB);
    let rec = scan(&dev, &t, &ScanConfig::default());
    let lost = rec.device_lost.as_deref().expect("lost");
    assert!(lost.contains("3 places"), "{lost}");
    let probes: Vec<Call> = dev
        .calls()
        .into_iter()
        .filter(|c| c.len as u64 == SECTOR)
        .collect();
    assert_eq!(probes.len(), 3);
    for w in probes.windows(2) {
        assert!(w[1].at_ns - w[0].at_ns >= PROBE_PAUSE_NS);
        assert!(w[1].offset.abs_diff(w[0].offset) >= FAR);
    }

    // On a range of 64 MiB no place lies far from the failure: never lost, and the record
    // says why no verdict was reached.
    let dev = Scripted::new(dead).with_sysfs(sysfs);
    let rec = scan(&dev, &target(64 * MIB), &ScanConfig::default());
    assert!(rec.device_lost.is_none(), "{:?}", rec.device_lost);
    let why = rec.lost_inconclusive.as_deref().expect("inconclusive");
    assert!(why.contains("no place in the range lies 64"), "{why}");
    assert!(dev
        .calls()
        .iter()
        .all(|c| c.len as u64 != SECTOR || c.offset < 64 * MIB));
}

#[test]
fn a_bad_spot_on_a_small_range_is_no_reason_for_doubt() {
    // 32 MiB, one bad sector: no far place to probe, but commands read fine after it.
    let dev = Scripted::new(|c: &Call| {
        if c.offset <= 5 * MIB && 5 * MIB < c.offset + c.len as u64 {
            Reply::err(30_000, libc::EIO)
        } else {
            Reply::ok(100_000)
        }
    });
    let rec = scan(&dev, &target(32 * MIB), &ScanConfig::default());
    assert!(rec.device_lost.is_none() && rec.lost_inconclusive.is_none());
    assert_eq!(rec.failed_total, 1);
}

#[test]
fn a_quick_scan_keeps_the_same_rule() {
    // 8 regions over 1 GiB; the device dies 50 ms in (region 2 or so): three far probes, a
    // pause apart, lost. Its twin with growing damage in one region is never lost.
    let dwell = 20_000_000;
    let cfg = ScanConfig {
        quick: Some((8, dwell)),
        ..ScanConfig::default()
    };
    let dev = Scripted::new(|c: &Call| {
        if c.at_ns >= 50_000_000 {
            Reply::err(30_000, libc::EIO)
        } else {
            Reply::ok(200_000)
        }
    });
    let rec = scan(&dev, &target(1 << 30), &cfg);
    let lost = rec.device_lost.as_deref().expect("lost");
    assert!(lost.contains("3 places"), "{lost}");
    let probes = dev
        .calls()
        .iter()
        .filter(|c| c.len as u64 == SECTOR)
        .count();
    assert_eq!(probes, 3);

    let region = (1u64 << 30) / 8;
    let dev = Scripted::new(growing(3 * region + 4 * MIB, BS, 64 * 1024));
    let rec = scan(&dev, &target(1 << 30), &cfg);
    assert!(rec.device_lost.is_none(), "{:?}", rec.device_lost);
    assert_eq!(rec.regions.as_ref().map(|r| r.len()), Some(8));
}

/// A directory standing in for a device's sysfs one, removed on drop.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("drivescope-sysfs-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn failed_cmd(offset: u64, done_ns: u64) -> Completion {
    Completion {
        cmd: Cmd {
            offset,
            len: SECTOR as u32,
            tag: super::accum::TAG_PROBE,
            write: false,
        },
        issue_ns: done_ns,
        submit_ns: done_ns,
        done_ns,
        result: Err(libc::EIO),
    }
}

#[test]
fn probes_go_to_the_place_farthest_from_every_failure_and_three_failing_make_it_lost() {
    // 1 GiB: far is 64 MiB (1 % is less); the places are the eighths of the range and the
    // good sectors of each stretch.
    let mut p = Prober::new(0, GIB, SECTOR, 1000);
    assert_eq!(p.far(), 64 * MIB);
    for mib in 0..300 {
        p.good(mib * MIB + 4096);
    }
    // A failure at 100 MiB: the end of the range lies farthest from it.
    assert_eq!(p.failure(100 * MIB, BS), AfterFailure::Probe);
    let end = GIB - SECTOR;
    assert_eq!(p.next(0), Ask::Issue(probe_at(end)));
    p.read_fine();
    // The same place while it stays far from every failure, one probe at a time.
    assert_eq!(p.failure(900 * MIB, BS), AfterFailure::Probe);
    assert_eq!(p.failure(901 * MIB, BS), AfterFailure::Probe);
    assert_eq!(p.next(0), Ask::Issue(probe_at(end)));
    assert_eq!(p.next(0), Ask::Nothing);
    p.read_fine();
    assert_eq!(p.next(0), Ask::Issue(probe_at(end)));
    p.read_fine();
    // A failure, and probes that fail: each next place far from every failure and from the
    // places that failed, a pause apart; the third failing is lost.
    assert_eq!(p.failure(500 * MIB, BS), AfterFailure::Probe);
    let Ask::Issue(first) = p.next(5) else {
        panic!("a probe")
    };
    let c = failed_cmd(first.offset, 1_000);
    assert_eq!(p.failed(&c, 500 * MIB), AfterProbe::Again);
    assert_eq!(p.next(1_000), Ask::Later(PROBE_PAUSE_NS));
    let Ask::Issue(second) = p.next(1_000 + PROBE_PAUSE_NS) else {
        panic!("a second probe")
    };
    for (a, b) in [(first.offset, second.offset), (second.offset, 500 * MIB)] {
        assert!(a.abs_diff(b) >= 64 * MIB, "{a} {b}");
    }
    let c = failed_cmd(second.offset, 2_000 + PROBE_PAUSE_NS);
    assert_eq!(p.failed(&c, 500 * MIB), AfterProbe::Again);
    let Ask::Issue(third) = p.next(3_000 + 2 * PROBE_PAUSE_NS) else {
        panic!("a third probe")
    };
    for at in [first.offset, second.offset, 500 * MIB] {
        assert!(third.offset.abs_diff(at) >= 64 * MIB, "{at}");
    }
    let c = failed_cmd(third.offset, 4_000 + 2 * PROBE_PAUSE_NS);
    match p.failed(&c, 500 * MIB) {
        AfterProbe::Lost(why) => assert!(why.contains("3 places"), "{why}"),
        a => panic!("{a:?}"),
    }
}

#[test]
fn one_probe_that_reads_fine_between_failing_ones_starts_the_count_again() {
    let mut p = Prober::new(0, GIB, SECTOR, 1000);
    for round in 0..3u64 {
        assert_eq!(p.failure(500 * MIB + round * MIB, BS), AfterFailure::Probe);
        for i in 0..2u64 {
            let Ask::Issue(c) = p.next(u64::MAX / 2) else {
                panic!("a probe")
            };
            let done = failed_cmd(c.offset, round * 10 + i);
            assert_eq!(p.failed(&done, 500 * MIB), AfterProbe::Again);
        }
        let Ask::Issue(_) = p.next(u64::MAX / 2) else {
            panic!("a probe")
        };
        p.read_fine();
    }
}

fn probe_at(offset: u64) -> Cmd {
    Cmd {
        offset,
        len: SECTOR as u32,
        tag: super::accum::TAG_PROBE,
        write: false,
    }
}

#[test]
fn with_no_place_far_enough_a_failure_stands_unless_the_kernel_says_gone() {
    let mut p = Prober::new(0, 4 * MIB, SECTOR, 1000);
    p.good(MIB + MIB / 2);
    assert_eq!(p.failure(2 * MIB, BS), AfterFailure::Stands);
    let dir = TempDir::new();
    std::fs::write(dir.0.as_path().join("size"), "0\n").unwrap();
    p.set_kernel(GoneCheck {
        sysfs: Some(dir.0.as_path().to_path_buf()),
    });
    match p.failure(2 * MIB, BS) {
        AfterFailure::Lost(why) => assert!(why.contains("size of 0"), "{why}"),
        a => panic!("{a:?}"),
    }
}

#[test]
fn the_kernels_word_is_read_from_sysfs() {
    let dir = TempDir::new();
    let disk = dir.0.as_path().join("sdb");
    let part = disk.join("sdb1");
    std::fs::create_dir_all(disk.join("device")).unwrap();
    std::fs::create_dir_all(&part).unwrap();
    std::fs::write(disk.join("size"), "1000\n").unwrap();
    std::fs::write(part.join("size"), "500\n").unwrap();
    std::fs::write(part.join("partition"), "1\n").unwrap();
    std::fs::write(disk.join("device/state"), "running\n").unwrap();
    let check = |d: &std::path::Path| {
        GoneCheck {
            sysfs: Some(d.to_path_buf()),
        }
        .says_gone()
    };
    assert_eq!(check(&disk), None);
    assert_eq!(check(&part), None);
    assert_eq!(
        GoneCheck::default().says_gone(),
        None,
        "files, null: nothing"
    );
    std::fs::write(disk.join("device/state"), "offline\n").unwrap();
    assert!(check(&disk).unwrap().contains("offline"));
    assert!(
        check(&part).unwrap().contains("offline"),
        "a partition's disk"
    );
    std::fs::write(disk.join("device/state"), "dead\n").unwrap();
    assert!(check(&disk).unwrap().contains("dead"));
    std::fs::remove_dir_all(&disk).unwrap();
    assert!(check(&part).unwrap().contains("removed"));
}
