//! Saving a run: identity row and document, in one transaction.

use crate::error::Result;
use crate::identity::Identity;
use crate::{RunId, Store};
use rusqlite::params;
use serde_json::Value;

/// Documents smaller than this are stored as plain JSON text (readable with the sqlite3 shell); larger ones
/// are deflated, which keeps a run with a long time series or full slow/failed lists small.
const COMPRESS_FROM: usize = 16 * 1024;

impl Store {
    /// Saves one run document (`"schema": "drivescope/1"`, with a `kind`) and returns its number. The run is
    /// written in a single transaction: after a crash it is either all there or not there at all.
    pub fn save(&mut self, doc: &Value) -> Result<RunId> {
        let id = Identity::of(doc)?;
        let json = serde_json::to_vec(doc).expect("a serde_json::Value always serializes");
        let (encoding, body) = if json.len() >= COMPRESS_FROM {
            (
                "json+deflate",
                miniz_oxide::deflate::compress_to_vec(&json, 6),
            )
        } else {
            ("json", json.clone())
        };
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO runs (kind, schema, started_at, ended_at, host, tool_version, target_path, target_type,
                target_size, device_model, device_serial, device_firmware, device_capacity, device_transport)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                id.kind,
                id.schema,
                id.started_at,
                id.ended_at,
                id.host,
                id.tool_version,
                id.target_path,
                id.target_type,
                id.target_size,
                id.device_model,
                id.device_serial,
                id.device_firmware,
                id.device_capacity,
                id.device_transport
            ],
        )?;
        let run = tx.last_insert_rowid();
        tx.execute(
            "INSERT INTO run_documents (run_id, encoding, json_bytes, body) VALUES (?1, ?2, ?3, ?4)",
            params![run, encoding, json.len() as i64, body],
        )?;
        tx.commit()?;
        Ok(RunId(run))
    }
}
