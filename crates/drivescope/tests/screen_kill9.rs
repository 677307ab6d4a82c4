//! A screen of two lab disks (FUSE + loop), one of them with bad sectors, killed with SIGKILL
//! at three random moments, each time continued with `screen --resume last`, ends with both
//! drives covered whole and the totals of one uninterrupted screen: every command counted once.
//! The last kill falls after the smaller disk has finished, so a checkpoint keeps a finished
//! drive beside an unfinished one. Needs root (the lab disks); fails loudly without it.

mod common;
use common::kill9::*;
use common::*;
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::RunState;
use serde_json::Value;
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

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("integer: {v}"))
}

/// The screens in the store, oldest first.
fn screens(store: &TempStore) -> Vec<(i64, Option<RunState>, Value)> {
    let mut l = store.runs();
    l.retain(|r| r.2["kind"] == "screen");
    l
}

/// Wait until the screen `child` has saved a checkpoint that `ready` accepts: the newest
/// screen of the store names its process. Returns when it was seen and the checkpoint.
fn await_checkpoint(
    child: &mut Child,
    store: &TempStore,
    ready: impl Fn(&Value) -> bool,
) -> (Instant, Value) {
    let t0 = Instant::now();
    loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the screen ended before the checkpoint awaited was seen"
        );
        if let Some((_, Some(RunState::Checkpoint), doc)) = screens(store).pop() {
            if u(&doc["checkpoint"]["pid"]) == child.id() as u64 && ready(&doc) {
                return (Instant::now(), doc);
            }
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "no checkpoint");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Member `i`'s scan in a screen document.
fn scan(d: &Value, i: usize) -> &Value {
    &d["members"][i]["scan"]
}

fn finished(d: &Value, i: usize) -> bool {
    scan(d, i)["interrupted"] == false
}

/// A killed screen's checkpoint: interrupted, each drive's scan a settled snapshot (its
/// commands exactly those before its resume point) or its finished result, at least one
/// unfinished.
fn check_killed(d: &Value, whole: &Value) {
    assert_eq!(d["interrupted"], true);
    assert!(d["shared_path"].is_object(), "measured before the scans");
    let mut unfinished = 0;
    for i in 0..2 {
        let s = scan(d, i);
        let w = scan(whole, i);
        assert_eq!(s["length"], w["length"]);
        if finished(d, i) {
            for key in ["commands", "failed_commands", "failed_total", "covered"] {
                assert_eq!(s[key], w[key], "drive {i}: {key}");
            }
            continue;
        }
        unfinished += 1;
        let covered = u(&s["covered"]);
        assert!(
            covered > 0 && covered < u(&s["length"]),
            "covered {covered}"
        );
        let bs = u(&s["block_size"]);
        let untried = s["surface"]["untried"].as_u64().unwrap_or(0);
        assert_eq!(u(&s["commands"]) + untried / bs, covered / bs, "drive {i}");
        assert_eq!(u(&s["resume"]["next_offset"]), u(&s["offset"]) + covered);
        // Not passed yet; the bad sectors found so far fail the smaller disk already.
        let grade = &d["members"][i]["verdict"]["grade"];
        assert!(grade == "incomplete" || grade == "fail", "{grade}");
    }
    assert!(
        unfinished > 0,
        "a checkpoint of a screen that was still going"
    );
}

/// The same coverage and totals as the uninterrupted scan `w`: every command counted once.
fn check_same_scan(s: &Value, w: &Value, what: &str) {
    check_scan_invariants(s);
    for key in [
        "bytes",
        "commands",
        "failed_commands",
        "covered",
        "length",
        "offset",
        "block_size",
        "failed_total",
        "failed_extents",
    ] {
        assert_eq!(s[key], w[key], "{what}: {key}");
    }
    assert_eq!(s["interrupted"], false, "{what}");
    let geometry = |d: &Value| -> Vec<(u64, u64)> {
        let c = d["curve"].as_array().unwrap();
        c.iter()
            .map(|p| (u(&p["offset"]), u(&p["length"])))
            .collect()
    };
    assert_eq!(geometry(s), geometry(w), "{what}: curve bins");
    let sum = |d: &Value, list: &str, f: &str| -> u64 {
        d[list].as_array().unwrap().iter().map(|p| u(&p[f])).sum()
    };
    assert_eq!(sum(s, "bands", "count"), u(&w["commands"]), "{what}: bands");
    assert_eq!(sum(s, "series", "bytes"), u(&w["bytes"]), "{what}: series");
    assert_eq!(
        sum(s, "series", "commands"),
        u(&w["commands"]),
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
    let whole: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(whole.get("checkpoint").is_none());
    assert!(whole["shared_path"].is_object(), "{whole}");
    for i in 0..2 {
        check_same_scan(scan(&whole, i), scan(&whole, i), "whole");
        assert_eq!(
            u(&scan(&whole, i)["covered"]),
            u(&scan(&whole, i)["length"])
        );
    }
    assert_eq!(u(&scan(&whole, 0)["failed_total"]), 80);
    let scans_s = u(&scan(&whole, 1)["duration_ns"]) as f64 / 1e9;
    assert!(scans_s > 1.5, "the screen must last many checkpoints");
    let listed = store.runs();
    assert_eq!(listed.len(), 3, "one group and its two scans: {listed:?}");
    let group = screens(&store).pop().unwrap();
    assert_eq!(group.1, Some(RunState::Finished));
    assert!(group.2 == whole);

    // Killed three times: at random moments after a first checkpoint, the last one after
    // the smaller disk has finished; each part continued with `--resume last`.
    let wait = random_fractions(3);
    let mut killed: Vec<(i64, Value)> = Vec::new();
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
        let done = u(&scan(&doc, 1)["covered"]) as f64 / u(&scan(&whole, 1)["length"]) as f64;
        let left = (0.6 * (1.0 - done) * scans_s - seen.elapsed().as_secs_f64()).max(0.0);
        let after = fraction * left;
        std::thread::sleep(Duration::from_secs_f64(after));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let (id, state, doc) = screens(&store).pop().unwrap();
        assert_eq!(state, Some(RunState::Checkpoint));
        assert_eq!(u(&doc["checkpoint"]["pid"]), child.id() as u64);
        eprintln!(
            "kill {k}: {after:.3} s after a checkpoint; run {id} covers {} and {} bytes",
            scan(&doc, 0)["covered"],
            scan(&doc, 1)["covered"]
        );
        check_killed(&doc, &whole);
        if k > 0 {
            assert_eq!(u(&doc["resumed_from"]), killed[k - 1].0 as u64);
            assert_eq!(doc["shared_path"], killed[0].1["shared_path"], "kept");
        }
        assert_eq!(store.listed_state(id), "interrupted");
        killed.push((id, doc));
    }
    assert!(finished(&killed[2].1, 0) && !finished(&killed[2].1, 1));

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
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(done["interrupted"], false);
    assert!(done.get("checkpoint").is_none());
    assert_eq!(u(&done["resumed_from"]), *last_id as u64);
    assert_eq!(done["shared_path"], killed[0].1["shared_path"]);
    for i in 0..2 {
        check_same_scan(scan(&done, i), scan(&whole, i), &format!("drive {i}"));
        assert_eq!(
            done["members"][i]["verdict"]["grade"],
            whole["members"][i]["verdict"]["grade"]
        );
    }
    // Each drive's scan is a run of its own, also the one a checkpoint kept when it ended.
    let runs = store.runs();
    for i in 0..2 {
        let id = done["members"][i]["run"].as_i64().expect("the drive's run");
        let (_, state, doc) = runs.iter().find(|r| r.0 == id).unwrap();
        assert_eq!(*state, Some(RunState::Finished));
        assert!(*doc == *scan(&done, i));
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
    assert!(screens[4].2 == done);
    drop(devs);
}
