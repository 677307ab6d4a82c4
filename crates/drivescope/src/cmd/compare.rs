//! `drivescope compare RUN RUN…`: runs side by side, best and worst of each row marked.

use super::store_opts::{load, StorePath};
use drivescope_report::compare::Table;
use std::io::IsTerminal;
use std::process::ExitCode;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum CompareFormat {
    /// Aligned text; colour on a terminal (best green, worst red), ▲/▼ otherwise.
    Text,
    /// Markdown table: best bold with ▲, worst with ▼.
    Md,
    /// HTML table fragment (class best/worst).
    Html,
}

#[derive(clap::Args)]
pub struct CompareArgs {
    /// Run numbers (see `drivescope runs`) or `last`; one column each, in this order.
    #[arg(required = true, num_args = 1..)]
    pub runs: Vec<String>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: CompareFormat,
    #[command(flatten)]
    pub store: StorePath,
}

pub fn run(a: CompareArgs) -> anyhow::Result<ExitCode> {
    let store = a.store.open()?;
    let table = Table::new(&load(&store, &a.runs)?);
    match a.format {
        CompareFormat::Text => {
            let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            print!("{}", table.to_terminal(color));
        }
        CompareFormat::Md => print!("{}", table.to_markdown()),
        CompareFormat::Html => print!("{}", table.to_html()?),
    }
    Ok(ExitCode::SUCCESS)
}
