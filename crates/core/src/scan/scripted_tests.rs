//! Scans over scripted devices (see [`crate::engine::scripted`]): bad sectors, slow commands,
//! a device that goes away, and the quick scan's regions, each checked against the exact
//! numbers the script implies (the clock is virtual, so timings are exact too).

use super::{run_inner, ScanConfig, ScanRecord};
use crate::engine::scripted::{Call, Reply, Scripted};
use crate::scan::Progress;
use crate::target::Target;
use crate::units::SizeOrPercent;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const GIB: u64 = 1024 * MIB;
const BS: u64 = 64 * KIB;
const SECTOR: u64 = 512;
/// How far a probe lies at least from every failure (64 MiB; 1 % of ranges over 6.4 GiB).
const FAR: u64 = super::lost::FAR_MIN;

/// A device-less target of `size` bytes in 512-byte sectors.
pub(super) fn target(size: u64) -> Target {
    let t = Target::open_read(&format!("null:{size}")).unwrap();
    assert_eq!(t.logical_block_size as u64, SECTOR);
    t
}

pub(super) fn scan<F: FnMut(&Call) -> Reply + Send>(
    dev: &Scripted<F>,
    t: &Target,
    cfg: &ScanConfig,
) -> ScanRecord {
    run_inner(
        dev,
        t,
        cfg,
        None,
        Arc::new(Progress::default()),
        &AtomicBool::new(false),
        None,
    )
    .unwrap()
}

/// [`scan`], stopped when `stop` is set.
pub(super) fn scan_stopped<F: FnMut(&Call) -> Reply + Send>(
    dev: &Scripted<F>,
    t: &Target,
    cfg: &ScanConfig,
    stop: &AtomicBool,
) -> ScanRecord {
    run_inner(dev, t, cfg, None, Arc::new(Progress::default()), stop, None).unwrap()
}

fn band(rec: &ScanRecord, label: &str) -> u64 {
    rec.bands.iter().find(|b| b.label == label).unwrap().count
}

/// Whether `[off, off + len)` holds any sector of `lbas`.
pub(super) fn touches(off: u64, len: u32, lbas: &[std::ops::Range<u64>]) -> bool {
    let (first, end) = (off / SECTOR, (off + len as u64).div_ceil(SECTOR));
    lbas.iter().any(|r| r.start < end && first < r.end)
}

#[test]
fn bad_sectors_are_listed_by_lba_and_the_totals_agree() {
    // 16 MiB: 256 commands of 64 KiB. Bad: LBAs 1000..1004 (inside command 7) and
    // 2046..2050 (across the boundary of commands 15 and 16). The command at 4 MiB fails
    // once and then reads fine (its sectors re-read cleanly: the command itself is listed).
    let bad = [1000..1004, 2046..2050];
    let flaky = 4 * MIB;
    let dev = Scripted::new(|c: &Call| {
        let lat = if c.len as u64 == BS { 100_000 } else { 50_000 };
        let flaky_once = c.offset == flaky && c.len as u64 == BS && c.attempt == 0;
        if touches(c.offset, c.len, &bad) || flaky_once {
            Reply::err(lat, libc::EIO)
        } else {
            Reply::ok(lat)
        }
    });
    let t = target(16 * MIB);
    let rec = scan(&dev, &t, &ScanConfig::default());

    let mut failed: Vec<(u64, u64, u64, Option<i32>)> = rec
        .failed
        .iter()
        .map(|e| (e.lba, e.offset, e.latency_ns, e.errno))
        .collect();
    failed.sort();
    let mut want: Vec<_> = bad
        .iter()
        .flat_map(|r| r.clone())
        .map(|lba| (lba, lba * SECTOR, 50_000, Some(libc::EIO)))
        .collect();
    want.push((flaky / SECTOR, flaky, 100_000, Some(libc::EIO)));
    want.sort();
    assert_eq!(failed, want);
    assert_eq!(rec.failed_total, 9);
    // Commands 7, 15, 16 and the flaky one.
    assert_eq!(rec.failed_commands, 4);
    assert_eq!(band(&rec, "failed"), 4);
    assert_eq!(band(&rec, "<1ms"), 252);
    assert_eq!(rec.commands, 256);
    assert_eq!(rec.latency.count, 252);
    assert_eq!(rec.bytes, 252 * BS);
    assert_eq!(rec.covered, 16 * MIB);
    assert!(!rec.interrupted && rec.device_lost.is_none());
    // The first pass skips the command after each failure (8, 16 and 65); trimming reads
    // them back: 8 and 65 read fine, 16 fails. Every sector of the four failed commands is
    // then read once: from the good edges inward to the first failure, and the two sectors
    // left between the failures of each spot (scraping). No failure is probed: in a range of
    // 16 MiB no place lies 64 MiB from a failure. Each stands; the last read of the passes
    // fails (a sector scraped), so the scan ends with one read of a place read fine before,
    // the farthest from every failure, which reads: the device is there.
    let s = rec.surface.as_ref().unwrap();
    assert_eq!((s.failed, s.unscraped, s.untried), (9 * SECTOR, 0, 0));
    assert_eq!(s.good, 16 * MIB - 9 * SECTOR);
    assert!(!s.budget_ran_out);
    let calls = dev.calls();
    let failing = |c: &Call| {
        touches(c.offset, c.len, &bad)
            || (c.offset == flaky && c.len as u64 == BS && c.attempt == 0)
    };
    let (last, passes) = calls.split_last().unwrap();
    assert!(last.len as u64 == SECTOR && !failing(last), "{last:?}");
    assert!(failing(&passes[passes.len() - 1]));
    assert_eq!(probes_after_failures(passes, failing, FAR), 0);
    assert!(
        rec.lost_inconclusive.is_none(),
        "{:?}",
        rec.lost_inconclusive
    );
    assert_eq!(rec.duration_ns, 256 * 100_000 + 4 * 128 * 50_000 + 50_000);
    assert_eq!(s.first_pass_ns, 253 * 100_000);
    assert_eq!(s.first_pass_ns + s.error_handling_ns, rec.duration_ns);
    // The first pass, in order, skipping one command after each failure.
    let first: Vec<u64> = calls
        .iter()
        .filter(|c| c.len as u64 == BS)
        .take(253)
        .map(|c| c.offset / BS)
        .collect();
    let want: Vec<u64> = (0..256).filter(|i| ![8, 16, 65].contains(i)).collect();
    assert_eq!(first, want);
}

/// Finds the probes among `calls` (at QD1): the one-sector reads right after a failure (by
/// `failing`) outside every command that failed before (the passes read sectors only inside
/// failed commands). Checks that each lies at least `far` bytes from every failure before it,
/// never next to damage, and returns how many there were.
pub(super) fn probes_after_failures(
    calls: &[Call],
    failing: impl Fn(&Call) -> bool,
    far: u64,
) -> usize {
    let mut n = 0;
    for (i, c) in calls.iter().enumerate() {
        if !failing(c) || i + 1 == calls.len() {
            continue;
        }
        let p = &calls[i + 1];
        if p.len as u64 != SECTOR || p.write {
            continue;
        }
        let inside_failed = calls[..=i]
            .iter()
            .any(|q| failing(q) && q.offset <= p.offset && p.offset < q.offset + q.len as u64);
        if inside_failed {
            continue;
        }
        for f in calls[..=i].iter().filter(|f| failing(f)) {
            let gap = if p.offset < f.offset {
                f.offset - p.offset
            } else {
                p.offset.saturating_sub(f.offset + f.len as u64 - 1)
            };
            assert!(
                gap >= far,
                "the probe {p:?} lies {gap} bytes from the failure {f:?}, under {far}"
            );
        }
        n += 1;
    }
    n
}

#[test]
fn a_failure_before_any_good_read_goes_on_without_a_probe() {
    let dev = Scripted::new(|c: &Call| {
        if c.offset == 0 {
            Reply::err(1_000, libc::EIO)
        } else {
            Reply::ok(1_000)
        }
    });
    let t = target(MIB);
    let rec = scan(&dev, &t, &ScanConfig::default());
    let lbas: Vec<u64> = rec.failed.iter().map(|e| e.lba).collect();
    assert_eq!(lbas, vec![0]);
    assert_eq!((rec.failed_commands, rec.commands), (1, 16));
    // 16 commands (the first pass skips command 1; trimming reads it) and the 128 sectors of
    // command 0 (sector 0 fails first: the range's start is an edge); no probe: in a range of
    // 1 MiB nothing lies a stretch away from the failure.
    let calls = dev.calls();
    assert_eq!(calls.len(), 16 + 128);
    assert_eq!((calls[0].offset, calls[1].offset), (0, 2 * BS));
    assert_eq!(
        probes_after_failures(&calls[1..], |c| c.offset == 0, FAR),
        0
    );
    assert_eq!(rec.bytes, 15 * BS);
}

#[test]
fn slow_commands_are_listed_with_their_offsets_and_latencies() {
    // From 1 MiB, 32 MiB + 4 KiB: 512 commands of 64 KiB and a last one of 4 KiB.
    let start = MIB;
    let length = 32 * MIB + 4 * KIB;
    let slow_at = |i: u64| start + i * BS;
    let lat_of = |off: u64| -> u64 {
        if off == slow_at(3) || off == slow_at(500) || off == slow_at(512) {
            25_000_000
        } else if off == slow_at(200) {
            10_000_000 // exactly the threshold: slow
        } else if off == slow_at(201) {
            9_999_999 // just under: not slow
        } else {
            200_000
        }
    };
    let dev = Scripted::new(|c: &Call| Reply::ok(lat_of(c.offset)));
    let t = target(64 * MIB);
    let cfg = ScanConfig {
        offset: Some(SizeOrPercent::Bytes(start)),
        length: Some(SizeOrPercent::Bytes(length)),
        slow_ns: 10_000_000,
        points: 100,
        ..ScanConfig::default()
    };
    let rec = scan(&dev, &t, &cfg);

    let slow: Vec<(u64, u64, u64)> = rec
        .slow
        .iter()
        .map(|e| (e.offset, e.lba, e.latency_ns))
        .collect();
    let want: Vec<(u64, u64, u64)> = [3, 200, 500, 512]
        .iter()
        .map(|&i| (slow_at(i), slow_at(i) / SECTOR, lat_of(slow_at(i))))
        .collect();
    assert_eq!(slow, want);
    assert_eq!(rec.slow_total, 4);
    assert_eq!(rec.commands, 513);
    assert_eq!(rec.latency.count, 513);
    let hist_count: u64 = rec.histogram.buckets.iter().map(|b| b.count).sum();
    assert_eq!(hist_count, 513);
    assert_eq!(band(&rec, "<1ms"), 508);
    assert_eq!(band(&rec, "<10ms"), 1);
    assert_eq!(band(&rec, "<20ms"), 1);
    assert_eq!(band(&rec, "<50ms"), 3);
    assert_eq!(rec.bytes, length);
    assert_eq!(rec.covered, length);
    let busy: u64 = (0..513).map(|i| lat_of(slow_at(i))).sum();
    assert_eq!(rec.duration_ns, busy);

    // The curve: 100 bins of whole commands, end to end over the range.
    assert_eq!(rec.curve.len(), 100);
    assert_eq!(rec.curve[0].offset, start);
    for w in rec.curve.windows(2) {
        assert_eq!(w[0].offset + w[0].length, w[1].offset);
        assert_eq!((w[0].offset - start) % BS, 0);
    }
    let last = rec.curve.last().unwrap();
    assert_eq!(last.offset + last.length, start + length);
    // Bins of plain 200 µs commands read at 64 KiB / 200 µs; the slow ones show their max.
    let plain = 65536.0 / 200_000.0 * 1e3;
    for p in &rec.curve {
        let cmds = (p.offset - start) / BS..(p.offset + p.length - start).div_ceil(BS);
        let max = cmds.clone().map(|i| lat_of(slow_at(i))).max().unwrap();
        assert_eq!(p.max_ns, max, "bin at {}", p.offset);
        if max == 200_000 && p.offset + p.length < start + length {
            assert!((p.mb_per_s - plain).abs() < 1e-9, "bin at {}", p.offset);
        }
    }
}

#[test]
fn a_device_that_answers_enodev_ends_the_scan_as_lost() {
    // 16 MiB; from command 100 on, every command fails with ENODEV.
    let gone = 100 * BS;
    let dev = Scripted::new(|c: &Call| {
        if c.offset >= gone {
            Reply::err(10_000, libc::ENODEV)
        } else {
            Reply::ok(100_000)
        }
    });
    let t = target(16 * MIB);
    let rec = scan(&dev, &t, &ScanConfig::default());
    let lost = rec.device_lost.as_deref().expect("device_lost is set");
    assert!(lost.contains(&format!("LBA {}", gone / SECTOR)), "{lost}");
    assert!(rec.interrupted);
    assert_eq!((rec.commands, rec.failed_commands), (101, 1));
    assert_eq!(band(&rec, "failed"), 1);
    assert_eq!(rec.bytes, 100 * BS);
    assert_eq!(rec.covered, 101 * BS);
    // No sector list and no probe for a device that is gone.
    assert_eq!((rec.failed_total, rec.failed.len()), (0, 0));
    assert_eq!(dev.calls().len(), 101);
    assert_eq!(rec.resume.as_ref().map(|r| r.next_offset), Some(101 * BS));
    assert_eq!(rec.duration_ns, 100 * 100_000 + 10_000);
}

#[test]
fn a_device_that_fails_everywhere_is_told_from_a_bad_spot_by_its_probe() {
    // From command 40 on, every command (and every sector, also those read fine before)
    // fails with EIO. At QD4 several commands fail before the first probe answers.
    let dead_from = 4_000_000; // ns
    let size = GIB;
    for qd in [1u32, 4] {
        let dev = Scripted::new(|c: &Call| {
            if c.at_ns >= dead_from {
                Reply::err(20_000, libc::EIO)
            } else {
                Reply::ok(100_000)
            }
        });
        let t = target(size);
        let cfg = ScanConfig {
            queue_depth: qd,
            ..ScanConfig::default()
        };
        let rec = scan(&dev, &t, &cfg);
        let lost = rec.device_lost.as_deref().expect("device_lost is set");
        assert!(lost.contains("stopped responding"), "QD{qd}: {lost}");
        assert!(rec.interrupted, "QD{qd}");
        let calls = dev.calls();
        let first_bad = calls.iter().find(|c| c.at_ns >= dead_from).unwrap().offset;
        assert_eq!(first_bad % BS, 0);
        // Every main command issued is accounted once: read or failed; no sector of the
        // failed commands is listed, nothing past the failures was re-read. The first
        // failure made the pass skip one command (those in flight with it did not skip
        // again): the run got over the commands issued and that one. What failed as the
        // device went is not known bad: it is untried, with the skipped command.
        let main = calls.iter().filter(|c| c.len as u64 == BS).count() as u64;
        assert_eq!(rec.commands, main, "QD{qd}");
        assert_eq!(rec.covered, (main + 1) * BS, "QD{qd}");
        let s = rec.surface.as_ref().unwrap();
        assert_eq!((s.good, s.failed), (rec.bytes, 0), "QD{qd}");
        assert_eq!(
            s.untried - s.unreached,
            (rec.failed_commands + 1) * BS,
            "QD{qd}"
        );
        assert_eq!(s.unreached, rec.length - rec.covered, "QD{qd}");
        assert_eq!(rec.untried_extents.len(), 1, "QD{qd}");
        assert_eq!(rec.untried_extents[0].offset, first_bad, "QD{qd}");
        assert!(rec.failed_extents.is_empty(), "QD{qd}");
        assert_eq!(rec.bytes, first_bad, "QD{qd}");
        assert_eq!(band(&rec, "failed"), rec.failed_commands, "QD{qd}");
        assert_eq!(rec.latency.count, first_bad / BS, "QD{qd}");
        assert_eq!((rec.failed_total, rec.failed.len()), (0, 0), "QD{qd}");
        // Three probes, a pause apart, at places 64 MiB or more from the failures and from
        // each other (the range's end first: the farthest).
        let probes: Vec<&Call> = calls.iter().filter(|c| c.len as u64 == SECTOR).collect();
        assert_eq!(probes.len(), 3, "QD{qd}: {probes:?}");
        assert_eq!(probes[0].offset, size - SECTOR, "QD{qd}");
        for (i, p) in probes.iter().enumerate() {
            assert!(p.offset >= first_bad + 4 * BS + FAR, "QD{qd}: {probes:?}");
            for q in &probes[..i] {
                assert!(p.offset.abs_diff(q.offset) >= FAR, "QD{qd}: {probes:?}");
            }
        }
        for w in probes.windows(2) {
            assert_eq!(
                w[1].at_ns,
                w[0].at_ns + 20_000 + super::lost::PROBE_PAUSE_NS,
                "QD{qd}"
            );
        }
        assert!(lost.contains("3 places"), "QD{qd}: {lost}");
        assert_eq!(
            rec.resume.as_ref().map(|r| r.next_offset),
            Some((main + 1) * BS),
            "QD{qd}"
        );
    }
}

#[test]
fn quick_scan_regions_first_latency_and_rate_follow_the_script() {
    // 8 regions over [1 MiB, 801 MiB): heads at 1 MiB + i × 100 MiB. A head model: a
    // command that does not follow the previous one pays an 8 ms seek; each 64 KiB takes
    // 200 µs. Dwell 20 ms.
    const SEEK: u64 = 8_000_000;
    const XFER: u64 = 200_000;
    let start = MIB;
    let length = 800 * MIB;
    for qd in [1u64, 4] {
        let mut head = u64::MAX;
        let dev = Scripted::new(move |c: &Call| {
            let seek = if c.offset == head { 0 } else { SEEK };
            head = c.offset + c.len as u64;
            Reply::ok(seek + XFER)
        });
        let t = target(GIB);
        let cfg = ScanConfig {
            offset: Some(SizeOrPercent::Bytes(start)),
            length: Some(SizeOrPercent::Bytes(length)),
            queue_depth: qd as u32,
            quick: Some((8, 20_000_000)),
            ..ScanConfig::default()
        };
        let rec = scan(&dev, &t, &cfg);
        let regions = rec.regions.as_ref().unwrap();
        assert_eq!(regions.len(), 8, "QD{qd}");
        // After the first command (done at 8.2 ms), the queue refills each 200 µs while the
        // dwell lasts: 59 rounds of `qd` commands.
        let after = 59 * qd;
        let rate = (qd * BS) as f64 / XFER as f64 * 1e3;
        for (i, r) in regions.iter().enumerate() {
            assert_eq!(r.index, i as u32);
            assert_eq!(r.offset, start + i as u64 * 100 * MIB, "QD{qd}");
            assert_eq!(r.first_ns, SEEK + XFER, "QD{qd} region {i}");
            assert_eq!(r.bytes, (1 + after) * BS, "QD{qd} region {i}");
            assert!((r.mb_per_s - rate).abs() < 1e-9, "QD{qd}: {}", r.mb_per_s);
        }
        // Each region's first command went alone: the next one waited for it.
        let calls = dev.calls();
        for r in regions {
            let k = calls.iter().position(|c| c.offset == r.offset).unwrap();
            assert_eq!(calls[k + 1].at_ns, calls[k].at_ns + SEEK + XFER, "QD{qd}");
        }
        assert_eq!(rec.commands, 8 * (1 + after));
        assert_eq!(rec.bytes, 8 * (1 + after) * BS);
        assert_eq!(rec.covered, length);
        assert!(!rec.interrupted);
        assert!((rec.mb_per_s.min - rate).abs() < 1e-9 && (rec.mb_per_s.max - rate).abs() < 1e-9);
        assert_eq!(rec.zone_ratio, Some(1.0));
    }
}
