//! The scan's behaviour at its edges: null target, memory, bad input, interruption.

use common::typed::{check_scan, document, record_in};
use common::*;
use drivescope_record::{Document, EngineKind, RunState, ScanRecord};
use drivescope_testkit as common;
use std::process::Stdio;

#[test]
#[allow(clippy::zombie_processes)] // reaped with wait4 below, to read its rusage
fn null_target_totals_and_flat_memory() {
    // 256 GiB of 64 KiB commands (4 Mi commands) through the null engine, measuring the
    // child's peak RSS: memory must not grow with the device size.
    let mut child = drivescope_cmd()
        .args(["scan", "null:256G", "--json", "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || serde_json::from_reader::<_, Document>(stdout));
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid out-parameter for wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: waiting for our own child.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid);
    assert_eq!(status, 0);
    let d: ScanRecord = record_in(reader.join().unwrap().unwrap());
    check_scan(&d);
    assert_eq!(d.commands, 4u64 << 20);
    assert_eq!(d.engine, EngineKind::Null);
    let rss_kib = usage.ru_maxrss as u64;
    assert!(rss_kib < 64 * 1024, "peak RSS {rss_kib} KiB is over 64 MiB");
}

fn assert_refused(args: &[&str], code: i32, needle: &str) {
    let out = drivescope(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected '{needle}' in: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty(), "nothing on stdout for a refused run");
}

#[test]
fn bad_input_gets_one_clear_line() {
    assert_refused(&["scan", "/nonexistent/disk"], 1, "no such file or device");
    assert_refused(&["scan", "/tmp"], 1, "is a directory");
    assert_refused(
        &["scan", "null:1G", "--block-size", "1000"],
        2,
        "not a whole number of 512-byte sectors",
    );
    assert_refused(
        &["scan", "null:1G", "--block-size", "12X"],
        2,
        "unknown size suffix",
    );
    assert_refused(&["scan", "null:1G", "--offset", "2G"], 1, "beyond the end");
    assert_refused(&["scan", "null:1G", "--length", "0"], 2, "must be above 0");
    assert_refused(
        &["scan", "null:1G", "--queue-depth", "0"],
        2,
        "--queue-depth",
    );
    assert_refused(&["scan", "null:1G", "--engine", "psync"], 1, "null target");
    assert_refused(&["scan", "null:1G", "--block-size", "-4K"], 2, "");
    assert_refused(&["scan", "null:1G", "--queue-depth", "-1"], 2, "");
    assert_refused(&["scan", "null:1G", "--points", "0"], 2, "--points");
    assert_refused(&["scan", "null:1G", "--slow", "5 parsecs"], 2, "");
    assert_refused(&["scan", "null:1G", "--offset", "150%"], 2, "");
    assert_refused(&["scan", "null:1G", "--verify"], 2, "--write");
    assert_refused(
        &["scan", "null:1G", "--write", "--verify"],
        1,
        "stores nothing",
    );
    assert_refused(&["scan", "--resume", "banana"], 1, "not a run number");
    // No store yet: no run to continue, said as such.
    assert_refused(&["scan", "--resume", "999999"], 1, "no results store at");
    // Writes go only to block devices through the gate (or to the null target, which stores
    // nothing); an existing file is never written.
    struct Remove(std::path::PathBuf);
    impl Drop for Remove {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    let file = std::env::temp_dir().join(format!("drivescope-scan-cli-{}", std::process::id()));
    let _remove = Remove(file.clone());
    std::fs::write(&file, vec![7u8; 65536]).unwrap();
    let before = checksum(&file);
    assert_refused(
        &[
            "scan",
            file.to_str().unwrap(),
            "--write",
            "--destructive",
            "--confirm",
            "x",
        ],
        3,
        "refused",
    );
    assert_eq!(checksum(&file), before);
}

#[test]
fn sigint_stops_and_keeps_partial_results() {
    let child = drivescope_cmd()
        .args(["scan", "null:64T", "--json", "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let t0 = std::time::Instant::now();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    // A null:64T scan runs for hours: ending within seconds is the signal's doing, and the bound
    // leaves a busy machine room to write the partial record and exit.
    assert!(t0.elapsed().as_secs_f64() < 10.0, "stopped on SIGINT");
    assert_eq!(out.status.code(), Some(130));
    let doc = document(&out.stdout);
    assert_eq!(doc.state(), Some(RunState::Interrupted));
    let d: ScanRecord = record_in(doc);
    let covered = d.covered;
    assert!(covered > 0 && covered < d.length);
    assert_eq!(d.bytes, covered);
    // the curve covers [0, covered) without gaps
    let mut next = 0;
    for p in &d.curve {
        assert_eq!(p.offset, next);
        next += p.length;
    }
    assert!(next >= covered);
}
