//! drivescope exporters: compare tables (terminal, Markdown, HTML), run text, CSV/Markdown export, a
//! self-contained HTML report with SVG charts, and the same charts as PNG.
//!
//! Reports read run documents (`"schema": "drivescope/1"`, see `docs/json.md`) and never touch a device.
//! Unknown kinds and fields are shown generically: every numeric top-level field becomes a row.

pub mod charts;
pub mod compare;
pub mod curve_csv;
mod doc;
pub mod export;
mod format;
pub mod metrics;
pub mod page;
pub mod png;
pub mod sample;
pub mod svg;
pub mod text;

pub use doc::Run;

/// Errors of the exporters.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("report template: {0}")]
    Template(#[from] minijinja::Error),
    #[error("csv: {0}")]
    Csv(#[from] csv::Error),
    #[error("no table {table:?} in this {kind} run (tables: {tables})")]
    NoTable {
        table: String,
        kind: String,
        tables: String,
    },
    #[error("png: {0}")]
    Png(String),
    #[error("{0}: {1}")]
    Io(std::path::PathBuf, std::io::Error),
}

pub type Result<T> = std::result::Result<T, Error>;
