//! Counterfeit capacity: find how much of a drive keeps its data, keeping the data it holds.
//!
//! [`probe::probe`] measures what the device's commands cost ([`measure`]), chooses where to
//! write from that ([`plan`]), writes stamped blocks there and reads them back ([`probe`] says
//! which and why); [`journal`] saves what each write overwrites first and puts it back; [`run`]
//! does both: probe, then restore, also when the probe stopped early or failed.

pub mod device;
pub mod journal;
mod measure;
pub mod plan;
pub mod probe;

pub use device::{BlockDevice, FileDevice};
pub use journal::{Journal, JournalError, JournalHeader, Restored};
pub use plan::{Costs, Plan};
pub use probe::{Outcome, ProbeConfig, ProbeError};

use std::path::Path;
use std::sync::atomic::AtomicBool;

/// Why a capacity run failed.
#[derive(Debug, thiserror::Error)]
pub enum CapacityError {
    #[error(transparent)]
    Probe(#[from] ProbeError),
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error("putting the saved data back: {0}; run `drivescope capacity --restore {1}` again")]
    Restore(std::io::Error, String),
    #[error("the journal {0} was made on {1} ({2} bytes); this device is {3} bytes")]
    OtherDevice(String, String, u64, u64),
}

/// A probe and its restore.
#[derive(Debug)]
pub struct Run {
    pub outcome: Outcome,
    /// None with no backup (`--destructive`).
    pub restored: Option<Restored>,
}

/// Probe `dev`; with `backup`, save every overwritten block in a new journal there first and
/// restore them all at the end (also when the probe stops early or fails), then mark the
/// journal restored.
pub fn run(
    dev: &mut dyn BlockDevice,
    cfg: ProbeConfig,
    backup: Option<(&Path, &JournalHeader)>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(String),
) -> Result<Run, CapacityError> {
    let Some((path, header)) = backup else {
        let outcome = probe::probe(dev, cfg, None, stop, progress)?;
        return Ok(Run {
            outcome,
            restored: None,
        });
    };
    let mut journal = Journal::create(path, header)?;
    let probed = probe::probe(dev, cfg, Some(&mut journal), stop, progress);
    drop(journal);
    progress("putting the saved data back".into());
    let restored = restore_file(dev, path)?;
    Ok(Run {
        outcome: probed?,
        restored: Some(restored),
    })
}

/// Put back what the journal at `path` saved, newest first, check it, and mark it restored.
pub fn restore_file(dev: &mut dyn BlockDevice, path: &Path) -> Result<Restored, CapacityError> {
    let saved = journal::read(path)?;
    if saved.header.size != dev.size() {
        return Err(CapacityError::OtherDevice(
            path.display().to_string(),
            saved.header.device,
            saved.header.size,
            dev.size(),
        ));
    }
    let r = journal::restore(dev, &saved.entries)
        .map_err(|e| CapacityError::Restore(e, path.display().to_string()))?;
    journal::mark_restored(path, saved.end)?;
    Ok(r)
}

#[cfg(test)]
mod tests;
