//! drivescope results store: every run document kept in an embedded SQLite database (the default), or in a
//! PostgreSQL database that many hosts write at once.
//!
//! The store keeps what a run produced and never computes: a run goes in as the JSON document its command
//! printed (`"schema": "drivescope/1"`) and comes back out unchanged. The identity of the run (kind, times,
//! host, tool version, target, device model/serial/firmware/capacity/transport) is copied into indexed
//! columns so runs can be listed and filtered without reading documents.
//!
//! Crash safety: [`Store::save`] writes a run in one transaction, so a process killed while saving leaves either
//! the whole run or none of it (SQLite runs in WAL mode with `synchronous=FULL`). On PostgreSQL, hosts saving at
//! once each get their own run numbers from the server; no save waits for another's.
//!
//! Which backend a store uses follows from its [`Location`]: a path is SQLite, a connection string PostgreSQL.
//! [`copy`] moves runs between any two stores.

mod copy;
mod error;
mod fault;
mod identity;
mod location;
pub mod migrations;
mod pg;
mod query;
mod save;
mod typed;

pub use copy::{copy, Copied};
pub use error::{Error, Result};
pub use fault::{Fault, BUSY_TIMEOUT};
pub use location::Location;
pub use migrations::SCHEMA_VERSION;
pub use query::{ListFilter, RunInfo};
pub use typed::RunsOf;

use rusqlite::Connection;
use std::path::{Path, PathBuf};

/// The number of a stored run (SQLite rowid, PostgreSQL `bigserial`; stable for the life of the store).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunId(pub i64);

impl std::fmt::Display for RunId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// An open results store.
pub struct Store {
    backend: Backend,
    location: Location,
}

/// The database behind a store.
pub(crate) enum Backend {
    Sqlite(Connection),
    Postgres(Box<std::cell::RefCell<postgres::Client>>),
}

impl Store {
    /// Opens the store at `location`, creating it when missing and upgrading an older store to the current
    /// schema. A path (`PathBuf`, `&Path`) is a SQLite file, created with its parent directory; text is read by
    /// [`Location::parse`]'s rule (a PostgreSQL connection string, else a path). A PostgreSQL database must
    /// exist; the store creates its tables in it.
    pub fn open(location: impl Into<Location>) -> Result<Store> {
        let location = location.into();
        let backend = match &location {
            Location::Sqlite(path) => Backend::Sqlite(open_sqlite(path)?),
            Location::Postgres(conn) => Backend::Postgres(Box::new(pg::open(conn)?.into())),
        };
        Ok(Store { backend, location })
    }

    /// Opens an existing store without changing it: nothing is created, no migration runs (a store
    /// of an older schema is refused, with how to upgrade it), and the connection itself refuses
    /// writes (SQLite opened read-only; a PostgreSQL session whose transactions are read-only).
    pub fn open_read_only(location: impl Into<Location>) -> Result<Store> {
        let location = location.into();
        let backend = match &location {
            Location::Sqlite(path) => Backend::Sqlite(open_sqlite_read_only(path)?),
            Location::Postgres(conn) => {
                Backend::Postgres(Box::new(pg::open_read_only(conn)?.into()))
            }
        };
        let store = Store { backend, location };
        let found = store.schema_version()?;
        if found > SCHEMA_VERSION {
            return Err(Error::TooNew {
                found,
                known: SCHEMA_VERSION,
            });
        }
        if found < SCHEMA_VERSION {
            return Err(Error::TooOld {
                at: store.location.to_string(),
                found,
                known: SCHEMA_VERSION,
            });
        }
        Ok(store)
    }

    /// Renews what a store opened with [`Store::open_read_only`] sees: a SQLite store read as a snapshot is opened
    /// again (a long reader, such as `serve`, calls it before each request). Other stores see every commit already.
    pub fn refresh(&mut self) -> Result<()> {
        if let (Backend::Sqlite(conn), Location::Sqlite(path)) = (&self.backend, &self.location) {
            if conn.is_readonly(rusqlite::MAIN_DB)? {
                self.backend = Backend::Sqlite(open_sqlite_read_only(path)?);
            }
        }
        Ok(())
    }

    /// `$XDG_DATA_HOME/drivescope/runs.sqlite`, else `~/.local/share/drivescope/runs.sqlite`.
    pub fn default_path() -> Result<PathBuf> {
        default_path_from(
            std::env::var_os("XDG_DATA_HOME").map(PathBuf::from),
            std::env::var_os("HOME").map(PathBuf::from),
        )
    }

    /// Where this store lives.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The schema version of the open store (always [`SCHEMA_VERSION`] after [`Store::open`]).
    pub fn schema_version(&self) -> Result<i64> {
        match &self.backend {
            Backend::Sqlite(conn) => Ok(conn.query_row("PRAGMA user_version", [], |r| r.get(0))?),
            Backend::Postgres(c) => pg::schema_version(&mut c.borrow_mut()),
        }
    }
}

/// A SQLite store opened for reading creates no file and changes none. While a writer has the store open (its
/// `-wal` file exists) the connection is `mode=ro` and sees every commit; otherwise the whole store is in its main
/// file and is opened `immutable` (SQLite then needs neither a `-shm` file nor a writable directory), a snapshot
/// that [`Store::refresh`] renews.
fn open_sqlite_read_only(path: &Path) -> Result<Connection> {
    use rusqlite::OpenFlags;
    if !path.is_file() {
        return Err(Error::Io(
            path.to_path_buf(),
            std::io::Error::new(std::io::ErrorKind::NotFound, "no store there"),
        ));
    }
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let mode = if Path::new(&wal).exists() {
        "mode=ro"
    } else {
        "immutable=1"
    };
    let uri = format!("{}?{mode}", file_uri(path));
    let conn = Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.execute_batch("PRAGMA query_only=ON;")?;
    Ok(conn)
}

/// `path` as an SQLite `file:` URI: absolute, with the characters a URI gives meaning to escaped.
fn file_uri(path: &Path) -> String {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file:");
    for b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'%' | b'?' | b'#' | b'&' | b'=' | b'+' | b' ' => uri.push_str(&format!("%{b:02X}")),
            _ if b.is_ascii_graphic() => uri.push(*b as char),
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri
}

fn open_sqlite(path: &Path) -> Result<Connection> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::Io(dir.to_path_buf(), e))?;
    }
    let mut conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // WAL: readers never block the writer and a killed writer leaves the last committed state.
    let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Error::Unsupported(format!(
            "journal_mode WAL refused (got {mode})"
        )));
    }
    conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")?;
    migrations::migrate(&mut conn)?;
    Ok(conn)
}

fn default_path_from(xdg_data_home: Option<PathBuf>, home: Option<PathBuf>) -> Result<PathBuf> {
    // The XDG base directory spec says a relative $XDG_DATA_HOME is invalid and must be ignored.
    let base = match (xdg_data_home.filter(|p| p.is_absolute()), home) {
        (Some(x), _) => x,
        (None, Some(h)) if !h.as_os_str().is_empty() => h.join(".local/share"),
        _ => return Err(Error::NoDataDir),
    };
    Ok(base.join("drivescope").join("runs.sqlite"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_path_follows_xdg() {
        let p = default_path_from(Some("/x/data".into()), Some("/home/u".into())).unwrap();
        assert_eq!(p, PathBuf::from("/x/data/drivescope/runs.sqlite"));
        let p = default_path_from(None, Some("/home/u".into())).unwrap();
        assert_eq!(
            p,
            PathBuf::from("/home/u/.local/share/drivescope/runs.sqlite")
        );
        let p = default_path_from(Some("relative".into()), Some("/home/u".into())).unwrap();
        assert_eq!(
            p,
            PathBuf::from("/home/u/.local/share/drivescope/runs.sqlite")
        );
        assert!(default_path_from(None, None).is_err());
    }
}
