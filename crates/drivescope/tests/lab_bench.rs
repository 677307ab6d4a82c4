//! sweep and soak on emulated lab disks: the queueing gain separates a path that queues
//! commands from one that does not, and a soak finds a warm-up ending. Needs root and FUSE.

use common::typed::record_of;
use common::{drivescope_cmd, skip_without_root};
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::{
    BenchRecord, Finding, FindingCode, FromDocument, Header, SoakRecord, SweepRecord,
};
use drivescope_testkit as common;
use std::path::Path;

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn start(toml: &str) -> LabDevice {
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    let model = Model::from_toml_str(toml, "test").expect("model");
    // Timing checks: flush earlier tests' dirty data so writeback does not compete.
    // SAFETY: sync(2) has no preconditions.
    unsafe { libc::sync() };
    LabDevice::start_temp(&model, true).expect("start lab device")
}

fn run<T: FromDocument>(dev: &Path, args: &[&str]) -> T {
    let out = drivescope_cmd()
        .args(args)
        .arg(dev)
        .args(["--json", "--quiet", "--no-store"])
        .output()
        .expect("run drivescope");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    record_of(&out)
}

/// A device whose commands each take 5 ms whatever their position (latency-bound, like an
/// a disk behind a bridge or a network target): only a path that keeps several commands in
/// flight can overlap them. The same model, serial or parallel. At QD1 each command also
/// pays the turnaround through the host (completion, our process, the next submission),
/// which a queue hides even on a serial path; 5 ms keeps that share to a few percent even
/// when a loaded host stretches the turnaround.
fn device(queue: &str) -> String {
    format!(
        "name = 'q'\nsize = '64M'\nzones = {{ rates_mb_s = [480] }}\noverhead = '5ms'\nqueue = {queue}\n"
    )
}

/// The finding codes of a run's document.
fn codes(h: &Header) -> Vec<String> {
    h.findings
        .iter()
        .map(|x| x.code.as_str().to_string())
        .collect()
}

/// The queueing gain of a RND4K Q1/Q8 sweep, and its findings.
fn gain(dev: &LabDevice) -> (f64, Vec<String>) {
    let d: SweepRecord = run(
        dev.loop_device().unwrap(),
        &[
            "sweep",
            "--pattern",
            "RND4K",
            "--qd",
            "1,8",
            "--threads",
            "1",
            "--duration",
            "1500ms",
            "--size",
            "64M",
        ],
    );
    assert_eq!(d.cells.len(), 2);
    (d.queueing_gain.expect("gain"), codes(&d.header))
}

/// Up to three tries of a timing check (a busy 2-core host can stall the loop worker);
/// a wrong emulator or instrument fails all three, and a try failed on a busy host is void
/// (`common::busy`).
fn tries(check: impl FnMut() -> Result<(), String>) {
    common::busy::timing_tries(
        3,
        |_| {
            // SAFETY: sync(2) has no preconditions.
            unsafe { libc::sync() };
            std::thread::sleep(std::time::Duration::from_millis(300));
        },
        check,
    );
}

#[test]
fn a_serial_path_shows_no_queueing_gain_and_a_parallel_one_does() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    let serial = start(&device("{ mode = 'serial' }"));
    // The findings say so: one command at a time.
    tries(|| match gain(&serial) {
        (g, f) if g < 1.15 && f == ["no_queueing"] => Ok(()),
        (g, _) if g >= 1.15 => Err(format!(
            "serial device: queueing gain {g:.2} should be under 1.15"
        )),
        (g, f) => Err(format!("serial device, gain {g:.2}: findings {f:?}")),
    });
    drop(serial);
    let parallel = start(&device("{ mode = 'parallel', depth = 32 }"));
    tries(|| match gain(&parallel) {
        (g, f) if g > 2.0 && f.is_empty() => Ok(()),
        (g, f) => Err(format!(
            "parallel device: queueing gain {g:.2} should be over 2, with no findings ({f:?})"
        )),
    });
}

#[test]
fn soak_finds_the_end_of_a_warm_up() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // Half speed for the first 2 s of work, then full speed: a step of +100 %. The warm-up runs on
    // the lab's clock from the disk's first command, as the soak's intervals run on its own: a busy
    // host moves neither, but a stall can dent an interval's rate, so each try has a fresh disk.
    // 1 MiB commands (10 ms of the model's time each, 20 ms in the warm-up) keep the host's own
    // turnaround a small share of every command.
    tries(|| {
        let dev = start(
            "name = 'w'\nsize = '256M'\nzones = { rates_mb_s = [100] }\noverhead = '20us'\n\
             queue = { mode = 'serial' }\nwarmup = { factor = 0.5, duration = '2s' }\n",
        );
        let d: SoakRecord = run(
            dev.loop_device().unwrap(),
            &[
                "soak",
                "--test",
                "SEQ1M Q1T1",
                "--duration",
                "5s",
                "--interval",
                "250ms",
                "--size",
                "256M",
            ],
        );
        let mut e = Vec::new();
        let Some(s) = d.steps.first() else {
            return Err(format!("no step found: {:?}", d.series));
        };
        let t = s.t_ns as f64 / 1e9;
        if !(1.5..=2.6).contains(&t) {
            e.push(format!("step at {t:.2} s, expected near 2 s"));
        }
        if !s.change.is_some_and(|c| (0.6..=1.4).contains(&c)) {
            e.push(format!("step of {:?}, expected about +1.0", s.change));
        }
        let first = d.first_to_steady.unwrap();
        if !(0.4..=0.6).contains(&first) {
            e.push(format!("first interval / steady = {first:.2}"));
        }
        // The warm-up is a finding: its length and its factor, as the model has them.
        let findings = &d.header.findings;
        if codes(&d.header) != ["warm_up"] {
            return Err(format!("findings {findings:?}; {e:?}"));
        }
        let (secs, factor) = (
            findings[0].number("warm_up_s").unwrap(),
            findings[0].number("factor").unwrap(),
        );
        if !(1.5..=2.6).contains(&secs) {
            e.push(format!("warm-up of {secs:.2} s"));
        }
        if !(0.4..=0.6).contains(&factor) {
            e.push(format!("warm-up factor {factor:.2}"));
        }
        if e.is_empty() {
            Ok(())
        } else {
            Err(e.join("; "))
        }
    });
}

/// Sequential reads of 1 MiB at QD8 and 512 KiB at QD16, with the run's findings.
fn seq_bench(dev: &LabDevice) -> (Vec<f64>, Vec<Finding>) {
    let d: BenchRecord = run(
        dev.loop_device().unwrap(),
        &[
            "bench",
            "--rw",
            "read",
            "--test",
            "SEQ1M Q8T1",
            "--test",
            "SEQ512K Q16T1",
            "--runs",
            "1",
            "--duration",
            "1500ms",
            "--size",
            "64M",
        ],
    );
    let rates = d.tests.iter().map(|t| t.mb_per_s).collect();
    (rates, d.header.findings)
}

#[test]
fn a_bench_capped_by_1_gbe_names_the_link_and_an_uncapped_one_does_not() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // The NAS preset: its disk reads faster than the 118 MB/s a 1 GbE link carries.
    let model = Model::preset("nas-1gbe")
        .unwrap()
        .with_size(64 << 20)
        .unwrap();
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    let nas = LabDevice::start_temp(&model, true).expect("start lab device");
    tries(|| {
        let (rates, f) = seq_bench(&nas);
        match &f[..] {
            [one] if one.code == FindingCode::LinkCap && one.claim.contains("matches 1 GbE") => {
                Ok(())
            }
            _ => Err(format!("rates {rates:?}: findings {f:?}")),
        }
    });
    drop(nas);
    // A device slow per command (5 ms each, one at a time): its rate depends on the block size, so no cap.
    let slow = start(&device("{ mode = 'serial' }"));
    let (rates, f) = seq_bench(&slow);
    assert!(
        f.is_empty(),
        "rates {rates:?}: no findings expected, got {f:?}"
    );
}
