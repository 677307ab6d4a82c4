//! A sweep's plan: the pattern, the rw mode and the grid of queue depths and threads.

use crate::opts::workload::WorkloadArgs;
use drivescope_core::bench::{Common, Rw, SweepOptions, TestSpec};
use std::time::Duration;

pub struct SweepPlan {
    pub w: WorkloadArgs,
    pub pattern: TestSpec,
    pub rw: Rw,
    pub qds: Vec<u32>,
    pub threads: Vec<u32>,
    pub duration: Duration,
    /// Under an MPI launcher: every rank's cell ends when the first rank's does.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub stonewall: bool,
}

impl SweepPlan {
    /// The sweep's settings over an opened target.
    pub fn options(&self, common: Common) -> SweepOptions {
        SweepOptions {
            common,
            access: self.pattern.access,
            block_size: self.pattern.block_size,
            rw: self.rw,
            qds: self.qds.clone(),
            threads: self.threads.clone(),
            duration: self.duration,
        }
    }

    /// How long the sweep takes by its settings: a warm-up of at most a second, then every cell.
    pub fn planned(&self) -> Duration {
        self.duration.min(Duration::from_secs(1))
            + self.duration * (self.qds.len() * self.threads.len()) as u32
    }
}
