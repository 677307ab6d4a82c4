//! `drivescope time` on devices the test makes: a cold `cat` of a file reads the whole file from the device
//! under it and is storage-bound, a warm one reads (almost) nothing; on a lab disk of a known rate, the cold
//! `cat` takes the file's size over that rate. Needs root (cold runs, loop devices) and, for the lab disk,
//! FUSE.

use common::typed::record_of_ok;
use common::{drivescope_cmd, skip_without_root, unmount, Ext4Mount};
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::{FindingCode, ModeResult, TimeMode, TimeRecord};
use drivescope_testkit as common;
use std::path::Path;
use std::process::Command;

const MIB: u64 = 1 << 20;

/// Cold runs drop the page cache for everyone: one test at a time.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn time(cwd: &Path, args: &[&str]) -> TimeRecord {
    let out = drivescope_cmd()
        .arg("time")
        .arg("--cwd")
        .arg(cwd)
        .args(["--json", "--quiet", "--no-store"])
        .args(args)
        .output()
        .expect("run drivescope time");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    record_of_ok(&out)
}

fn mode(d: &TimeRecord, mode: TimeMode) -> &ModeResult {
    d.mode(mode)
        .unwrap_or_else(|| panic!("no {mode} mode in {d:?}"))
}

/// A file of `size` random bytes in `dir`, written out to the device.
fn write_file(dir: &Path, size: u64) {
    let st = Command::new("dd")
        .args([
            "if=/dev/urandom",
            "of=big",
            "bs=1M",
            "status=none",
            "conv=fsync",
        ])
        .arg(format!("count={}", size / MIB))
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(st.success());
}

fn claims(d: &TimeRecord) -> Vec<String> {
    d.header.findings.iter().map(|f| f.claim.clone()).collect()
}

#[test]
fn a_cold_cat_reads_the_file_from_the_device_and_a_warm_one_does_not() {
    if skip_without_root("mounts ext4 on a loop device") {
        return;
    }
    let _one = one_at_a_time();
    let fs = Ext4Mount::new(400 * MIB);
    let size = 256 * MIB;
    write_file(&fs.dir, size);
    // The bytes each run read are counted whatever the host does; the verdict is a timing (the disk's busy
    // time against the wall time), which a host too busy to run `cat` at once turns into "mixed": such a try
    // is void (common::busy). The cold runs last a few tenths of a second, and a quarter of the try spent
    // waiting for a CPU already decides their verdict (a CI run saw the disk busy 43-55 % of them, and
    // mixed, with 37 % pressure).
    common::busy::timing_tries_at(
        0.25,
        3,
        |_| {},
        || {
            let d = time(&fs.dir, &["--runs", "3", "--", "cat", "big"]);
            let dev = d.devices[0].clone();
            assert!(
                dev.starts_with("loop"),
                "the file system's device first: {d:?}"
            );
            let cold = mode(&d, TimeMode::Cold);
            for run in &cold.runs {
                let io = run.device(&dev).unwrap();
                let read = io.read_bytes as f64;
                assert!(
                    (read - size as f64).abs() <= 0.02 * size as f64,
                    "cold run read {read} bytes from {dev} for a {size}-byte file"
                );
                assert!(io.busy_ns > 0);
            }
            let warm = mode(&d, TimeMode::Warm);
            let read = warm.summary.read_bytes.max;
            assert!(read < 0.01 * size as f64, "a warm cat read {read} bytes");
            let claims = claims(&d);
            let verdict = d
                .header
                .findings
                .iter()
                .find(|x| x.claim.starts_with("cold:"))
                .unwrap_or_else(|| panic!("no cold verdict: {claims:?}"));
            if verdict.code != FindingCode::StorageBound {
                return Err(format!("cold verdict {:?}: {claims:?}", verdict.code));
            }
            if warm.summary.wall_ns.mean >= cold.summary.wall_ns.mean {
                return Err(format!("warm is no faster than cold: {claims:?}"));
            }
            Ok(())
        },
    );
}

#[test]
fn a_cold_cat_on_a_lab_disk_takes_the_files_size_over_the_disks_rate() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    // A flat 100 MB/s disk that keeps 32 commands in flight (so the host's own per-command cost overlaps
    // the media time); writes are fast so that filling it takes little time.
    let model = Model::from_toml_str(
        "name = 'flat'\nsize = '640M'\nzones = { rates_mb_s = [100] }\noverhead = '20us'\n\
         write_rate_factor = 8.0\nqueue = { mode = 'parallel', depth = 32 }\n",
        "test",
    )
    .expect("model");
    // SAFETY: sync(2) has no preconditions.
    unsafe { libc::sync() };
    let lab = LabDevice::start_temp(&model, true).expect("start lab device");
    let loopdev = lab.loop_device().unwrap().to_path_buf();
    let st = Command::new("mkfs.ext4")
        .args([
            "-q",
            "-F",
            "-E",
            "nodiscard,lazy_itable_init=0,lazy_journal_init=0",
        ])
        .arg(&loopdev)
        .status()
        .unwrap();
    assert!(st.success());
    let dir = std::env::temp_dir().join(format!("drivescope-time-lab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    assert!(Command::new("mount")
        .arg(&loopdev)
        .arg(&dir)
        .status()
        .unwrap()
        .success());
    let size = 512 * MIB;
    write_file(&dir, size);
    // The time is the disk's only on a host that kept up: a try on a busy host is void (common::busy).
    let outcome = common::busy::timing_outcome(
        2,
        |_| {},
        || {
            let d = time(&dir, &["--cold", "--runs", "2", "--", "cat", "big"]);
            let cold = mode(&d, TimeMode::Cold);
            let expected_s = size as f64 / 100e6;
            let took_s = cold.summary.wall_ns.median / 1e9;
            eprintln!(
                "a cold cat of {size} bytes at 100 MB/s: {took_s:.3} s (expected {expected_s:.3} s)"
            );
            if (took_s - expected_s).abs() > 0.1 * expected_s {
                return Err(format!(
                    "a cold cat of {size} bytes at 100 MB/s took {took_s:.2} s, expected {expected_s:.2} s ± 10 %"
                ));
            }
            if d.header.findings[0].code != FindingCode::StorageBound {
                return Err(format!("{:?}", d.header.findings));
            }
            Ok(())
        },
    );
    unmount(&dir);
    let _ = std::fs::remove_dir(&dir);
    drop(lab);
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
