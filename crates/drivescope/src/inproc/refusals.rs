//! Requests refused for safety end 3 with one line, and touch nothing. In-process: the gate is
//! checked before any device is opened for writing.

use super::{drive, Scratch};

#[test]
fn a_write_scan_of_a_file_is_refused() {
    let dir = Scratch::new("refuse-write-file");
    let file = dir.file("data", 1 << 20);
    let before = std::fs::read(&file).expect("data");
    let ran = drive(&["scan", &file, "--write", "--no-store"]);
    assert_eq!(ran.code(), 3, "{ran:?}");
    assert_eq!(
        std::fs::read(&file).expect("data"),
        before,
        "nothing written"
    );
}

#[test]
fn a_write_scan_of_null_needs_no_gate_and_writes_nothing() {
    let ran = drive(&["scan", "null:8M", "--write", "--json", "--no-store"]);
    let doc = ran.ends(0).json();
    assert_eq!(doc["write"], true);
    assert_eq!(doc["bytes"], 8 << 20);
}

#[test]
fn a_destructive_write_without_confirm_is_refused_off_a_terminal() {
    let dir = Scratch::new("refuse-confirm");
    let file = dir.file("data", 1 << 20);
    let ran = drive(&["scan", &file, "--write", "--destructive", "--no-store"]);
    assert_eq!(ran.code(), 3, "{ran:?}");
}

#[test]
fn a_write_bench_of_a_regular_file_is_refused() {
    let dir = Scratch::new("refuse-bench");
    let file = dir.file("data", 4 << 20);
    let before = std::fs::read(&file).expect("data");
    let ran = drive(&[
        "bench",
        &file,
        "--rw",
        "write",
        "--duration",
        "20ms",
        "--no-store",
    ]);
    assert_eq!(ran.code(), 3, "{ran:?}");
    assert_eq!(
        std::fs::read(&file).expect("data"),
        before,
        "nothing written"
    );
}

#[test]
fn screen_of_the_same_file_twice_fails() {
    let dir = Scratch::new("screen-twice");
    let file = dir.file("data", 1 << 20);
    let ran = drive(&["screen", &file, &file, "--no-store"]);
    assert_ne!(ran.code(), 0, "{ran:?}");
}

#[test]
fn screen_of_two_null_targets_passes_both() {
    let doc = drive(&["screen", "null:8M", "null:16M", "--json", "--no-store"])
        .ends(0)
        .json();
    let members = doc["members"].as_array().expect("members");
    assert_eq!(members.len(), 2);
    assert!(
        members.iter().all(|m| m["verdict"]["grade"] == "pass"),
        "{doc}"
    );
}

#[test]
fn durability_of_a_regular_file_is_refused_or_fails() {
    let dir = Scratch::new("refuse-durability");
    let file = dir.file("data", 1 << 20);
    let before = std::fs::read(&file).expect("data");
    let ran = drive(&["durability", &file, "--no-store"]);
    assert!(matches!(ran.code(), 1 | 3), "{ran:?}");
    assert_eq!(
        std::fs::read(&file).expect("data"),
        before,
        "nothing written"
    );
}

#[test]
fn a_power_cut_log_on_the_storage_under_test_is_refused() {
    let dir = Scratch::new("power-cut-same-fs");
    let target = dir.subdir("in");
    let log = dir.path("acks.log");
    let ran = drive(&[
        "durability",
        &target,
        "--power-cut",
        "--log",
        &log,
        "--no-store",
    ]);
    assert_eq!(ran.code(), 3, "{ran:?}");
    assert!(!std::path::Path::new(&log).exists(), "no log made");
    super::assert_empty(&target);
}

#[test]
fn a_power_cut_log_that_exists_is_refused() {
    let dir = Scratch::new("power-cut-log-exists");
    let target = dir.subdir("in");
    let log = dir.file("acks.log", 10);
    let ran = drive(&[
        "durability",
        &target,
        "--power-cut",
        "--log",
        &log,
        "--no-store",
    ]);
    assert!(matches!(ran.code(), 1 | 3), "{ran:?}");
    assert_eq!(
        std::fs::read(&log).expect("log").len(),
        10,
        "the log is untouched"
    );
}

#[test]
fn a_screen_stopped_at_its_checkpoint_resumes_every_drive_to_its_end() {
    let dir = Scratch::new("screen-resume");
    let store = dir.store();
    let a = dir.file("a", 32 << 20);
    let b = dir.file("b", 32 << 20);
    let first = super::drive_to_checkpoint(&[
        "screen",
        &a,
        &b,
        "--block-size",
        "4K",
        "--checkpoint",
        "100ms",
        "--json",
        "--store",
        &store,
    ]);
    first.ends(130);
    let doc = drive(&["screen", "--resume", "last", "--json", "--store", &store])
        .ends(0)
        .json();
    let members = doc["members"].as_array().expect("members");
    assert_eq!(members.len(), 2, "{doc}");
    for m in members {
        assert_eq!(m["scan"]["covered"], 32 << 20, "{m}");
        assert_eq!(m["verdict"]["grade"], "pass", "{m}");
    }
}

#[test]
fn a_stopped_screen_ends_130() {
    let doc = super::drive_stopped(&["screen", "null:8M", "null:16M", "--json", "--no-store"]);
    assert_eq!(doc.ends(130).json()["interrupted"], true);
}
