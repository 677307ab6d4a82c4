//! `drivescope show RUN`: one stored run, printed as the command printed it when it ran.

use crate::opts::store::{load, StorePath};
use drivescope_report::json::Json;
use drivescope_report::text::Text;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ShowArgs {
    /// Run number (see `drivescope runs`) or `last`.
    pub run: String,
    /// Print the stored JSON document instead.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StorePath,
}

pub fn run(a: ShowArgs) -> anyhow::Result<ExitCode> {
    let store = a.store.open()?;
    let runs = load(&store, std::slice::from_ref(&a.run))?;
    if a.json {
        super::emit(&Json, &runs, None)?;
    } else {
        // Each kind prints with its command's own summary; documents it cannot read, generically.
        super::emit(&Text::Summary, &runs, None)?;
    }
    Ok(ExitCode::SUCCESS)
}
