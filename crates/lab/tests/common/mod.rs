//! Helpers for tests that serve lab devices through loop devices. They need root and FUSE: each
//! test starts with `skip_without_root` (skipped outside CI when not root, a failure in CI), and
//! as root a missing FUSE or losetup fails it.

#![allow(dead_code)]

#[path = "../../../testkit/src/busy.rs"]
mod busy;
#[path = "../../../testkit/src/root.rs"]
mod root;
#[allow(unused_imports)] // not every test file has a test that needs root
pub use root::skip_without_root;

use drivescope_lab::{check_environment, LabDevice, Model};
use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::time::Instant;

/// Panic with the reason when this machine cannot serve lab devices.
pub fn require_lab() {
    if let Err(e) = check_environment(true) {
        panic!(
            "lab tests need root, /dev/fuse (Debian fuse3) and losetup: {e}. \
             They fail rather than skip so that CI notices."
        );
    }
}

/// Timing tests run one at a time, even when the harness runs tests in parallel: the machine
/// may have only two cores.
pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// Serve `model` on a loop device in a fresh temporary mount directory.
pub fn start(model: &Model) -> LabDevice {
    require_lab();
    LabDevice::start_temp(model, true).expect("start lab device")
}

/// A 4096-aligned buffer for O_DIRECT.
pub struct Aligned {
    ptr: *mut u8,
    len: usize,
}

unsafe impl Send for Aligned {}

impl Aligned {
    pub fn new(len: usize) -> Self {
        let layout = std::alloc::Layout::from_size_align(len, 4096).unwrap();
        // SAFETY: non-zero size, valid alignment.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        assert!(!ptr.is_null());
        Aligned { ptr, len }
    }
    pub fn as_mut(&mut self) -> &mut [u8] {
        // SAFETY: ptr is valid for len bytes and uniquely borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
    pub fn as_ref(&self) -> &[u8] {
        // SAFETY: ptr is valid for len bytes.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for Aligned {
    fn drop(&mut self) {
        let layout = std::alloc::Layout::from_size_align(self.len, 4096).unwrap();
        // SAFETY: allocated above with this layout.
        unsafe { std::alloc::dealloc(self.ptr, layout) }
    }
}

pub fn open_direct(path: &Path, write: bool) -> File {
    std::fs::OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
}

/// Read `[offset, offset + len)` sequentially in `bs` commands at QD1 after one priming command
/// just before it (so the first seek is not timed). MB/s.
pub fn timed_read(dev: &Path, offset: u64, len: u64, bs: usize) -> f64 {
    drivescope_lab::fuse_fs::boost_current_thread();
    let f = open_direct(dev, false);
    let mut buf = Aligned::new(bs);
    let prime = offset.saturating_sub(bs as u64);
    f.read_exact_at(buf.as_mut(), prime).expect("priming read");
    let mut pos = if prime == offset {
        offset + bs as u64
    } else {
        offset
    };
    let begin = pos;
    let t0 = Instant::now();
    while pos < offset + len {
        f.read_exact_at(buf.as_mut(), pos).expect("read");
        pos += bs as u64;
    }
    (pos - begin) as f64 * 1e3 / t0.elapsed().as_nanos() as f64
}

/// Read `len` bytes from `offset` with `qd` threads, each taking the next `bs` command in turn
/// (a sequential stream at queue depth `qd`). MB/s.
pub fn timed_read_qd(dev: &Path, offset: u64, len: u64, bs: usize, qd: usize) -> f64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    let next = AtomicU64::new(offset);
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..qd {
            s.spawn(|| {
                drivescope_lab::fuse_fs::boost_current_thread();
                let f = open_direct(dev, false);
                let mut buf = Aligned::new(bs);
                loop {
                    let pos = next.fetch_add(bs as u64, Ordering::SeqCst);
                    if pos >= offset + len {
                        break;
                    }
                    f.read_exact_at(buf.as_mut(), pos).expect("read");
                }
            });
        }
    });
    len as f64 * 1e3 / t0.elapsed().as_nanos() as f64
}

/// Run a timing check up to `tries` times and pass if any try passes. Other processes on a small
/// machine can stall the kernel's loop worker (a normal-priority kworker) for milliseconds, which
/// no emulator can hide: a failure while the host was busy is void (see `busy.rs`); a wrong model
/// fails every try on a host that keeps up. All failures are reported.
pub fn best_of(tries: usize, check: impl FnMut() -> Result<(), String>) {
    busy::timing_tries(tries, |_| {}, check);
}
