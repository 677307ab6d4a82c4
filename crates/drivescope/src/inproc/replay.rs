//! `replay`: a trace written with the trace crate's own writer (the format `time --keep-trace` keeps),
//! replayed into a directory's test file, saved as a run of its own kind, in-process.

use super::{drive, drive_stopped, Scratch};
use drivescope_trace::{Op, Request, TraceDevice, TraceHeader, TraceWriter};

/// `n` 4 KiB requests, one at a time, every 100 µs: reads, and a write every `write_every`-th
/// (0: none), over the first 4 MiB of a 512-byte-sector device.
fn trace(dir: &Scratch, n: u64, write_every: u64) -> String {
    let path = dir.path("kept.trace");
    let header = TraceHeader {
        devices: vec![TraceDevice {
            dev: 7 << 20,
            name: "loop9".into(),
            logical_block_size: 512,
        }],
        command: vec!["cat".into(), "data".into()],
        started: "2026-12-05T00:00:00Z".into(),
        tool_version: "0.1.0".into(),
    };
    let file = std::fs::File::create(&path).expect("trace file");
    let mut w = TraceWriter::new(std::io::BufWriter::new(file), &header).expect("header");
    for i in 0..n {
        let write = write_every > 0 && i % write_every == write_every - 1;
        w.write(&Request {
            dev: 7 << 20,
            sector: (i * 37 % 1024) * 8,
            bytes: 4096,
            op: if write { Op::Write } else { Op::Read },
            sync: false,
            issue_ns: i * 100_000,
            complete_ns: i * 100_000 + 60_000,
            error: 0,
        })
        .expect("record");
    }
    w.finish().expect("written");
    path
}

#[test]
fn a_replay_in_a_directory_is_saved_as_a_replay() {
    let dir = Scratch::new("replay-saved");
    let store = dir.store();
    let kept = trace(&dir, 200, 0);
    let target = dir.subdir("in");
    let doc = drive(&["replay", &kept, &target, "--json", "--store", &store])
        .ends(0)
        .json();
    assert_eq!(doc["kind"], "replay");
    assert_eq!(doc["original"]["requests"], 200);
    assert_eq!(
        doc["replayed"]["requests"], 200,
        "every request issued: {doc}"
    );
    assert_eq!(doc["errors"], 0);
    super::assert_empty(&target);
    let runs = drive(&["runs", "--kind", "replay", "--json", "--store", &store])
        .ends(0)
        .json();
    assert_eq!(runs.as_array().map(|r| r.len()), Some(1), "{runs}");
    let shown = drive(&["show", "last", "--store", &store])
        .ends(0)
        .stdout
        .clone();
    assert!(shown.contains("Replay of"), "{shown}");
    assert!(shown.contains("I/O time"), "{shown}");
}

#[test]
fn a_replay_exports_its_classes_as_csv() {
    let dir = Scratch::new("replay-csv");
    let store = dir.store();
    let kept = trace(&dir, 100, 4);
    let target = dir.subdir("in");
    drive(&["replay", &kept, &target, "--store", &store]).ends(0);
    let csv = drive(&[
        "export", "1", "--format", "csv", "--table", "classes", "--store", &store,
    ])
    .ends(0)
    .stdout
    .clone();
    let rows = csv.lines().count();
    assert!(rows >= 3, "a header and a read and a write class:\n{csv}");
}

#[test]
fn a_stopped_replay_ends_130() {
    let dir = Scratch::new("replay-stopped");
    let kept = trace(&dir, 100, 0);
    let target = dir.subdir("in");
    let ran = drive_stopped(&["replay", &kept, &target, "--json", "--no-store"]);
    assert_eq!(ran.ends(130).json()["interrupted"], true);
}

#[test]
fn a_replay_onto_an_existing_file_is_refused() {
    let dir = Scratch::new("replay-file");
    let kept = trace(&dir, 10, 0);
    let file = dir.file("data", 1 << 20);
    let before = std::fs::read(&file).expect("data");
    drive(&["replay", &kept, &file, "--no-store"]).ends(3);
    assert_eq!(std::fs::read(&file).expect("data"), before);
}
