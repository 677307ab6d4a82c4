//! Why a measurement could not be made (as opposed to the command failing, which is a result).

use std::path::PathBuf;

/// Each message is whole: the system's error is part of the words, not a source chained under
/// them, so they read the same however they are printed.
#[derive(Debug, thiserror::Error)]
pub enum TimerError {
    #[error("no command to run")]
    NoCommand,
    #[error("cannot run {prog:?}: {error}")]
    Spawn { prog: String, error: std::io::Error },
    #[error("waiting for the command: {0}")]
    Wait(std::io::Error),
    /// Cold runs were asked for where the page cache cannot be dropped: why.
    #[error("{0}")]
    CannotDropCaches(String),
    #[error("writing /proc/sys/vm/drop_caches: {0}")]
    DropCaches(std::io::Error),
    #[error("reading /proc/diskstats: {0}")]
    Diskstats(std::io::Error),
    /// The run's own cgroup's `io.stat` could not be read.
    #[error("{0}")]
    CgroupStat(std::io::Error),
}

/// Why no cgroup of its own could be made for the command (then the devices' counters are used).
#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    #[error("no cgroup v2 hierarchy is mounted")]
    NotMounted,
    #[error("this process is in no cgroup v2")]
    NotInCgroup,
    #[error("cannot make a cgroup under {}: {error}", parent.display())]
    Create {
        parent: PathBuf,
        error: std::io::Error,
    },
    #[error("the io controller is not enabled for the children of {}", .0.display())]
    NoIoController(PathBuf),
    #[error("cannot open {}/cgroup.procs: {error}", dir.display())]
    Procs { dir: PathBuf, error: std::io::Error },
}
