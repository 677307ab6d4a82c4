//! The identity columns of a run, copied (not computed) from its document.

use crate::error::{Error, Result};
use serde_json::Value;

/// What `runs` lists and filters on.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Identity {
    pub kind: String,
    pub schema: String,
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
}

fn text(v: &Value, path: &[&str]) -> Option<String> {
    let v = path.iter().try_fold(v, |v, k| v.get(k))?;
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn int(v: &Value, path: &[&str]) -> Option<i64> {
    let v = path.iter().try_fold(v, |v, k| v.get(k))?;
    v.as_i64()
        .or_else(|| v.as_u64().map(|u| u.min(i64::MAX as u64) as i64))
}

impl Identity {
    pub(crate) fn of(doc: &Value) -> Result<Identity> {
        if !doc.is_object() {
            return Err(Error::BadDocument("not a JSON object".into()));
        }
        let schema = doc
            .get("schema")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !schema.starts_with("drivescope/") {
            return Err(Error::BadDocument(format!(
                "schema is {schema:?}, expected \"drivescope/1\""
            )));
        }
        let kind = doc.get("kind").and_then(Value::as_str).unwrap_or_default();
        if kind.is_empty() {
            return Err(Error::BadDocument("no \"kind\"".into()));
        }
        Ok(Identity {
            kind: kind.to_string(),
            schema: schema.to_string(),
            started_at: text(doc, &["started_at"]),
            ended_at: text(doc, &["ended_at"]),
            host: text(doc, &["host"]),
            tool_version: text(doc, &["tool", "version"]),
            target_path: text(doc, &["target", "path"]),
            target_type: text(doc, &["target", "type"]),
            target_size: int(doc, &["target", "size"]),
            device_model: text(doc, &["device", "model"]),
            device_serial: text(doc, &["device", "serial"]),
            device_firmware: text(doc, &["device", "firmware"]),
            device_capacity: int(doc, &["device", "capacity"]),
            device_transport: text(doc, &["device", "transport"]),
        })
    }
}
