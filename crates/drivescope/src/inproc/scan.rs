//! `scan`: exit codes, the JSON document, the store, checkpoints and `--resume`, in-process.

use super::{drive, drive_stopped, drive_to_checkpoint, Scratch};

#[test]
fn a_null_scan_ends_0_with_a_scan_document() {
    let ran = drive(&["scan", "null:64M", "--json", "--no-store"]);
    let doc = ran.ends(0).json();
    assert_eq!(doc["schema"], "drivescope/1");
    assert_eq!(doc["kind"], "scan");
    assert_eq!(doc["length"], 64 << 20);
    assert_eq!(doc["covered"], 64 << 20);
    assert_eq!(doc["interrupted"], false);
    assert_eq!(doc["commands"], 1024, "64 MiB in 64 KiB commands");
}

#[test]
fn a_scan_prints_its_text_without_json() {
    let ran = drive(&["scan", "null:8M", "--no-store"]);
    ran.ends(0);
    assert!(
        ran.stdout.contains("drivescope scan null:8M"),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("surface"), "{}", ran.stdout);
    assert!(!ran.stdout.trim_start().starts_with('{'));
}

#[test]
fn block_size_and_queue_depth_reach_the_record() {
    let ran = drive(&[
        "scan",
        "null:4M",
        "--json",
        "--no-store",
        "--block-size",
        "4K",
        "-q",
        "--queue-depth",
        "4",
    ]);
    let doc = ran.ends(0).json();
    assert_eq!(doc["block_size"], 4096);
    assert_eq!(doc["queue_depth"], 4);
    assert_eq!(doc["commands"], 1024);
}

#[test]
fn offset_and_length_bound_the_range() {
    let ran = drive(&[
        "scan",
        "null:64M",
        "--json",
        "--no-store",
        "--offset",
        "16M",
        "--length",
        "8M",
    ]);
    let doc = ran.ends(0).json();
    assert_eq!(doc["offset"], 16 << 20);
    assert_eq!(doc["length"], 8 << 20);
    assert_eq!(doc["covered"], 8 << 20);
}

#[test]
fn a_file_scan_reads_the_whole_file() {
    let dir = Scratch::new("file-scan");
    let file = dir.file("data", 4 << 20);
    let doc = drive(&["scan", &file, "--json", "--no-store"])
        .ends(0)
        .json();
    assert_eq!(doc["bytes"], 4 << 20);
    assert_eq!(doc["failed_total"], 0);
    assert_eq!(doc["target"]["type"], "file");
}

#[test]
fn a_quick_scan_reads_every_region() {
    let doc = drive(&[
        "scan",
        "null:256M",
        "--quick",
        "--dwell",
        "1ms",
        "--json",
        "--no-store",
    ])
    .ends(0)
    .json();
    assert_eq!(doc["kind"], "quick_scan");
    let regions = doc["regions"].as_array().map_or(0, |r| r.len());
    assert_eq!(regions, 256, "{}", doc);
}

#[test]
fn a_scan_is_saved_and_runs_lists_it() {
    let dir = Scratch::new("scan-saved");
    let store = dir.store();
    drive(&["scan", "null:8M", "--store", &store]).ends(0);
    drive(&["scan", "null:16M", "--store", &store]).ends(0);
    let runs = drive(&["runs", "--json", "--store", &store]).ends(0).json();
    let list = runs.as_array().expect("a list of runs");
    assert_eq!(list.len(), 2, "{runs}");
    assert!(list.iter().all(|r| r["kind"] == "scan"), "{runs}");
}

#[test]
fn a_stopped_scan_ends_130_and_is_saved_interrupted() {
    let dir = Scratch::new("scan-stopped");
    let store = dir.store();
    let ran = drive_stopped(&["scan", "null:64M", "--json", "--store", &store]);
    let doc = ran.ends(130).json();
    assert_eq!(doc["interrupted"], true);
    let runs = drive(&["runs", "--json", "--store", &store]).ends(0).json();
    assert_eq!(runs.as_array().map(|r| r.len()), Some(1), "{runs}");
}

#[test]
fn a_scan_stopped_before_its_first_command_has_nothing_to_continue() {
    let dir = Scratch::new("scan-stopped-at-once");
    let store = dir.store();
    let file = dir.file("data", 4 << 20);
    drive_stopped(&["scan", &file, "--store", &store]).ends(130);
    let ran = drive(&["scan", "--resume", "last", "--store", &store]);
    assert!(ran.ends(1).error().contains("nothing to resume"), "{ran:?}");
}

/// 64 MiB in 4 KiB commands takes longer than the shortest checkpoint interval (100 ms) on any
/// disk that has to read it (16384 commands).
#[test]
fn a_scan_stopped_at_its_checkpoint_continues_with_resume_to_its_end() {
    let dir = Scratch::new("scan-resume");
    let store = dir.store();
    let file = dir.file("data", 64 << 20);
    let first = drive_to_checkpoint(&[
        "scan",
        &file,
        "--block-size",
        "4K",
        "--checkpoint",
        "100ms",
        "--json",
        "--store",
        &store,
    ]);
    let part = first.ends(130).json();
    let covered = part["covered"].as_u64().expect("covered");
    assert!(covered > 0 && covered < 64 << 20, "{covered}");
    let runs = drive(&["runs", "--json", "--store", &store]).ends(0).json();
    assert_eq!(
        runs.as_array().map(|r| r.len()),
        Some(1),
        "saved over its checkpoint: {runs}"
    );
    let doc = drive(&["scan", "--resume", "last", "--json", "--store", &store])
        .ends(0)
        .json();
    assert_eq!(doc["interrupted"], false);
    assert_eq!(doc["covered"], 64 << 20);
    assert_eq!(
        doc["bytes"],
        64 << 20,
        "each byte read once over both parts"
    );
    assert_eq!(doc["resumed_from"], 1, "{doc}");
}

#[test]
fn a_finished_scan_has_nothing_to_resume() {
    let dir = Scratch::new("scan-finished");
    let store = dir.store();
    drive(&["scan", "null:4M", "--store", &store]).ends(0);
    let ran = drive(&["scan", "--resume", "1", "--store", &store]);
    assert!(ran.ends(1).error().contains("nothing to resume"), "{ran:?}");
}

#[test]
fn resume_of_a_run_that_is_not_there_fails() {
    let dir = Scratch::new("scan-none");
    let store = dir.store();
    drive(&["scan", "null:4M", "--store", &store]).ends(0);
    drive(&["scan", "--resume", "7", "--store", &store]).ends(1);
    let ran = drive(&["scan", "--resume", "seven", "--store", &store]);
    ran.ends(1);
}

#[test]
fn a_bench_run_is_no_scan_to_resume() {
    let dir = Scratch::new("scan-kind");
    let store = dir.store();
    drive(&[
        "bench",
        "null:64M",
        "--test",
        "SEQ1M Q8T1",
        "--runs",
        "1",
        "--duration",
        "20ms",
        "--store",
        &store,
    ])
    .ends(0);
    let ran = drive(&["scan", "--resume", "last", "--store", &store]);
    assert!(ran.ends(1).error().contains("not a scan"), "{ran:?}");
}

#[test]
fn a_resumed_scan_refuses_another_target() {
    let dir = Scratch::new("scan-other");
    let store = dir.store();
    let a = dir.file("a", 4 << 20);
    drive_stopped(&["scan", &a, "--store", &store]).ends(130);
    std::fs::remove_file(&a).expect("removed");
    let ran = drive(&["scan", "--resume", "last", "--store", &store]);
    assert_ne!(ran.code(), 0, "{ran:?}");
}

#[test]
fn the_curve_csv_has_a_row_per_point() {
    let dir = Scratch::new("scan-curve");
    let csv = dir.path("curve.csv");
    drive(&[
        "scan",
        "null:16M",
        "--points",
        "32",
        "--curve-csv",
        &csv,
        "--no-store",
    ])
    .ends(0);
    let text = std::fs::read_to_string(&csv).expect("curve written");
    let rows = text.lines().count();
    assert!((32..=34).contains(&rows), "{rows} rows:\n{text}");
}

#[test]
fn the_failed_list_of_a_clean_scan_is_its_header_alone() {
    let dir = Scratch::new("scan-failed");
    let csv = dir.path("failed.csv");
    drive(&["scan", "null:4M", "--failed-list", &csv, "--no-store"]).ends(0);
    let text = std::fs::read_to_string(&csv).expect("list written");
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("lba,"), "{text}");
}
