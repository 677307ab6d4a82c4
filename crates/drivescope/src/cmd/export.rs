//! `drivescope export RUN --format json|csv|md|fio-json`.

use crate::finish::Outcome;
use crate::opts::store::{load, StorePath};
use drivescope_report::csv::Csv;
use drivescope_report::fio_json::FioJson;
use drivescope_report::json::Json;
use drivescope_report::markdown::Markdown;
use drivescope_report::Exporter;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ExportFormat {
    /// The stored document (drivescope/1), unchanged.
    Json,
    /// One table of the run: by default the curve (scan), regions (quick scan), tests (bench), cells (sweep)
    /// or series (soak); --table picks another (slow, failed, failed_extents, untried_extents,
    /// slow_regions, bands, histogram.buckets, series).
    Csv,
    /// A Markdown summary: identity, parameters, results, slow and failed commands.
    Md,
    /// fio's --output-format=json+ shape (one job per bench test, sweep cell, soak or scan), for tools that
    /// read fio's results; see docs/json.md.
    FioJson,
}

#[derive(clap::Args)]
pub struct ExportArgs {
    /// Run number (see `drivescope runs`) or `last`.
    pub run: String,
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// CSV: the table to export (a field of the document holding a list, dotted for nested ones).
    #[arg(long)]
    pub table: Option<String>,
    /// Write to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub store: StorePath,
}

pub fn run(a: ExportArgs) -> anyhow::Result<Outcome> {
    let store = a.store.open()?;
    let runs = load(&store, std::slice::from_ref(&a.run))?;
    let exporter: Box<dyn Exporter> = match a.format {
        ExportFormat::Json => Box::new(Json),
        ExportFormat::Csv => Box::new(Csv { table: a.table }),
        ExportFormat::Md => Box::new(Markdown::Summary),
        ExportFormat::FioJson => Box::new(FioJson),
    };
    super::emit(exporter.as_ref(), &runs, a.output.as_deref())?;
    Ok(Outcome::Success)
}
