//! A scan's plan: its settings (range, block size, queue depth, curve, slow threshold, error budget,
//! write and verify) checked once, and where its results go.

use crate::opts::args::Every;
use crate::opts::destructive::DestructiveOpts;
use crate::opts::store::StoreOpts;
use drivescope_core::scan::ScanConfig;
use std::path::PathBuf;

pub struct ScanPlan {
    /// The device, file or null:SIZE (none with a resume: the resumed run's own).
    pub target: Option<String>,
    pub cfg: ScanConfig,
    /// The stored scan to continue (a run number or `last`); its own settings replace `cfg`.
    pub resume: Option<String>,
    pub checkpoint: Every,
    pub curve_csv: Option<PathBuf>,
    pub failed_list: Option<PathBuf>,
    pub destructive: DestructiveOpts,
    pub store: StoreOpts,
    pub json: bool,
    pub quiet: bool,
    pub no_live: bool,
}

impl ScanPlan {
    /// The full-screen live view: a scan with stdout and stderr both on a terminal, unless
    /// --no-live, --quiet or --json.
    pub fn live_wanted(&self) -> bool {
        use std::io::IsTerminal;
        !(self.no_live || self.quiet || self.json)
            && std::io::stdout().is_terminal()
            && std::io::stderr().is_terminal()
    }
}
