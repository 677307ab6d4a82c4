//! `time --predict-on` against the real thing: a sequential and a random workload traced on a fast disk
//! (ext4 over a tmpfs loop device), their I/O time predicted on three emulated lab disks of other shapes
//! from stored sweeps of them, then the same workloads traced there. Each prediction must land within
//! ±25 % of the I/O time measured there, and rank the disks as they measure. Needs root, FUSE and loop
//! devices; prints the table docs/performance.md records.
//!
//! Both sides are times on lab disks whose commands cross the host (loop worker, FUSE, the emulator's
//! threads), a minute apart: on a busy host the sweeps and the traces measure the host, several times off
//! either way. A failure while the host's CPUs were busy is void (`common::busy`), and says so.

use common::typed::{listed_runs, record_of_ok};
use common::{drivescope_cmd, skip_without_root, Ext4Mount};
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::{AccessPattern, Fingerprint, Kind, TimeRecord};
use drivescope_testkit as common;
use std::path::{Path, PathBuf};
use std::process::Command;

const TOLERANCE: f64 = 0.25;
const MIB: u64 = 1 << 20;
/// The workloads' files: a quarter of the smallest lab disk.
const FILE_MIB: u64 = 32;

fn workload(name: &str) -> Vec<String> {
    let w: &[&str] = match name {
        "random" => &[
            "fio",
            "--name=r",
            "--filename=data",
            "--rw=randread",
            "--bs=4k",
            "--iodepth=1",
            "--direct=1",
            "--ioengine=psync",
            "--number_ios=300",
            "--randrepeat=1",
            "--output=/dev/null",
        ],
        _ => &[
            "dd",
            "if=data",
            "of=/dev/null",
            // 256 KiB: one request on every disk, whether dd's buffer is contiguous in memory or not
            // (a scattered 1 MiB buffer is split by max_segments, a contiguous one is not).
            "bs=256K",
            "iflag=direct",
            "status=none",
        ],
    };
    w.iter().map(|s| s.to_string()).collect()
}

fn time(cwd: &Path, extra: &[&str], cmd: &[String]) -> TimeRecord {
    let out = drivescope_cmd()
        .arg("time")
        .arg("--cwd")
        .arg(cwd)
        .args(["--cold", "--runs", "1", "--json", "--quiet"])
        .args(extra)
        .arg("--")
        .args(cmd)
        .output()
        .expect("run drivescope time");
    assert!(
        out.status.success(),
        "time {extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    record_of_ok(&out)
}

fn fingerprint(r: &TimeRecord) -> &Fingerprint {
    r.fingerprint
        .as_ref()
        .unwrap_or_else(|| panic!("no fingerprint: {:?}", r.notes))
}

fn write_file(dir: &Path) {
    let st = Command::new("dd")
        .args([
            "if=/dev/urandom",
            "of=data",
            "bs=1M",
            "status=none",
            "conv=fsync",
        ])
        .arg(format!("count={FILE_MIB}"))
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(st.success());
}

fn newest_run() -> i64 {
    listed_runs(&[])
        .first()
        .map(|r| r.id)
        .expect("a stored run")
}

fn sweep(dev: &Path, pattern: &str, qd: &str) -> i64 {
    let out = drivescope_cmd()
        .args([
            "sweep",
            "--rw",
            "read",
            "--threads",
            "1",
            "--duration",
            "2s",
            "--quiet",
        ])
        .args(["--pattern", pattern, "--qd", qd])
        .args(["--size", &format!("{FILE_MIB}M")])
        .arg(dev)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "sweep: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = newest_run();
    assert_eq!(listed_runs(&[])[0].kind, Kind::Sweep);
    id
}

/// An ext4 file system on a lab disk, mounted; unmounted when dropped (before the disk goes).
struct LabFs {
    dir: PathBuf,
    dev: LabDevice,
}

impl LabFs {
    fn new(preset: &str) -> LabFs {
        let mut m = Model::preset(preset).expect("preset");
        m.bad.clear();
        m.slow.clear();
        let dev = LabDevice::start_temp(&m, true).expect("start lab device");
        let loopdev = dev.loop_device().expect("loop device").to_path_buf();
        let st = Command::new("mkfs.ext4")
            .args(["-q", "-F", "-E", "nodiscard,lazy_itable_init=0"])
            .arg(&loopdev)
            .status()
            .unwrap();
        assert!(st.success());
        let dir = std::env::temp_dir().join(format!(
            "drivescope-predict-{}-{preset}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(Command::new("mount")
            .arg(&loopdev)
            .arg(&dir)
            .status()
            .unwrap()
            .success());
        LabFs { dir, dev }
    }

    fn device(&self) -> &Path {
        self.dev.loop_device().expect("loop device")
    }
}

impl Drop for LabFs {
    fn drop(&mut self) {
        common::unmount(&self.dir);
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// The size of the sequential workload's requests, as the fast disk's trace classes them.
fn seq_block_kib(fp: &Fingerprint) -> u64 {
    let c = fp
        .classes
        .iter()
        .filter(|c| c.pattern == AccessPattern::Sequential)
        .max_by_key(|c| c.bytes)
        .expect("a sequential class");
    (c.bytes / c.requests).div_ceil(4096) * 4
}

struct Row {
    workload: &'static str,
    disk: &'static str,
    predicted_ns: f64,
    low_ns: f64,
    high_ns: f64,
    measured_ns: u64,
    here_ns: u64,
}

#[test]
#[ignore = "a timing of lab disks that needs the machine to itself: bench/timed_tests.sh"]
fn predicted_io_time_on_three_lab_disks_is_within_25_percent_and_ranks_them() {
    if skip_without_root("loop devices, FUSE lab disks and tracefs") {
        return;
    }
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    let fast = Ext4Mount::new(256 * MIB);
    write_file(&fast.dir);
    let seq_kib = seq_block_kib(fingerprint(&time(
        &fast.dir,
        &["--trace", "--no-store"],
        &workload("sequential"),
    )));
    common::busy::timing_tries(1, |_| {}, || measure_and_compare(&fast, seq_kib));
}

/// Predict and measure each workload on each lab disk; `Err` when a prediction misses or the ranking differs.
fn measure_and_compare(fast: &Ext4Mount, seq_kib: u64) -> Result<(), String> {
    let mut rows = Vec::new();
    let disks = std::env::var("DRIVESCOPE_PREDICT_DISKS")
        .unwrap_or_else(|_| "hdd-7200,ssd-slc,usb-stick".into());
    let disks: Vec<&'static str> = ["hdd-7200", "ssd-slc", "usb-stick"]
        .into_iter()
        .filter(|d| disks.split(',').any(|x| x == *d))
        .collect();
    for disk in disks {
        let lab = LabFs::new(disk);
        write_file(&lab.dir);
        let sweeps = [
            sweep(lab.device(), "RND4K", "1,2,4"),
            sweep(lab.device(), &format!("SEQ{seq_kib}K"), "1,2,4,8"),
        ];
        let on = format!("{},{}", sweeps[0], sweeps[1]);
        for w in ["random", "sequential"] {
            let here = time(&fast.dir, &["--predict-on", &on], &workload(w));
            let predicted_id = newest_run();
            let p = here
                .prediction
                .clone()
                .unwrap_or_else(|| panic!("no prediction: {:?}", here.notes));
            assert_eq!(p.runs, sweeps);
            if std::env::var_os("DRIVESCOPE_PREDICT_DEBUG").is_some() {
                eprintln!("{disk} {w}: {}", serde_json::to_string_pretty(&p).unwrap());
            }
            // A stored prediction prints again with the run.
            let shown = drivescope_cmd()
                .args(["show", &predicted_id.to_string()])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&shown.stdout);
            assert!(
                text.contains(&format!("Predicted on runs {}, {}", sweeps[0], sweeps[1])),
                "{text}"
            );
            let there = time(&lab.dir, &["--trace"], &workload(w));
            let measured_id = newest_run();
            let compared = drivescope_cmd()
                .args([
                    "compare",
                    &predicted_id.to_string(),
                    &measured_id.to_string(),
                ])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&compared.stdout);
            assert!(
                text.contains("Predicted against measured")
                    && text.contains(&format!("run {measured_id}")),
                "{text}"
            );
            rows.push(Row {
                workload: w,
                disk,
                predicted_ns: p.io_ns,
                low_ns: p.io_low_ns,
                high_ns: p.io_high_ns,
                measured_ns: fingerprint(&there).busy_ns,
                here_ns: fingerprint(&here).busy_ns,
            });
        }
    }
    eprintln!("| workload | disk | I/O here | predicted (range) | measured there | error |");
    eprintln!("|---|---|---:|---:|---:|---:|");
    let ms = |ns: f64| ns / 1e6;
    for r in &rows {
        eprintln!(
            "| {} | {} | {:.1} ms | {:.0} ms ({:.0}–{:.0}) | {:.0} ms | {:+.0} % |",
            r.workload,
            r.disk,
            ms(r.here_ns as f64),
            ms(r.predicted_ns),
            ms(r.low_ns),
            ms(r.high_ns),
            ms(r.measured_ns as f64),
            (r.predicted_ns / r.measured_ns as f64 - 1.0) * 100.0
        );
    }
    let mut misses = Vec::new();
    for r in &rows {
        let err = r.predicted_ns / r.measured_ns as f64 - 1.0;
        if err.abs() > TOLERANCE {
            misses.push(format!(
                "{} on {}: predicted {:.1} ms, measured {:.1} ms",
                r.workload,
                r.disk,
                ms(r.predicted_ns),
                ms(r.measured_ns as f64)
            ));
        }
    }
    for w in ["random", "sequential"] {
        let mut by_pred: Vec<&Row> = rows.iter().filter(|r| r.workload == w).collect();
        let mut by_meas = by_pred.clone();
        by_pred.sort_by(|a, b| a.predicted_ns.total_cmp(&b.predicted_ns));
        by_meas.sort_by_key(|r| r.measured_ns);
        let names = |v: &[&Row]| v.iter().map(|r| r.disk).collect::<Vec<_>>();
        if names(&by_pred) != names(&by_meas) {
            misses.push(format!(
                "{w}: ranked {:?}, measured {:?}",
                names(&by_pred),
                names(&by_meas)
            ));
        }
    }
    if misses.is_empty() {
        Ok(())
    } else {
        Err(misses.join("; "))
    }
}
