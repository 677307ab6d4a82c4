//! `drivescope lab` (placeholder until its issue lands).

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct LabArgs {}

pub fn run(_args: LabArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'lab' is not built yet")
}
