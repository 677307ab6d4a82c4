//! Block traces of loop devices the test makes over files in /dev/shm: every request `dd` makes is seen
//! once, from issue to completion, and the tracing instance is gone afterwards. Needs root (tracefs, loop
//! devices).

#[path = "../../testkit/src/root.rs"]
mod root;

use drivescope_trace::devices::resolve;
use drivescope_trace::{Capture, CaptureError, Op, Request};
use root::skip_without_root;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

struct Loop {
    dev: PathBuf,
    file: PathBuf,
    attached: bool,
}

impl Loop {
    fn new(tag: &str, mib: u64) -> Loop {
        let file = PathBuf::from(format!(
            "/dev/shm/drivescope-trace-test-{}-{tag}.img",
            std::process::id()
        ));
        std::fs::File::create(&file)
            .and_then(|f| f.set_len(mib << 20))
            .expect("backing file in /dev/shm");
        let out = Command::new("losetup")
            .args(["--find", "--show"])
            .arg(&file)
            .output()
            .expect("losetup (util-linux)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dev = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Loop {
            dev,
            file,
            attached: true,
        }
    }
    fn name(&self) -> String {
        self.dev.file_name().unwrap().to_string_lossy().into_owned()
    }
    fn detach(&mut self) {
        if self.attached {
            let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
            self.attached = false;
        }
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        self.detach();
        let _ = std::fs::remove_file(&self.file);
    }
}

/// One test at a time: each process has one instance name.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn dd(dev: &Path, args: &[&str]) {
    let st = Command::new("dd")
        .arg(format!("if={}", dev.display()))
        .args(["of=/dev/null", "status=none", "iflag=direct"])
        .args(args)
        .status()
        .unwrap();
    assert!(st.success());
}

fn instance() -> PathBuf {
    PathBuf::from(format!(
        "/sys/kernel/tracing/instances/drivescope-{}",
        std::process::id()
    ))
}

fn collecting() -> (
    Arc<Mutex<Vec<Request>>>,
    impl FnMut(&Request) + Send + 'static,
) {
    let got = Arc::new(Mutex::new(Vec::new()));
    let g = got.clone();
    (got, move |r: &Request| g.lock().unwrap().push(*r))
}

#[test]
fn every_request_of_a_direct_dd_is_seen_once_with_its_size_and_place() {
    if skip_without_root("traces loop devices through tracefs") {
        return;
    }
    let _one = one_at_a_time();
    let lo = Loop::new("dd", 64);
    let devs = resolve(&[lo.name()]).unwrap();
    assert_eq!(devs.len(), 1);
    let (got, sink) = collecting();
    let cap = Capture::start(&devs, sink).expect("start a capture");
    assert!(instance().is_dir(), "an instance of its own");
    dd(&lo.dev, &["bs=4k", "count=1000", "skip=100"]);
    let stats = cap.stop().expect("stop the capture");
    assert!(!instance().exists(), "the instance is removed");
    let got = got.lock().unwrap();
    assert_eq!(stats.requests, got.len() as u64);
    assert_eq!(stats.lost_events, 0);
    assert_eq!(stats.unmatched, 0, "{stats:?}");
    let reads: Vec<&Request> = got.iter().filter(|r| r.op == Op::Read).collect();
    assert_eq!(reads.len(), 1000, "{stats:?}");
    for (i, r) in reads.iter().enumerate() {
        assert_eq!(r.bytes, 4096);
        assert_eq!(r.sector, (100 + i as u64) * 8, "in order, where dd read");
        assert_eq!(r.dev, devs[0].dev);
        assert!(r.complete_ns >= r.issue_ns);
        assert!(r.issue_ns <= stats.wall_ns);
    }
    assert!(reads.windows(2).all(|w| w[0].issue_ns <= w[1].issue_ns));
}

#[test]
fn only_the_watched_device_is_traced() {
    if skip_without_root("traces loop devices through tracefs") {
        return;
    }
    let _one = one_at_a_time();
    let (watched, other) = (Loop::new("watched", 16), Loop::new("other", 16));
    let devs = resolve(&[watched.name()]).unwrap();
    let (got, sink) = collecting();
    let cap = Capture::start(&devs, sink).unwrap();
    dd(&other.dev, &["bs=64k", "count=100"]);
    dd(&watched.dev, &["bs=64k", "count=10"]);
    cap.stop().unwrap();
    let got = got.lock().unwrap();
    assert_eq!(got.len(), 10, "{got:?}");
    assert!(got.iter().all(|r| r.dev == devs[0].dev && r.bytes == 65536));
}

#[test]
fn a_second_capture_in_the_same_process_is_refused_as_busy_and_a_dropped_one_cleans_up() {
    if skip_without_root("traces loop devices through tracefs") {
        return;
    }
    let _one = one_at_a_time();
    let lo = Loop::new("busy", 16);
    let devs = resolve(&[lo.name()]).unwrap();
    let first = Capture::start(&devs, |_: &Request| {}).unwrap();
    let second = Capture::start(&devs, |_: &Request| {});
    let e = second.err().expect("refused");
    assert!(matches!(e, CaptureError::InstanceBusy { .. }), "{e}");
    assert!(e.to_string().contains("busy"), "{e}");
    assert!(
        instance().is_dir(),
        "the first capture's instance is untouched"
    );
    drop(first);
    assert!(
        !instance().exists(),
        "dropping a capture removes its instance"
    );
}

#[test]
fn a_device_detached_during_the_capture_is_said_to_be_gone() {
    if skip_without_root("traces loop devices through tracefs") {
        return;
    }
    let _one = one_at_a_time();
    let mut lo = Loop::new("gone", 16);
    let devs = resolve(&[lo.name()]).unwrap();
    let cap = Capture::start(&devs, |_: &Request| {}).unwrap();
    dd(&lo.dev, &["bs=4k", "count=10"]);
    lo.detach();
    let e = cap.stop().expect_err("a gone device fails the capture");
    assert!(matches!(e, CaptureError::DeviceGone { .. }), "{e}");
    assert!(e.to_string().contains(&lo.name()), "{e}");
    assert!(!instance().exists());
}
