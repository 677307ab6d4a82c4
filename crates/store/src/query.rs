//! Reading runs back: one document, or a filtered list of identities.

use crate::error::{Error, Result};
use crate::{Backend, RunId, Store};
use drivescope_record::Document;
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension};
use serde_json::Value;

/// Which runs `list` returns. Empty fields match everything.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// Substring (case-insensitive) of the device model, serial, kernel name or target path.
    pub device: Option<String>,
    /// Exact kind: `scan`, `quick_scan`, `bench`, `sweep`, `soak`, ...
    pub kind: Option<String>,
    /// Runs started at or after this RFC 3339 prefix (`2026-11-01`, `2026-11-01T10:00`).
    pub since: Option<String>,
    /// Runs started on or before this RFC 3339 prefix (inclusive: `2026-11-30` keeps the whole day).
    pub until: Option<String>,
    /// At most this many runs, newest first.
    pub limit: Option<usize>,
    /// Skip this many of the matching runs first (a page of a long list).
    pub offset: Option<usize>,
    /// Oldest first instead of newest first.
    pub oldest_first: bool,
}

/// A stored run's identity, as listed by `drivescope runs`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    pub id: RunId,
    pub kind: String,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub host: Option<String>,
    pub tool_version: Option<String>,
    pub target_path: Option<String>,
    pub target_type: Option<String>,
    pub target_size: Option<i64>,
    pub device_model: Option<String>,
    pub device_serial: Option<String>,
    pub device_firmware: Option<String>,
    pub device_capacity: Option<i64>,
    pub device_transport: Option<String>,
    /// Kernel name of the device (`sda`, `loop3`).
    pub device_name: Option<String>,
    pub saved_at: String,
    /// Size of the document as JSON, before any compression.
    pub json_bytes: i64,
    /// How the run ended (`None` for documents that are not runs, and names this version does
    /// not know).
    pub state: Option<drivescope_record::RunState>,
}

impl RunInfo {
    /// The device columns as the record's device summary.
    pub fn device(&self) -> drivescope_record::DeviceSummary {
        drivescope_record::DeviceSummary {
            name: self.device_name.clone(),
            model: self.device_model.clone(),
            serial: self.device_serial.clone(),
            firmware: self.device_firmware.clone(),
            capacity: self.device_capacity.map(|c| c as u64),
            transport: self.device_transport.clone(),
        }
    }
}

const INFO_COLUMNS: &str = "r.id, r.kind, r.started_at, r.ended_at, r.host, r.tool_version, r.target_path,
    r.target_type, r.target_size, r.device_model, r.device_serial, r.device_firmware, r.device_capacity,
    r.device_transport, r.saved_at, d.json_bytes, r.device_name, r.state";

fn info_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunInfo> {
    Ok(RunInfo {
        id: RunId(r.get(0)?),
        kind: r.get(1)?,
        started_at: r.get(2)?,
        ended_at: r.get(3)?,
        host: r.get(4)?,
        tool_version: r.get(5)?,
        target_path: r.get(6)?,
        target_type: r.get(7)?,
        target_size: r.get(8)?,
        device_model: r.get(9)?,
        device_serial: r.get(10)?,
        device_firmware: r.get(11)?,
        device_capacity: r.get(12)?,
        device_transport: r.get(13)?,
        saved_at: r.get(14)?,
        json_bytes: r.get(15)?,
        device_name: r.get(16)?,
        state: r
            .get::<_, Option<String>>(17)?
            .as_deref()
            .and_then(drivescope_record::RunState::parse),
    })
}

/// A stored body back to JSON.
pub(crate) fn decode(run: i64, encoding: &str, body: Vec<u8>) -> Result<Value> {
    let json = match encoding {
        "json" => body,
        "json+deflate" => miniz_oxide::inflate::decompress_to_vec(&body)
            .map_err(|e| Error::Corrupt(run, format!("deflate: {e:?}")))?,
        other => return Err(Error::Corrupt(run, format!("unknown encoding {other:?}"))),
    };
    serde_json::from_slice(&json).map_err(|e| Error::Corrupt(run, e.to_string()))
}

impl Store {
    /// The record of run `id` (a kind this version does not know reads as [`Document::Unknown`]).
    pub fn get(&self, id: RunId) -> Result<Document> {
        let doc = self.get_json(id)?;
        Document::from_value(doc).map_err(|e| Error::Corrupt(id.0, e.to_string()))
    }

    /// The document of run `id` as JSON, as it was saved (on PostgreSQL, jsonb keeps values and not their
    /// spelling: an integral float of 1e16 or more reads back as an integer).
    pub fn get_json(&self, id: RunId) -> Result<Value> {
        match &self.backend {
            Backend::Sqlite(conn) => get_json_sqlite(conn, id),
            Backend::Postgres(client) => crate::pg::get_json(&mut client.borrow_mut(), id),
        }
    }

    /// The identity of run `id`.
    pub fn info(&self, id: RunId) -> Result<RunInfo> {
        match &self.backend {
            Backend::Sqlite(conn) => {
                let sql = format!("SELECT {INFO_COLUMNS} FROM runs r JOIN run_documents d ON d.run_id = r.id WHERE r.id = ?1");
                conn.query_row(&sql, [id.0], info_from_row)
                    .optional()?
                    .ok_or(Error::NotFound(id.0))
            }
            Backend::Postgres(client) => crate::pg::info(&mut client.borrow_mut(), id),
        }
    }

    /// Runs matching `filter`, newest first (by start time, then by number).
    pub fn list(&self, filter: &ListFilter) -> Result<Vec<RunInfo>> {
        match &self.backend {
            Backend::Sqlite(conn) => list_sqlite(conn, filter),
            Backend::Postgres(client) => crate::pg::list(&mut client.borrow_mut(), filter),
        }
    }

    /// How many runs match `filter` (its limit and offset aside).
    pub fn count(&self, filter: &ListFilter) -> Result<u64> {
        match &self.backend {
            Backend::Sqlite(conn) => count_sqlite(conn, filter),
            Backend::Postgres(client) => crate::pg::count(&mut client.borrow_mut(), filter),
        }
    }
}

fn get_json_sqlite(conn: &Connection, id: RunId) -> Result<Value> {
    let row: Option<(String, Vec<u8>)> = conn
        .query_row(
            "SELECT encoding, body FROM run_documents WHERE run_id = ?1",
            [id.0],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let (encoding, body) = row.ok_or(Error::NotFound(id.0))?;
    decode(id.0, &encoding, body)
}

/// The conditions of `filter` after `WHERE 1=1`, and their arguments.
fn where_sqlite(filter: &ListFilter) -> (String, Vec<Sql>) {
    let mut sql = String::new();
    let mut args: Vec<Sql> = Vec::new();
    if let Some(dev) = filter.device.as_deref().filter(|s| !s.is_empty()) {
        // instr, not LIKE: the text is found as it is written, `%` and `_` included
        args.push(Sql::Text(dev.to_lowercase()));
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
        args.push(Sql::Text(kind.to_string()));
        sql += &format!(" AND r.kind = ?{}", args.len());
    }
    if let Some(since) = filter.since.as_deref().filter(|s| !s.is_empty()) {
        args.push(Sql::Text(since.to_string()));
        sql += &format!(" AND r.started_at >= ?{}", args.len());
    }
    if let Some(until) = filter.until.as_deref().filter(|s| !s.is_empty()) {
        args.push(Sql::Text(until.to_string()));
        let n = args.len();
        sql += &format!(" AND substr(r.started_at, 1, length(?{n})) <= ?{n}");
    }
    (sql, args)
}

fn count_sqlite(conn: &Connection, filter: &ListFilter) -> Result<u64> {
    let (cond, args) = where_sqlite(filter);
    let sql = format!("SELECT count(*) FROM runs r WHERE 1=1{cond}");
    let n: i64 = conn.query_row(&sql, rusqlite::params_from_iter(args), |r| r.get(0))?;
    Ok(n as u64)
}

fn list_sqlite(conn: &Connection, filter: &ListFilter) -> Result<Vec<RunInfo>> {
    let (cond, args) = where_sqlite(filter);
    let mut sql = format!(
        "SELECT {INFO_COLUMNS} FROM runs r JOIN run_documents d ON d.run_id = r.id WHERE 1=1{cond}"
    );
    sql += if filter.oldest_first {
        " ORDER BY r.started_at ASC, r.id ASC"
    } else {
        " ORDER BY r.started_at DESC, r.id DESC"
    };
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
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(args), info_from_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}
