//! Command queueing on emulated lab disks: `bench` RND4K Q1T1 and Q32T1 reads against the
//! truth's expected IOPS and queueing gain. A disk with NCQ reorders its queue by position
//! (gain ~1.8), a USB bridge without queueing serves in arrival order (gain 1), flash overlaps its
//! commands. Needs root and FUSE.

use common::typed::record_of;
use common::{drivescope_cmd, skip_without_root};
use drivescope_lab::{check_environment, LabDevice, Model};
use drivescope_record::{BenchRecord, Truth};
use drivescope_testkit as common;

/// Tolerance on each measured rate and on the gain, relative to the truth.
const TOLERANCE: f64 = 0.25;

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// The preset without its bad sectors, so that no random read fails the run.
fn preset(name: &str) -> Model {
    let mut m = Model::preset(name).expect("preset");
    m.bad.clear();
    m
}

/// `drivescope`, under `chrt -f 10` when allowed, so that other processes on a small machine
/// do not stall the benchmark between commands (at QD1 every stall adds to the measurement).
fn bench_cmd() -> std::process::Command {
    let rt = std::process::Command::new("chrt")
        .args(["-f", "10", "true"])
        .status()
        .is_ok_and(|s| s.success());
    let plain = drivescope_cmd();
    if !rt {
        return plain;
    }
    let mut c = std::process::Command::new("chrt");
    c.args(["-f", "10"]).arg(plain.get_program());
    c.envs(plain.get_envs().filter_map(|(k, v)| Some((k, v?))));
    c
}

/// RND4K Q1T1 and Q32T1 read IOPS on a fresh device serving `model`.
fn measure(model: &Model) -> (f64, f64) {
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    // SAFETY: sync(2) has no preconditions.
    unsafe { libc::sync() };
    let dev = LabDevice::start_temp(model, true).expect("start lab device");
    let out = bench_cmd()
        .args(["bench", "--rw", "read", "--runs", "1", "--duration", "4s"])
        .args(["--test", "RND4K Q1T1", "--test", "RND4K Q32T1"])
        .args(["--size", &model.size.to_string()])
        .arg(dev.loop_device().expect("loop device"))
        .args(["--json", "--quiet", "--no-store"])
        .output()
        .expect("run drivescope");
    assert!(
        out.status.success(),
        "bench: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: BenchRecord = record_of(&out);
    let iops = |name: &str| {
        let t = rec
            .tests
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no {name} in {:?}", rec.tests));
        assert_eq!(t.errors, 0, "{name}: errors");
        t.iops
    };
    (iops("RND4K Q1T1"), iops("RND4K Q32T1"))
}

/// Up to three tries on fresh devices (a busy 2-core host can stall the loop worker); a wrong
/// emulator fails all three, and a try failed on a busy host is void (`common::busy`).
fn check(model: &Model, gain_ok: impl Fn(f64, &Truth) -> bool) {
    let _one = one_at_a_time();
    let truth = model.truth();
    let (t1, t32) = (
        truth.rnd4k_qd1_iops.expect("QD1 IOPS"),
        truth.rnd4k_qd32_iops.expect("QD32 IOPS"),
    );
    let near = |got: f64, want: f64| (got / want - 1.0).abs() <= TOLERANCE;
    common::busy::timing_tries(
        3,
        |_| {},
        || {
            let (q1, q32) = measure(model);
            let gain = q32 / q1;
            if near(q1, t1) && near(q32, t32) && gain_ok(gain, &truth) {
                eprintln!(
                    "{}: QD1 {q1:.0} (truth {t1:.0}), QD32 {q32:.0} (truth {t32:.0}), gain {gain:.2}",
                    model.name
                );
                return Ok(());
            }
            Err(format!(
                "{}: QD1 {q1:.1} IOPS (truth {t1:.1}), QD32 {q32:.1} (truth {t32:.1}), gain {gain:.2} \
                 (truth {:.2})",
                model.name,
                t32 / t1
            ))
        },
    );
}

fn gain_near_truth(gain: f64, t: &Truth) -> bool {
    (gain / t.rnd4k_queueing_gain.expect("gain") - 1.0).abs() <= TOLERANCE
}

#[test]
fn a_disk_with_ncq_reorders_its_queue() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    // 7200 rpm, 0.8-16 ms seeks: ~13 ms per random read, far above the host round trip.
    check(&preset("hdd-7200"), |g, t| g > 1.4 && gain_near_truth(g, t));
}

#[test]
fn a_usb_bridge_without_queueing_gains_nothing() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    check(&preset("usb-bridge-hdd"), |g, _| g < 1.15);
}

#[test]
fn flash_overlaps_its_commands() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    // The SSD's shape at a pace the FUSE path can follow: 3 ms per command that overlaps,
    // 1 ms of media per 4 KiB that does not (QD1 ~250 IOPS, QD32 ~980).
    let mut m = preset("ssd-slc").with_rate_scale(4.0 / 480.0).unwrap();
    m.overhead_ns = 3_000_000;
    check(&m, |g, t| g > 2.0 && gain_near_truth(g, t));
}
