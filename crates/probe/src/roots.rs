//! Where the kernel's views live. Every file drivescope-probe reads is under one of these roots,
//! so tests can point them at fixture trees laid out as the kernel lays them out.

use std::path::{Path, PathBuf};

/// The sysfs, procfs and devtmpfs roots. `Roots::default()` is the running system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots {
    pub sys: PathBuf,
    pub proc: PathBuf,
    pub dev: PathBuf,
}

impl Default for Roots {
    fn default() -> Self {
        Roots {
            sys: PathBuf::from("/sys"),
            proc: PathBuf::from("/proc"),
            dev: PathBuf::from("/dev"),
        }
    }
}

impl Roots {
    /// All three roots under one directory: `DIR/sys`, `DIR/proc`, `DIR/dev` (fixture trees).
    pub fn under(dir: &Path) -> Self {
        Roots {
            sys: dir.join("sys"),
            proc: dir.join("proc"),
            dev: dir.join("dev"),
        }
    }

    /// True when these are the running system's roots (then external tools such as
    /// smartctl may be pointed at the device nodes).
    pub fn is_live(&self) -> bool {
        *self == Roots::default()
    }

    /// `/sys/class/block/NAME`: every block device and partition by kernel name.
    pub fn class_block(&self, name: &str) -> PathBuf {
        self.sys.join("class/block").join(name)
    }

    /// `/sys/dev/block/MAJ:MIN`.
    pub fn dev_block(&self, major: u32, minor: u32) -> PathBuf {
        self.sys.join("dev/block").join(format!("{major}:{minor}"))
    }

    /// `/sys/class/net/IFACE`.
    pub fn class_net(&self, iface: &str) -> PathBuf {
        self.sys.join("class/net").join(iface)
    }

    /// `/dev/NAME`.
    pub fn dev_node(&self, name: &str) -> PathBuf {
        self.dev.join(name)
    }

    /// `/proc/self/mountinfo`.
    pub fn mountinfo(&self) -> PathBuf {
        self.proc.join("self/mountinfo")
    }
}
