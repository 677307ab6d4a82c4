//! `drivescope lab serve` stops on SIGINT, SIGTERM and SIGHUP, also when signalled twice,
//! and always tears down its FUSE mount and loop device; several models behind a shared bus
//! come up as one line each and all go down together. `lab truth --bus` states the bus. Needs
//! root and FUSE; fails loudly without them.

use common::*;
use drivescope_record::{Kind, LabServed, Truth};
use drivescope_testkit as common;
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

/// Whether loop device `dev` reads a file under `dir` (not merely whether it is attached: a
/// test running beside this one may attach the same loop number to its own file).
fn attached_under(dev: &Path, dir: &Path) -> bool {
    let name = dev.file_name().unwrap().to_string_lossy();
    std::fs::read_to_string(format!("/sys/block/{name}/loop/backing_file"))
        .is_ok_and(|b| Path::new(b.trim()).starts_with(dir))
}

/// What a failed test leaves: the serving child, its loop devices and its mounts. Dropping
/// kills the child if it still runs, detaches each loop device if it still reads a file under
/// the directory, unmounts the directory (and its disks' subdirectories) and removes it.
struct Leftovers {
    dir: PathBuf,
    child: Option<u32>,
    loop_devs: Vec<PathBuf>,
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
        for dev in &self.loop_devs {
            if attached_under(dev, &self.dir) {
                let _ = std::process::Command::new("losetup")
                    .arg("-d")
                    .arg(dev)
                    .status();
            }
        }
        for i in 0..8 {
            let sub = self.dir.join(i.to_string());
            if mounted(&sub) {
                unmount(&sub);
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

/// A line `lab serve --json` printed: one served disk.
fn served(line: &str) -> LabServed {
    let doc: LabServed =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("not a served disk ({e}): {line:?}"));
    assert_eq!(
        (doc.schema.as_str(), doc.kind.as_str()),
        ("drivescope/1", "lab_serve")
    );
    doc
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
        loop_devs: vec![],
    };
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let doc = served(&line);
    let image = doc.image;
    let loop_dev = doc.loop_device.expect("a loop device");
    left.loop_devs.push(loop_dev.clone());
    assert!(image.exists() && mounted(&dir), "{name}: serving");
    assert!(
        attached_under(&loop_dev, &dir),
        "{name}: {} reads the image",
        loop_dev.display()
    );

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
        !attached_under(&loop_dev, &dir),
        "{name}: {} is detached",
        loop_dev.display()
    );
}

#[test]
fn lab_serve_stops_and_tears_down_on_each_signal_even_when_repeated() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    serve_then_signal(libc::SIGINT, "int");
    serve_then_signal(libc::SIGTERM, "term");
    serve_then_signal(libc::SIGHUP, "hup");
}

#[test]
fn lab_serve_several_models_behind_a_bus_and_tears_all_down() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    if let Err(e) = drivescope_lab::check_environment(true) {
        panic!("lab serve tests need root, /dev/fuse (Debian fuse3) and losetup: {e}");
    }
    let dir = std::env::temp_dir().join(format!("drivescope-lab-bus-{}", std::process::id()));
    let mut child = drivescope_cmd()
        .args(["lab", "serve", "usb-bridge-hdd", "ssd-slc", "--bus", "75"])
        .args(["--size", "64M", "--loop", "--json", "--mount"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut left = Leftovers {
        dir: dir.clone(),
        child: Some(child.id()),
        loop_devs: vec![],
    };
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for (i, model) in ["usb-bridge-hdd", "ssd-slc"].iter().enumerate() {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let doc = served(&line);
        let loop_dev = doc.loop_device.clone().expect("a loop device");
        left.loop_devs.push(loop_dev.clone());
        assert_eq!(doc.model, *model, "{line}");
        assert_eq!(doc.size, 64 << 20, "{line}");
        assert_eq!(doc.bus_mb_per_s, Some(75.0), "{line}");
        let sub = dir.join(i.to_string());
        assert_eq!(doc.image, sub.join("disk.img"), "line {i}");
        assert!(mounted(&sub), "{} is served", sub.display());
        assert!(attached_under(&loop_dev, &sub), "{}", loop_dev.display());
    }
    // Exactly two disks: stdout ends after the second line.
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert_eq!(rest, "", "no more lines");
    let t0 = Instant::now();
    let out = child.wait_with_output().unwrap();
    left.child = None;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(t0.elapsed() < Duration::from_secs(10), "stopped");
    assert_eq!(out.status.code(), Some(0), "{err}");
    // A stopping summary per disk, naming it, and the bus's.
    for l in &left.loop_devs {
        let summary = format!("{}: stopping after", l.display());
        assert!(err.contains(&summary), "{summary:?} in {err}");
    }
    assert!(err.contains("shared bus (75 MB/s)"), "{err}");
    for (i, l) in left.loop_devs.iter().enumerate() {
        assert!(!mounted(&dir.join(i.to_string())), "disk {i} unmounted");
        assert!(!attached_under(l, &dir), "{} detached", l.display());
    }
    assert!(!dir.exists(), "{} removed", dir.display());
}

#[test]
fn lab_truth_states_the_bus() {
    let truth = |extra: &[&str]| -> Truth {
        let out = drivescope_cmd()
            .args(["lab", "truth", "hdd-7200"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let t: Truth = serde_json::from_slice(&out.stdout).expect("a lab truth document");
        assert_eq!(t.kind, Kind::LabTruth);
        t
    };
    let own = truth(&[]);
    let on_bus = truth(&["--bus", "120"]);
    assert!(own.bus_mb_per_s.is_none());
    assert_eq!(on_bus.bus_mb_per_s, Some(120.0));
    // Alone on the bus: the outer zones (above 120 MB/s) are held to it, the inner are not.
    let rate = |t: &Truth, z: usize| t.zones[z].mb_per_s;
    assert!(rate(&own, 0) > 150.0 && rate(&on_bus, 0) <= 120.0);
    assert_eq!(rate(&own, 15), rate(&on_bus, 15));
}
