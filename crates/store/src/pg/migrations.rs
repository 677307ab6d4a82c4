//! The schema's versions on PostgreSQL: the SQLite migrations expressed for PostgreSQL, one for one, so a store
//! has the same version number on either. The table `drivescope_schema` holds the number of migrations applied
//! (SQLite keeps it in `PRAGMA user_version`). Never edit a migration that has shipped: add a new one, here and
//! in the SQLite list.

use crate::error::{Error, Result};
use crate::identity::Identity;
use crate::migrations::{RECOPY_BELOW, SCHEMA_VERSION};
use drivescope_record::Document;
use postgres::{Client, Transaction};

/// Each entry upgrades the store from version `index` to `index + 1` (as [`crate::migrations::MIGRATIONS`]).
pub const MIGRATIONS: &[&str] = &[
    // 1: runs with their identity columns, and the document.
    r#"
    CREATE TABLE runs (
        id               BIGSERIAL PRIMARY KEY,
        kind             TEXT NOT NULL,
        schema           TEXT NOT NULL,
        started_at       TEXT,
        ended_at         TEXT,
        host             TEXT,
        tool_version     TEXT,
        target_path      TEXT,
        target_type      TEXT,
        target_size      BIGINT,
        device_model     TEXT,
        device_serial    TEXT,
        device_firmware  TEXT,
        device_capacity  BIGINT,
        device_transport TEXT,
        saved_at         TEXT NOT NULL
                         DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
    );
    CREATE TABLE run_documents (
        run_id   BIGINT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        document JSONB NOT NULL
    );
    "#,
    // 2: the size of each document as JSON (PostgreSQL compresses large jsonb values itself), and indexes on
    //    the columns that `drivescope runs` filters on.
    r#"
    ALTER TABLE run_documents ADD COLUMN json_bytes BIGINT;
    UPDATE run_documents SET json_bytes = octet_length(document::text);
    ALTER TABLE run_documents ALTER COLUMN json_bytes SET NOT NULL;
    CREATE INDEX runs_kind ON runs(kind);
    CREATE INDEX runs_started ON runs(started_at);
    CREATE INDEX runs_serial ON runs(device_serial);
    "#,
    // 3: the device's kernel name.
    r#"
    ALTER TABLE runs ADD COLUMN device_name TEXT;
    "#,
    // 4: how each run ended (finished, interrupted, device_lost, checkpoint).
    r#"
    ALTER TABLE runs ADD COLUMN state TEXT;
    "#,
];

/// The advisory lock that makes hosts opening a store at once apply each migration once.
const MIGRATION_LOCK: i64 = 0x6472_6976_6573_636f; // "drivesco"

/// The schema version of the store (0 for an empty database).
pub(crate) fn version(client: &mut Client) -> Result<i64> {
    let exists: bool = client
        .query_one("SELECT to_regclass('drivescope_schema') IS NOT NULL", &[])?
        .try_get(0)?;
    if !exists {
        return Ok(0);
    }
    let row = client.query_opt("SELECT version FROM drivescope_schema", &[])?;
    Ok(match row {
        Some(r) => r.try_get::<_, i32>(0)? as i64,
        None => 0,
    })
}

pub(crate) fn migrate(client: &mut Client) -> Result<()> {
    let found = version(client)?;
    check(found)?;
    if found == SCHEMA_VERSION {
        return Ok(());
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let mut tx = client.transaction()?;
        // Wait for any other host applying migrations, then read the version again.
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS drivescope_schema (version INTEGER NOT NULL)",
        )?;
        let now: Option<i32> = tx
            .query_opt("SELECT version FROM drivescope_schema", &[])?
            .map(|r| r.try_get(0))
            .transpose()?;
        let now = now.unwrap_or(0) as i64;
        check(now)?;
        if now == index as i64 {
            tx.batch_execute(sql)?;
            if index + 1 == MIGRATIONS.len() && (found as usize) < RECOPY_BELOW {
                recopy_identities(&mut tx)?;
            }
            let next = index as i32 + 1;
            if now == 0 {
                tx.execute(
                    "INSERT INTO drivescope_schema (version) VALUES ($1)",
                    &[&next],
                )?;
            } else {
                tx.execute("UPDATE drivescope_schema SET version = $1", &[&next])?;
            }
        }
        tx.commit()?;
    }
    Ok(())
}

/// Copies the identity columns of every stored run from its document again (as the SQLite backend does when
/// it upgrades a store from before migration 4), and its size as compact JSON (migration 2 could only measure
/// PostgreSQL's spelling of it). A document that cannot be read keeps the columns it has.
fn recopy_identities(tx: &mut Transaction<'_>) -> Result<()> {
    let rows = tx.query("SELECT run_id, document::text FROM run_documents", &[])?;
    for row in rows {
        let run: i64 = row.try_get(0)?;
        let text: String = row.try_get(1)?;
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let json_bytes = value.to_string().len() as i64;
        tx.execute(
            "UPDATE run_documents SET json_bytes = $2 WHERE run_id = $1",
            &[&run, &json_bytes],
        )?;
        if let Ok(doc) = Document::from_value(value) {
            crate::row::write_identity(&mut super::Pg(tx), run, &Identity::of(&doc))?;
        }
    }
    Ok(())
}

fn check(found: i64) -> Result<()> {
    if found > SCHEMA_VERSION {
        return Err(Error::TooNew {
            found,
            known: SCHEMA_VERSION,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_backends_have_the_same_versions() {
        assert_eq!(super::MIGRATIONS.len(), crate::migrations::MIGRATIONS.len());
    }
}
