//! Which runs a list reads on PostgreSQL, with the same filters and order as the SQLite backend: text compared
//! byte by byte (as SQLite's BINARY collation, whatever the database's collation), device text lowered in
//! ASCII only (as SQLite's `lower`).

use crate::backend::Val;
use crate::query::ListFilter;

/// A column as UTF-8 bytes, for comparisons in byte order.
fn bytes(col: &str) -> String {
    format!("convert_to({col}, 'UTF8')")
}

/// The conditions of `filter`, each beginning ` AND `, and their arguments.
pub(crate) fn conditions(filter: &ListFilter) -> (String, Vec<Val>) {
    let mut sql = String::new();
    let mut args: Vec<Val> = Vec::new();
    if let Some(dev) = filter.device.as_deref().filter(|s| !s.is_empty()) {
        // bytes, so the text is found as it is written (NUL, `%` and `_` included)
        args.push(Val::Bytes(dev.to_lowercase().into_bytes()));
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
        args.push(Val::Bytes(kind.as_bytes().to_vec()));
        sql += &format!(" AND {} = ${}::bytea", bytes("r.kind"), args.len());
    }
    if let Some(since) = filter.since.as_deref().filter(|s| !s.is_empty()) {
        args.push(Val::Bytes(since.as_bytes().to_vec()));
        sql += &format!(" AND {} >= ${}::bytea", bytes("r.started_at"), args.len());
    }
    if let Some(until) = filter.until.as_deref().filter(|s| !s.is_empty()) {
        // as SQLite's `substr(started_at, 1, length(until)) <= until`: its length() counts the
        // characters before any NUL
        let chars = until.split('\0').next().unwrap_or("").chars().count();
        args.push(Val::Int(i32::try_from(chars).unwrap_or(i32::MAX).into()));
        args.push(Val::Bytes(until.as_bytes().to_vec()));
        let n = args.len();
        sql += &format!(
            " AND {} <= ${n}::bytea",
            bytes(&format!("substr(r.started_at, 1, ${}::int)", n - 1))
        );
    }
    (sql, args)
}

/// The order SQLite gives (byte order of the text, a run without a start time as the smallest), and
/// the page asked for.
pub(crate) fn order_and_page(filter: &ListFilter, args: &mut Vec<Val>) -> String {
    let mut sql = String::from(if filter.oldest_first {
        r#" ORDER BY r.started_at COLLATE "C" ASC NULLS FIRST, r.id ASC"#
    } else {
        r#" ORDER BY r.started_at COLLATE "C" DESC NULLS LAST, r.id DESC"#
    });
    if let Some(limit) = filter.limit {
        args.push(Val::Int(i64::try_from(limit).unwrap_or(i64::MAX)));
        sql += &format!(" LIMIT ${}::bigint", args.len());
    }
    if let Some(offset) = filter.offset {
        args.push(Val::Int(i64::try_from(offset).unwrap_or(i64::MAX)));
        sql += &format!(" OFFSET ${}::bigint", args.len());
    }
    sql
}
