//! A screen of two lab disks (FUSE + loop), one of them with bad sectors, killed with SIGKILL
//! at three random moments, each time continued with `screen --resume last`, ends with both
//! drives covered whole and the totals of one uninterrupted screen: every command counted once.
//! The last kill falls after the smaller disk has finished, so a checkpoint keeps a finished
//! drive beside an unfinished one (or, when the larger disk's last commands beat the kill, two
//! finished scans of a screen that had not saved its result yet). Needs root (the lab disks);
//! fails loudly without it.

use common::kill9::*;
use common::typed::{check_scan, record, record_in, same};
use common::*;
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::{Grade, Kind, RunState, RunStatus, ScanRecord, ScreenRecord};
use drivescope_testkit as common;
use std::process::Child;
use std::time::{Duration, Instant};

/// Every screen of this test, and its continuations: checkpoints every 100 ms.
const ARGS: [&str; 4] = ["--checkpoint", "100ms", "--json", "--quiet"];
/// A new screen of this test: 128 KiB commands in 37 curve bins (none of them all failed
/// commands), short shared-path reads.
const NEW: [&str; 6] = [
    "--block-size",
    "128K",
    "--points",
    "37",
    "--shared-path",
    "300ms",
];

/// The screens in the store, oldest first.
fn screens(store: &TempStore) -> Vec<(i64, Option<RunState>, ScreenRecord)> {
    store
        .runs()
        .into_iter()
        .filter(|r| r.2.kind() == Kind::Screen)
        .map(|(id, state, doc)| (id, state, record_in(doc)))
        .collect()
}

/// Wait until the screen `child` has saved a checkpoint that `ready` accepts: the newest
/// screen of the store names its process. Returns when it was seen and the checkpoint.
fn await_checkpoint(
    child: &mut Child,
    store: &TempStore,
    ready: impl Fn(&ScreenRecord) -> bool,
) -> (Instant, ScreenRecord) {
    let t0 = Instant::now();
    loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the screen ended before the checkpoint awaited was seen"
        );
        if let Some((_, Some(RunState::Checkpoint), doc)) = screens(store).pop() {
            let pid = doc.checkpoint.as_ref().expect("a checkpoint").pid;
            if pid == child.id() && ready(&doc) {
                return (Instant::now(), doc);
            }
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "no checkpoint");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Member `i`'s scan in a screen document.
fn scan(d: &ScreenRecord, i: usize) -> &ScanRecord {
    d.members[i].scan.as_deref().expect("the drive's scan")
}

/// Member `i`'s grade in a screen document.
fn grade(d: &ScreenRecord, i: usize) -> Grade {
    d.members[i].verdict.as_ref().expect("a verdict").grade
}

fn finished(d: &ScreenRecord, i: usize) -> bool {
    !scan(d, i).interrupted
}

/// A killed screen's checkpoint: interrupted, each drive's scan a settled snapshot (its
/// commands exactly those before its resume point) or its finished result, at least one
/// unfinished unless `all_may_end` (a checkpoint after the last scan ended, before the result).
fn check_killed(d: &ScreenRecord, whole: &ScreenRecord, all_may_end: bool) {
    assert!(d.interrupted);
    assert!(d.shared_path.is_some(), "measured before the scans");
    let mut unfinished = 0;
    for i in 0..2 {
        let s = scan(d, i);
        let w = scan(whole, i);
        assert_eq!(s.length, w.length);
        if finished(d, i) {
            assert_eq!(s.commands, w.commands, "drive {i}: commands");
            assert_eq!(
                s.failed_commands, w.failed_commands,
                "drive {i}: failed_commands"
            );
            assert_eq!(s.failed_total, w.failed_total, "drive {i}: failed_total");
            assert_eq!(s.covered, w.covered, "drive {i}: covered");
            continue;
        }
        unfinished += 1;
        let covered = s.covered;
        assert!(covered > 0 && covered < s.length, "covered {covered}");
        let bs = s.block_size;
        let untried = s.surface.as_ref().map_or(0, |s| s.untried - s.unreached);
        assert_eq!(s.commands + untried / bs, covered / bs, "drive {i}");
        let resume = s.resume.as_ref().expect("a resume state");
        assert_eq!(resume.next_offset, s.offset + covered);
        // Not passed yet; the bad sectors found so far fail the smaller disk already.
        let grade = grade(d, i);
        assert!(
            grade == Grade::Incomplete || grade == Grade::Fail,
            "{grade}"
        );
    }
    assert!(
        unfinished > 0 || all_may_end,
        "a checkpoint of a screen that was still going"
    );
}

/// The same coverage and totals as the uninterrupted scan `w`: every command counted once.
fn check_same_scan(s: &ScanRecord, w: &ScanRecord, what: &str) {
    check_scan(s);
    assert_same_totals(s, w, &format!("{what}: "));
    assert_eq!(s.failed_extents, w.failed_extents, "{what}: failed_extents");
    assert!(!s.interrupted, "{what}");
    let geometry = |d: &ScanRecord| -> Vec<(u64, u64)> {
        d.curve.iter().map(|p| (p.offset, p.length)).collect()
    };
    assert_eq!(geometry(s), geometry(w), "{what}: curve bins");
    let bands: u64 = s.bands.iter().map(|b| b.count).sum();
    assert_eq!(bands, w.commands, "{what}: bands");
    let series_bytes: u64 = s.series.iter().map(|p| p.bytes).sum();
    assert_eq!(series_bytes, w.bytes, "{what}: series");
    assert_eq!(
        s.series.iter().map(|p| p.commands).sum::<u64>(),
        w.commands,
        "{what}: the series counts every command once"
    );
}

#[test]
fn a_screen_killed_three_times_resumes_to_the_totals_of_one_uninterrupted_screen() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    // 40 MiB and 96 MiB at 40 MB/s: about 1 s and 2.5 s. The smaller disk has 40 KiB of bad
    // sectors across two commands, re-read one by one (80 reads of 2 ms).
    let model = |size: &str, bad: &str| {
        let toml = format!(
            "name = \"kill9\"\nsize = \"{size}\"\nzones = {{ rates_mb_s = [40] }}\n\
             overhead = \"5us\"\nbad = [{bad}]\n"
        );
        Model::from_toml_str(&toml, "test").expect("model")
    };
    let small = model(
        "40M",
        "{ offset = 25145344, length = 40960, latency = \"2ms\" }",
    );
    let large = model("96M", "");
    let devs: Vec<LabDevice> = [small, large]
        .iter()
        .map(|m| LabDevice::start_temp(m, true).expect("start lab device"))
        .collect();
    let paths: Vec<String> = devs
        .iter()
        .map(|d| d.loop_device().unwrap().to_str().unwrap().to_string())
        .collect();
    let targets: Vec<&str> = paths.iter().map(String::as_str).collect();
    let store = TempStore::new("screen-kill9", "");

    // The whole screen checkpoints too: its result replaces its checkpoints, one group run
    // (and a run of each drive's scan).
    let out = drivescope_cmd()
        .arg("screen")
        .args(&targets)
        .args(NEW)
        .args(ARGS)
        .args(["--store", store.arg()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(5),
        "the bad sectors fail a drive: {stderr}"
    );
    let whole: ScreenRecord = record(&out.stdout);
    assert!(whole.checkpoint.is_none());
    assert!(whole.shared_path.is_some(), "{whole:?}");
    for i in 0..2 {
        check_same_scan(scan(&whole, i), scan(&whole, i), "whole");
        assert_eq!(scan(&whole, i).covered, scan(&whole, i).length);
    }
    assert_eq!(scan(&whole, 0).failed_total, 80);
    let scans_s = scan(&whole, 1).duration_ns as f64 / 1e9;
    assert!(scans_s > 1.5, "the screen must last many checkpoints");
    let listed = store.runs();
    assert_eq!(listed.len(), 3, "one group and its two scans: {listed:?}");
    let group = screens(&store).pop().unwrap();
    assert_eq!(group.1, Some(RunState::Finished));
    assert!(same(&group.2, &whole));

    // Killed three times: at random moments after a first checkpoint, the last one after
    // the smaller disk has finished; each part continued with `--resume last`.
    let wait = random_fractions(3);
    let mut killed: Vec<(i64, ScreenRecord)> = Vec::new();
    for (k, fraction) in wait.iter().enumerate() {
        let mut child = match k {
            0 => spawn(
                "screen",
                &[&targets[..], &NEW[..], &ARGS[..]].concat(),
                &store,
            ),
            _ => spawn(
                "screen",
                &[&["--resume", "last"][..], &ARGS[..]].concat(),
                &store,
            ),
        };
        let (seen, doc) = match k {
            2 => await_checkpoint(&mut child, &store, |d| finished(d, 0)),
            _ => await_checkpoint(&mut child, &store, |_| true),
        };
        if k == 0 {
            // A screen that is still running is not resumed.
            let out = drivescope(&["screen", "--resume", "last", "--store", store.arg()]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{stderr}");
            assert!(stderr.contains("still running"), "{stderr}");
        }
        // What is left of the larger disk's scan, at most, after this checkpoint.
        let done = scan(&doc, 1).covered as f64 / scan(&whole, 1).length as f64;
        let left = (0.6 * (1.0 - done) * scans_s - seen.elapsed().as_secs_f64()).max(0.0);
        let after = fraction * left;
        std::thread::sleep(Duration::from_secs_f64(after));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let (id, state, doc) = screens(&store).pop().unwrap();
        assert_eq!(state, Some(RunState::Checkpoint));
        let pid = doc.checkpoint.as_ref().expect("a checkpoint").pid;
        assert_eq!(pid, child.id());
        eprintln!(
            "kill {k}: {after:.3} s after a checkpoint; run {id} covers {} and {} bytes",
            scan(&doc, 0).covered,
            scan(&doc, 1).covered
        );
        check_killed(&doc, &whole, k == 2);
        if k > 0 {
            assert_eq!(doc.resumed_from, Some(killed[k - 1].0));
            assert_eq!(doc.shared_path, killed[0].1.shared_path, "kept");
        }
        assert_eq!(store.listed_state(id), RunStatus::Interrupted);
        killed.push((id, doc));
    }
    assert!(finished(&killed[2].1, 0));
    if finished(&killed[2].1, 1) {
        eprintln!("the last kill came after both scans ended, before the screen's result");
    }

    let out = drivescope_cmd()
        .args(["screen", "--resume", "last"])
        .args(ARGS)
        .args(["--store", store.arg()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(5),
        "the bad sectors fail a drive: {stderr}"
    );
    let (last_id, _) = killed.last().unwrap();
    assert!(
        stderr.contains(&format!(
            "resuming screen run {last_id} from its last checkpoint"
        )),
        "{stderr}"
    );
    let done: ScreenRecord = record(&out.stdout);
    assert!(!done.interrupted);
    assert!(done.checkpoint.is_none());
    assert_eq!(done.resumed_from, Some(*last_id));
    assert_eq!(done.shared_path, killed[0].1.shared_path);
    for i in 0..2 {
        check_same_scan(scan(&done, i), scan(&whole, i), &format!("drive {i}"));
        assert_eq!(grade(&done, i), grade(&whole, i));
    }
    // Each drive's scan is a run of its own, also the one a checkpoint kept when it ended.
    let runs = store.runs();
    for i in 0..2 {
        let id = done.members[i].run.expect("the drive's run");
        let (_, state, doc) = runs.iter().find(|r| r.0 == id).unwrap();
        assert_eq!(*state, Some(RunState::Finished));
        assert!(same(doc, scan(&done, i)));
    }
    // The store: the whole screen, the three killed ones (still interrupted), and the
    // continuation in place of its own checkpoints.
    let screens = screens(&store);
    let states: Vec<_> = screens.iter().map(|r| r.1).collect();
    assert_eq!(
        states,
        vec![
            Some(RunState::Finished),
            Some(RunState::Checkpoint),
            Some(RunState::Checkpoint),
            Some(RunState::Checkpoint),
            Some(RunState::Finished)
        ]
    );
    assert!(same(&screens[4].2, &done));
    drop(devs);
}
