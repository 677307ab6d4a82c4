//! `drivescope info` (placeholder until its issue lands).

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct InfoArgs {}

pub fn run(_args: InfoArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'info' is not built yet")
}
