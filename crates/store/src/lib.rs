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

mod backend;
mod copy;
mod error;
mod fault;
mod identity;
mod location;
pub mod migrations;
mod pg;
mod query;
mod row;
mod save;
mod sqlite;
mod typed;

pub use copy::{copy, Copied};
pub use error::{Error, Result};
pub use fault::{Fault, BUSY_TIMEOUT};
pub use location::Location;
pub use migrations::SCHEMA_VERSION;
pub use query::{ListFilter, RunInfo};
pub use typed::RunsOf;

use backend::Backend;
use std::cell::RefCell;
use std::path::PathBuf;

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
    backend: RefCell<Box<dyn Backend>>,
    location: Location,
}

impl Store {
    /// Opens the store at `location`, creating it when missing and upgrading an older store to the current
    /// schema. A path (`PathBuf`, `&Path`) is a SQLite file, created with its parent directory; text is read by
    /// [`Location::parse`]'s rule (a PostgreSQL connection string, else a path). A PostgreSQL database must
    /// exist; the store creates its tables in it.
    pub fn open(location: impl Into<Location>) -> Result<Store> {
        let location = location.into();
        let backend: Box<dyn Backend> = match &location {
            Location::Sqlite(path) => Box::new(sqlite::Sqlite::open(path)?),
            Location::Postgres(conn) => Box::new(pg::Postgres::open(conn)?),
        };
        Ok(Store {
            backend: backend.into(),
            location,
        })
    }

    /// Opens an existing store without changing it: nothing is created, no migration runs (a store
    /// of an older schema is refused, with how to upgrade it), and the connection itself refuses
    /// writes (SQLite opened read-only; a PostgreSQL session whose transactions are read-only).
    pub fn open_read_only(location: impl Into<Location>) -> Result<Store> {
        let location = location.into();
        let backend: Box<dyn Backend> = match &location {
            Location::Sqlite(path) => Box::new(sqlite::Sqlite::open_read_only(path)?),
            Location::Postgres(conn) => Box::new(pg::Postgres::open_read_only(conn)?),
        };
        let store = Store {
            backend: backend.into(),
            location,
        };
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
        self.backend.get_mut().refresh()
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
        self.backend.borrow_mut().schema_version()
    }
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
