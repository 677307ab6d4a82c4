//! Errors of the results store.

use std::path::PathBuf;

pub type Result<T> = std::result::Result<T, Error>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// SQLite's words once: not chained as a source, whose own source repeats them
    /// (`file is not a database: Error code 26: file is not a database`).
    #[error("store: {0}")]
    Sqlite(rusqlite::Error),
    /// PostgreSQL's words, with the server's message when there is one (`db error: ERROR: …`).
    #[error("store: {}", postgres_words(.0))]
    Postgres(postgres::Error),
    #[error("store: {0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("store: no data directory: neither XDG_DATA_HOME nor HOME is set (use --store PATH)")]
    NoDataDir,
    #[error("store: not a drivescope run document: {0}")]
    BadDocument(String),
    #[error("store: run {0} not found")]
    NotFound(i64),
    #[error("store: run {0} is damaged: {1}")]
    Corrupt(i64, String),
    #[error("store: schema version {found} is newer than this drivescope knows ({known}); upgrade drivescope")]
    TooNew { found: i64, known: i64 },
    /// A store of an older schema, opened without the right to upgrade it.
    #[error("store: {at} has schema version {found}, older than this drivescope's {known}; upgrade it by opening it once for writing (e.g. `drivescope runs --store …` where it may be written)")]
    TooOld { at: String, found: i64, known: i64 },
    #[error("store: {0}")]
    Unsupported(String),
    /// `last` asked of a store that holds no runs (of the kind asked for, when one was).
    #[error("the store holds no {}runs yet", .0.as_ref().map(|k| format!("{k} ")).unwrap_or_default())]
    NoRuns(Option<drivescope_record::Kind>),
    /// A run named by something that is neither its number nor `last`.
    #[error("{0:?} is not a run number (see `drivescope runs`) or `last`")]
    NotARunName(String, #[source] std::num::ParseIntError),
    /// The TLS set-up for a PostgreSQL connection (its root certificates).
    #[error("store: TLS: {0}")]
    Tls(String),
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        Error::Sqlite(e)
    }
}

impl From<postgres::Error> for Error {
    fn from(e: postgres::Error) -> Error {
        Error::Postgres(e)
    }
}

/// The error and its causes in one line (the postgres crate keeps the server's message in the source).
pub(crate) fn postgres_words(e: &postgres::Error) -> String {
    let mut words = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let more = s.to_string();
        if !words.contains(&more) {
            words += ": ";
            words += &more;
        }
        source = s.source();
    }
    words.replace('\n', " ")
}
