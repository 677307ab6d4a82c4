//! The PostgreSQL backend: the same tables, migrations, saves and queries as the SQLite one, the documents in
//! `jsonb`.
//!
//! Connections: see [`connect`] (passwords from the string, PGPASSWORD or the password file; TLS over TCP with the
//! server's certificate verified). Every save is one transaction and takes its run number from the server's
//! sequence, so any number of hosts can save at once.

mod connect;
mod filter;
mod migrations;

pub use migrations::MIGRATIONS;

use crate::backend::{Backend, Exec, Row, Stored, Val};
use crate::error::{Error, Result};
use crate::query::ListFilter;
use bytes::BytesMut;
use postgres::types::{IsNull, ToSql, Type};
use postgres::{Client, GenericClient};

/// A PostgreSQL store: one connection.
pub(crate) struct Postgres(Client);

impl Postgres {
    /// Connects to the database named by `conn` (a URI or a libpq keyword/value string) and brings its
    /// schema up to date.
    pub(crate) fn open(conn: &str) -> Result<Postgres> {
        let mut client = connect::connect(conn)?;
        migrations::migrate(&mut client)?;
        Ok(Postgres(client))
    }

    /// Connects to the database named by `conn` for reading only: every transaction of the session is
    /// read-only, and the schema is left as it is.
    pub(crate) fn open_read_only(conn: &str) -> Result<Postgres> {
        let mut client = connect::connect(conn)?;
        client.batch_execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")?;
        Ok(Postgres(client))
    }
}

impl ToSql for Val {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        self.to_sql_checked(ty, out)
    }

    /// Any type: the value's own type is checked against the parameter's in `to_sql_checked`.
    fn accepts(_: &Type) -> bool {
        true
    }

    fn to_sql_checked(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Val::Null => Ok(IsNull::Yes),
            Val::Int(n) if *ty == Type::INT4 => i32::try_from(*n)?.to_sql_checked(ty, out),
            Val::Int(n) => n.to_sql_checked(ty, out),
            Val::Text(s) => s.to_sql_checked(ty, out),
            Val::Bytes(b) => b.to_sql_checked(ty, out),
        }
    }
}

/// Statements on a PostgreSQL connection or transaction.
pub(crate) struct Pg<'c, C>(pub &'c mut C);

fn params(args: &[Val]) -> Vec<&(dyn ToSql + Sync)> {
    args.iter().map(|a| a as &(dyn ToSql + Sync)).collect()
}

impl<C: GenericClient> Exec for Pg<'_, C> {
    fn execute(&mut self, sql: &str, args: &[Val]) -> Result<u64> {
        Ok(self.0.execute(sql, &params(args))?)
    }

    fn query(&mut self, sql: &str, args: &[Val]) -> Result<Vec<Row>> {
        self.0
            .query(sql, &params(args))?
            .iter()
            .map(|r| (0..r.len()).map(|i| value(r, i)).collect())
            .collect()
    }
}

/// Column `i` of `r` as a [`Val`], by the column's type (a type no column of the store's has reads
/// as the driver's type error).
fn value(r: &postgres::Row, i: usize) -> Result<Val> {
    let ty = r.columns()[i].type_();
    Ok(if *ty == Type::INT8 {
        r.try_get::<_, Option<i64>>(i)?.into()
    } else if *ty == Type::INT4 {
        r.try_get::<_, Option<i32>>(i)?.map(i64::from).into()
    } else if *ty == Type::BYTEA {
        r.try_get::<_, Option<Vec<u8>>>(i)?
            .map_or(Val::Null, Val::Bytes)
    } else {
        r.try_get::<_, Option<String>>(i)?.into()
    })
}

impl Exec for Postgres {
    fn execute(&mut self, sql: &str, args: &[Val]) -> Result<u64> {
        Pg(&mut self.0).execute(sql, args)
    }

    fn query(&mut self, sql: &str, args: &[Val]) -> Result<Vec<Row>> {
        Pg(&mut self.0).query(sql, args)
    }
}

impl Backend for Postgres {
    fn transaction(&mut self, work: &mut dyn FnMut(&mut dyn Exec) -> Result<()>) -> Result<()> {
        let mut tx = self.0.transaction()?;
        work(&mut Pg(&mut tx))?;
        tx.commit()?;
        Ok(())
    }

    fn schema_version(&mut self) -> Result<i64> {
        migrations::version(&mut self.0)
    }

    /// The document as text for `jsonb`, refused here when jsonb cannot hold it (a NUL character in
    /// a string).
    fn store(&self, json: &[u8], _level: u8) -> Result<Stored> {
        let s = std::str::from_utf8(json).expect("serde_json writes UTF-8");
        if s.contains("\\u0000") {
            return Err(Error::BadDocument(
                "PostgreSQL cannot store a NUL character (\\u0000) in a document".into(),
            ));
        }
        Ok(Stored {
            columns: &[("document", "::text::jsonb")],
            values: vec![Val::Text(s.to_string())],
        })
    }

    fn document_columns(&self) -> &'static str {
        "'json'::text, document::text"
    }

    fn now(&self) -> &'static str {
        "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
    }

    fn conditions(&self, filter: &ListFilter) -> (String, Vec<Val>) {
        filter::conditions(filter)
    }

    fn order_and_page(&self, filter: &ListFilter, args: &mut Vec<Val>) -> String {
        filter::order_and_page(filter, args)
    }
}
