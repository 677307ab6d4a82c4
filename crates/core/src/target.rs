//! What drivescope measures: a block device, a regular file, or `null:SIZE`.

use crate::units::parse_size;
pub use drivescope_record::{TargetInfo, TargetType};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// Target errors, each a line a person can act on.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("{0}: no such file or device")]
    NotFound(String),
    #[error("{0}: permission denied ({why})", why = denied_why(crate::target::is_root()))]
    PermissionDenied(String),
    #[error("{0} is a directory; give a device or a file (bench and info take directories)")]
    IsDirectory(String),
    #[error("{0}: not a block device or regular file")]
    Unsupported(String),
    #[error("{0}: the file system does not support O_DIRECT (tmpfs and some network file systems); results would come from the page cache")]
    NoDirectIo(String),
    #[error("{0} is empty")]
    Empty(String),
    #[error("{0}")]
    BadSpec(String),
    /// The OS error is part of the line, and not also its source: a chain printed whole
    /// (`{:#}`) says it once.
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
}

/// An opened target.
#[derive(Debug)]
pub struct Target {
    pub spec: String,
    pub path: Option<PathBuf>,
    pub kind: TargetType,
    /// Size in bytes.
    pub size: u64,
    /// Logical sector size: the unit of LBAs and the alignment of offsets and lengths.
    pub logical_block_size: u32,
    /// Alignment of I/O buffers (at least 4096).
    pub buffer_align: usize,
    /// Opened with O_DIRECT (false only for a test file the user allowed to be buffered).
    pub direct: bool,
    writable: bool,
    file: Option<File>,
}

const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
const BLKSSZGET: libc::c_ulong = 0x1268;

impl Target {
    /// Open `spec` for reading with O_DIRECT: a path, or `null:SIZE`.
    pub fn open_read(spec: &str) -> Result<Target, TargetError> {
        if let Some(size) = spec.strip_prefix("null:") {
            let size =
                parse_size(size).map_err(|e| TargetError::BadSpec(format!("null target: {e}")))?;
            if size == 0 {
                return Err(TargetError::Empty(spec.into()));
            }
            return Ok(Target {
                spec: spec.into(),
                path: None,
                kind: TargetType::Null,
                size,
                logical_block_size: 512,
                buffer_align: 4096,
                direct: true,
                writable: false,
                file: None,
            });
        }
        let path = Path::new(spec);
        let meta = std::fs::metadata(path).map_err(|e| map_io(spec, e))?;
        let ft = meta.file_type();
        if ft.is_dir() {
            return Err(TargetError::IsDirectory(spec.into()));
        }
        let kind = if ft.is_block_device() {
            TargetType::Block
        } else if ft.is_file() {
            TargetType::File
        } else {
            return Err(TargetError::Unsupported(spec.into()));
        };
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT | libc::O_CLOEXEC)
            .open(path)
            .map_err(|e| {
                if e.raw_os_error() == Some(libc::EINVAL) {
                    TargetError::NoDirectIo(spec.into())
                } else {
                    map_io(spec, e)
                }
            })?;
        let (size, lbs) = match kind {
            TargetType::Block => block_geometry(&file).map_err(|e| map_io(spec, e))?,
            _ => (meta.len(), 4096),
        };
        if size == 0 {
            return Err(TargetError::Empty(spec.into()));
        }
        Ok(Target {
            spec: spec.into(),
            path: Some(path.to_path_buf()),
            kind,
            size,
            logical_block_size: lbs,
            buffer_align: (lbs as usize).max(4096),
            direct: true,
            writable: false,
            file: Some(file),
        })
    }

    /// Open a test file that drivescope created, for reading and writing. With
    /// `allow_buffered`, a file system without O_DIRECT is used through the page cache
    /// (`direct` is then false and every report must say so).
    pub fn open_test_file(
        test: &crate::testfile::TestFile,
        allow_buffered: bool,
    ) -> Result<Target, TargetError> {
        let path = test.path();
        let spec = path.display().to_string();
        let open = |flags| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .custom_flags(flags | libc::O_CLOEXEC)
                .open(path)
        };
        let (file, direct) = match open(libc::O_DIRECT) {
            Ok(f) => (f, true),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                if !allow_buffered {
                    return Err(TargetError::NoDirectIo(spec));
                }
                (open(0).map_err(|e| map_io(&spec, e))?, false)
            }
            Err(e) => return Err(map_io(&spec, e)),
        };
        Ok(Target {
            spec: spec.clone(),
            path: Some(path.to_path_buf()),
            kind: TargetType::File,
            size: test.size(),
            logical_block_size: 4096,
            buffer_align: 4096,
            direct,
            writable: true,
            file: Some(file),
        })
    }

    /// Open a block device for reading and writing, with O_DIRECT and O_EXCL (the kernel
    /// refuses a device that is mounted or claimed by md/dm), checking that it is still the
    /// device `dev` (major, minor) of `checked_size` bytes. Only [`crate::safety::open_for_write`]
    /// calls this, with what its rules approved.
    pub(crate) fn open_block_rw(
        path: &Path,
        dev: (u32, u32),
        checked_size: u64,
    ) -> Result<Target, TargetError> {
        let spec = path.display().to_string();
        let open = || {
            OpenOptions::new()
                .read(true)
                .write(true)
                .custom_flags(libc::O_DIRECT | libc::O_EXCL | libc::O_CLOEXEC)
                .open(path)
        };
        // The kernel holds a device briefly after a writer closes it (partition rescan): an
        // EBUSY that lasts is a mount or a holder, a short one is that.
        let mut tries = 0;
        let file = loop {
            match open() {
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) && tries < 30 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                r => break r,
            }
        };
        let file = file.map_err(|e| match e.raw_os_error() {
            Some(libc::EBUSY) => TargetError::BadSpec(format!(
                "{spec}: the device is busy (mounted or in use); refused"
            )),
            Some(libc::EINVAL) => TargetError::NoDirectIo(spec.clone()),
            _ => map_io(&spec, e),
        })?;
        let meta = file.metadata().map_err(|e| map_io(&spec, e))?;
        let rdev = meta.rdev();
        if !meta.file_type().is_block_device() || (libc::major(rdev), libc::minor(rdev)) != dev {
            return Err(TargetError::BadSpec(format!(
                "{spec}: the device changed since it was checked; refused"
            )));
        }
        let (size, lbs) = block_geometry(&file).map_err(|e| map_io(&spec, e))?;
        if size != checked_size {
            return Err(TargetError::BadSpec(format!(
                "{spec}: the device changed size since it was checked; refused"
            )));
        }
        Ok(Target {
            spec: spec.clone(),
            path: Some(path.to_path_buf()),
            kind: TargetType::Block,
            size,
            logical_block_size: lbs,
            buffer_align: (lbs as usize).max(4096),
            direct: true,
            writable: true,
            file: Some(file),
        })
    }

    /// Whether writes are allowed (test files drivescope created, and block devices opened
    /// through the destructive gate).
    pub fn writable(&self) -> bool {
        self.writable
    }

    /// The open file (None for the null target).
    pub fn file(&self) -> Option<&File> {
        self.file.as_ref()
    }

    pub fn info(&self) -> TargetInfo {
        TargetInfo {
            path: self
                .path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| self.spec.clone()),
            kind: self.kind,
            size: self.size,
            logical_block_size: self.logical_block_size,
        }
    }

    /// Where the kernel says whether this block device is still there: its sysfs directory,
    /// resolved now (a device that goes away takes it along). None for files and `null:`.
    pub fn gone_check(&self) -> crate::gone::GoneCheck {
        use std::os::unix::fs::MetadataExt;
        let sysfs = self
            .file
            .as_ref()
            .filter(|_| self.kind == TargetType::Block)
            .and_then(|f| f.metadata().ok())
            .and_then(|m| {
                let rdev = m.rdev();
                let link = format!("/sys/dev/block/{}:{}", libc::major(rdev), libc::minor(rdev));
                std::fs::canonicalize(link).ok()
            });
        crate::gone::GoneCheck { sysfs }
    }

    /// Kernel block-device name for sysfs look-ups (`loop3`, `zram0`), following symlinks.
    pub fn block_name(&self) -> Option<String> {
        if self.kind != TargetType::Block {
            return None;
        }
        let real = std::fs::canonicalize(self.path.as_ref()?).ok()?;
        Some(real.file_name()?.to_string_lossy().into_owned())
    }
}

/// Whether this process runs as root (effective user 0).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Why access was refused, true for who asks: to a user, the usual reason (device nodes belong
/// to root and the `disk` group); to root, file modes are not the reason, so name what can
/// refuse root.
pub fn denied_why(root: bool) -> &'static str {
    if root {
        "refused even to root: a security module (SELinux, AppArmor), an immutable file, kernel \
         lockdown, or a kernel that refuses to write to a mounted or exclusively held device"
    } else {
        "reading a device usually needs root or the 'disk' group"
    }
}

fn map_io(spec: &str, e: std::io::Error) -> TargetError {
    match e.kind() {
        std::io::ErrorKind::NotFound => TargetError::NotFound(spec.into()),
        std::io::ErrorKind::PermissionDenied => TargetError::PermissionDenied(spec.into()),
        _ => TargetError::Io {
            path: spec.into(),
            error: e,
        },
    }
}

fn block_geometry(file: &File) -> std::io::Result<(u64, u32)> {
    let fd = file.as_raw_fd();
    let mut size: u64 = 0;
    let mut lbs: libc::c_int = 0;
    // SAFETY: both ioctls write one value of the given type through the pointer.
    unsafe {
        if libc::ioctl(fd, BLKGETSIZE64 as _, &mut size as *mut u64) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::ioctl(fd, BLKSSZGET as _, &mut lbs as *mut libc::c_int) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok((size, lbs.max(512) as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_target() {
        let t = Target::open_read("null:4T").unwrap();
        assert_eq!(t.size, 4u64 << 40);
        assert_eq!(t.kind, TargetType::Null);
        assert!(Target::open_read("null:0").is_err());
        assert!(Target::open_read("null:abc").is_err());
    }

    #[test]
    fn permission_denied_says_what_is_true_for_who_asks() {
        // An EPERM as the kernel returns it, mapped as an open's error is.
        let e = map_io("/dev/x", std::io::Error::from_raw_os_error(libc::EPERM));
        let said = e.to_string();
        assert!(said.starts_with("/dev/x: permission denied ("), "{said}");
        if is_root() {
            assert!(!said.contains("needs root"), "{said}");
            assert!(said.contains("even to root"), "{said}");
        } else {
            assert!(said.contains("needs root or the 'disk' group"), "{said}");
        }
        assert!(!denied_why(true).contains("needs root"));
        assert!(denied_why(false).contains("'disk' group"));
    }

    #[test]
    fn errors_are_specific() {
        assert!(matches!(
            Target::open_read("/nonexistent/x"),
            Err(TargetError::NotFound(_))
        ));
        assert!(matches!(
            Target::open_read("/tmp"),
            Err(TargetError::IsDirectory(_))
        ));
    }
}
