//! A group of drives scanned at once, each on a scripted device (chosen latencies and errnos on
//! virtual time): drives that fail, go away or are stopped end on their own while the others
//! finish; a resumed drive reads only what is left; checkpoints get every drive's end.

use super::checkpoint::{GroupCheckpoints, Pending};
use super::{scan_all, Drive, DriveError};
use crate::checkpoint::Checkpoints;
use crate::engine::scripted::{Call, Reply, Scripted};
use crate::scan::{Progress, ScanConfig, ScanRecord};
use crate::target::Target;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

const MIB: u64 = 1 << 20;

type Script = Box<dyn FnMut(&Call) -> Reply + Send>;

/// A drive answering every 64 KiB read in `us` µs (a 64 KiB read in 100 µs is 655 MB/s).
fn steady(us: u64) -> Script {
    Box::new(move |_| Reply::ok(us * 1000))
}

fn null(size: u64) -> Target {
    Target::open_read(&format!("null:{size}")).expect("null target")
}

fn cfg() -> ScanConfig {
    ScanConfig {
        points: 64,
        error_budget: drivescope_record::ErrorBudget::Unlimited,
        ..ScanConfig::default()
    }
}

/// Scan `targets` at once, drive `i` on `scripts[i]`; `ends` records each drive's end as the
/// group reports it.
fn screen(
    targets: &[Target],
    scripts: Vec<Script>,
    priors: Vec<Option<&ScanRecord>>,
    stop: &AtomicBool,
    checkpoints: Option<&GroupCheckpoints>,
) -> (Vec<Result<ScanRecord, DriveError>>, Vec<usize>) {
    let devs: Vec<_> = scripts
        .into_iter()
        .map(|s| Scripted::new(s).unlogged())
        .collect();
    let drives: Vec<Drive> = targets
        .iter()
        .zip(priors)
        .map(|(t, prior)| Drive {
            target: t,
            cfg: cfg(),
            prior,
            progress: Arc::new(Progress::default()),
        })
        .collect();
    let ends = Mutex::new(Vec::new());
    let results = scan_all(
        &devs,
        &drives,
        stop,
        &|i, _| ends.lock().unwrap().push(i),
        checkpoints,
    );
    (results, ends.into_inner().unwrap())
}

#[test]
fn healthy_drives_each_read_their_whole_range_in_order_of_the_group() {
    let t = [null(32 * MIB), null(16 * MIB), null(8 * MIB)];
    let stop = AtomicBool::new(false);
    let (r, mut ends) = screen(
        &t,
        vec![steady(100), steady(200), steady(50)],
        vec![None; 3],
        &stop,
        None,
    );
    for (i, size) in [32, 16, 8].into_iter().enumerate() {
        let rec = r[i].as_ref().expect("a scan");
        assert_eq!(rec.covered, size * MIB, "drive {i}");
        assert!(!rec.interrupted && rec.device_lost.is_none(), "drive {i}");
        assert_eq!(rec.failed_commands, 0, "drive {i}");
    }
    // Each drive's own rate: 64 KiB in 100 µs, 200 µs, 50 µs.
    let rate = |i: usize| r[i].as_ref().unwrap().mb_per_s.mean;
    assert!(
        (rate(0) / rate(1) - 2.0).abs() < 0.05,
        "{} {}",
        rate(0),
        rate(1)
    );
    assert!(
        (rate(2) / rate(0) - 2.0).abs() < 0.05,
        "{} {}",
        rate(2),
        rate(0)
    );
    ends.sort();
    assert_eq!(ends, vec![0, 1, 2], "every drive's end is reported once");
}

#[test]
fn a_drive_with_a_bad_spot_maps_it_and_its_siblings_are_untouched() {
    let t = [null(16 * MIB), null(16 * MIB)];
    let bad: Script = Box::new(|c: &Call| {
        if c.offset < 4 * MIB + 4096 && 4 * MIB < c.offset + c.len as u64 {
            Reply::err(2_000_000, libc::EIO)
        } else {
            Reply::ok(100_000)
        }
    });
    let stop = AtomicBool::new(false);
    let (r, _) = screen(&t, vec![bad, steady(100)], vec![None; 2], &stop, None);
    let sick = r[0].as_ref().expect("a scan");
    assert_eq!(sick.covered, 16 * MIB);
    assert!(sick.device_lost.is_none());
    let mut listed: Vec<u64> = sick.failed.iter().map(|e| e.lba).collect();
    listed.sort();
    assert_eq!(
        listed,
        (8192..8200).collect::<Vec<u64>>(),
        "the 4 KiB at 4 MiB, sector by sector"
    );
    let well = r[1].as_ref().expect("a scan");
    assert_eq!((well.failed_commands, well.covered), (0, 16 * MIB));
}

#[test]
fn a_drive_that_goes_away_ends_alone_as_lost_and_the_others_finish() {
    let t = [null(16 * MIB), null(16 * MIB)];
    // From 6 MiB on, every command answers ENODEV: the device is gone.
    let gone: Script = Box::new(|c: &Call| {
        if c.offset >= 6 * MIB {
            Reply::err(1_000, libc::ENODEV)
        } else {
            Reply::ok(100_000)
        }
    });
    let stop = AtomicBool::new(false);
    let (r, _) = screen(&t, vec![gone, steady(100)], vec![None; 2], &stop, None);
    let lost = r[0].as_ref().expect("a lost drive keeps what it read");
    assert!(lost.device_lost.is_some(), "{:?}", lost.device_lost);
    assert!(
        lost.covered >= 6 * MIB && lost.covered < 16 * MIB,
        "{}",
        lost.covered
    );
    let other = r[1].as_ref().expect("a scan");
    assert!(other.device_lost.is_none() && !other.interrupted);
    assert_eq!(other.covered, 16 * MIB);
    assert!(
        !stop.load(Ordering::Relaxed),
        "a lost drive does not stop the group"
    );
}

#[test]
fn a_stop_ends_every_drive_as_an_interrupted_scan_that_can_be_resumed() {
    let t = [null(64 * MIB), null(64 * MIB)];
    let stop = Arc::new(AtomicBool::new(false));
    // The second drive holds its 100th command until the stop comes; the first drive's 200th
    // command sets the stop (as SIGINT would) once the second has reached its 100th.
    let reached = Arc::new(AtomicBool::new(false));
    let (flag, held) = (stop.clone(), reached.clone());
    let mut n = 0;
    let stopper: Script = Box::new(move |_| {
        n += 1;
        if n == 200 {
            while !held.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            flag.store(true, Ordering::Relaxed);
        }
        Reply::ok(100_000)
    });
    let (seen, at) = (stop.clone(), reached.clone());
    let mut m = 0;
    let waiter: Script = Box::new(move |_| {
        m += 1;
        if m == 100 {
            at.store(true, Ordering::Relaxed);
            while !seen.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        Reply::ok(100_000)
    });
    let (r, _) = screen(&t, vec![stopper, waiter], vec![None; 2], &stop, None);
    for (i, rec) in r.iter().enumerate() {
        let rec = rec.as_ref().expect("a scan");
        assert!(rec.interrupted, "drive {i}");
        assert!(rec.covered < 64 * MIB, "drive {i}: {}", rec.covered);
        let next = rec
            .resume
            .as_ref()
            .unwrap_or_else(|| {
                panic!(
                    "drive {i}: no resume point, covered {} commands {} bytes {}",
                    rec.covered, rec.commands, rec.bytes
                )
            })
            .next_offset;
        assert_eq!(next, rec.covered, "drive {i} continues where it stopped");
    }
}

#[test]
fn a_resumed_drive_reads_only_what_was_left_and_ends_as_one_whole_scan() {
    let t = [null(32 * MIB), null(8 * MIB)];
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let mut n = 0;
    let stopper: Script = Box::new(move |_| {
        n += 1;
        if n == 100 {
            flag.store(true, Ordering::Relaxed);
        }
        Reply::ok(100_000)
    });
    let (first, _) = screen(&t, vec![stopper, steady(100)], vec![None; 2], &stop, None);
    let part = first[0].as_ref().unwrap().clone();
    let done_at = part.resume.as_ref().unwrap().next_offset;
    assert!(done_at > 0 && done_at < 32 * MIB);
    // The second part: drive 0 continues; the lowest offset it reads is where it stopped.
    let lowest = Arc::new(Mutex::new(u64::MAX));
    let seen = lowest.clone();
    let watch: Script = Box::new(move |c: &Call| {
        let mut l = seen.lock().unwrap();
        *l = (*l).min(c.offset);
        Reply::ok(100_000)
    });
    let again = AtomicBool::new(false);
    let (second, _) = screen(&t[..1], vec![watch], vec![Some(&part)], &again, None);
    let whole = second[0].as_ref().expect("the continued scan");
    assert_eq!(*lowest.lock().unwrap(), done_at);
    assert!(!whole.interrupted);
    assert_eq!(whole.covered, 32 * MIB);
    assert_eq!(whole.commands, 32 * MIB / (64 * 1024));
}

#[test]
fn checkpoints_get_every_drives_end_and_the_writer_wakes_once_all_have_one() {
    let t = [null(8 * MIB), null(4 * MIB)];
    let (tx, rx) = mpsc::channel::<Pending>();
    let tx = Mutex::new(tx);
    let group = GroupCheckpoints::new(
        Checkpoints {
            every_ns: u64::MAX,
            save: Box::new(move |p| {
                let _ = tx.lock().unwrap().send(p);
            }),
        },
        vec![false, false],
    );
    let stop = AtomicBool::new(false);
    let (r, _) = screen(
        &t,
        vec![steady(100), steady(100)],
        vec![None; 2],
        &stop,
        Some(&group),
    );
    assert!(r.iter().all(|r| r.is_ok()));
    let mut states = Vec::new();
    while let Ok(p) = rx.try_recv() {
        states.extend(p.take());
    }
    states.sort_by_key(|(i, _)| *i);
    let covered: Vec<(usize, u64)> = states
        .iter()
        .map(|(i, s)| (*i, s.as_ref().unwrap().covered))
        .collect();
    assert_eq!(
        covered,
        vec![(0, 8 * MIB), (1, 4 * MIB)],
        "each drive's end, once"
    );
}

#[test]
fn a_range_a_drive_does_not_have_fails_that_drive_only() {
    let t = [null(16 * MIB), null(MIB)];
    let devs: Vec<_> = (0..2)
        .map(|_| Scripted::new(steady(100)).unlogged())
        .collect();
    let ranged = ScanConfig {
        offset: Some(crate::units::SizeOrPercent::Bytes(2 * MIB)),
        ..cfg()
    };
    let drives: Vec<Drive> = t
        .iter()
        .map(|t| Drive {
            target: t,
            cfg: ranged.clone(),
            prior: None,
            progress: Arc::new(Progress::default()),
        })
        .collect();
    let stop = AtomicBool::new(false);
    let r = scan_all(&devs, &drives, &stop, &|_, _| {}, None);
    assert_eq!(r[0].as_ref().expect("in range").covered, 14 * MIB);
    let Err(DriveError::Scan(why)) = &r[1] else {
        panic!(
            "the 1 MiB drive has no 2 MiB offset: {:?}",
            r[1].as_ref().map(|s| s.covered)
        )
    };
    assert!(why.contains("offset") || why.contains("range"), "{why}");
}
