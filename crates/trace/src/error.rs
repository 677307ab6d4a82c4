//! Why a block trace could not be taken. Each message is one whole line: the system's error is part of the
//! words, so it reads the same however it is printed.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("tracing block requests needs root (the kernel's tracefs is root's)")]
    NotRoot,
    #[error("tracefs is not mounted at {} and cannot be mounted there: {error}", path.display())]
    NoTracefs {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("the tracing instance {} is busy (another trace of this process, or one left behind): {error}", path.display())]
    InstanceBusy {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(
        "the kernel has no block:{event} trace event (it needs CONFIG_BLK_DEV and tracepoints)"
    )]
    EventMissing { event: &'static str },
    #[error("the trace event block:{event} has a format drivescope does not read: {why}")]
    EventFormat { event: &'static str, why: String },
    #[error("{}: {error}", path.display())]
    Tracefs {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("no device to trace")]
    NoDevices,
    #[error("{name} is not a block device drivescope can trace: {why}")]
    NotABlockDevice { name: String, why: String },
    #[error("the traced device {name} went away during the run ({why}): its trace is incomplete")]
    DeviceGone { name: String, why: String },
    #[error("the trace reader stopped: {0}")]
    Reader(String),
}
