//! `capacity`, `steady` and `replay` refuse what they cannot probe, in-process and before any write.

use super::{drive, Scratch};

#[test]
fn capacity_of_a_file_is_refused() {
    let dir = Scratch::new("capacity-file");
    let file = dir.file("data", 1 << 20);
    let before = std::fs::read(&file).expect("data");
    let ran = drive(&["capacity", &file, "--no-store"]);
    assert!(matches!(ran.code(), 1 | 3), "{ran:?}");
    assert_eq!(std::fs::read(&file).expect("data"), before);
}

#[test]
fn a_refused_capacity_probe_creates_nothing_beside_the_store() {
    let dir = Scratch::new("capacity-nothing");
    let file = dir.file("data", 1 << 20);
    let store = dir.path("sub/runs.db");
    let ran = drive(&["capacity", &file, "--store", &store]);
    assert_eq!(ran.code(), 3, "{ran:?}");
    assert!(
        !dir.dir().join("sub").exists(),
        "the journal's directory is made only for a probe that runs"
    );
}

#[test]
fn capacity_restore_of_a_journal_not_there_fails() {
    let dir = Scratch::new("capacity-restore");
    let ran = drive(&["capacity", "--restore", &dir.path("absent.journal")]);
    ran.ends(1);
}

#[test]
fn steady_of_a_file_is_refused() {
    let dir = Scratch::new("steady-file");
    let file = dir.file("data", 1 << 20);
    let ran = drive(&["steady", &file, "--no-store"]);
    assert!(matches!(ran.code(), 1 | 3), "{ran:?}");
}

#[test]
fn steady_resume_without_a_store_run_fails() {
    let dir = Scratch::new("steady-resume");
    drive(&["scan", "null:4M", "--store", &dir.store()]).ends(0);
    let ran = drive(&["steady", "--resume", "last", "--store", &dir.store()]);
    assert!(matches!(ran.code(), 1 | 3), "{ran:?}");
}

#[test]
fn replay_of_a_trace_not_there_fails() {
    let dir = Scratch::new("replay-none");
    let ran = drive(&[
        "replay",
        &dir.path("absent.trace"),
        &dir.dir().display().to_string(),
    ]);
    ran.ends(1);
}

#[test]
fn replay_of_a_file_that_is_no_trace_fails() {
    let dir = Scratch::new("replay-bad");
    let trace = dir.file("not.trace", 4096);
    let ran = drive(&[
        "replay",
        &trace,
        &dir.dir().display().to_string(),
        "--no-store",
    ]);
    ran.ends(1);
}
