//! `drivescope show RUN`: one stored run, printed as the command printed it when it ran.

use super::store_opts::{load, StorePath};
use drivescope_record::Document;
use drivescope_report::text;
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
    // Each kind prints with its command's own summary; documents it cannot read, generically.
    let mut out = std::io::stdout();
    let printed = match &run.doc {
        Document::Scan(r) => Some(text::print_scan(r, &mut out)),
        Document::Bench(r) => Some(text::print_bench(r, &mut out)),
        Document::Sweep(r) => Some(text::print_sweep(r, &mut out)),
        Document::Soak(r) => Some(text::print_soak(r, &mut out)),
        Document::Info(_) | Document::Unknown { .. } => None,
    };
    match printed {
        Some(result) => {
            result?;
            println!("({} · {} · {})", run.label(), run.kind(), run.device());
        }
        None => print!("{}", text::show(&run)),
    }
    Ok(ExitCode::SUCCESS)
}
