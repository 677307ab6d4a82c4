//! drivescope exporters: every text, table and file drivescope writes about runs, behind one [`Exporter`]
//! trait with one file per format (see [`exporter`]): terminal text, JSON, CSV, Markdown, HTML with SVG
//! charts, PNG, and a scan's curve as CSV.
//!
//! Reports read run records (`"schema": "drivescope/1"`, see `docs/json.md`) and never touch a device.
//! Unknown kinds and fields are shown generically: every numeric top-level field becomes a row.

pub mod charts;
pub mod compare;
pub mod csv;
pub mod curve_csv;
mod doc;
mod evidence;
pub mod exporter;
pub mod failed_list;
pub mod fio_json;
mod format;
pub mod html;
pub mod json;
pub mod markdown;
pub mod metrics;
mod params;
pub mod png;
#[cfg(any(test, feature = "testing"))]
pub mod sample;
pub mod screen;
pub mod svg;
pub mod text;
mod time;

pub use doc::Run;
pub use exporter::Exporter;

/// Errors of the exporters.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("report template: {0}")]
    Template(#[from] minijinja::Error),
    #[error("csv: {0}")]
    Csv(#[from] ::csv::Error),
    #[error("no table {table:?} in this {kind} run (tables: {tables})")]
    NoTable {
        table: String,
        kind: String,
        tables: String,
    },
    #[error("{format} exports one run at a time, not {runs}")]
    OneRun { format: &'static str, runs: usize },
    #[error("a {kind} run has no transfer-rate curve (only scans do)")]
    NotScan { kind: String },
    #[error("no chart {chart:?} for these runs (charts: {charts})")]
    NoChart { chart: String, charts: String },
    #[error("{0}")]
    FioJson(#[from] fio_json::Unsupported),
    #[error("png: {0}")]
    Png(String),
    #[error("{0}: {1}")]
    Io(std::path::PathBuf, std::io::Error),
    #[error("{0}")]
    Write(#[from] std::io::Error),
}

pub type Result<T> = std::result::Result<T, Error>;
