//! A btrfs file system over loop devices on tmpfs files the test makes: one device, or several as an array
//! (`raid1`, `raid0`, `raid10`), mounted on a fresh directory. Torn down on drop, also when a check fails: the
//! kernel's memory of the scanned devices is forgotten before they are detached.

use crate::{unmount, TmpfsLoop};
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct BtrfsMount {
    pub dir: PathBuf,
    devs: Vec<TmpfsLoop>,
}

impl BtrfsMount {
    /// `n` devices of `size` bytes each; `profile` is the data and metadata profile (`single` for one).
    pub fn new(n: usize, size: u64, profile: &str) -> BtrfsMount {
        let devs: Vec<TmpfsLoop> = (0..n).map(|_| TmpfsLoop::new(size)).collect();
        let dir = std::env::temp_dir().join(format!(
            "drivescope-btrfs-{}-{}",
            std::process::id(),
            crate::unique()
        ));
        let mut m = BtrfsMount { dir, devs };
        let out = Command::new("mkfs.btrfs")
            .args(["-q", "-f", "-K", "-d", profile, "-m", profile])
            .args(m.devices())
            .output()
            .expect("mkfs.btrfs (btrfs-progs) is needed");
        assert!(
            out.status.success(),
            "mkfs.btrfs: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::create_dir_all(&m.dir).expect("mount point");
        let st = Command::new("mount")
            .arg(&m.devices()[0])
            .arg(&m.dir)
            .status()
            .expect("mount");
        if !st.success() {
            let _ = std::fs::remove_dir(&m.dir);
            m.dir = PathBuf::new();
            panic!("mount of btrfs failed");
        }
        m
    }

    /// The loop devices, in the order they were made.
    pub fn devices(&self) -> Vec<PathBuf> {
        self.devs.iter().map(|d| d.path().to_path_buf()).collect()
    }

    /// The kernel names of the devices (`loop3`), sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .devices()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for BtrfsMount {
    fn drop(&mut self) {
        if !self.dir.as_os_str().is_empty() {
            unmount(&self.dir);
            let _ = std::fs::remove_dir(&self.dir);
        }
        for d in self.devices() {
            let _ = Command::new("btrfs")
                .args(["device", "scan", "--forget"])
                .arg(&d)
                .output();
        }
    }
}
