//! Faults and interruptions on emulated lab disks (FUSE + loop), whose faults are known
//! exactly: bad sectors, a disk pulled mid-scan, writes that are acknowledged but dropped,
//! and SIGINT followed by `scan --resume`. Needs root and FUSE; fails loudly without them.

mod common;
use common::*;
use drivescope_lab::{check_environment, LabDevice, Model};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn start(toml: &str) -> LabDevice {
    if let Err(e) = check_environment(true) {
        panic!("lab fault tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    let model = Model::from_toml_str(toml, "test").expect("model");
    LabDevice::start_temp(&model, true).expect("start lab device")
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("integer: {v}"))
}

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The results store of a drivescope child started with `drivescope_cmd()`.
fn store() -> drivescope_store::Store {
    let path = std::env::temp_dir()
        .join(format!("drivescope-test-store-{}", std::process::id()))
        .join("drivescope/runs.sqlite");
    drivescope_store::Store::open(&path).expect("open the test store")
}

fn newest_run(store: &drivescope_store::Store) -> (i64, Value) {
    let list = store
        .list(&drivescope_store::ListFilter {
            limit: Some(1),
            ..Default::default()
        })
        .unwrap();
    let id = list.first().expect("a stored run").id;
    (id.0, store.get_json(id).unwrap())
}

#[test]
fn bad_sectors_are_listed_at_their_exact_lbas_and_the_scan_completes() {
    let _one = one_at_a_time();
    // Two bad spots: 3 sectors inside a command, and 8 sectors across a command boundary.
    let spots = [(5 * MIB + 1024, 1536u64), (20 * MIB - 2048, 4096u64)];
    let toml = format!(
        "name = \"bad\"\nsize = \"32M\"\nzones = {{ rates_mb_s = [2000] }}\noverhead = \"5us\"\n\
         bad = [{{ offset = {}, length = {}, latency = \"1ms\" }}, {{ offset = {}, length = {}, latency = \"1ms\" }}]\n",
        spots[0].0, spots[0].1, spots[1].0, spots[1].1
    );
    let dev = start(&toml);
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let out = drivescope(&["scan", &path, "--json", "--quiet", "--no-store"]);
    assert!(
        out.status.success(),
        "the scan completes: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d = json_of(&out);
    assert_eq!(d["interrupted"], false);
    assert_eq!(u(&d["covered"]), 32 * MIB);
    let listed: BTreeSet<u64> = d["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(u(&e["errno"]), 5, "EIO: {e}");
            assert_eq!(u(&e["lba"]) * 512, u(&e["offset"]));
            u(&e["lba"])
        })
        .collect();
    let expected: BTreeSet<u64> = spots
        .iter()
        .flat_map(|&(o, l)| (o / 512..(o + l) / 512).collect::<Vec<_>>())
        .collect();
    assert_eq!(listed, expected, "failed LBAs are exactly the bad sectors");
    assert_eq!(u(&d["failed_total"]), expected.len() as u64);
    // 3 commands failed: one for the first spot, two for the one across a boundary
    assert_eq!(u(&d["failed_commands"]), 3);
    assert_eq!(u(&d["bytes"]), 32 * MIB - 3 * 65536);
}

#[test]
fn a_disk_pulled_mid_scan_ends_the_run_with_partial_results_saved() {
    let _one = one_at_a_time();
    // 64 MiB at 20 MB/s: a scan takes about 3.4 s; the disk is pulled after 1 s.
    let dev = start(
        "name = \"pulled\"\nsize = \"64M\"\nzones = { rates_mb_s = [20] }\noverhead = \"5us\"\n",
    );
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let child = drivescope_cmd()
        .args(["scan", &path, "--json", "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let t0 = Instant::now();
    dev.pull();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "ended {:?} after the pull",
        t0.elapsed()
    );
    assert_eq!(out.status.code(), Some(4), "device-lost exit code: {err}");
    assert!(err.contains("stopped responding"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let d = json_of(&out);
    assert_eq!(d["interrupted"], true);
    assert!(d["device_lost"].is_string());
    let covered = u(&d["covered"]);
    assert!(covered > 0 && covered < 64 * MIB, "covered {covered}");
    // What was read before the pull is there; no sector list for a dead disk.
    assert!(u(&d["bytes"]) > 0);
    assert!(
        u(&d["failed_total"]) <= 1,
        "no bad-sector list for a pulled disk: {}",
        d["failed"]
    );
    // ... and it was saved.
    let (_, saved) = newest_run(&store());
    assert_eq!(saved["interrupted"], true);
    assert_eq!(saved["device_lost"], d["device_lost"]);
    assert_eq!(saved["bytes"], d["bytes"]);
    drop(dev);
}

#[test]
fn verify_reports_exactly_the_dropped_writes() {
    let _one = one_at_a_time();
    let lost = [(3 * MIB, 65536u64), (20 * MIB + 512, 1024u64)];
    let toml = format!(
        "name = \"liar\"\nsize = \"32M\"\nzones = {{ rates_mb_s = [2000] }}\noverhead = \"5us\"\n\
         lost_writes = [{{ offset = {}, length = {} }}, {{ offset = {}, length = {} }}]\n",
        lost[0].0, lost[0].1, lost[1].0, lost[1].1
    );
    let dev = start(&toml);
    let loopdev = dev.loop_device().unwrap();
    let path = loopdev.to_str().unwrap().to_string();
    let confirm = format!(
        "{} 32.0 MiB",
        loopdev.file_name().unwrap().to_string_lossy()
    );
    let out = drivescope(&[
        "scan",
        &path,
        "--write",
        "--verify",
        "--destructive",
        "--confirm",
        &confirm,
        "--queue-depth",
        "4",
        "--json",
        "--quiet",
        "--no-store",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d = json_of(&out);
    assert_eq!(d["write"], true);
    assert_eq!(u(&d["bytes"]), 32 * MIB);
    let v = &d["verify"];
    assert_eq!(v["complete"], true);
    assert_eq!(u(&v["blocks"]), 32 * MIB / 512);
    let extents: Vec<(u64, u64)> = v["lost"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (u(&e["offset"]), u(&e["length"])))
        .collect();
    assert_eq!(
        extents,
        lost.to_vec(),
        "lost extents are the dropped writes"
    );
    let lost_sectors: u64 = lost.iter().map(|l| l.1 / 512).sum();
    assert_eq!(u(&v["totals"]["lost"]), lost_sectors);
    assert_eq!(u(&v["totals"]["wrong"]), 0);
    assert_eq!(u(&v["totals"]["misplaced"]), 0);
    assert_eq!(u(&v["totals"]["unreadable"]), 0);
    assert_eq!(u(&v["totals"]["ok"]), 32 * MIB / 512 - lost_sectors);
}

fn curve_geometry(d: &Value) -> Vec<(u64, u64)> {
    d["curve"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (u(&p["offset"]), u(&p["length"])))
        .collect()
}

#[test]
fn sigint_then_resume_covers_the_range_as_one_scan_would() {
    let _one = one_at_a_time();
    // 48 MiB at 40 MB/s: about 1.3 s per scan.
    let dev = start(
        "name = \"resume\"\nsize = \"48M\"\nzones = { rates_mb_s = [40] }\noverhead = \"5us\"\n",
    );
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let args = [
        "--block-size",
        "128K",
        "--points",
        "37",
        "--json",
        "--quiet",
    ];

    let whole = drivescope_cmd()
        .args(["scan", &path])
        .args(args)
        .output()
        .unwrap();
    assert!(whole.status.success());
    let whole = json_of(&whole);
    check_scan_invariants(&whole);

    let child = drivescope_cmd()
        .args(["scan", &path])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let t0 = Instant::now();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(1), "stopped within 1 s");
    assert_eq!(out.status.code(), Some(130));
    let first = json_of(&out);
    assert_eq!(first["interrupted"], true);
    let covered = u(&first["covered"]);
    assert!(covered > 0 && covered < 48 * MIB, "covered {covered}");
    let (id, saved) = newest_run(&store());
    assert_eq!(saved["interrupted"], true, "the partial run is stored");
    assert_eq!(saved["covered"], first["covered"]);

    let out = drivescope_cmd()
        .args(["scan", "--resume", &id.to_string(), "--json", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let resumed = json_of(&out);
    check_scan_invariants(&resumed);
    assert_eq!(u(&resumed["resumed_from"]), id as u64);
    assert_eq!(curve_geometry(&resumed), curve_geometry(&whole));
    for key in [
        "bytes",
        "commands",
        "covered",
        "length",
        "offset",
        "block_size",
    ] {
        assert_eq!(resumed[key], whole[key], "{key}");
    }
    assert!(u(&resumed["duration_ns"]) > u(&first["duration_ns"]));
    let t: Vec<u64> = resumed["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| u(&p["t_ns"]))
        .collect();
    assert!(
        t.windows(2).all(|w| w[0] < w[1]),
        "series in time order: {t:?}"
    );
    let series_bytes: u64 = resumed["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| u(&p["bytes"]))
        .sum();
    assert_eq!(series_bytes, 48 * MIB);
    // The resumed run is stored as a new run, and a finished run cannot be resumed.
    let (id2, _) = newest_run(&store());
    assert!(id2 > id);
    let out = drivescope(&["scan", "--resume", &id2.to_string(), "--quiet"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to resume"));
    let _ = Path::new(&path);
}
