//! The SQLite backend: one file, WAL mode, documents as JSON text or deflated JSON.

use crate::backend::{Backend, Exec, Row, Stored, Val};
use crate::error::{Error, Result};
use crate::query::ListFilter;
use crate::{migrations, BUSY_TIMEOUT};
use rusqlite::types::{ToSqlOutput, Type, ValueRef};
use rusqlite::Connection;
use std::path::{Path, PathBuf};

/// Documents smaller than this are stored as plain JSON text (readable with the sqlite3 shell); larger ones
/// are deflated, which keeps a run with a long time series or full slow/failed lists small.
const COMPRESS_FROM: usize = 16 * 1024;

/// A SQLite store and where its file is.
pub(crate) struct Sqlite {
    conn: Connection,
    path: PathBuf,
}

impl Sqlite {
    /// Opens (creating when missing, with its directory) and upgrades the store at `path`.
    pub(crate) fn open(path: &Path) -> Result<Sqlite> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Error::Io(dir.to_path_buf(), e))?;
        }
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // WAL: readers never block the writer and a killed writer leaves the last committed state.
        let mode = wal_mode(&conn)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::Unsupported(format!(
                "journal_mode WAL refused (got {mode})"
            )));
        }
        conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")?;
        migrations::migrate(&mut conn)?;
        Ok(Sqlite {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Opens the store at `path` for reading (see [`open_read_only`]).
    pub(crate) fn open_read_only(path: &Path) -> Result<Sqlite> {
        Ok(Sqlite {
            conn: open_read_only(path)?,
            path: path.to_path_buf(),
        })
    }
}

/// Switches the store to WAL mode and returns the mode SQLite reports. SQLite answers "database is locked" at
/// once, without its busy handler, when another connection takes a lock while a new store's file changes mode
/// (processes opening a store that does not exist yet, all at once), so the switch is tried again until
/// [`BUSY_TIMEOUT`].
fn wal_mode(conn: &Connection) -> Result<String> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)) {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return Ok(other?),
        }
    }
}

/// A SQLite store opened for reading creates no file and changes none. While a writer has the store open (its
/// `-wal` file exists) the connection is `mode=ro` and sees every commit; otherwise the whole store is in its main
/// file and is opened `immutable` (SQLite then needs neither a `-shm` file nor a writable directory), a snapshot
/// that [`crate::Store::refresh`] renews.
fn open_read_only(path: &Path) -> Result<Connection> {
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

/// The stored form of a document: its encoding name and body.
pub(crate) fn encode(json: &[u8], level: u8) -> (&'static str, Vec<u8>) {
    if json.len() >= COMPRESS_FROM {
        (
            "json+deflate",
            miniz_oxide::deflate::compress_to_vec(json, level),
        )
    } else {
        ("json", json.to_vec())
    }
}

impl rusqlite::ToSql for Val {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Val::Null => ValueRef::Null,
            Val::Int(n) => ValueRef::Integer(*n),
            Val::Text(s) => ValueRef::Text(s.as_bytes()),
            Val::Bytes(b) => ValueRef::Blob(b),
        }))
    }
}

/// `sql` with PostgreSQL's placeholders (`$1`) as SQLite's (`?1`).
fn placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            out.push('?');
        } else {
            out.push(c);
        }
    }
    out
}

/// Statements on a SQLite connection (or a transaction, which is one).
pub(crate) struct Lite<'c>(pub &'c Connection);

impl Exec for Lite<'_> {
    fn execute(&mut self, sql: &str, args: &[Val]) -> Result<u64> {
        let n = self
            .0
            .execute(&placeholders(sql), rusqlite::params_from_iter(args))?;
        Ok(n as u64)
    }

    fn query(&mut self, sql: &str, args: &[Val]) -> Result<Vec<Row>> {
        let mut stmt = self.0.prepare(&placeholders(sql))?;
        let names: Vec<String> = stmt.column_names().map(String::from).collect();
        let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let row = (0..names.len())
                .map(|i| value(r, i, &names[i]))
                .collect::<rusqlite::Result<Row>>()?;
            out.push(row);
        }
        Ok(out)
    }
}

/// Column `i` of `r` as a [`Val`]; a float is no column of the store's, and reads as SQLite's type error.
fn value(r: &rusqlite::Row<'_>, i: usize, name: &str) -> rusqlite::Result<Val> {
    Ok(match r.get_ref(i)? {
        ValueRef::Null => Val::Null,
        ValueRef::Integer(n) => Val::Int(n),
        ValueRef::Text(t) => Val::Text(
            std::str::from_utf8(t)
                .map_err(|e| rusqlite::Error::Utf8Error(i, e))?
                .to_string(),
        ),
        ValueRef::Blob(b) => Val::Bytes(b.to_vec()),
        ValueRef::Real(_) => {
            return Err(rusqlite::Error::InvalidColumnType(
                i,
                name.into(),
                Type::Real,
            ));
        }
    })
}

impl Exec for Sqlite {
    fn execute(&mut self, sql: &str, args: &[Val]) -> Result<u64> {
        Lite(&self.conn).execute(sql, args)
    }

    fn query(&mut self, sql: &str, args: &[Val]) -> Result<Vec<Row>> {
        Lite(&self.conn).query(sql, args)
    }
}

impl Backend for Sqlite {
    fn transaction(&mut self, work: &mut dyn FnMut(&mut dyn Exec) -> Result<()>) -> Result<()> {
        // IMMEDIATE: the write lock from the start, so two writers never deadlock upgrading theirs.
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        work(&mut Lite(&tx))?;
        tx.commit()?;
        Ok(())
    }

    fn schema_version(&mut self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// A store read as a snapshot is opened again, to see what was saved since.
    fn refresh(&mut self) -> Result<()> {
        if self.conn.is_readonly(rusqlite::MAIN_DB)? {
            self.conn = open_read_only(&self.path)?;
        }
        Ok(())
    }

    fn store(&self, json: &[u8], level: u8) -> Result<Stored> {
        let (encoding, body) = encode(json, level);
        Ok(Stored {
            columns: &[("encoding", ""), ("body", "")],
            values: vec![Val::Text(encoding.into()), Val::Bytes(body)],
        })
    }

    fn document_columns(&self) -> &'static str {
        "encoding, body"
    }

    fn now(&self) -> &'static str {
        "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
    }

    fn conditions(&self, filter: &ListFilter) -> (String, Vec<Val>) {
        let mut sql = String::new();
        let mut args: Vec<Val> = Vec::new();
        if let Some(dev) = filter.device.as_deref().filter(|s| !s.is_empty()) {
            // instr, not LIKE: the text is found as it is written, `%` and `_` included
            args.push(Val::Text(dev.to_lowercase()));
            let n = args.len();
            let has = |col: &str| format!("instr(lower(coalesce(r.{col},'')), ?{n}) > 0");
            sql += &format!(
                " AND ({} OR {} OR {} OR {})",
                has("device_model"),
                has("device_serial"),
                has("device_name"),
                has("target_path")
            );
        }
        if let Some(kind) = filter.kind.as_deref().filter(|s| !s.is_empty()) {
            args.push(Val::Text(kind.to_string()));
            sql += &format!(" AND r.kind = ?{}", args.len());
        }
        if let Some(since) = filter.since.as_deref().filter(|s| !s.is_empty()) {
            args.push(Val::Text(since.to_string()));
            sql += &format!(" AND r.started_at >= ?{}", args.len());
        }
        if let Some(until) = filter.until.as_deref().filter(|s| !s.is_empty()) {
            args.push(Val::Text(until.to_string()));
            let n = args.len();
            sql += &format!(" AND substr(r.started_at, 1, length(?{n})) <= ?{n}");
        }
        (sql, args)
    }

    fn order_and_page(&self, filter: &ListFilter, _args: &mut Vec<Val>) -> String {
        let mut sql = String::from(if filter.oldest_first {
            " ORDER BY r.started_at ASC, r.id ASC"
        } else {
            " ORDER BY r.started_at DESC, r.id DESC"
        });
        // SQLite's LIMIT is an i64: a larger one asks for every run (-1: no limit, for an offset)
        let limit = filter
            .limit
            .map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        if filter.limit.is_some() || filter.offset.is_some() {
            sql += &format!(" LIMIT {limit}");
        }
        if let Some(offset) = filter.offset {
            sql += &format!(" OFFSET {}", i64::try_from(offset).unwrap_or(i64::MAX));
        }
        sql
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn placeholders_become_sqlite_ones_and_nothing_else_changes() {
        assert_eq!(
            super::placeholders("UPDATE runs SET kind = $2, x = '$' WHERE id = $1 AND y = ?3"),
            "UPDATE runs SET kind = ?2, x = '$' WHERE id = ?1 AND y = ?3"
        );
    }
}
