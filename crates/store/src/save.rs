//! Saving a run: identity row and document, in one transaction (the SQLite backend here, PostgreSQL's in
//! `pg::save`).

use crate::error::Result;
use crate::identity::Identity;
use crate::{Backend, RunId, Store};
use drivescope_record::Document;
use rusqlite::{params, Connection};

/// Documents smaller than this are stored as plain JSON text (readable with the sqlite3 shell); larger ones
/// are deflated, which keeps a run with a long time series or full slow/failed lists small.
const COMPRESS_FROM: usize = 16 * 1024;

/// Deflate level of a document: the fastest for a scan's checkpoint (saved again and again while the
/// scan runs, then replaced by its result), a smaller body for everything else.
fn level(doc: &Document) -> u8 {
    match doc.state() {
        Some(drivescope_record::RunState::Checkpoint) => 1,
        _ => 6,
    }
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

/// Writes the identity columns of run `run` (the row must exist).
pub(crate) fn write_identity(
    conn: &rusqlite::Connection,
    run: i64,
    id: &Identity,
) -> rusqlite::Result<()> {
    let d = &id.device;
    conn.execute(
        "UPDATE runs SET kind = ?2, schema = ?3, started_at = ?4, ended_at = ?5, host = ?6, tool_version = ?7,
            target_path = ?8, target_type = ?9, target_size = ?10, device_model = ?11, device_serial = ?12,
            device_firmware = ?13, device_capacity = ?14, device_transport = ?15, device_name = ?16,
            state = ?17
         WHERE id = ?1",
        params![
            run,
            id.kind,
            id.schema,
            id.started_at,
            id.ended_at,
            id.host,
            id.tool_version,
            id.target_path,
            id.target_type,
            id.target_size,
            d.model,
            d.serial,
            d.firmware,
            d.capacity.map(|c| c.min(i64::MAX as u64) as i64),
            d.transport,
            d.name,
            id.state
        ],
    )?;
    Ok(())
}

impl Store {
    /// Saves one run record and returns its number. The run is written in a single transaction: after a crash
    /// it is either all there or not there at all.
    pub fn save(&mut self, doc: &Document) -> Result<RunId> {
        let id = Identity::of(doc);
        let json = serde_json::to_vec(doc).expect("records always serialize");
        match &mut self.backend {
            Backend::Sqlite(conn) => save_sqlite(conn, &id, &json, level(doc)),
            Backend::Postgres(client) => crate::pg::save(client.get_mut(), &id, &json),
        }
    }

    /// Replaces the document of run `id` (and its identity columns) with `doc`, in one
    /// transaction: after a crash the run holds the old document or the new one, whole. This is
    /// how a scan's checkpoints, and then its final document, update one run in place.
    pub fn replace(&mut self, id: RunId, doc: &Document) -> Result<()> {
        let identity = Identity::of(doc);
        let json = serde_json::to_vec(doc).expect("records always serialize");
        match &mut self.backend {
            Backend::Sqlite(conn) => replace_sqlite(conn, id, &identity, &json, level(doc)),
            Backend::Postgres(client) => crate::pg::replace(client.get_mut(), id, &identity, &json),
        }
    }
}

fn save_sqlite(conn: &mut Connection, id: &Identity, json: &[u8], level: u8) -> Result<RunId> {
    let (encoding, body) = encode(json, level);
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute(
        "INSERT INTO runs (kind, schema) VALUES (?1, ?2)",
        params![id.kind, id.schema],
    )?;
    let run = tx.last_insert_rowid();
    write_identity(&tx, run, id)?;
    tx.execute(
        "INSERT INTO run_documents (run_id, encoding, json_bytes, body) VALUES (?1, ?2, ?3, ?4)",
        params![run, encoding, json.len() as i64, body],
    )?;
    tx.commit()?;
    Ok(RunId(run))
}

fn replace_sqlite(
    conn: &mut Connection,
    id: RunId,
    identity: &Identity,
    json: &[u8],
    level: u8,
) -> Result<()> {
    let (encoding, body) = encode(json, level);
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let n = tx.execute(
        "UPDATE run_documents SET encoding = ?2, json_bytes = ?3, body = ?4 WHERE run_id = ?1",
        params![id.0, encoding, json.len() as i64, body],
    )?;
    if n == 0 {
        return Err(crate::Error::NotFound(id.0));
    }
    tx.execute(
        "UPDATE runs SET saved_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?1",
        [id.0],
    )?;
    write_identity(&tx, id.0, identity)?;
    tx.commit()?;
    Ok(())
}
