//! Lab disks for the binary's tests: one at a time per test binary, started or the test fails loudly.

use drivescope_lab::{check_environment, LabDevice, Model};

/// Held by a test while it serves lab disks: their timing is the point, so the binary's tests take turns.
pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// `model` served by FUSE on a loop device (torn down when dropped); a missing facility fails the test.
pub fn start(model: &Model) -> LabDevice {
    if let Err(e) = check_environment(true) {
        panic!("lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    LabDevice::start_temp(model, true).expect("start lab device")
}

/// Models with no special behaviour at all: a flat device and a plain zoned disk with NCQ.
pub const PLAIN: &[&str] = &[
    "name = 'plain-flat'\nsize = '256M'\nzones = { rates_mb_s = [250] }\noverhead = '50us'\n\
     queue = { mode = 'parallel', depth = 32 }\n",
    "name = 'plain-zoned'\nsize = '256M'\nzones = { count = 8, outer_mb_s = 160, inner_mb_s = 80 }\n\
     overhead = '20us'\nseek = { min = '1ms', max = '14ms' }\nrotation = { rpm = 7200 }\n\
     queue = { mode = 'parallel', depth = 32 }\n",
];

/// Waits until each of `devs` has served at least `bytes` more than `before` says it had (a
/// moment chosen by what a run has done, not by a sleep a busy host can outlast); fails after 60 s.
pub fn await_read(devs: &[&LabDevice], before: u64, bytes: u64) {
    let started = std::time::Instant::now();
    while devs.iter().any(|d| d.stats().bytes_read < before + bytes) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "not {bytes} bytes read from every disk within 60 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
