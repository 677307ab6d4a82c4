//! `drivescope scan` (being built).

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ScanArgs {}

pub fn run(_args: ScanArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'scan' is not built yet")
}
