//! `drivescope show RUN`: one stored run, printed as the command printed it when it ran.

use super::store_opts::{load, StorePath};
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
    let run = load(&store, std::slice::from_ref(&a.run))?.remove(0);
    if a.json {
        println!("{}", drivescope_report::export::json(&run));
        return Ok(ExitCode::SUCCESS);
    }
    // Scans print with the scan command's own summary; other kinds (and documents it cannot read) generically.
    let scan = matches!(run.kind(), "scan" | "quick_scan")
        .then(|| serde_json::from_value::<drivescope_core::scan::ScanRecord>(run.doc.clone()).ok())
        .flatten();
    match scan {
        Some(rec) => {
            println!("{} · {} · {}", run.label(), run.kind(), run.device());
            crate::summary::print_scan(&rec, &mut std::io::stdout())?;
        }
        None => print!("{}", drivescope_report::text::show(&run)),
    }
    Ok(ExitCode::SUCCESS)
}
