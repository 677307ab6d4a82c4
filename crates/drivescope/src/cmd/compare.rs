//! `drivescope compare RUN RUN…`: runs side by side, best and worst of each row marked.

use crate::finish::Outcome;
use crate::opts::store::{load, StorePath};
use drivescope_report::html::Html;
use drivescope_report::markdown::Markdown;
use drivescope_report::text::Text;
use drivescope_report::Exporter;
use std::io::IsTerminal;

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

pub fn run(a: CompareArgs) -> anyhow::Result<Outcome> {
    let store = a.store.open()?;
    let runs = load(&store, &a.runs)?;
    let exporter: Box<dyn Exporter> = match a.format {
        CompareFormat::Text => Box::new(Text::Compare {
            color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }),
        CompareFormat::Md => Box::new(Markdown::Compare),
        CompareFormat::Html => Box::new(Html::Compare),
    };
    super::emit(exporter.as_ref(), &runs, None)?;
    if matches!(a.format, CompareFormat::Text) {
        let mut text = Vec::new();
        super::compare_prediction::print(&runs, &mut text)?;
        crate::finish::print_all(&text)?;
    }
    Ok(Outcome::Success)
}
