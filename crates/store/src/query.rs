//! Reading runs back: one document, or a filtered list of identities.

use crate::backend::Val;
use crate::error::{Error, Result};
use crate::row::{info_from_row, INFO_COLUMNS};
use crate::{RunId, Store};
use drivescope_record::Document;
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
        let mut backend = self.backend.borrow_mut();
        let sql = format!(
            "SELECT {} FROM run_documents WHERE run_id = $1",
            backend.document_columns()
        );
        let row = backend.query(&sql, &[Val::Int(id.0)])?.into_iter().next();
        match row.ok_or(Error::NotFound(id.0))?.as_slice() {
            [Val::Text(encoding), body] => {
                let body = match body {
                    Val::Bytes(b) => b.clone(),
                    Val::Text(t) => t.clone().into_bytes(),
                    other => return Err(Error::Corrupt(id.0, format!("body {other:?}"))),
                };
                decode(id.0, encoding, body)
            }
            other => Err(Error::Corrupt(id.0, format!("document row {other:?}"))),
        }
    }

    /// The identity of run `id`.
    pub fn info(&self, id: RunId) -> Result<RunInfo> {
        let sql = format!(
            "SELECT {INFO_COLUMNS} FROM runs r JOIN run_documents d ON d.run_id = r.id WHERE r.id = $1"
        );
        let row = self.backend.borrow_mut().query(&sql, &[Val::Int(id.0)])?;
        info_from_row(row.into_iter().next().ok_or(Error::NotFound(id.0))?)
    }

    /// Runs matching `filter`, newest first (by start time, then by number).
    pub fn list(&self, filter: &ListFilter) -> Result<Vec<RunInfo>> {
        let mut backend = self.backend.borrow_mut();
        let (cond, mut args) = backend.conditions(filter);
        let page = backend.order_and_page(filter, &mut args);
        let sql = format!(
            "SELECT {INFO_COLUMNS} FROM runs r JOIN run_documents d ON d.run_id = r.id WHERE 1=1{cond}{page}"
        );
        backend
            .query(&sql, &args)?
            .into_iter()
            .map(info_from_row)
            .collect()
    }

    /// How many runs match `filter` (its limit and offset aside).
    pub fn count(&self, filter: &ListFilter) -> Result<u64> {
        let mut backend = self.backend.borrow_mut();
        let (cond, args) = backend.conditions(filter);
        let sql = format!("SELECT count(*) FROM runs r WHERE 1=1{cond}");
        match backend.query(&sql, &args)?.first().map(|r| r.as_slice()) {
            Some([Val::Int(n)]) => Ok(*n as u64),
            other => Err(Error::Unsupported(format!(
                "count(*) came back as {other:?}"
            ))),
        }
    }
}
