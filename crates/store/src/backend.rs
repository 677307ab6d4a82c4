//! What a database does for the store, and the little that differs between SQLite and PostgreSQL.
//!
//! The store's own work (saving a run, reading it back, listing runs) is written once, over
//! [`Backend`]: statements run through [`Exec`] with [`Val`] arguments and come back as rows of
//! [`Val`]. Statements are written with PostgreSQL's `$1` placeholders; the SQLite backend reads
//! them as its own `?1`. Each backend adds only what its database does its own way: how a
//! document is stored, how a filter compares text, and how a transaction begins.

use crate::error::Result;
use crate::query::ListFilter;

/// One value going in or coming out of a statement.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Val {
    Null,
    Int(i64),
    Text(String),
    Bytes(Vec<u8>),
}

impl From<Option<String>> for Val {
    fn from(v: Option<String>) -> Val {
        v.map_or(Val::Null, Val::Text)
    }
}

impl From<Option<i64>> for Val {
    fn from(v: Option<i64>) -> Val {
        v.map_or(Val::Null, Val::Int)
    }
}

/// A row as it came back.
pub(crate) type Row = Vec<Val>;

/// Running statements: a connection, or a transaction on one.
pub(crate) trait Exec {
    /// Runs `sql` and returns how many rows it changed.
    fn execute(&mut self, sql: &str, args: &[Val]) -> Result<u64>;
    /// Runs `sql` and returns every row it gave.
    fn query(&mut self, sql: &str, args: &[Val]) -> Result<Vec<Row>>;
}

/// How one backend keeps a run's document: its columns of `run_documents` beside `run_id` and
/// `json_bytes`, each with the cast its placeholder needs, and their values.
pub(crate) struct Stored {
    pub columns: &'static [(&'static str, &'static str)],
    pub values: Vec<Val>,
}

/// One database behind a store.
pub(crate) trait Backend: Exec + Send {
    /// Runs `work` in one transaction: committed when it returns `Ok`, rolled back otherwise.
    fn transaction(&mut self, work: &mut dyn FnMut(&mut dyn Exec) -> Result<()>) -> Result<()>;

    /// The schema version of the store.
    fn schema_version(&mut self) -> Result<i64>;

    /// Renews what a read-only store sees, where its database needs that.
    fn refresh(&mut self) -> Result<()> {
        Ok(())
    }

    /// The document as this backend stores it (`level`: how hard to compress, where it does).
    fn store(&self, json: &[u8], level: u8) -> Result<Stored>;

    /// The columns of `run_documents` that read a document back: its encoding and its body.
    fn document_columns(&self) -> &'static str;

    /// The SQL of the time now, as `saved_at` holds it.
    fn now(&self) -> &'static str;

    /// The conditions of `filter`, each beginning ` AND `, and their arguments.
    fn conditions(&self, filter: &ListFilter) -> (String, Vec<Val>);

    /// The `ORDER BY`, `LIMIT` and `OFFSET` of a list (its arguments appended to `args`).
    fn order_and_page(&self, filter: &ListFilter, args: &mut Vec<Val>) -> String;
}

/// Runs `work` in one transaction of `backend` and returns what it returned.
pub(crate) fn in_transaction<T>(
    backend: &mut dyn Backend,
    work: impl FnOnce(&mut dyn Exec) -> Result<T>,
) -> Result<T> {
    let mut work = Some(work);
    let mut out = None;
    backend.transaction(&mut |tx| {
        let work = work.take().expect("a transaction runs its work once");
        out = Some(work(tx)?);
        Ok(())
    })?;
    Ok(out.expect("a committed transaction ran its work"))
}

/// The placeholders `$from`, `$from+1`, ... for `casts`, each with its cast, comma-separated.
pub(crate) fn placeholders(from: usize, casts: impl Iterator<Item = &'static str>) -> String {
    casts
        .enumerate()
        .map(|(n, cast)| format!("${}{cast}", from + n))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_count_from_where_they_start() {
        assert_eq!(
            placeholders(2, ["", "::jsonb"].into_iter()),
            "$2, $3::jsonb"
        );
        assert_eq!(placeholders(1, std::iter::empty()), "");
    }
}
