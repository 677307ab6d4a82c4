//! The PostgreSQL backend: the same tables, migrations, saves and queries as the SQLite one, the documents in
//! `jsonb`.
//!
//! Connections: see [`connect`] (passwords from the string, PGPASSWORD or the password file; TLS over TCP with the
//! server's certificate verified). Every save is one transaction and takes its run number from the server's
//! sequence, so any number of hosts can save at once.

mod connect;
mod migrations;
mod query;
pub(crate) mod save;

pub use migrations::MIGRATIONS;
pub(crate) use query::{count, get_json, info, list};
pub(crate) use save::{replace, save};

use crate::error::Result;
use postgres::Client;

/// Connects to the database named by `conn` (a URI or a libpq keyword/value string) and brings its
/// schema up to date.
pub(crate) fn open(conn: &str) -> Result<Client> {
    let mut client = connect::connect(conn)?;
    migrations::migrate(&mut client)?;
    Ok(client)
}

/// Connects to the database named by `conn` for reading only: every transaction of the session is
/// read-only, and the schema is left as it is.
pub(crate) fn open_read_only(conn: &str) -> Result<Client> {
    let mut client = connect::connect(conn)?;
    client.batch_execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")?;
    Ok(client)
}

pub(crate) fn schema_version(client: &mut Client) -> Result<i64> {
    migrations::version(client)
}
