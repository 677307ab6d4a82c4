//! A scan killed with SIGKILL at a random moment after its first checkpoint, then continued with
//! `scan --resume last`, ends with the coverage and totals of one uninterrupted scan: on a
//! regular file and on a lab disk (FUSE + loop) with bad sectors, read at queue depth 4.
//! Needs root (the lab disk); fails loudly without it.

use common::kill9::{assert_same_totals, random_fractions, TempStore};
use common::typed::{check_scan, listed_runs, record_of_ok, same, scan_of};
use common::*;
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::{Document, RunState, RunStatus, ScanRecord};
use drivescope_store::{ListFilter, Store};
use drivescope_testkit as common;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn curve_geometry(d: &ScanRecord) -> Vec<(u64, u64)> {
    d.curve.iter().map(|p| (p.offset, p.length)).collect()
}

fn bands(d: &ScanRecord) -> Vec<u64> {
    d.bands.iter().map(|b| b.count).collect()
}

/// The runs of the store: (number, state, document), oldest first.
fn runs(store: &Store) -> Vec<(i64, Option<RunState>, Document)> {
    let mut l: Vec<_> = store
        .list(&ListFilter::default())
        .unwrap()
        .into_iter()
        .map(|r| (r.id.0, r.state, store.get(r.id).unwrap()))
        .collect();
    l.sort_by_key(|r| r.0);
    l
}

/// Scan `target` with `args` once through, then again killed at a random moment after its
/// first checkpoint, then `--resume last`; checks the continuation against the whole scan and
/// returns both.
fn kill_and_resume(target: &str, args: &[&str], store: &TempStore) -> (ScanRecord, ScanRecord) {
    // The whole scan checkpoints too: its result replaces its checkpoints, one run.
    let whole = drivescope_cmd()
        .args(["scan", target, "--json", "--quiet", "--checkpoint", "100ms"])
        .args(["--store", store.arg()])
        .args(args)
        .output()
        .unwrap();
    let whole: ScanRecord = record_of_ok(&whole);
    check_scan(&whole);
    let whole_s = whole.duration_ns as f64 / 1e9;
    assert!(whole_s > 0.5, "the scan must last several checkpoints");
    let listed = runs(&Store::open(&store.0).expect("open the test store"));
    assert_eq!(listed.len(), 1, "one run, not one per checkpoint");
    assert_eq!(listed[0].1, Some(RunState::Finished));
    assert!(same(&listed[0].2, &whole));

    let t0 = Instant::now();
    let mut child = drivescope_cmd()
        .args(["scan", target, "--json", "--quiet", "--checkpoint", "100ms"])
        .args(["--store", store.arg()])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the first checkpoint: a second run, in the checkpoint state.
    let first = loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the scan ended before its first checkpoint was seen"
        );
        if runs(&Store::open(&store.0).expect("open the test store"))
            .iter()
            .any(|r| r.1 == Some(RunState::Checkpoint))
        {
            break t0.elapsed().as_secs_f64();
        }
        assert!(t0.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(10));
    };
    // A scan that is still running is not resumed.
    let out = drivescope_cmd()
        .args([
            "scan",
            "--resume",
            "last",
            "--quiet",
            "--store",
            store.arg(),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("still running"), "{stderr}");
    // Then kill it at a random place of its first half, as its checkpoints report it: a busy host
    // slows the scan and its checkpoints alike, so the kill lands inside the scan, never after it
    // (a kill timed from the whole scan's length could come after the end of a quicker run).
    let goal = (random_fractions(1)[0] * 0.5 * whole.length as f64) as u64;
    loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the scan ended before it was killed"
        );
        let covered = runs(&Store::open(&store.0).expect("open the test store"))
            .iter()
            .filter(|r| r.1 == Some(RunState::Checkpoint))
            .map(|r| scan_of(&r.2).covered)
            .max()
            .unwrap_or(0);
        if covered >= goal {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "covered {covered}");
        std::thread::sleep(Duration::from_millis(10));
    }
    eprintln!(
        "first checkpoint after {first:.3} s; killed once a checkpoint covered {goal} bytes, after {:.3} s (whole scan {whole_s:.3} s)",
        t0.elapsed().as_secs_f64()
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let store_now = Store::open(&store.0).expect("open the test store");
    let listed = runs(&store_now);
    assert_eq!(listed.len(), 2, "the killed scan is one run");
    let (killed_id, state, killed) = listed[1].clone();
    assert_eq!(state, Some(RunState::Checkpoint));
    let killed = scan_of(&killed);
    assert!(killed.interrupted);
    let pid = killed.checkpoint.as_ref().expect("a checkpoint").pid;
    assert_eq!(pid, child.id());
    let covered = killed.covered;
    let length = whole.length;
    assert!(covered > 0 && covered < length, "covered {covered}");
    // A checkpoint holds every command before its resume point, and none after, but for the
    // commands the first pass skipped after a failure (untried until trimming reads them).
    let bs = whole.block_size;
    // Skipped inside what the first pass got over (the rest of the range, never reached, is untried too).
    let untried = killed
        .surface
        .as_ref()
        .map_or(0, |s| s.untried - s.unreached);
    eprintln!(
        "killed at {covered} bytes: {} commands, {untried} bytes skipped",
        killed.commands
    );
    assert_eq!(untried % bs, 0, "skipped in whole commands: {untried}");
    assert_eq!(killed.commands + untried / bs, covered / bs);
    let resume = killed.resume.as_ref().expect("a resume state");
    assert_eq!(resume.next_offset, killed.offset + covered);
    // `runs` says so.
    let listed = listed_runs(&["--store", store.arg()]);
    let row = listed.iter().find(|r| r.id == killed_id).unwrap();
    assert_eq!(row.state, Some(RunStatus::Interrupted), "{listed:?}");
    let out = drivescope_cmd()
        .args(["runs", "--store", store.arg()])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    let line = table
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{killed_id} ")))
        .unwrap();
    assert!(line.contains("interrupted"), "{table}");

    let out = drivescope_cmd()
        .args(["scan", "--resume", "last", "--json", "--quiet"])
        .args(["--store", store.arg()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let resumed: ScanRecord = record_of_ok(&out);
    assert!(
        stderr.contains(&format!("resuming run {killed_id} at")) && stderr.contains("checkpoint"),
        "{stderr}"
    );
    check_scan(&resumed);
    assert_eq!(resumed.resumed_from, Some(killed_id));
    assert!(resumed.checkpoint.is_none());
    assert_eq!(resumed.header.started_at, killed.header.started_at);
    assert!(resumed.duration_ns > killed.duration_ns);
    assert_same_totals(&resumed, &whole, "");
    assert_eq!(resumed.queue_depth, whole.queue_depth, "queue_depth");
    assert_eq!(
        resumed.failed_extents, whole.failed_extents,
        "failed_extents"
    );
    assert_eq!(curve_geometry(&resumed), curve_geometry(&whole));
    assert_eq!(bands(&resumed).iter().sum::<u64>(), whole.commands);
    assert_eq!(bands(&resumed)[8], bands(&whole)[8], "failed band");
    assert_eq!(
        resumed.series.iter().map(|p| p.bytes).sum::<u64>(),
        whole.bytes
    );
    assert_eq!(
        resumed.series.iter().map(|p| p.commands).sum::<u64>(),
        whole.commands,
        "the series counts every command once"
    );
    // The store: the whole scan, the killed one (still interrupted), and the continuation.
    let listed = runs(&Store::open(&store.0).expect("open the test store"));
    let states: Vec<_> = listed.iter().map(|r| r.1).collect();
    assert_eq!(
        states,
        vec![
            Some(RunState::Finished),
            Some(RunState::Checkpoint),
            Some(RunState::Finished)
        ]
    );
    assert!(same(&listed[2].2, &resumed));
    (whole, resumed)
}

#[test]
fn kill_9_then_resume_last_on_a_file_counts_every_command_once() {
    let _one = one_at_a_time();
    // 1 GiB in 4 KiB commands: 262 144 commands, one to a few seconds at the 2-8 µs a
    // command takes from tmpfs (256 MiB could end in under half a second, too soon to kill).
    const SIZE_MIB: u64 = 1024;
    let file = PathBuf::from(format!(
        "/dev/shm/drivescope-kill9-{}.img",
        std::process::id()
    ));
    let st = Command::new("dd")
        .args(["if=/dev/urandom", "bs=1M", "status=none"])
        .arg(format!("count={SIZE_MIB}"))
        .arg(format!("of={}", file.display()))
        .status()
        .unwrap();
    assert!(st.success());
    struct Remove<'a>(&'a Path);
    impl Drop for Remove<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(self.0);
        }
    }
    let _rm = Remove(&file);
    let store = TempStore::new("kill9", "file");
    let (whole, _) = kill_and_resume(
        file.to_str().unwrap(),
        &["--block-size", "4K", "--points", "300"],
        &store,
    );
    assert_eq!(whole.commands, SIZE_MIB * MIB / 4096);
    assert_eq!(whole.failed_commands, 0);
}

#[test]
fn kill_9_then_resume_last_on_a_lab_disk_with_bad_sectors_counts_every_command_once() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    // 48 MiB at 40 MB/s, about 1.3 s; 40 KiB of bad sectors across two commands, re-read one
    // by one (80 reads of 2 ms).
    let toml =
        "name = \"kill9\"\nsize = \"48M\"\nzones = { rates_mb_s = [40] }\noverhead = \"5us\"\n\
                bad = [{ offset = 25145344, length = 40960, latency = \"2ms\" }]\n";
    let model = Model::from_toml_str(toml, "test").expect("model");
    let dev = LabDevice::start_temp(&model, true).expect("start lab device");
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let store = TempStore::new("kill9", "lab");
    let (whole, _) = kill_and_resume(
        &path,
        &[
            "--block-size",
            "128K",
            "--queue-depth",
            "4",
            "--points",
            "37",
        ],
        &store,
    );
    assert_eq!(whole.failed_commands, 2);
    assert_eq!(whole.failed_total, 80);
    let extents = &whole.failed_extents;
    assert_eq!(extents.len(), 1, "{extents:?}");
    assert_eq!(extents[0].offset, 25145344);
    assert_eq!(extents[0].length, 40960);
}
