//! `drivescope report RUN… -o report.html [--png DIR]`: one self-contained HTML page with SVG charts.

use super::store_opts::{load, StorePath};
use anyhow::Context;
use std::path::PathBuf;
use std::process::ExitCode;

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

pub fn run(a: ReportArgs) -> anyhow::Result<ExitCode> {
    let store = a.store.open()?;
    let runs = load(&store, &a.runs)?;
    let (html, charts) = drivescope_report::page::render(&runs, &a.title)?;
    std::fs::write(&a.output, html).with_context(|| format!("writing {}", a.output.display()))?;
    eprintln!(
        "drivescope: wrote {} ({} charts)",
        a.output.display(),
        charts.len()
    );
    if let Some(dir) = &a.png {
        let files = drivescope_report::png::write_all(&charts, dir)?;
        eprintln!(
            "drivescope: wrote {} PNG charts in {}",
            files.len(),
            dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
