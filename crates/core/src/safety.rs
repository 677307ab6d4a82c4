//! The gate in front of every destructive write to a block device.
//!
//! A [`DestructiveGate`] can only be made here, by [`inspect`] (every rule about the device's
//! state) followed by [`Candidate::confirm`] (the user named the device). The only way to
//! open a block device for writing, [`crate::target::Target::open_destructive`], takes one.
//!
//! Rules, each refused with one line:
//! * the target must be a whole block device or partition (never a regular file);
//! * neither it nor any of its partitions is mounted or used as swap;
//! * neither it nor any of its partitions has holders (md, dm, LVM, bcache);
//! * neither it nor any of its partitions holds the root file system or a protected path
//!   (drivescope's own results store);
//! * it is not read-only;
//! * it carries no partition table or file-system signature, unless `force`;
//! * the confirmation names it: its serial, or (without a serial) its model (or kernel name
//!   when it has no model) and its size as `drivescope info` shows them.
//!
//! On top of this, the device is opened with `O_EXCL`, so the kernel itself refuses a device
//! that was mounted or claimed between the checks and the open.

use crate::aligned::AlignedBuffers;
use crate::units::format_size;
use drivescope_probe::{identify_with, Options, Roots};
use std::fs::OpenOptions;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// Why a destructive write was refused. One line each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("{0}: writes go only to block devices (and to test files drivescope creates in a directory)")]
    NotBlockDevice(String),
    #[error("{dev}: {what} is mounted on {at}; unmount it first")]
    Mounted {
        dev: String,
        what: String,
        at: String,
    },
    #[error("{dev}: {what} is in use as swap; swapoff it first")]
    Swap { dev: String, what: String },
    #[error(
        "{dev}: {what} is held by {holders} (md, device-mapper, LVM or similar); stop those first"
    )]
    Held {
        dev: String,
        what: String,
        holders: String,
    },
    #[error("{dev}: {what} holds the root file system")]
    Root { dev: String, what: String },
    #[error("{dev}: {what} holds {protected}")]
    Protected {
        dev: String,
        what: String,
        protected: String,
    },
    #[error("{0}: the device is read-only")]
    ReadOnly(String),
    #[error(
        "{dev}: it carries {signature} (at byte {offset}); add --force to overwrite it anyway"
    )]
    Signature {
        dev: String,
        signature: String,
        offset: u64,
    },
    #[error("{dev} ({desc}): writing destroys its data; confirm with --confirm {expected_kind} ({hint})")]
    NotConfirmed {
        dev: String,
        desc: String,
        expected_kind: String,
        hint: String,
    },
    #[error("{dev} ({desc}): the confirmation {given:?} does not name this device; it takes {expected_kind}")]
    WrongConfirmation {
        dev: String,
        desc: String,
        given: String,
        expected_kind: String,
    },
    #[error("{dev}: {msg}")]
    Other { dev: String, msg: String },
}

/// Proof that every rule passed for one device. Only [`Candidate::confirm`] makes one.
#[derive(Debug, Clone)]
pub struct DestructiveGate {
    path: PathBuf,
    rdev: u64,
    size: u64,
}

impl DestructiveGate {
    /// The device node the gate was made for.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// Its device number (`st_rdev`).
    pub fn rdev(&self) -> u64 {
        self.rdev
    }
    /// Its size in bytes when checked.
    pub fn size(&self) -> u64 {
        self.size
    }
}

/// A device that passed every rule about its state and now needs the user's confirmation.
#[derive(Debug, Clone)]
pub struct Candidate {
    spec: String,
    path: PathBuf,
    rdev: u64,
    size: u64,
    /// Serial number, when the device reports one.
    pub serial: Option<String>,
    /// Model (or, without one, the kernel name).
    pub model: String,
    /// Size as `drivescope info` prints it (`64.0 MiB`).
    pub size_text: String,
}

impl Candidate {
    /// The device as the user named it.
    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// What the user must type: the serial, or model and size.
    pub fn expected(&self) -> String {
        match &self.serial {
            Some(s) => s.clone(),
            None => format!("{} {}", self.model, self.size_text),
        }
    }

    /// How to ask for it: "its serial" or "its model and size".
    pub fn expected_kind(&self) -> &'static str {
        if self.serial.is_some() {
            "the device's serial number"
        } else {
            "the device's model (kernel name when it has none) and size"
        }
    }

    /// One line that names the device.
    pub fn describe(&self) -> String {
        match &self.serial {
            Some(s) => format!("{}, serial {s}, {}", self.model, self.size_text),
            None => format!("{}, no serial, {}", self.model, self.size_text),
        }
    }

    /// Check the user's confirmation; without one, refuse and say what it takes.
    pub fn confirm(&self, given: Option<&str>) -> Result<DestructiveGate, Refusal> {
        let Some(given) = given else {
            return Err(Refusal::NotConfirmed {
                dev: self.spec.clone(),
                desc: self.describe(),
                expected_kind: self.expected_kind().into(),
                hint: "see `drivescope info`".into(),
            });
        };
        if normalize(given) != normalize(&self.expected()) || given.trim().is_empty() {
            return Err(Refusal::WrongConfirmation {
                dev: self.spec.clone(),
                desc: self.describe(),
                given: given.into(),
                expected_kind: self.expected_kind().into(),
            });
        }
        Ok(DestructiveGate {
            path: self.path.clone(),
            rdev: self.rdev,
            size: self.size,
        })
    }
}

/// Whitespace runs collapsed, case ignored (serials are shown in upper case by some tools).
fn normalize(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Check every rule about `spec`'s state. `protect` lists paths whose file system must not
/// be on the device (the results store); `force` lets a signature pass.
pub fn inspect(spec: &str, protect: &[PathBuf], force: bool) -> Result<Candidate, Refusal> {
    let other = |msg: String| Refusal::Other {
        dev: spec.into(),
        msg,
    };
    let path = Path::new(spec);
    let meta = std::fs::metadata(path).map_err(|e| other(e.to_string()))?;
    if !meta.file_type().is_block_device() {
        return Err(Refusal::NotBlockDevice(spec.into()));
    }
    let rdev = meta.rdev();
    let sys = sysfs_dir(rdev).ok_or_else(|| other("not found in /sys/dev/block".into()))?;
    let name = file_name(&sys);
    // The device and its partitions: every one must be free.
    let mut parts: Vec<(String, u64, PathBuf)> = vec![(name.clone(), rdev, sys.clone())];
    for entry in std::fs::read_dir(&sys).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.join("partition").is_file() {
            if let Some(d) = read_dev(&p.join("dev")) {
                parts.push((file_name(&p), d, p));
            }
        }
    }
    let what = |n: &str| {
        if *n == name {
            "the device".to_string()
        } else {
            format!("its partition {n}")
        }
    };
    let mounts = drivescope_probe::mounts::read_mountinfo(Path::new("/proc")).unwrap_or_default();
    let swaps = std::fs::read_to_string("/proc/swaps").unwrap_or_default();
    let swap_devs: Vec<u64> = swaps
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .filter_map(|p| std::fs::metadata(unescape(p)).ok())
        .filter(|m| m.file_type().is_block_device())
        .map(|m| m.rdev())
        .collect();
    let root_dev = std::fs::metadata("/").map(|m| m.dev()).ok();
    for (n, d, dir) in &parts {
        let (maj, min) = (libc::major(*d), libc::minor(*d));
        if let Some(m) = mounts.iter().find(|m| m.major == maj && m.minor == min) {
            return Err(Refusal::Mounted {
                dev: spec.into(),
                what: what(n),
                at: m.mount_point.display().to_string(),
            });
        }
        if swap_devs.contains(d) {
            return Err(Refusal::Swap {
                dev: spec.into(),
                what: what(n),
            });
        }
        let holders: Vec<String> = std::fs::read_dir(dir.join("holders"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        if !holders.is_empty() {
            return Err(Refusal::Held {
                dev: spec.into(),
                what: what(n),
                holders: holders.join(", "),
            });
        }
        if root_dev == Some(*d) {
            return Err(Refusal::Root {
                dev: spec.into(),
                what: what(n),
            });
        }
        for p in protect {
            if fs_dev(p) == Some(*d) {
                return Err(Refusal::Protected {
                    dev: spec.into(),
                    what: what(n),
                    protected: p.display().to_string(),
                });
            }
        }
    }
    if std::fs::read_to_string(sys.join("ro")).is_ok_and(|s| s.trim() == "1") {
        return Err(Refusal::ReadOnly(spec.into()));
    }
    let id = identify_with(
        path,
        &Roots::default(),
        &Options {
            smart: false,
            dns: false,
        },
    )
    .map_err(|e| other(format!("{e:#}")))?;
    let size = std::fs::read_to_string(sys.join("size"))
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map(|s| s * 512)
        .ok_or_else(|| other("size unknown".into()))?;
    if size == 0 {
        return Err(other("the device is empty (no medium?)".into()));
    }
    if !force {
        if let Some((signature, offset)) = signature(path, size).map_err(other)? {
            return Err(Refusal::Signature {
                dev: spec.into(),
                signature,
                offset,
            });
        }
    }
    let hardware = id.block_devices().filter_map(|b| b.hardware.as_ref());
    let (mut serial, mut model) = (None, None);
    for h in hardware {
        serial = serial.or_else(|| h.serial.clone().filter(|s| !s.trim().is_empty()));
        model = model.or_else(|| h.model.clone().filter(|s| !s.trim().is_empty()));
    }
    Ok(Candidate {
        spec: spec.into(),
        path: path.to_path_buf(),
        rdev,
        size,
        serial: serial.map(|s| s.trim().to_string()),
        model: model.map(|m| m.trim().to_string()).unwrap_or(name),
        size_text: format_size(size),
    })
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn sysfs_dir(rdev: u64) -> Option<PathBuf> {
    let link = format!("/sys/dev/block/{}:{}", libc::major(rdev), libc::minor(rdev));
    std::fs::canonicalize(link).ok()
}

fn read_dev(p: &Path) -> Option<u64> {
    let s = std::fs::read_to_string(p).ok()?;
    let (a, b) = s.trim().split_once(':')?;
    Some(libc::makedev(a.parse().ok()?, b.parse().ok()?))
}

/// The device of the file system that holds `p` (or would hold it: the nearest existing
/// ancestor).
fn fs_dev(p: &Path) -> Option<u64> {
    let mut cur = Some(p);
    while let Some(c) = cur {
        if let Ok(m) = std::fs::metadata(c) {
            return Some(m.dev());
        }
        cur = c.parent();
    }
    None
}

/// `/proc/swaps` escapes spaces in paths as `\040`.
fn unescape(s: &str) -> String {
    s.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

/// Magic numbers of partition tables and file systems: (offset, bytes, name).
const SIGNATURES: &[(u64, &[u8], &str)] = &[
    (0, b"XFSB", "an XFS file system"),
    (0, b"LUKS\xba\xbe", "a LUKS header"),
    (3, b"NTFS    ", "an NTFS file system"),
    (54, b"FAT1", "a FAT file system"),
    (82, b"FAT32   ", "a FAT32 file system"),
    (510, b"\x55\xaa", "an MBR partition table or boot sector"),
    (512, b"EFI PART", "a GPT partition table"),
    (512, b"LABELONE", "an LVM physical volume label"),
    (1080, b"\x53\xef", "an ext2/3/4 file system"),
    (4086, b"SWAPSPACE2", "a swap signature"),
    (4086, b"SWAP-SPACE", "a swap signature"),
    (4096, b"EFI PART", "a GPT partition table"),
    (4096, b"\xfc\x4e\x2b\xa9", "an md RAID superblock"),
    (32769, b"CD001", "an ISO 9660 file system"),
    (65600, b"_BHRfS_M", "a btrfs file system"),
];

/// Look for a signature in the first 128 KiB (and a GPT backup header in the last sector).
pub fn signature(path: &Path, size: u64) -> Result<Option<(String, u64)>, String> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| format!("reading its first sectors: {e}"))?;
    let head_len = (128 * 1024u64).min(size / 4096 * 4096) as usize;
    let mut bufs = AlignedBuffers::new(1, 128 * 1024, 4096);
    let head = read_at(&f, &mut bufs, 0, head_len)?;
    for (off, magic, name) in SIGNATURES {
        let o = *off as usize;
        if head.len() >= o + magic.len() && &head[o..o + magic.len()] == *magic {
            return Ok(Some((name.to_string(), *off)));
        }
    }
    if size >= 8192 {
        let tail = read_at(&f, &mut bufs, size - 4096, 4096)?;
        for o in [4096 - 512, 0] {
            if &tail[o..o + 8] == b"EFI PART" {
                return Ok(Some((
                    "a GPT backup partition table".into(),
                    size - 4096 + o as u64,
                )));
            }
        }
    }
    Ok(None)
}

fn read_at(
    f: &std::fs::File,
    bufs: &mut AlignedBuffers,
    off: u64,
    len: usize,
) -> Result<Vec<u8>, String> {
    // SAFETY: the buffer holds at least `len` (≤ 128 KiB) bytes, aligned for O_DIRECT.
    let n = unsafe {
        libc::pread(
            f.as_raw_fd(),
            bufs.ptr(0) as *mut libc::c_void,
            len,
            off as libc::off_t,
        )
    };
    if n < 0 {
        return Err(format!(
            "reading its sectors at {off}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(bufs.slice(0)[..n as usize].to_vec())
}
