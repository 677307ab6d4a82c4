//! Checkpoints of scans over scripted devices: every snapshot holds exactly the commands
//! before its resume point, and a scan resumed from any snapshot (also a snapshot of a
//! continuation) ends with the coverage and totals of one uninterrupted scan.

use super::scripted_tests::{target, touches};
use super::{run_from, run_inner, Checkpoints, Observer, ScanConfig, ScanRecord};
use crate::engine::scripted::{Call, Reply, Scripted};
use crate::scan::Progress;
use std::ops::Range;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const BS: u64 = 64 * KIB;
const SECTOR: u64 = 512;
const SIZE: u64 = 8 * MIB;

/// 128 commands of 64 KiB: latencies that vary by position (so the histogram has many
/// buckets), two slow commands, and bad sectors in three commands (re-read one by one).
fn device() -> Scripted<impl FnMut(&Call) -> Reply + Send> {
    let bad: [Range<u64>; 2] = [3000..3010, 9000..9300];
    Scripted::new(move |c: &Call| {
        let cmd = c.offset / BS;
        let lat = match cmd {
            _ if c.len as u64 == SECTOR => 40_000,
            40 | 41 => 60_000_000,
            _ => 100_000 + (cmd % 7) * 13_000,
        };
        if touches(c.offset, c.len, &bad) {
            Reply::err(lat, libc::EIO)
        } else {
            Reply::ok(lat)
        }
    })
}

fn cfg(queue_depth: u32) -> ScanConfig {
    ScanConfig {
        queue_depth,
        points: 37,
        ..ScanConfig::default()
    }
}

/// A scan (or the continuation of `prior`) with a snapshot every `every_ns`: its document and
/// its snapshots.
fn checkpointed(
    cfg: &ScanConfig,
    prior: Option<&ScanRecord>,
    every_ns: u64,
) -> (ScanRecord, Vec<ScanRecord>) {
    let snaps = Arc::new(Mutex::new(Vec::new()));
    let keep = snaps.clone();
    let stop = AtomicBool::new(false);
    let observer = Observer::counting(Arc::new(Progress::default()), &stop).with_checkpoints(Some(
        Checkpoints {
            every_ns,
            save: Box::new(move |r| keep.lock().unwrap().push(r)),
        },
    ));
    let state = prior.map(|p| p.resume.clone().expect("a resume state"));
    let rec = run_from(
        &device(),
        &target(SIZE),
        cfg,
        prior.zip(state.as_ref()),
        observer,
    )
    .unwrap();
    let snaps = snaps.lock().unwrap().clone();
    (rec, snaps)
}

fn resumed(prior: &ScanRecord) -> ScanRecord {
    let state = prior.resume.clone().unwrap();
    run_inner(
        &device(),
        &target(SIZE),
        &ScanConfig::of_record(prior),
        Some((prior, &state)),
        Arc::new(Progress::default()),
        &AtomicBool::new(false),
        None,
    )
    .unwrap()
}

/// What an uninterrupted scan and a resumed one must share: every command once, the same
/// latencies, lists, extents and curve bins.
fn assert_same_coverage(got: &ScanRecord, want: &ScanRecord, what: &str) {
    assert!(!got.interrupted && got.resume.is_none(), "{what}: finished");
    assert_eq!(got.covered, want.covered, "{what}: covered");
    assert_eq!(got.commands, want.commands, "{what}: commands");
    assert_eq!(got.bytes, want.bytes, "{what}: bytes");
    assert_eq!(got.failed_commands, want.failed_commands, "{what}: failed");
    assert_eq!(got.histogram, want.histogram, "{what}: histogram");
    assert_eq!(got.bands, want.bands, "{what}: bands");
    assert_eq!(got.failed_total, want.failed_total, "{what}: failed_total");
    let lbas = |r: &ScanRecord| {
        let mut v: Vec<u64> = r.failed.iter().map(|e| e.lba).collect();
        v.sort();
        v
    };
    assert_eq!(lbas(got), lbas(want), "{what}: failed sectors");
    assert_eq!(got.failed_extents, want.failed_extents, "{what}: extents");
    assert_eq!(got.slow_total, want.slow_total, "{what}: slow_total");
    assert_eq!(got.slow_regions, want.slow_regions, "{what}: slow regions");
    let bins = |r: &ScanRecord| -> Vec<(u64, u64, u64, u64)> {
        r.curve
            .iter()
            .map(|p| (p.offset, p.length, p.min_ns, p.max_ns))
            .collect()
    };
    assert_eq!(bins(got), bins(want), "{what}: curve");
    let series_bytes: u64 = got.series.iter().map(|p| p.bytes).sum();
    assert_eq!(series_bytes, want.bytes, "{what}: series bytes");
}

/// A snapshot holds exactly the commands before its resume point.
fn assert_settled(s: &ScanRecord, what: &str) {
    assert!(s.interrupted, "{what}: a snapshot reads as interrupted");
    let state = s.resume.as_ref().expect("a snapshot can be resumed");
    assert_eq!(s.covered, state.next_offset - s.offset, "{what}");
    assert!(s.covered > 0 && s.covered < s.length, "{what}");
    // The first pass skips ahead after a failure: what it skipped is untried, not read.
    let untried: u64 = s.untried_extents.iter().map(|e| e.length).sum();
    assert_eq!(
        s.commands,
        (s.covered - untried) / BS,
        "{what}: commands before the point"
    );
    assert_eq!(
        s.latency.count + s.failed_commands,
        s.commands,
        "{what}: every command completed"
    );
    assert_eq!(
        s.bands.iter().map(|b| b.count).sum::<u64>(),
        s.commands,
        "{what}: bands"
    );
    let sectors: u64 = s.failed_extents.iter().map(|e| e.count).sum();
    assert_eq!(sectors, s.failed_total, "{what}: every re-read done");
    assert!(s
        .failed_extents
        .iter()
        .all(|e| e.offset + e.length <= state.next_offset));
}

#[test]
fn every_snapshot_holds_what_came_before_it_and_resumes_to_the_whole_scan() {
    for qd in [1, 4] {
        let cfg = cfg(qd);
        let whole = run_inner(
            &device(),
            &target(SIZE),
            &cfg,
            None,
            Arc::new(Progress::default()),
            &AtomicBool::new(false),
            None,
        )
        .unwrap();
        assert_eq!(whole.commands, SIZE / BS);
        assert_eq!(whole.failed_commands, 4, "commands 23 and 70 to 72");
        assert_eq!(whole.failed_total, 310);
        // A snapshot about every 4 commands of virtual time (at QD1).
        let every = 500_000;
        let (rec, snaps) = checkpointed(&cfg, None, every);
        assert_same_coverage(&rec, &whole, &format!("QD{qd} with checkpoints"));
        assert!(whole.checkpoints.is_none());
        let cost = rec.checkpoints.clone().expect("what checkpointing cost");
        assert_eq!((cost.every_ns, cost.count), (every, snaps.len() as u64));
        // Held while the queue drains (virtual time stands still while a snapshot is built).
        assert!(cost.held_ns < rec.duration_ns);
        assert_eq!(cost.held_ns > 0, qd > 1, "QD{qd}: held {} ns", cost.held_ns);
        // None once the first pass is over (the passes over failed areas save their state when the run stops).
        assert!(snaps.len() >= 5, "QD{qd}: {} snapshots", snaps.len());
        for w in snaps.windows(2) {
            assert!(w[1].duration_ns >= w[0].duration_ns + every);
            assert!(w[1].covered > w[0].covered);
        }
        for (i, s) in snaps.iter().enumerate() {
            let what = format!("QD{qd} snapshot {i} at {}", s.covered);
            assert_settled(s, &what);
            assert_same_coverage(&resumed(s), &whole, &what);
        }
        // A snapshot of a continuation is the whole scan so far: resumed again, it ends the
        // same.
        let mid = &snaps[snaps.len() / 3];
        let (rec, again) = checkpointed(&ScanConfig::of_record(mid), Some(mid), every);
        assert_same_coverage(&rec, &whole, &format!("QD{qd} continuation"));
        assert!(again.len() >= 3);
        for (i, s) in again.iter().enumerate() {
            let what = format!("QD{qd} continuation snapshot {i} at {}", s.covered);
            assert_settled(s, &what);
            assert!(s.duration_ns > mid.duration_ns);
            assert_eq!(s.header.started_at, mid.header.started_at);
            assert_same_coverage(&resumed(s), &whole, &what);
        }
    }
}

#[test]
fn a_snapshot_after_every_command_at_qd1_and_none_after_the_last_is_out() {
    // Due at every turn: one snapshot after each command (re-reads included) but the last.
    let (rec, snaps) = checkpointed(&cfg(1), None, 1);
    // After each command but the last, except where a failure's probe was still out or the first pass
    // skipped ahead.
    let covered: Vec<u64> = snaps.iter().map(|s| s.covered).collect();
    assert!(covered.windows(2).all(|w| w[0] < w[1]), "{covered:?}");
    assert!(covered.len() as u64 >= (SIZE / BS) * 9 / 10, "{covered:?}");
    assert!(
        covered.iter().all(|c| *c % BS == 0 && *c < SIZE),
        "{covered:?}"
    );
    for s in &snaps {
        assert_settled(s, &format!("snapshot at {}", s.covered));
    }
    assert!(!rec.interrupted);
    // Never due within the run: none.
    let (rec, snaps) = checkpointed(&cfg(1), None, u64::MAX / 2);
    assert!(snaps.is_empty());
    assert!(!rec.interrupted);
}
