//! `drivescope lab serve` stops on SIGINT, SIGTERM and SIGHUP, also when signalled twice,
//! and always tears down its FUSE mount and loop device. Needs root and FUSE; fails loudly
//! without them.

mod common;
use common::*;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

fn mounted(dir: &Path) -> bool {
    let dir = dir.to_string_lossy();
    std::fs::read_to_string("/proc/self/mountinfo")
        .unwrap()
        .lines()
        .any(|l| l.split(' ').nth(4) == Some(&*dir))
}

/// What a failed test leaves: the serving child, its loop device and its mount. Dropping
/// kills the child if it still runs, detaches the loop device if it still reads a file under
/// the directory, unmounts the directory and removes it.
struct Leftovers {
    dir: PathBuf,
    child: Option<u32>,
    loop_dev: Option<PathBuf>,
}

impl Drop for Leftovers {
    fn drop(&mut self) {
        if let Some(pid) = self.child {
            // SAFETY: our own child, not yet reaped.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
                libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), 0);
            }
        }
        if let Some(dev) = &self.loop_dev {
            let name = dev.file_name().unwrap().to_string_lossy();
            let backing = std::fs::read_to_string(format!("/sys/block/{name}/loop/backing_file"));
            if backing.is_ok_and(|b| Path::new(b.trim()).starts_with(&self.dir)) {
                let _ = std::process::Command::new("losetup")
                    .arg("-d")
                    .arg(dev)
                    .status();
            }
        }
        if mounted(&self.dir) {
            unmount(&self.dir);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Waits until `sig` is no longer pending for process `pid` (its handler has run), or the
/// process has ended.
fn wait_delivered(pid: u32, sig: libc::c_int) {
    let bit = 1u64 << (sig - 1);
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(5) {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            return; // already gone
        };
        if status
            .lines()
            .any(|l| l.starts_with("State:") && l.contains('Z'))
        {
            return; // ended by the signal
        }
        let pending = status
            .lines()
            .filter(|l| l.starts_with("SigPnd:") || l.starts_with("ShdPnd:"))
            .map(|l| u64::from_str_radix(l.split_whitespace().nth(1).unwrap(), 16).unwrap())
            .fold(0, |a, m| a | m);
        if pending & bit == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("signal {sig} still pending for process {pid} after 5 s");
}

fn serve_then_signal(sig: libc::c_int, name: &str) {
    if let Err(e) = drivescope_lab::check_environment(true) {
        panic!("lab serve tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    let dir = std::env::temp_dir().join(format!(
        "drivescope-lab-serve-{}-{name}",
        std::process::id()
    ));
    let mut child = drivescope_cmd()
        .args([
            "lab",
            "serve",
            "usb-bridge-hdd",
            "--loop",
            "--json",
            "--mount",
        ])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut left = Leftovers {
        dir: dir.clone(),
        child: Some(child.id()),
        loop_dev: None,
    };
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let doc: serde_json::Value = serde_json::from_str(&line)
        .unwrap_or_else(|e| panic!("{name}: the first line is not JSON ({e}): {line:?}"));
    let image = PathBuf::from(doc["image"].as_str().unwrap());
    let loop_dev = PathBuf::from(doc["loop_device"].as_str().expect("a loop device"));
    left.loop_dev = Some(loop_dev.clone());
    assert!(image.exists() && mounted(&dir), "{name}: serving");
    let loop_name = loop_dev.file_name().unwrap().to_string_lossy().into_owned();
    let backing = format!("/sys/block/{loop_name}/loop/backing_file");
    assert!(Path::new(&backing).exists(), "{name}: {backing}");

    // Twice, as an impatient user does: the second must not cut the teardown short. The
    // second is sent once the first was delivered, so the kernel cannot merge them.
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, sig) };
    wait_delivered(child.id(), sig);
    // SAFETY: as above.
    unsafe { libc::kill(child.id() as libc::pid_t, sig) };
    let t0 = Instant::now();
    let out = child.wait_with_output().unwrap();
    left.child = None;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(t0.elapsed() < Duration::from_secs(10), "{name}: stopped");
    assert_eq!(out.status.code(), Some(0), "{name}: {err}");
    assert!(err.contains("stopping after"), "{name}: {err}");
    assert!(!mounted(&dir), "{name}: the FUSE mount is gone");
    assert!(
        !Path::new(&backing).exists(),
        "{name}: {} is detached",
        loop_dev.display()
    );
}

#[test]
fn lab_serve_stops_and_tears_down_on_each_signal_even_when_repeated() {
    serve_then_signal(libc::SIGINT, "int");
    serve_then_signal(libc::SIGTERM, "term");
    serve_then_signal(libc::SIGHUP, "hup");
}
