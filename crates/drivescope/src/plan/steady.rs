//! A steady-state run's plan: the device, the PTS test and its matrix, the cell time, the purge,
//! and where the record goes (or the stored run it continues).

use crate::opts::destructive::DestructiveOpts;
use crate::opts::store::StoreOpts;
use drivescope_core::steady::Matrix;
use drivescope_record::SteadyTest;
use std::path::PathBuf;
use std::time::Duration;

/// Devices at least this large run the full IOPS matrix by default; smaller ones the reduced.
pub const FULL_MATRIX_FROM: u64 = 64 << 30;

pub struct SteadyPlan {
    /// The device (empty with `--resume` until the stored run names it).
    pub target: String,
    pub test: SteadyTest,
    /// None: by the device's size.
    pub matrix: Option<Matrix>,
    pub cell_time: Duration,
    pub queue_depth: u32,
    pub threads: u32,
    pub no_purge: bool,
    /// Host idle recovery: bursts per wait state.
    pub bursts: u32,
    pub resume: Option<String>,
    pub gate: DestructiveOpts,
    pub store: StoreOpts,
    pub json: bool,
    /// Plain progress lines (or none, with --quiet) instead of the live view on a terminal.
    pub no_live: bool,
}

impl SteadyPlan {
    pub fn protected(&self) -> Vec<PathBuf> {
        self.store.protected()
    }

    /// The matrix for a device of `size` bytes.
    pub fn matrix_for(&self, size: u64) -> Matrix {
        self.matrix.unwrap_or(if size >= FULL_MATRIX_FROM {
            Matrix::Full
        } else {
            Matrix::Reduced
        })
    }

    /// The host idle recovery test's plan, for that test.
    pub fn idle_plan(&self) -> Option<drivescope_record::IdleRecovery> {
        (self.test == SteadyTest::HostIdleRecovery)
            .then(|| drivescope_core::steady::idle::plan(self.cell_time, self.bursts))
    }

    /// Where the run departs from the specification, one line each.
    pub fn not_conformant(&self, matrix: Matrix) -> Vec<String> {
        let mut out = Vec::new();
        if self.no_purge {
            out.push("no purge (--no-purge): the drive did not start fresh".to_string());
        }
        if self.cell_time < drivescope_core::steady::SPEC_CELL_TIME {
            out.push(format!(
                "--round-time {} per cell, shorter than the specification's 60 s",
                humantime::format_duration(self.cell_time)
            ));
        }
        if self.test == SteadyTest::HostIdleRecovery
            && self.bursts < drivescope_core::steady::idle::SPEC_CYCLES
        {
            out.push(format!(
                "--bursts {} per wait state, fewer than the specification's {}",
                self.bursts,
                drivescope_core::steady::idle::SPEC_CYCLES
            ));
        }
        if matrix != Matrix::Full
            && (self.test == SteadyTest::Iops
                || (self.test == SteadyTest::Latency && matrix == Matrix::Tracked))
        {
            out.push(format!(
                "a {} matrix: not every R/W mix × block size of the IOPS test",
                match matrix {
                    Matrix::Tracked => "tracked-cell-only",
                    _ => "reduced",
                }
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(no_purge: bool, secs: u64, test: SteadyTest, matrix: Option<Matrix>) -> SteadyPlan {
        SteadyPlan {
            target: "/dev/null".into(),
            test,
            matrix,
            cell_time: Duration::from_secs(secs),
            queue_depth: 32,
            threads: 1,
            no_purge,
            bursts: 360,
            resume: None,
            gate: DestructiveOpts::default(),
            store: StoreOpts::default(),
            json: false,
            no_live: false,
        }
    }

    #[test]
    fn each_departure_from_the_specification_is_named_and_a_conformant_run_has_none() {
        let full = plan(false, 60, SteadyTest::Iops, None);
        assert_eq!(full.matrix_for(FULL_MATRIX_FROM), Matrix::Full);
        assert_eq!(full.matrix_for(FULL_MATRIX_FROM - 1), Matrix::Reduced);
        assert!(full.not_conformant(Matrix::Full).is_empty());
        let short = plan(true, 2, SteadyTest::Iops, Some(Matrix::Tracked));
        let said = short.not_conformant(short.matrix_for(1 << 40));
        assert_eq!(said.len(), 3, "{said:?}");
        assert!(said[0].contains("--no-purge"));
        assert!(said[1].contains("--round-time 2s"));
        assert!(said[2].contains("tracked-cell-only"));
        // Write saturation has one cell by definition: no matrix to reduce.
        let wsat = plan(false, 60, SteadyTest::WriteSaturation, None);
        assert!(wsat.not_conformant(Matrix::Reduced).is_empty());
        // The latency test has six cells: only the tracked cell alone falls short.
        let lat = plan(false, 60, SteadyTest::Latency, None);
        assert!(lat.not_conformant(Matrix::Reduced).is_empty());
        assert_eq!(lat.not_conformant(Matrix::Tracked).len(), 1);
        assert!(lat.idle_plan().is_none());
        let mut hir = plan(false, 60, SteadyTest::HostIdleRecovery, None);
        assert!(hir.not_conformant(Matrix::Reduced).is_empty());
        let h = hir.idle_plan().unwrap();
        assert_eq!((h.burst_ns, h.idle_unit_ns), (5_000_000_000, 5_000_000_000));
        assert_eq!(h.baseline_ns, 1_800_000_000_000);
        assert_eq!(h.wait_states, [1, 2, 3, 5, 10]);
        hir.bursts = 4;
        let said = hir.not_conformant(Matrix::Reduced);
        assert!(
            said.len() == 1 && said[0].starts_with("--bursts 4"),
            "{said:?}"
        );
    }
}
