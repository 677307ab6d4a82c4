//! A capacity probe's plan: the device, the probe's block and flush sizes, where the overwritten
//! data is saved (none with `--destructive`), and where the record goes.

use crate::opts::destructive::DestructiveOpts;
use crate::opts::store::StoreOpts;
use drivescope_core::capacity::ProbeConfig;
use std::path::PathBuf;

pub struct CapacityPlan {
    pub target: String,
    pub cfg: ProbeConfig,
    /// The backup journal (None: `--destructive`, nothing saved).
    pub backup: Option<PathBuf>,
    /// The user named the backup (`--backup`): it is kept after a restore.
    pub backup_named: bool,
    /// The gate's side: confirmation and `--force` (a probe that keeps the data passes a
    /// file-system signature, since it leaves it as it was).
    pub gate: DestructiveOpts,
    pub store: StoreOpts,
    pub json: bool,
}

impl CapacityPlan {
    /// Paths whose file system must not be on the device: the store and the backup.
    pub fn protected(&self) -> Vec<PathBuf> {
        let mut p = self.store.protected();
        p.extend(self.backup.clone());
        p
    }
}
