//! Faults and interruptions on emulated lab disks (FUSE + loop), whose faults are known
//! exactly: bad sectors, a disk pulled mid-scan, writes that are acknowledged but dropped,
//! and SIGINT followed by `scan --resume`. Needs root and FUSE; fails loudly without them.

use common::typed::{check_scan, record_in, record_of};
use common::*;
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::ScanRecord;
use drivescope_testkit as common;
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

/// The results store of a drivescope child started with `drivescope_cmd()`.
fn store() -> drivescope_store::Store {
    let path = std::env::temp_dir()
        .join(format!("drivescope-test-store-{}", std::process::id()))
        .join("drivescope/runs.sqlite");
    drivescope_store::Store::open(&path).expect("open the test store")
}

/// The newest stored run, a scan.
fn newest_run(store: &drivescope_store::Store) -> (i64, ScanRecord) {
    let list = store
        .list(&drivescope_store::ListFilter {
            limit: Some(1),
            ..Default::default()
        })
        .unwrap();
    let id = list.first().expect("a stored run").id;
    (id.0, record_in(store.get(id).unwrap()))
}

#[test]
fn bad_sectors_are_listed_at_their_exact_lbas_and_the_scan_completes() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
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
    let d: ScanRecord = record_of(&out);
    assert!(!d.interrupted);
    assert_eq!(d.covered, 32 * MIB);
    let listed: BTreeSet<u64> = d
        .failed
        .iter()
        .map(|e| {
            assert_eq!(e.errno, Some(5), "EIO: {e:?}");
            assert_eq!(e.lba * 512, e.offset);
            e.lba
        })
        .collect();
    let expected: BTreeSet<u64> = spots
        .iter()
        .flat_map(|&(o, l)| (o / 512..(o + l) / 512).collect::<Vec<_>>())
        .collect();
    assert_eq!(listed, expected, "failed LBAs are exactly the bad sectors");
    assert_eq!(d.failed_total, expected.len() as u64);
    // 3 commands failed: one for the first spot, two for the one across a boundary
    assert_eq!(d.failed_commands, 3);
    assert_eq!(d.bytes, 32 * MIB - 3 * 65536);
}

#[test]
fn damage_that_grows_as_it_is_read_is_mapped_and_never_taken_for_a_lost_disk() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // 1 MiB unreadable at 20 MiB, and 128 KiB (256 sectors) on each side that read once and
    // fail after: a probe of the last sector read fine before the damage fails, as on a
    // failing drive. The scan maps the damage and finishes; the device is never called lost.
    let (at, len, margin) = (20 * MIB, MIB, 128 * 1024u64);
    let dev = start(&format!(
        "name = \"marginal\"\nsize = \"64M\"\nzones = {{ rates_mb_s = [400] }}\noverhead = \"5us\"\n\
         bad = [{{ offset = {at}, length = {len}, latency = \"2ms\", marginal = {margin} }}]\n"
    ));
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let out = drivescope(&[
        "scan",
        &path,
        "--json",
        "--quiet",
        "--no-store",
        "--error-budget",
        "none",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the scan completes: {err}");
    let d: ScanRecord = record_of(&out);
    assert!(d.device_lost.is_none(), "{:?}", d.device_lost);
    assert!(!d.interrupted);
    assert_eq!(d.covered, 64 * MIB);
    let listed: BTreeSet<u64> = d.failed.iter().map(|e| e.lba).collect();
    let spot: BTreeSet<u64> = (at / 512..(at + len) / 512).collect();
    assert!(
        listed.is_superset(&spot),
        "every sector of the spot is listed"
    );
    let outside: Vec<u64> = listed
        .iter()
        .copied()
        .filter(|&l| l * 512 + margin < at || l * 512 >= at + len + margin)
        .collect();
    assert!(outside.is_empty(), "listed beyond the margins: {outside:?}");
    assert_eq!(d.failed_total, listed.len() as u64);
    drop(dev);
}

#[test]
fn a_disk_pulled_mid_scan_ends_the_run_with_partial_results_saved() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // 1 GiB at 300 MB/s (large enough to have places 64 MiB from a failure to probe): a scan
    // takes about 3.6 s; the disk is pulled once the scan has read 64 MiB of it, however long a
    // busy host took to start it.
    let dev = start(
        "name = \"pulled\"\nsize = \"1G\"\nzones = { rates_mb_s = [300] }\noverhead = \"5us\"\n",
    );
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let child = drivescope_cmd()
        .args(["scan", &path, "--json", "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    common::lab::await_read(&[&dev], 0, 64 * MIB);
    let t0 = Instant::now();
    dev.pull();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // A guard against a scan that never ends, not a timing: the exit code and the message say it
    // was called lost.
    assert!(
        t0.elapsed() < Duration::from_secs(60),
        "ended {:?} after the pull",
        t0.elapsed()
    );
    assert_eq!(out.status.code(), Some(4), "device-lost exit code: {err}");
    // A pull fails the disk's commands (ENODEV) and then aborts its connection: the scan meets
    // whichever comes first, an error that says the device is gone or a command that never ends.
    assert!(
        err.contains("stopped responding") || err.contains("the device is gone"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let d: ScanRecord = record_of(&out);
    assert!(d.interrupted);
    assert!(d.device_lost.is_some());
    let covered = d.covered;
    assert!(covered > 0 && covered < 1024 * MIB, "covered {covered}");
    // What was read before the pull is there; no sector list for a dead disk.
    assert!(d.bytes > 0);
    assert!(
        d.failed_total <= 1,
        "no bad-sector list for a pulled disk: {:?}",
        d.failed
    );
    // ... and it was saved.
    let (_, saved) = newest_run(&store());
    assert!(saved.interrupted);
    assert_eq!(saved.device_lost, d.device_lost);
    assert_eq!(saved.bytes, d.bytes);
    drop(dev);
}

#[test]
fn verify_reports_exactly_the_dropped_writes() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
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
    let d: ScanRecord = record_of(&out);
    assert!(d.write);
    assert_eq!(d.bytes, 32 * MIB);
    let v = d.verify.as_ref().expect("a verify report");
    assert!(v.complete);
    assert_eq!(v.blocks, 32 * MIB / 512);
    let extents: Vec<(u64, u64)> = v.lost.iter().map(|e| (e.offset, e.length)).collect();
    assert_eq!(
        extents,
        lost.to_vec(),
        "lost extents are the dropped writes"
    );
    let lost_sectors: u64 = lost.iter().map(|l| l.1 / 512).sum();
    assert_eq!(v.totals.lost, lost_sectors);
    assert_eq!(v.totals.wrong, 0);
    assert_eq!(v.totals.misplaced, 0);
    assert_eq!(v.totals.unreadable, 0);
    assert_eq!(v.totals.ok, 32 * MIB / 512 - lost_sectors);
}

fn curve_geometry(d: &ScanRecord) -> Vec<(u64, u64)> {
    d.curve.iter().map(|p| (p.offset, p.length)).collect()
}

#[test]
fn sigint_then_resume_covers_the_range_as_one_scan_would() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
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
    let whole: ScanRecord = record_of(&whole);
    check_scan(&whole);

    let before = dev.stats().bytes_read;
    let child = drivescope_cmd()
        .args(["scan", &path])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupted once the scan has read a few MiB of its 48, however long a busy host took to
    // start it (a fixed half second could end before the first read or after the last).
    common::lab::await_read(&[&dev], before, 4 * MIB);
    let t0 = Instant::now();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    // A guard against a stop that never comes; `interrupted` and the exit code say it stopped.
    assert!(
        t0.elapsed() < Duration::from_secs(20),
        "stopped within 20 s"
    );
    assert_eq!(out.status.code(), Some(130));
    let first: ScanRecord = record_of(&out);
    assert!(first.interrupted);
    let covered = first.covered;
    assert!(covered > 0 && covered < 48 * MIB, "covered {covered}");
    let (id, saved) = newest_run(&store());
    assert!(saved.interrupted, "the partial run is stored");
    assert_eq!(saved.covered, first.covered);

    let out = drivescope_cmd()
        .args(["scan", "--resume", &id.to_string(), "--json", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let resumed: ScanRecord = record_of(&out);
    check_scan(&resumed);
    assert_eq!(resumed.resumed_from, Some(id));
    assert_eq!(curve_geometry(&resumed), curve_geometry(&whole));
    let totals = |d: &ScanRecord| {
        [
            ("bytes", d.bytes),
            ("commands", d.commands),
            ("covered", d.covered),
            ("length", d.length),
            ("offset", d.offset),
            ("block_size", d.block_size),
        ]
    };
    for ((key, r), (_, w)) in totals(&resumed).into_iter().zip(totals(&whole)) {
        assert_eq!(r, w, "{key}");
    }
    assert!(resumed.duration_ns > first.duration_ns);
    let t: Vec<u64> = resumed.series.iter().map(|p| p.t_ns).collect();
    assert!(
        t.windows(2).all(|w| w[0] < w[1]),
        "series in time order: {t:?}"
    );
    let series_bytes: u64 = resumed.series.iter().map(|p| p.bytes).sum();
    assert_eq!(series_bytes, 48 * MIB);
    // The resumed run is stored as a new run, and a finished run cannot be resumed.
    let (id2, _) = newest_run(&store());
    assert!(id2 > id);
    let out = drivescope(&["scan", "--resume", &id2.to_string(), "--quiet"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to resume"));
    let _ = Path::new(&path);
}

#[test]
fn failed_extents_are_the_bad_spots_and_the_failed_list_has_every_sector() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // A bad MiB across 17 commands, 8 sectors across a command boundary, one lone sector,
    // and a slow spot of four commands; read at QD4, so failures arrive out of order.
    let toml =
        "name = \"extents\"\nsize = \"32M\"\nzones = { rates_mb_s = [2000] }\noverhead = \"5us\"\n\
         bad = [{ offset = 3146240, length = \"1M\", latency = \"1ms\" }, \
                { offset = 20969472, length = 4096, latency = \"1ms\" }, \
                { offset = 29360640, length = 512, latency = \"1ms\" }]\n\
         slow = [{ offset = \"12M\", length = \"256K\", latency = \"80ms\" }]\n";
    let model = Model::from_toml_str(toml, "test").unwrap();
    let dev = start(toml);
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let dir = std::env::temp_dir().join(format!("drivescope-failed-list-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("failed.csv");
    let out = drivescope(&[
        "scan",
        &path,
        "--queue-depth",
        "4",
        "--failed-list",
        list.to_str().unwrap(),
        "--json",
        "--quiet",
        "--no-store",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d: ScanRecord = record_of(&out);
    let extents: Vec<(u64, u64, u64, u64, i32, u64)> = d
        .failed_extents
        .iter()
        .map(|e| {
            (
                e.offset,
                e.length,
                e.first_lba,
                e.last_lba,
                e.errno,
                e.count,
            )
        })
        .collect();
    let want: Vec<_> = model
        .bad
        .iter()
        .map(|b| {
            let (first, end) = (b.offset / 512, (b.offset + b.length) / 512);
            (b.offset, b.length, first, end - 1, 5, end - first)
        })
        .collect();
    assert_eq!(extents, want, "the extents are the model's bad spots");
    assert!(d.failed_extents_cut.is_none());
    let sectors: u64 = want.iter().map(|w| w.5).sum();
    assert_eq!(d.failed_total, sectors);
    // Every command touching the slow spot is in one slow region.
    let spot = &model.slow[0];
    let regions = &d.slow_regions;
    assert!(
        regions.iter().any(|g| g.offset <= spot.offset
            && g.offset + g.length >= spot.offset + spot.length
            && g.count >= spot.length / 65536),
        "{regions:?}"
    );

    // The failed list: a header and one row per failed sector, each once.
    let text = std::fs::read_to_string(&list).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("lba,offset,errno,latency_ns"));
    let rows: Vec<Vec<u64>> = lines
        .map(|l| l.split(',').map(|f| f.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len() as u64, sectors);
    let lbas: BTreeSet<u64> = rows
        .iter()
        .map(|r| {
            assert_eq!(r[1], r[0] * 512, "{r:?}");
            assert_eq!(r[2], 5, "{r:?}");
            r[0]
        })
        .collect();
    let expected: BTreeSet<u64> = want.iter().flat_map(|w| w.2..=w.3).collect();
    assert_eq!(lbas, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}
