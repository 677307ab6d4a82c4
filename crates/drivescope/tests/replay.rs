//! `replay` on real kernel devices: a workload's block requests kept with the capture library while fio
//! runs on a loop device, then replayed on the same device. The replay must issue every request once,
//! as the kernel sees it too, with the trace's bytes. How close its I/O time comes to the trace's
//! depends on the machine's load and is measured by bench/replay_fidelity.py (docs/performance.md);
//! here it is only held within an order of magnitude. Needs root (loop devices, tracefs).

use common::{drivescope_cmd, skip_without_root, TmpfsLoop};
use drivescope_record::{Kind, ReplayRecord};
use drivescope_testkit as common;
use drivescope_trace::{Capture, Sink, TraceHeader, TraceReader, TraceWriter};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The replay's (kernel-traced) I/O time against the trace's: a sanity bound, not a measurement.
const IO_SANITY: f64 = 10.0;

struct Keep(TraceWriter<BufWriter<File>>);

impl Sink for Keep {
    fn request(&mut self, r: &drivescope_trace::Request) {
        self.0.write(r).expect("write the kept trace");
    }
}

/// Keep the block trace of `dev` while `cmd` runs, in `file`; the number of requests kept.
/// One test at a time: a process traces through one tracefs instance of its own.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn keep_trace(dev: &Path, cmd: &mut Command, file: &Path) -> u64 {
    let name = dev.file_name().unwrap().to_string_lossy().to_string();
    let devices = drivescope_trace::devices::resolve(&[name]).expect("the loop device");
    let header = TraceHeader {
        devices: devices.clone(),
        command: std::iter::once(cmd.get_program())
            .chain(cmd.get_args())
            .map(|a| a.to_string_lossy().to_string())
            .collect(),
        started: drivescope_record::now_rfc3339(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
    };
    let out = BufWriter::new(File::create(file).expect("create the trace file"));
    let writer = TraceWriter::new(out, &header).expect("trace header");
    let capture = Capture::start(&devices, Keep(writer)).expect("start the block trace");
    let status = cmd.status().expect("run the workload");
    assert!(status.success(), "{cmd:?}: {status}");
    let (keep, stats) = capture.finish().expect("stop the block trace");
    assert_eq!(stats.lost_events, 0, "the kernel dropped trace events");
    let n = keep.0.written();
    keep.0.finish().expect("flush the trace");
    n
}

fn replay(trace: &Path, target: &Path, extra: &[&str]) -> ReplayRecord {
    let out = drivescope_cmd()
        .arg("replay")
        .args(extra)
        .arg(trace)
        .arg(target)
        .args(["--json", "--quiet"])
        .output()
        .expect("run drivescope replay");
    assert!(
        out.status.success(),
        "replay: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: ReplayRecord = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not a replay document ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    assert_eq!(rec.header.kind, Kind::Replay);
    rec
}

fn trace_path(what: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "drivescope-replay-{}-{what}.trace",
        std::process::id()
    ))
}

fn fio(dev: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("fio");
    c.args([
        "--name=w",
        "--direct=1",
        "--ioengine=psync",
        "--output=/dev/null",
    ])
    .arg(format!("--filename={}", dev.display()))
    .args(args);
    c
}

/// Trace `workload` on `dev` and replay it there: every request issued once, the kernel seeing as
/// many with the same bytes, none skipped or failed.
fn replays_every_request_once(dev: &Path, what: &str, workload: &[&str]) {
    let file = trace_path(what);
    let kept = keep_trace(dev, &mut fio(dev, workload), &file);
    assert!(kept >= 2000, "only {kept} requests traced");
    let n = TraceReader::new(std::io::BufReader::new(File::open(&file).unwrap()))
        .unwrap()
        .count() as u64;
    assert_eq!(n, kept);
    let rec = replay(&file, dev, &[]);
    let _ = std::fs::remove_file(&file);
    assert_eq!(rec.skipped, 0);
    assert_eq!(rec.errors, 0);
    assert_eq!(rec.original.requests, kept);
    assert_eq!(rec.replayed.requests, kept, "every request is issued once");
    assert_eq!(rec.replayed.bytes, rec.original.bytes);
    let kernel = rec.kernel.expect("the replay traced as root");
    assert_eq!(kernel.requests, kept, "the kernel saw as many requests");
    assert_eq!(kernel.bytes, rec.original.bytes);
    let reads: u64 = rec
        .classes
        .iter()
        .filter(|c| c.direction == drivescope_record::IoDirection::Read)
        .map(|c| c.requests)
        .sum();
    assert_eq!(reads, kept, "all reads: {:?}", rec.classes);
    let ratio = rec.io_ratio().unwrap();
    eprintln!(
        "{what}: {kept} requests, I/O time traced {:.1} ms, replayed {:.1} ms (kernel) {:.1} ms (seen) (x{ratio:.3})",
        rec.original.io_ns as f64 / 1e6,
        kernel.io_ns as f64 / 1e6,
        rec.replayed.io_ns as f64 / 1e6,
    );
    assert!(
        (1.0 / IO_SANITY..=IO_SANITY).contains(&ratio),
        "{what}: I/O time ratio {ratio:.3}, beyond an order of magnitude"
    );
}

/// A lab disk with a flat 60 µs command overhead and 32 commands overlapping (ssd-slc).
fn lab_disk() -> drivescope_lab::LabDevice {
    if let Err(e) = drivescope_lab::check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    let model = drivescope_lab::Model::preset("ssd-slc").expect("preset");
    drivescope_lab::LabDevice::start_temp(&model, true).expect("start lab device")
}

#[test]
fn fio_random_reads_replay_every_request_once() {
    let _one = one_at_a_time();
    if skip_without_root("creates lab disks and traces them through tracefs") {
        return;
    }
    let lab = lab_disk();
    replays_every_request_once(
        lab.loop_device().expect("loop device"),
        "randread",
        &[
            "--rw=randread",
            "--bs=4k",
            "--iodepth=1",
            "--number_ios=3000",
            "--size=256M",
        ],
    );
}

/// fio at `depth` through libaio: the replay goes through io_uring.
fn at_depth(depth: u32) {
    let _one = one_at_a_time();
    if skip_without_root("creates lab disks and traces them through tracefs") {
        return;
    }
    let lab = lab_disk();
    let iodepth = format!("--iodepth={depth}");
    replays_every_request_once(
        lab.loop_device().expect("loop device"),
        &format!("randread-q{depth}"),
        &[
            "--rw=randread",
            "--bs=4k",
            &iodepth,
            "--ioengine=libaio",
            "--number_ios=4000",
            "--size=256M",
        ],
    );
}

#[test]
fn fio_random_reads_at_depth_8_replay_every_request_once() {
    at_depth(8);
}

#[test]
fn fio_random_reads_at_depth_32_replay_every_request_once() {
    at_depth(32);
}

#[test]
fn a_trace_past_the_targets_end_is_refused_in_one_line_or_folded() {
    let _one = one_at_a_time();
    if skip_without_root("creates loop devices and traces them through tracefs") {
        return;
    }
    let big = TmpfsLoop::new(64 << 20);
    let small = TmpfsLoop::new(16 << 20);
    let file = trace_path("fold");
    keep_trace(
        big.path(),
        &mut fio(
            big.path(),
            &["--rw=randread", "--bs=4k", "--number_ios=500", "--size=64M"],
        ),
        &file,
    );
    let out = drivescope_cmd()
        .arg("replay")
        .arg(&file)
        .arg(small.path())
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("--wrap"), "{err}");
    let rec = replay(&file, small.path(), &["--wrap"]);
    assert!(rec.wrapped);
    assert_eq!(rec.replayed.requests, rec.original.requests);
    let _ = std::fs::remove_file(&file);
}

#[test]
fn writes_on_a_device_are_skipped_and_said_without_the_gate() {
    let _one = one_at_a_time();
    if skip_without_root("creates loop devices and traces them through tracefs") {
        return;
    }
    let dev = TmpfsLoop::new(64 << 20);
    let file = trace_path("writes");
    let kept = keep_trace(
        dev.path(),
        &mut fio(
            dev.path(),
            &["--rw=randrw", "--bs=4k", "--number_ios=1000", "--size=64M"],
        ),
        &file,
    );
    let before = common::checksum(dev.path());
    let rec = replay(&file, dev.path(), &[]);
    assert_eq!(
        common::checksum(dev.path()),
        before,
        "the device was written"
    );
    assert!(rec.skipped > 0 && rec.skipped < kept);
    assert_eq!(rec.replayed.requests + rec.skipped, kept);
    assert!(
        rec.notes.iter().any(|n| n.contains("writes not issued")),
        "{:?}",
        rec.notes
    );
    let _ = std::fs::remove_file(&file);
}

/// On a directory the replay gets a test file of its own: every request is issued, writes included,
/// the file is removed afterwards, and a file that was there is left as it was.
#[test]
fn a_directory_gets_a_test_file_writes_included_and_removed_after() {
    let _one = one_at_a_time();
    if skip_without_root("creates loop devices and traces them through tracefs") {
        return;
    }
    let dev = TmpfsLoop::new(64 << 20);
    let file = trace_path("dir");
    let kept = keep_trace(
        dev.path(),
        &mut fio(
            dev.path(),
            &["--rw=randrw", "--bs=4k", "--number_ios=600", "--size=32M"],
        ),
        &file,
    );
    let fs = common::Ext4Mount::new(128 << 20);
    let own = fs.dir.join("mine.txt");
    std::fs::write(&own, b"the user's file").unwrap();
    let before: Vec<_> = std::fs::read_dir(&fs.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let rec = replay(&file, &fs.dir, &[]);
    assert_eq!(rec.original.requests, kept);
    assert_eq!(rec.replayed.requests, kept, "every request, writes too");
    assert_eq!(rec.skipped, 0, "{:?}", rec.notes);
    assert_eq!(rec.errors, 0);
    assert!(
        rec.classes
            .iter()
            .any(|c| c.direction == drivescope_record::IoDirection::Write && c.requests > 0),
        "{:?}",
        rec.classes
    );
    let after: Vec<_> = std::fs::read_dir(&fs.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(after, before, "the test file is removed");
    assert_eq!(std::fs::read(&own).unwrap(), b"the user's file");
    let _ = std::fs::remove_file(&file);
}
