//! The binary's end-to-end test helpers (`use drivescope_testkit as common;` in crates/drivescope/tests).
//!
//! Real kernel devices for end-to-end tests: loop devices over tmpfs files and zram devices,
//! created by the test and removed when dropped (also when the test panics).
#![allow(dead_code)]

use drivescope_core::loopdev::LoopDevice;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub mod btrfs;
pub mod busy;
pub mod cached;
pub mod flush_twins;
pub mod kill9;
pub mod lab;
mod root;
pub mod scratch;
pub mod serve;
pub mod tmux;
pub mod typed;
pub mod verdicts;

#[allow(unused_imports)] // not every test file has a test that needs root
pub use root::skip_without_root;

/// Fail loudly when a helper that creates kernel devices runs without root: the test that uses
/// it starts with [`skip_without_root`], which skips or fails by the shared rule first.
pub fn require_root() {
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    assert_eq!(
        uid, 0,
        "this test creates loop/zram devices and must run as root (CI runs as root)"
    );
}

/// A loop device over a fresh file in /dev/shm.
pub struct TmpfsLoop {
    pub dev: Option<LoopDevice>,
    pub file: PathBuf,
}

impl TmpfsLoop {
    pub fn new(size: u64) -> Self {
        Self::with_options(size, false)
    }

    /// `direct_io`: the loop driver reads its backing file with O_DIRECT (not on tmpfs).
    pub fn with_options(size: u64, direct_io: bool) -> Self {
        require_root();
        let file = PathBuf::from(format!(
            "/dev/shm/drivescope-test-{}-{}.img",
            std::process::id(),
            unique()
        ));
        let f = std::fs::File::create(&file).expect("create backing file in /dev/shm");
        f.set_len(size).expect("size backing file");
        drop(f);
        let dev = LoopDevice::attach(&file, false, direct_io)
            .expect("losetup (is util-linux installed?)");
        TmpfsLoop {
            dev: Some(dev),
            file,
        }
    }

    pub fn path(&self) -> &Path {
        self.dev.as_ref().expect("attached").path()
    }
}

impl Drop for TmpfsLoop {
    fn drop(&mut self) {
        drop(self.dev.take());
        let _ = std::fs::remove_file(&self.file);
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// A zram device made with hot_add, sized, and removed on drop.
pub struct Zram {
    pub index: u32,
    pub path: PathBuf,
}

impl Zram {
    pub fn new(size: u64) -> Self {
        require_root();
        let idx = std::fs::read_to_string("/sys/class/zram-control/hot_add")
            .expect("zram is missing: /sys/class/zram-control/hot_add not readable (the kernel needs CONFIG_ZRAM)");
        let index: u32 = idx.trim().parse().expect("zram index");
        let z = Zram {
            index,
            path: PathBuf::from(format!("/dev/zram{index}")),
        };
        std::fs::write(format!("/sys/block/zram{index}/disksize"), size.to_string())
            .expect("set zram disksize");
        for _ in 0..100 {
            if z.path.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        z
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        // udev may still hold the device open for a moment after a write: retry.
        for _ in 0..50 {
            let reset = std::fs::write(format!("/sys/block/zram{}/reset", self.index), "1");
            if reset.is_ok()
                && std::fs::write("/sys/class/zram-control/hot_remove", self.index.to_string())
                    .is_ok()
            {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        eprintln!("warning: could not remove zram{}", self.index);
    }
}

/// The drivescope binary cargo built beside the running test binary (`target/<profile>/deps/<test>`
/// runs from `target/<profile>/drivescope`'s directory's `deps`).
pub fn bin() -> PathBuf {
    if let Some(p) = std::env::var_os("CARGO_BIN_EXE_drivescope") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let dir = exe.parent().expect("deps");
    let dir = if dir.ends_with("deps") {
        dir.parent().expect("the profile's directory")
    } else {
        dir
    };
    let bin = dir.join("drivescope");
    assert!(
        bin.exists(),
        "{} is missing: the binary's tests run it (cargo test -p drivescope builds it)",
        bin.display()
    );
    bin
}

/// The drivescope binary, with its results store in a temporary directory of this test
/// process (never the user's own store).
pub fn drivescope_cmd() -> Command {
    let mut c = Command::new(bin());
    c.env(
        "XDG_DATA_HOME",
        std::env::temp_dir().join(format!("drivescope-test-store-{}", std::process::id())),
    );
    c
}

/// Run the drivescope binary.
pub fn drivescope(args: &[&str]) -> Output {
    drivescope_cmd()
        .args(args)
        .output()
        .expect("run drivescope")
}

/// Unmount, retrying while the mount is briefly busy, then lazily.
pub fn unmount(dir: &Path) {
    for _ in 0..20 {
        let ok = Command::new("umount")
            .arg(dir)
            .stderr(std::process::Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if ok {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = Command::new("umount").arg("-l").arg(dir).status();
}

/// An ext4 file system on a tmpfs-backed loop device, mounted on a fresh directory:
/// a file system with O_DIRECT for test files. Unmounted and removed on drop.
pub struct Ext4Mount {
    pub dir: PathBuf,
    dev: Option<TmpfsLoop>,
}

impl Ext4Mount {
    pub fn new(size: u64) -> Self {
        let dev = TmpfsLoop::new(size);
        let st = Command::new("mkfs.ext4")
            .args(["-q", "-F", "-E", "nodiscard"])
            .arg(dev.path())
            .status()
            .expect("mkfs.ext4 (e2fsprogs) is needed");
        assert!(st.success(), "mkfs.ext4 failed");
        let dir = std::env::temp_dir().join(format!(
            "drivescope-mnt-{}-{}",
            std::process::id(),
            unique()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let st = Command::new("mount")
            .arg(dev.path())
            .arg(&dir)
            .status()
            .unwrap();
        assert!(st.success(), "mount failed");
        Ext4Mount {
            dir,
            dev: Some(dev),
        }
    }

    pub fn path(&self) -> &str {
        self.dir.to_str().unwrap()
    }
    /// The loop device the file system is on.
    pub fn dev_path(&self) -> PathBuf {
        self.dev.as_ref().expect("attached").path().to_path_buf()
    }
}

impl Drop for Ext4Mount {
    fn drop(&mut self) {
        unmount(&self.dir);
        let _ = std::fs::remove_dir(&self.dir);
        drop(self.dev.take());
    }
}

/// Fill a device we created with random data (so reads read real data).
pub fn fill_random(dev: &Path, bytes: u64) {
    let st = Command::new("dd")
        .args(["if=/dev/urandom", "bs=1M", "oflag=direct", "status=none"])
        .arg(format!("of={}", dev.display()))
        .arg(format!("count={}", bytes >> 20))
        .status()
        .unwrap();
    assert!(st.success());
}

/// SHA-256 of a device's or file's contents (to prove nothing wrote to it).
pub fn checksum(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}
