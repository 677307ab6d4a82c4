//! Several drives at once: the same scan on every target, each in its own thread with its own
//! engine (one io_uring per drive), and the shared-path reads (each drive alone, then all
//! together) that show whether a path the drives share caps their sum.
//!
//! A drive whose scan fails or whose device goes away ends on its own; the others go on. One
//! stop flag stops them all, each ending as an interrupted scan that can be resumed. With
//! [`GroupCheckpoints`], every drive's snapshots and result go to one writer as they come (see
//! [`checkpoint`]), so a group that is killed resumes too.

pub mod checkpoint;
pub mod group;
#[cfg(test)]
mod scripted_tests;
mod shared;

pub use checkpoint::GroupCheckpoints;

/// Why a drive of a group has no scan: its scan failed, or its thread could not run it. The words
/// are kept (a drive's end is held in the group's checkpoints, which need a copy).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DriveError {
    /// The scan failed: its error in words.
    #[error("{0}")]
    Scan(String),
    #[error("the drive's scan stopped on an internal error")]
    Panicked,
    #[error("could not start the drive's scan: {0}")]
    Start(String),
}
pub use shared::{shared_path, SharedOptions, SharedReads};

use crate::engine::{Engine, Live};
use crate::scan::{self, Progress, ScanConfig, ScanRecord};
use crate::target::Target;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// One drive of a group: its opened target and what to do on it.
pub struct Drive<'a> {
    pub target: &'a Target,
    pub cfg: ScanConfig,
    /// An interrupted scan of this drive to continue instead of starting over.
    pub prior: Option<&'a ScanRecord>,
    pub progress: Arc<Progress>,
}

/// The drives' own devices, for [`scan_all`].
pub fn live_devices<'a>(drives: &[Drive<'a>]) -> Vec<Live<'a>> {
    drives.iter().map(|d| Live(d.target)).collect()
}

/// Scan every drive at the same time, drive `i`'s commands run on `devs[i]` ([`live_devices`]
/// for the drives themselves; scripted devices in tests, the drives' targets then being null
/// targets of their sizes). One result per drive, in order: the scan's record, or why it could
/// not run (a scan that lost its device mid-run is a record, with `device_lost`). `ended(i,
/// result)` is called on drive `i`'s own thread as soon as its scan ends (while the others may
/// still run), so a display can tell a finished drive from a running one; each drive's
/// snapshots and its result also go to `checkpoints` (drive `i` of `drives` is the group's
/// drive `i`).
pub fn scan_all<E: Engine>(
    devs: &[E],
    drives: &[Drive],
    stop: &AtomicBool,
    ended: &(dyn Fn(usize, &Result<ScanRecord, DriveError>) + Sync),
    checkpoints: Option<&GroupCheckpoints>,
) -> Vec<Result<ScanRecord, DriveError>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = drives
            .iter()
            .zip(devs)
            .enumerate()
            .map(|(i, (d, dev))| {
                std::thread::Builder::new()
                    .name(format!("screen-{i}"))
                    .spawn_scoped(s, move || {
                        let snapshots = checkpoints.map(|c| c.drive(i));
                        let start = match d.prior {
                            Some(prior) => scan::Start::Resume(prior),
                            None => scan::Start::New(&d.cfg),
                        };
                        let observer = scan::Observer::counting(d.progress.clone(), stop)
                            .with_checkpoints(snapshots);
                        let r = scan::run(dev, d.target, start, observer);
                        let r = r.map_err(|e| DriveError::Scan(e.to_string()));
                        if let Some(c) = checkpoints {
                            c.ended(i, &r);
                        }
                        ended(i, &r);
                        r
                    })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().unwrap_or(Err(DriveError::Panicked)),
                Err(e) => Err(DriveError::Start(e.to_string())),
            })
            .collect()
    })
}
