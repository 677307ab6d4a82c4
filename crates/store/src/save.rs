//! Saving a run: identity row and document, in one transaction, on any backend.

use crate::backend::{in_transaction, placeholders, Exec, Stored, Val};
use crate::error::{Error, Result};
use crate::identity::Identity;
use crate::row::{insert_run, write_identity};
use crate::{RunId, Store};
use drivescope_record::Document;

/// Deflate level of a document: the fastest for a scan's checkpoint (saved again and again while the
/// scan runs, then replaced by its result), a smaller body for everything else.
fn level(doc: &Document) -> u8 {
    match doc.state() {
        Some(drivescope_record::RunState::Checkpoint) => 1,
        _ => 6,
    }
}

impl Store {
    /// Saves one run record and returns its number. The run is written in a single transaction: after a crash
    /// it is either all there or not there at all.
    pub fn save(&mut self, doc: &Document) -> Result<RunId> {
        let id = Identity::of(doc);
        let json = serde_json::to_vec(doc).expect("records always serialize");
        let backend = self.backend.get_mut();
        let stored = backend.store(&json, level(doc))?;
        in_transaction(backend.as_mut(), |tx| {
            let run = insert_run(tx, &id)?;
            write_document(tx, run, stored, json.len(), false)?;
            Ok(RunId(run))
        })
    }

    /// Replaces the document of run `id` (and its identity columns) with `doc`, in one
    /// transaction: after a crash the run holds the old document or the new one, whole. This is
    /// how a scan's checkpoints, and then its final document, update one run in place.
    pub fn replace(&mut self, id: RunId, doc: &Document) -> Result<()> {
        let identity = Identity::of(doc);
        let json = serde_json::to_vec(doc).expect("records always serialize");
        let backend = self.backend.get_mut();
        let stored = backend.store(&json, level(doc))?;
        let now = backend.now();
        in_transaction(backend.as_mut(), |tx| {
            if !write_document(tx, id.0, stored, json.len(), true)? {
                return Err(Error::NotFound(id.0));
            }
            tx.execute(
                &format!("UPDATE runs SET saved_at = {now} WHERE id = $1"),
                &[Val::Int(id.0)],
            )?;
            write_identity(tx, id.0, &identity)
        })
    }
}

/// Inserts (or with `update`, replaces) the document of run `run`; false when there was none to replace.
fn write_document(
    tx: &mut dyn Exec,
    run: i64,
    stored: Stored,
    json_bytes: usize,
    update: bool,
) -> Result<bool> {
    let mut args = vec![Val::Int(run), Val::Int(json_bytes as i64)];
    args.extend(stored.values);
    let casts = stored.columns.iter().map(|(_, cast)| *cast);
    let sql = if update {
        let set = stored
            .columns
            .iter()
            .zip(placeholders(3, casts).split(", "))
            .map(|((col, _), p)| format!(", {col} = {p}"))
            .collect::<String>();
        format!("UPDATE run_documents SET json_bytes = $2{set} WHERE run_id = $1")
    } else {
        let cols = stored.columns.iter().map(|(c, _)| *c).collect::<Vec<_>>();
        format!(
            "INSERT INTO run_documents (run_id, json_bytes, {}) VALUES ($1, $2, {})",
            cols.join(", "),
            placeholders(3, casts)
        )
    };
    Ok(tx.execute(&sql, &args)? > 0)
}
