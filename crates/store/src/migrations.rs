//! Versioned schema (the SQLite backend's; [`POSTGRES_MIGRATIONS`] are the same versions for PostgreSQL). `PRAGMA user_version` holds the number of migrations applied; opening a store applies the
//! missing ones in one transaction each. Never edit a migration that has shipped: add a new one.

use crate::error::{Error, Result};
use crate::identity::Identity;
use drivescope_record::Document;
use rusqlite::Connection;

pub use crate::pg::MIGRATIONS as POSTGRES_MIGRATIONS;

/// Each entry upgrades the store from version `index` to `index + 1`.
pub const MIGRATIONS: &[&str] = &[
    // 1: runs with their identity columns, and the document as JSON text.
    r#"
    CREATE TABLE runs (
        id               INTEGER PRIMARY KEY,
        kind             TEXT NOT NULL,
        schema           TEXT NOT NULL,
        started_at       TEXT,
        ended_at         TEXT,
        host             TEXT,
        tool_version     TEXT,
        target_path      TEXT,
        target_type      TEXT,
        target_size      INTEGER,
        device_model     TEXT,
        device_serial    TEXT,
        device_firmware  TEXT,
        device_capacity  INTEGER,
        device_transport TEXT,
        saved_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );
    CREATE TABLE run_documents (
        run_id   INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        document TEXT NOT NULL
    );
    "#,
    // 2: documents may be stored deflate-compressed (long soak series and full slow/failed lists stay small),
    //    and the columns that `drivescope runs` filters on get indexes.
    r#"
    CREATE TABLE run_documents_v2 (
        run_id     INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        encoding   TEXT NOT NULL,
        json_bytes INTEGER NOT NULL,
        body       BLOB NOT NULL
    );
    INSERT INTO run_documents_v2 (run_id, encoding, json_bytes, body)
        SELECT run_id, 'json', length(CAST(document AS BLOB)), CAST(document AS BLOB) FROM run_documents;
    DROP TABLE run_documents;
    ALTER TABLE run_documents_v2 RENAME TO run_documents;
    CREATE INDEX runs_kind ON runs(kind);
    CREATE INDEX runs_started ON runs(started_at);
    CREATE INDEX runs_serial ON runs(device_serial);
    "#,
    // 3: the device's kernel name; the device columns of every stored run are copied again from its document
    //    (see `recopy_devices`): earlier versions looked for them where run documents never had them.
    r#"
    ALTER TABLE runs ADD COLUMN device_name TEXT;
    "#,
    // 4: how each run ended (finished, interrupted, device_lost, checkpoint), copied from its document (see
    //    `recopy_identities`), so `runs` tells a scan that was killed from one that finished.
    r#"
    ALTER TABLE runs ADD COLUMN state TEXT;
    "#,
];

/// A store with fewer migrations than this gets the identity columns of every run copied again from its
/// document, in the last migration's transaction (migrations 3 and 4 add identity columns).
pub(crate) const RECOPY_BELOW: usize = 4;

/// The schema version this code writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

pub(crate) fn migrate(conn: &mut Connection) -> Result<()> {
    let found: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if found > SCHEMA_VERSION {
        return Err(Error::TooNew {
            found,
            known: SCHEMA_VERSION,
        });
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        // IMMEDIATE: take the write lock before reading the version again, so two processes opening an old
        // store at once do not both apply the same migration.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let now: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if now == index as i64 {
            tx.execute_batch(sql)?;
            if index + 1 == MIGRATIONS.len() && (found as usize) < RECOPY_BELOW {
                recopy_identities(&tx)?;
            }
            tx.pragma_update(None, "user_version", index as i64 + 1)?;
        }
        tx.commit()?;
    }
    Ok(())
}

/// Copies the identity columns of every stored run from its document again. A document that cannot be read
/// keeps the columns it has.
fn recopy_identities(conn: &Connection) -> Result<()> {
    let mut stmt = conn.prepare("SELECT run_id, encoding, body FROM run_documents")?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Vec<u8>>(2)?,
        ))
    })?;
    for row in rows {
        let (run, encoding, body) = row?;
        let Ok(json) = crate::query::decode(run, &encoding, body) else {
            continue;
        };
        if let Ok(doc) = Document::from_value(json) {
            crate::row::write_identity(&mut crate::sqlite::Lite(conn), run, &Identity::of(&doc))?;
        }
    }
    Ok(())
}
