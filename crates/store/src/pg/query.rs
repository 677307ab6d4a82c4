//! Reading runs back from PostgreSQL, with the same filters and order as the SQLite backend: text compared
//! byte by byte (as SQLite's BINARY collation, whatever the database's collation), device text lowered in
//! ASCII only (as SQLite's `lower`).

use crate::error::{Error, Result};
use crate::query::{ListFilter, RunInfo};
use crate::RunId;
use postgres::types::ToSql;
use postgres::{Client, Row};
use serde_json::Value;

const INFO_COLUMNS: &str = "r.id, r.kind, r.started_at, r.ended_at, r.host, r.tool_version, r.target_path,
    r.target_type, r.target_size, r.device_model, r.device_serial, r.device_firmware, r.device_capacity,
    r.device_transport, r.saved_at, d.json_bytes, r.device_name, r.state";

fn info_from_row(r: &Row) -> Result<RunInfo> {
    Ok(RunInfo {
        id: RunId(r.try_get(0)?),
        kind: r.try_get(1)?,
        started_at: r.try_get(2)?,
        ended_at: r.try_get(3)?,
        host: r.try_get(4)?,
        tool_version: r.try_get(5)?,
        target_path: r.try_get(6)?,
        target_type: r.try_get(7)?,
        target_size: r.try_get(8)?,
        device_model: r.try_get(9)?,
        device_serial: r.try_get(10)?,
        device_firmware: r.try_get(11)?,
        device_capacity: r.try_get(12)?,
        device_transport: r.try_get(13)?,
        saved_at: r.try_get(14)?,
        json_bytes: r.try_get(15)?,
        device_name: r.try_get(16)?,
        state: r
            .try_get::<_, Option<String>>(17)?
            .as_deref()
            .and_then(drivescope_record::RunState::parse),
    })
}

pub(crate) fn get_json(client: &mut Client, id: RunId) -> Result<Value> {
    let row = client.query_opt(
        "SELECT document::text FROM run_documents WHERE run_id = $1",
        &[&id.0],
    )?;
    let text: String = row.ok_or(Error::NotFound(id.0))?.try_get(0)?;
    serde_json::from_str(&text).map_err(|e| Error::Corrupt(id.0, e.to_string()))
}

pub(crate) fn info(client: &mut Client, id: RunId) -> Result<RunInfo> {
    let sql = format!(
        "SELECT {INFO_COLUMNS} FROM runs r JOIN run_documents d ON d.run_id = r.id WHERE r.id = $1"
    );
    let row = client.query_opt(&sql, &[&id.0])?;
    info_from_row(&row.ok_or(Error::NotFound(id.0))?)
}

/// A column as UTF-8 bytes, for comparisons in byte order.
fn bytes(col: &str) -> String {
    format!("convert_to({col}, 'UTF8')")
}

type Args = Vec<Box<dyn ToSql + Sync>>;

/// The conditions of `filter` after `WHERE true`, and their arguments.
fn conditions(filter: &ListFilter) -> (String, Args) {
    let mut sql = String::new();
    let mut args: Args = Vec::new();
    if let Some(dev) = filter.device.as_deref().filter(|s| !s.is_empty()) {
        // bytes, so the text is found as it is written (NUL, `%` and `_` included)
        args.push(Box::new(dev.to_lowercase().into_bytes()));
        let n = args.len();
        let has = |col: &str| {
            let lowered = format!(
                "translate(coalesce(r.{col}, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
            );
            format!("position(${n}::bytea IN {}) > 0", bytes(&lowered))
        };
        sql += &format!(
            " AND ({} OR {} OR {} OR {})",
            has("device_model"),
            has("device_serial"),
            has("device_name"),
            has("target_path")
        );
    }
    if let Some(kind) = filter.kind.as_deref().filter(|s| !s.is_empty()) {
        args.push(Box::new(kind.as_bytes().to_vec()));
        sql += &format!(" AND {} = ${}::bytea", bytes("r.kind"), args.len());
    }
    if let Some(since) = filter.since.as_deref().filter(|s| !s.is_empty()) {
        args.push(Box::new(since.as_bytes().to_vec()));
        sql += &format!(" AND {} >= ${}::bytea", bytes("r.started_at"), args.len());
    }
    if let Some(until) = filter.until.as_deref().filter(|s| !s.is_empty()) {
        // as SQLite's `substr(started_at, 1, length(until)) <= until`: its length() counts the
        // characters before any NUL
        let chars = until.split('\0').next().unwrap_or("").chars().count();
        args.push(Box::new(i32::try_from(chars).unwrap_or(i32::MAX)));
        args.push(Box::new(until.as_bytes().to_vec()));
        let n = args.len();
        sql += &format!(
            " AND {} <= ${n}::bytea",
            bytes(&format!("substr(r.started_at, 1, ${}::int)", n - 1))
        );
    }
    (sql, args)
}

pub(crate) fn count(client: &mut Client, filter: &ListFilter) -> Result<u64> {
    let (cond, args) = conditions(filter);
    let sql = format!("SELECT count(*) FROM runs r WHERE true{cond}");
    let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a.as_ref()).collect();
    let n: i64 = client.query_one(&sql, &params)?.get(0);
    Ok(n as u64)
}

pub(crate) fn list(client: &mut Client, filter: &ListFilter) -> Result<Vec<RunInfo>> {
    let (cond, mut args) = conditions(filter);
    let mut sql = format!(
        "SELECT {INFO_COLUMNS} FROM runs r JOIN run_documents d ON d.run_id = r.id WHERE true{cond}"
    );
    // The order SQLite gives: byte order of the text, a run without a start time as the smallest.
    sql += if filter.oldest_first {
        r#" ORDER BY r.started_at COLLATE "C" ASC NULLS FIRST, r.id ASC"#
    } else {
        r#" ORDER BY r.started_at COLLATE "C" DESC NULLS LAST, r.id DESC"#
    };
    if let Some(limit) = filter.limit {
        args.push(Box::new(i64::try_from(limit).unwrap_or(i64::MAX)));
        sql += &format!(" LIMIT ${}::bigint", args.len());
    }
    if let Some(offset) = filter.offset {
        args.push(Box::new(i64::try_from(offset).unwrap_or(i64::MAX)));
        sql += &format!(" OFFSET ${}::bigint", args.len());
    }
    let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a.as_ref()).collect();
    client
        .query(&sql, &params)?
        .iter()
        .map(info_from_row)
        .collect()
}
