//! Runs under an MPI launcher (`mpirun`, `srun`): several ranks measure at once, lined up by
//! barriers, and rank 0 prints and stores one record (see docs/scale.md). Only built with the
//! `mpi` feature; the merging itself is pure code in drivescope-analysis.

pub mod bench;
mod drive;
mod gate;
pub mod scan;
pub mod soak;
pub mod sweep;

use std::time::{SystemTime, UNIX_EPOCH};

/// Whether this process was started by an MPI launcher (Open MPI, MPICH/Hydra, PMIx, Slurm's
/// PMI): a plain launch runs as a single process, as without the feature.
pub fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// The common clock of the ranks: CLOCK_REALTIME in ns since the Unix epoch.
pub fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The terminal summary of a multi-rank run, and its findings.
pub fn text_multi(
    r: &drivescope_record::MultiRecord,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    drivescope_report::text::print_multi(r, out)?;
    drivescope_report::text::print_findings(&r.header.findings, out)
}
