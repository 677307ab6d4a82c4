//! bench, sweep and soak end to end on devices the tests create.

use common::typed::{drivescope_record, record_of};
use common::*;
use drivescope_record::{BenchRecord, Direction, EngineKind, Kind, Reap, SoakRecord, SweepRecord};
use drivescope_testkit as common;

const MIB: u64 = 1 << 20;

#[test]
fn bench_on_a_directory_creates_fills_and_removes_its_test_file() {
    if skip_without_root("mounts ext4 on a loop device") {
        return;
    }
    let fs = Ext4Mount::new(128 * MIB);
    let d: BenchRecord = drivescope_record(&[
        "bench",
        fs.path(),
        "--size",
        "32M",
        "--runs",
        "2",
        "--duration",
        "200ms",
    ]);
    assert_eq!(d.header.kind, Kind::Bench);
    assert!(d.workload.direct);
    assert_eq!(d.profile, "default");
    let tests = &d.tests;
    let names: Vec<(&str, Direction)> = tests.iter().map(|t| (t.name.as_str(), t.rw)).collect();
    use Direction::{Read, Write};
    assert_eq!(
        names,
        [
            ("SEQ1M Q8T1", Read),
            ("SEQ1M Q8T1", Write),
            ("SEQ1M Q1T1", Read),
            ("SEQ1M Q1T1", Write),
            ("RND4K Q32T1", Read),
            ("RND4K Q32T1", Write),
            ("RND4K Q1T1", Read),
            ("RND4K Q1T1", Write),
        ]
    );
    for t in tests {
        assert_eq!(t.runs.len(), 2);
        assert!(t.mb_per_s > 0.0);
        assert!(t.iops > 0.0);
        assert_eq!(t.errors, 0);
        let best = t.runs.iter().map(|r| r.mb_per_s).fold(0.0, f64::max);
        assert_eq!(t.mb_per_s, best, "best run reported");
        // MB/s = IOPS × block size
        let bs = t.load.block_size as f64;
        let r0 = &t.runs[0];
        let ratio = r0.mb_per_s * 1e6 / (r0.iops * bs);
        assert!((ratio - 1.0).abs() < 1e-6, "MB/s and IOPS agree: {ratio}");
        assert!(t.latency.percentiles_ns["99"] > 0);
    }
    assert_eq!(tests[4].load.queue_depth, 32);
    assert_eq!(tests[4].load.block_size, 4096);
    // the test file is gone
    let left: Vec<_> = std::fs::read_dir(fs.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("drivescope-test")
        })
        .collect();
    assert!(left.is_empty(), "test file left behind");
}

#[test]
fn custom_tests_and_mix() {
    if skip_without_root("mounts ext4 on a loop device") {
        return;
    }
    let fs = Ext4Mount::new(64 * MIB);
    let d: BenchRecord = drivescope_record(&[
        "bench",
        fs.path(),
        "--size",
        "16M",
        "--runs",
        "1",
        "--duration",
        "150ms",
        "--test",
        "RND16K Q4T2",
        "--rw",
        "read",
        "--mix",
        "60",
    ]);
    let tests = &d.tests;
    assert_eq!(tests.len(), 2);
    assert_eq!(tests[0].name, "RND16K Q4T2");
    assert_eq!(tests[0].load.threads, 2);
    assert_eq!(tests[0].load.queue_depth, 4);
    assert_eq!(tests[1].rw, Direction::Mix);
    assert_eq!(tests[1].read_pct, Some(60));
}

#[test]
fn a_file_system_without_o_direct_needs_allow_buffered_and_says_so() {
    if skip_without_root("mounts ramfs") {
        return;
    }
    // ramfs has no O_DIRECT (tmpfs has had it since Linux 6.6).
    let dir = std::env::temp_dir().join(format!("ds-ramfs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let st = std::process::Command::new("mount")
        .args(["-t", "ramfs", "ramfs"])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(st.success(), "mount -t ramfs");
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            unmount(&self.0);
            let _ = std::fs::remove_dir(&self.0);
        }
    }
    let _guard = Unmount(dir.clone());
    let p = dir.to_str().unwrap();
    let args = [
        "bench",
        p,
        "--size",
        "8M",
        "--runs",
        "1",
        "--duration",
        "50ms",
        "--profile",
        "peak",
    ];
    let out = drivescope(&args);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("O_DIRECT"));
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "test file removed"
    );
    let mut buffered = args.to_vec();
    buffered.push("--allow-buffered");
    let out = drivescope(&buffered);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("SEQ1M") || l.contains("RND4K"))
        .collect();
    // Six result lines, and the note naming the tests that polled for completions (when the
    // machine has a CPU to spare); every one of them says it was buffered.
    let rows = lines
        .iter()
        .filter(|l| !l.starts_with("  note: a CPU watched for the completions"))
        .count();
    assert_eq!(rows, 6, "{text}");
    for line in lines {
        assert!(
            line.contains("BUFFERED"),
            "every result line says buffered: {line}"
        );
    }
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "test file removed"
    );
}

#[test]
fn block_devices_are_read_only_for_bench() {
    if skip_without_root("creates zram devices") {
        return;
    }
    let z = Zram::new(32 * MIB);
    fill_random(&z.path, 32 * MIB);
    let before = checksum(&z.path);
    let p = z.path.to_str().unwrap();
    let out = drivescope(&[
        "bench",
        p,
        "--size",
        "32M",
        "--runs",
        "1",
        "--duration",
        "50ms",
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "write tests on a device are refused"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("refused"));
    let d: BenchRecord = drivescope_record(&[
        "bench",
        p,
        "--rw",
        "read",
        "--size",
        "32M",
        "--runs",
        "2",
        "--duration",
        "100ms",
    ]);
    assert_eq!(d.tests.len(), 4);
    assert!(d.tests.iter().all(|t| t.rw == Direction::Read));
    assert_eq!(
        d.tests[3].load.engine,
        EngineKind::Psync,
        "auto picks psync at QD1 on zram"
    );
    assert_eq!(d.tests[2].load.engine, EngineKind::IoUring);
    assert_eq!(checksum(&z.path), before, "the device is unchanged");
}

/// Both ways of waiting for completions keep the queue full and count every command: with 32
/// commands in flight, IOPS × mean completion latency (Little's law) lands just under 32 in
/// each mode, and the histogram holds every command of the measured runs.
#[test]
fn polled_and_sleeping_reaps_keep_the_queue_full() {
    if skip_without_root("creates zram devices") {
        return;
    }
    let z = Zram::new(64 * MIB);
    fill_random(&z.path, 64 * MIB);
    let p = z.path.to_str().unwrap();
    let cpus = std::thread::available_parallelism().unwrap().get();
    for (reap, expect) in [
        ("sleep", Reap::Sleep),
        ("poll", Reap::Poll),
        ("auto", if cpus > 1 { Reap::Poll } else { Reap::Sleep }),
    ] {
        let d: BenchRecord = drivescope_record(&[
            "bench",
            p,
            "--rw",
            "read",
            "--size",
            "64M",
            "--test",
            "RND4K Q32T1",
            "--test",
            "RND4K Q1T1",
            "--runs",
            "2",
            "--duration",
            "300ms",
            "--reap",
            reap,
        ]);
        let t = &d.tests[0];
        assert_eq!(t.load.reap, expect, "--reap {reap}");
        assert_eq!(t.errors, 0);
        let commands: u64 = t.runs.iter().map(|r| r.commands).sum();
        assert_eq!(t.latency.count, commands);
        let busy_ns: u64 = t.runs.iter().map(|r| r.duration_ns).sum();
        let iops = commands as f64 * 1e9 / busy_ns as f64;
        let in_flight = iops * t.latency.mean_ns as f64 / 1e9;
        // Time the host spends between a reap and the next submission is in no latency, so a busy
        // host lowers the figure: the floor tells a queue of 32 from one of a few, not how full.
        assert!(
            (8.0..=32.5).contains(&in_flight),
            "--reap {reap}: IOPS {iops:.0} × mean latency = {in_flight:.1} in flight, not ~32"
        );
        // QD1 never polls; on zram it is psync's.
        assert_eq!(d.tests[1].load.reap, Reap::Sleep, "--reap {reap} at QD1");
    }
}

#[test]
fn sweep_grid_and_gain() {
    if skip_without_root("creates zram devices") {
        return;
    }
    let z = Zram::new(32 * MIB);
    fill_random(&z.path, 32 * MIB);
    let p = z.path.to_str().unwrap();
    let d: SweepRecord = drivescope_record(&[
        "sweep",
        p,
        "--size",
        "32M",
        "--qd",
        "1,4,16",
        "--threads",
        "1,2",
        "--duration",
        "100ms",
    ]);
    assert_eq!(d.header.kind, Kind::Sweep);
    let cells = &d.cells;
    assert_eq!(cells.len(), 6);
    let q1 = cells
        .iter()
        .find(|c| c.queue_depth == 1 && c.threads == 1)
        .unwrap()
        .iops;
    let best = cells.iter().map(|c| c.iops).fold(0.0, f64::max);
    let gain = d.queueing_gain.unwrap();
    assert!((gain - best / q1).abs() < 1e-9);
    assert!(gain >= 1.0);
}

#[test]
fn soak_series_covers_the_duration() {
    if skip_without_root("creates zram devices") {
        return;
    }
    let z = Zram::new(32 * MIB);
    fill_random(&z.path, 32 * MIB);
    let p = z.path.to_str().unwrap();
    let d: SoakRecord = drivescope_record(&[
        "soak",
        p,
        "--size",
        "32M",
        "--test",
        "SEQ128K Q4T1",
        "--duration",
        "2s",
        "--interval",
        "200ms",
    ]);
    assert_eq!(d.header.kind, Kind::Soak);
    let series = &d.series;
    assert!(
        (9..=11).contains(&series.len()),
        "{} intervals",
        series.len()
    );
    let total: u64 = series.iter().map(|p| p.bytes).sum();
    assert_eq!(total, d.bytes);
    assert!(d.steady_mb_per_s > 0.0);
    assert!(d.first_to_steady.is_some());
}

#[test]
fn bench_bad_input() {
    for (args, needle) in [
        (
            vec!["bench", "null:1G", "--test", "SEQ1M Q0T1"],
            "queue depth",
        ),
        (
            vec!["bench", "null:1G", "--profile", "fast"],
            "unknown profile",
        ),
        (
            vec!["bench", "null:1G", "--runs", "0"],
            "must be at least 1",
        ),
        (vec!["sweep", "null:1G", "--qd", "1,x"], "list of numbers"),
        (vec!["bench", "/nonexistent/dir"], "no such file"),
    ] {
        let out = drivescope(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
}

#[test]
fn a_stored_bench_shows_as_it_printed() {
    let store = std::env::temp_dir().join(format!("ds-show-{}.sqlite", std::process::id()));
    let s = store.to_str().unwrap();
    let out = drivescope(&[
        "bench",
        "null:64M",
        "--rw",
        "read",
        "--runs",
        "1",
        "--duration",
        "50ms",
        "--profile",
        "peak",
        "--store",
        s,
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8_lossy(&out.stdout).to_string();
    let shown = drivescope(&["show", "last", "--store", s]);
    assert!(shown.status.success());
    let shown = String::from_utf8_lossy(&shown.stdout).to_string();
    for f in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{s}{f}"));
    }
    assert!(printed.contains("SEQ1M Q8T1"));
    assert!(
        shown.starts_with(&printed),
        "show prints the table as bench did:\n{printed}\n---\n{shown}"
    );
}

#[test]
fn an_existing_file_gets_read_tests_by_default_and_stays_unchanged() {
    if skip_without_root("mounts ext4 on a loop device") {
        return;
    }
    let fs = Ext4Mount::new(64 * MIB);
    let file = std::path::Path::new(fs.path()).join("data.img");
    fill_random(&file, 16 * MIB);
    let before = checksum(&file);
    let f = file.to_str().unwrap();
    let args = ["--runs", "1", "--duration", "50ms", "--no-store"];
    let out = drivescope(&[&["bench", f][..], &args[..]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("read tests only"), "one line says why: {err}");
    // With --json the document says it alone (read tests only), stderr stays empty.
    let out = drivescope(&[&["bench", f, "--json"][..], &args[..]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(err, "");
    let d: BenchRecord = record_of(&out);
    assert_eq!(d.tests.len(), 4);
    assert!(d.tests.iter().all(|t| t.rw == Direction::Read));
    // Write tests asked for by name are still refused, and nothing is written either way.
    let out = drivescope(&[&["bench", f, "--rw", "write"][..], &args[..]].concat());
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refused"));
    assert_eq!(checksum(&file), before, "the file is unchanged");
}
