//! A soak's plan: one test sustained for a duration, its series at an interval, or a stopped soak to
//! continue.

use crate::opts::args::Every;
use crate::opts::workload::WorkloadArgs;
use drivescope_core::bench::{Common, Rw, SoakOptions, TestSpec};
use std::time::Duration;

pub struct SoakPlan {
    pub w: WorkloadArgs,
    pub test: TestSpec,
    pub rw: Rw,
    pub duration: Duration,
    pub interval: Duration,
    /// Relative change of the rate that counts as a step (0.2 = 20 %).
    pub step_threshold: f64,
    /// The stored soak to continue (a run number or `last`); its own settings replace these.
    pub resume: Option<String>,
    pub checkpoint: Every,
    /// Under an MPI launcher: every rank's run ends when the first rank's does.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub stonewall: bool,
}

impl SoakPlan {
    /// The soak's settings over an opened target.
    pub fn options(&self, common: Common) -> SoakOptions {
        SoakOptions {
            common,
            test: self.test,
            rw: self.rw,
            duration: self.duration,
            interval: self.interval,
            step_threshold: self.step_threshold,
        }
    }
}
