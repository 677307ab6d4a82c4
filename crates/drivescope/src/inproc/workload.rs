//! `bench`, `sweep`, `soak`, `time`, `durability` and `diagnose`: exit codes, documents, the
//! store and `--resume`, in-process on `null:` targets and directories made here.

use super::{drive, drive_stopped, drive_to_checkpoint, Scratch};

#[test]
fn a_bench_of_one_test_ends_0_with_its_result() {
    let doc = drive(&[
        "bench",
        "null:64M",
        "--test",
        "RND4K Q1T1",
        "--runs",
        "2",
        "--duration",
        "20ms",
        "--json",
        "--no-store",
    ])
    .ends(0)
    .json();
    assert_eq!(doc["kind"], "bench");
    let tests = doc["tests"].as_array().expect("tests");
    let rws: Vec<_> = tests.iter().map(|t| t["rw"].clone()).collect();
    assert_eq!(
        rws,
        ["read", "write"],
        "both by default where nothing is kept: {doc}"
    );
}

#[test]
fn a_bench_in_a_directory_makes_and_removes_its_test_file() {
    let dir = Scratch::new("bench-dir");
    let target = dir.subdir("in");
    let doc = drive(&[
        "bench",
        &target,
        "--size",
        "8M",
        "--test",
        "SEQ1M Q1T1",
        "--runs",
        "1",
        "--duration",
        "20ms",
        "--json",
        "--no-store",
    ])
    .ends(0)
    .json();
    assert_eq!(doc["target"]["path"], target.as_str(), "{doc}");
    super::assert_empty(&target);
    let both = doc["tests"].as_array().expect("tests");
    assert_eq!(
        both.len(),
        2,
        "read and write by default in a directory: {doc}"
    );
}

#[test]
fn a_stopped_bench_ends_130() {
    drive_stopped(&[
        "bench",
        "null:64M",
        "--test",
        "RND4K Q1T1",
        "--duration",
        "1s",
        "--json",
        "--no-store",
    ])
    .ends(130);
}

#[test]
fn a_sweep_has_a_cell_per_depth_and_thread_count() {
    let doc = drive(&[
        "sweep",
        "null:64M",
        "--qd",
        "1,4",
        "--threads",
        "1,2",
        "--duration",
        "20ms",
        "--json",
        "--no-store",
    ])
    .ends(0)
    .json();
    assert_eq!(doc["kind"], "sweep");
    assert_eq!(doc["cells"].as_array().map(|c| c.len()), Some(4), "{doc}");
}

#[test]
fn a_soak_has_its_intervals() {
    let doc = drive(&[
        "soak",
        "null:64M",
        "--duration",
        "300ms",
        "--interval",
        "100ms",
        "--json",
        "--no-store",
    ])
    .ends(0)
    .json();
    assert_eq!(doc["kind"], "soak");
    let points = doc["series"].as_array().map_or(0, |s| s.len());
    assert!((2..=4).contains(&points), "{points} intervals: {doc}");
}

#[test]
fn a_soak_interval_longer_than_it_is_refused_as_input() {
    let ran = drive(&[
        "soak",
        "null:64M",
        "--duration",
        "1s",
        "--interval",
        "2s",
        "--no-store",
    ]);
    assert!(ran.ends(1).error().contains("--interval"), "{ran:?}");
}

#[test]
fn a_soak_stopped_at_its_checkpoint_resumes_for_the_rest_of_its_duration() {
    let dir = Scratch::new("soak-resume");
    let store = dir.store();
    let target = dir.subdir("in");
    let first = drive_to_checkpoint(&[
        "soak",
        &target,
        "--size",
        "4M",
        "--duration",
        "1s",
        "--interval",
        "50ms",
        "--checkpoint",
        "100ms",
        "--json",
        "--store",
        &store,
    ]);
    let part = first.ends(130).json();
    let ran_ns = part["duration_ns"].as_u64().expect("duration");
    assert!(ran_ns < 1_000_000_000, "stopped before its end: {ran_ns}");
    let doc = drive(&["soak", "--resume", "last", "--json", "--store", &store])
        .ends(0)
        .json();
    assert_eq!(doc["interrupted"], false);
    let total = doc["duration_ns"].as_u64().expect("duration");
    assert!(
        total >= 1_000_000_000,
        "both parts make its duration: {total}"
    );
    let runs = drive(&["runs", "--json", "--store", &store]).ends(0).json();
    assert_eq!(
        runs.as_array().map(|r| r.len()),
        Some(1),
        "one run, continued in place: {runs}"
    );
}

#[test]
fn a_finished_soak_has_nothing_to_resume() {
    let dir = Scratch::new("soak-finished");
    let store = dir.store();
    drive(&[
        "soak",
        "null:64M",
        "--duration",
        "100ms",
        "--interval",
        "50ms",
        "--store",
        &store,
    ])
    .ends(0);
    let ran = drive(&["soak", "--resume", "last", "--store", &store]);
    assert!(ran.ends(1).error().contains("nothing to resume"), "{ran:?}");
}

#[test]
fn time_of_a_shell_line_counts_its_runs() {
    let doc = drive(&[
        "time",
        "--warm",
        "--runs",
        "2",
        "--warmup",
        "0",
        "--shell",
        "true",
        "--json",
        "--no-store",
    ])
    .ends(0)
    .json();
    assert_eq!(doc["kind"], "time");
    let text = doc.to_string();
    assert!(text.contains("\"warm\""), "{doc}");
}

#[test]
fn time_of_a_failing_command_fails_unless_told_to_ignore_it() {
    let failing = drive(&[
        "time",
        "--warm",
        "--runs",
        "1",
        "--shell",
        "false",
        "--no-store",
    ]);
    assert_eq!(failing.code(), 1, "{failing:?}");
    drive(&[
        "time",
        "--warm",
        "--runs",
        "1",
        "--shell",
        "false",
        "--ignore-failure",
        "--no-store",
    ])
    .ends(0);
}

#[test]
fn durability_of_a_directory_times_its_commits() {
    let dir = Scratch::new("durability");
    let target = dir.subdir("in");
    let ran = drive(&[
        "durability",
        &target,
        "--budget",
        "2s",
        "--json",
        "--no-store",
    ]);
    let doc = ran.json();
    assert_eq!(doc["kind"], "durability");
    // The directory is on the machine's own disk, whose flushes are its own: a virtual disk may
    // acknowledge them at once, and the run then says so and ends 5. Anything else ends 0.
    let early = doc["flush_honesty"]["verdict"] == "early";
    ran.ends(if early { 5 } else { 0 });
    super::assert_empty(&target);
}

#[test]
fn a_diagnosis_of_a_directory_is_saved_with_its_experiments() {
    let dir = Scratch::new("diagnose");
    let store = dir.store();
    let target = dir.subdir("in");
    let doc = drive(&[
        "diagnose", &target, "--size", "16M", "--budget", "3s", "--json", "--store", &store,
    ])
    .ends(0)
    .json();
    assert_eq!(doc["kind"], "diagnose");
    let runs = drive(&["runs", "--json", "--store", &store]).ends(0).json();
    assert_eq!(runs[0]["kind"], "diagnose", "{runs}");
}
