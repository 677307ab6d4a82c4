//! A bench's plan: the tests and rw modes to run, and how long.

use crate::opts::workload::WorkloadArgs;
use drivescope_core::bench::{BenchOptions, Common, Rw, TestSpec};
use std::time::Duration;

pub struct BenchPlan {
    pub w: WorkloadArgs,
    /// The profile's name, or `custom` for tests given one by one.
    pub profile: String,
    pub tests: Vec<TestSpec>,
    pub rws: Vec<Rw>,
    pub runs: u32,
    pub duration: Duration,
    pub pause: Duration,
    /// Under an MPI launcher: every rank's run ends when the first rank's does.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub stonewall: bool,
}

impl BenchPlan {
    /// The bench's settings over an opened target.
    pub fn options(&self, common: Common) -> BenchOptions {
        BenchOptions {
            common,
            profile: self.profile.clone(),
            tests: self.tests.clone(),
            rws: self.rws.clone(),
            runs: self.runs,
            duration: self.duration,
            pause: self.pause,
        }
    }

    /// How long the bench takes by its settings: each test in each mode a preparing run and the
    /// measured ones, pauses between.
    pub fn planned(&self) -> Duration {
        let count = (self.tests.len() * self.rws.len()) as u32;
        self.duration * (self.runs + 1) * count + self.pause * count.saturating_sub(1)
    }
}
