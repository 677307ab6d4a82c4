//! Why a target could not be described.

use std::path::PathBuf;

pub type Result<T> = std::result::Result<T, ProbeError>;

/// Why [`identify`](crate::identify) or a device listing failed. Each message is whole: the
/// system's error is part of the words, not a source chained under them, so they read the same
/// however they are printed (as the store's errors do).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("sysfs root {}: {error}", path.display())]
    SysfsRoot {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}: not a sysfs block directory", .0.display())]
    NotBlockDirectory(PathBuf),
    #[error("{}: block device {major}:{minor} is not in {}", target.display(), sys.display())]
    NotInSysfs {
        target: PathBuf,
        major: u32,
        minor: u32,
        sys: PathBuf,
    },
    #[error("{}: not a block device, file or directory", .0.display())]
    NotADevice(PathBuf),
    /// The target could not be read (missing, no permission).
    #[error("{}: {error}", path.display())]
    Unreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{0}: the device stack is deeper than 32 — a loop in sysfs?")]
    TooDeep(String),
    #[error("no block device {name} in {}: {error}", dir.display())]
    NoBlockDevice {
        name: String,
        dir: PathBuf,
        error: std::io::Error,
    },
}
