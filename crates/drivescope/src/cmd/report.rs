//! `drivescope report RUN… -o report.html [--png DIR]`: one self-contained HTML page with SVG charts.

use crate::finish::Outcome;
use crate::opts::store::{load, StorePath};
use drivescope_report::html::Html;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ReportArgs {
    /// Run numbers (see `drivescope runs`) or `last`; scans are overlaid in one transfer-rate chart.
    #[arg(required = true, num_args = 1..)]
    pub runs: Vec<String>,
    /// The HTML file to write (no scripts, fonts or network: open it anywhere, print it).
    #[arg(short, long, value_name = "FILE", default_value = "report.html")]
    pub output: PathBuf,
    /// Also write every chart as PNG into DIR (rendered with an embedded font).
    #[arg(long, value_name = "DIR")]
    pub png: Option<PathBuf>,
    /// Page title.
    #[arg(long, default_value = "drivescope report")]
    pub title: String,
    #[command(flatten)]
    pub store: StorePath,
}

pub fn run(a: ReportArgs) -> anyhow::Result<Outcome> {
    let store = a.store.open()?;
    let runs = load(&store, &a.runs)?;
    let page = Html::Page {
        title: a.title.clone(),
    };
    super::emit(&page, &runs, Some(&a.output))?;
    eprintln!(
        "drivescope: wrote {} ({})",
        a.output.display(),
        drivescope_units::count(
            drivescope_report::charts::build(&runs).len() as u64,
            "chart"
        )
    );
    if let Some(dir) = &a.png {
        let files = drivescope_report::png::write_runs(&runs, dir)?;
        eprintln!(
            "drivescope: wrote {} PNG charts in {}",
            files.len(),
            dir.display()
        );
    }
    Ok(Outcome::Success)
}
