//! A run to report on, and lenient accessors for its document (every field is optional to a report).

use serde_json::Value;

/// One run: its number in the store (if stored) and its document.
#[derive(Debug, Clone)]
pub struct Run {
    pub id: Option<i64>,
    pub doc: Value,
}

impl Run {
    pub fn new(id: Option<i64>, doc: Value) -> Run {
        Run { id, doc }
    }

    pub fn kind(&self) -> &str {
        str_at(&self.doc, &["kind"]).unwrap_or("run")
    }

    /// Read or write (scan documents without `rw` are reads).
    pub fn rw(&self) -> &str {
        str_at(&self.doc, &["rw"]).unwrap_or("read")
    }

    /// `run 12` or, for an unsaved document, its start time.
    pub fn label(&self) -> String {
        match self.id {
            Some(id) => format!("run {id}"),
            None => str_at(&self.doc, &["started_at"])
                .unwrap_or("unsaved run")
                .to_string(),
        }
    }

    /// The device in a few words: model and serial, else the target path.
    pub fn device(&self) -> String {
        let model = str_at(&self.doc, &["device", "model"]);
        let serial = str_at(&self.doc, &["device", "serial"]);
        match (model, serial) {
            (Some(m), Some(s)) => format!("{m} ({s})"),
            (Some(m), None) => m.to_string(),
            (None, Some(s)) => s.to_string(),
            (None, None) => str_at(&self.doc, &["target", "path"])
                .unwrap_or("?")
                .to_string(),
        }
    }

    /// A legend entry: `run 12 read · ACME HD4000 (S1) · 2026-11-02`.
    pub fn legend(&self) -> String {
        let date = str_at(&self.doc, &["started_at"])
            .map(|s| s.get(..10).unwrap_or(s))
            .unwrap_or("");
        format!(
            "{} {} · {} · {}",
            self.label(),
            self.rw(),
            self.device(),
            date
        )
    }

    pub fn array(&self, key: &str) -> &[Value] {
        self.doc
            .get(key)
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
}

pub(crate) fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

pub(crate) fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    at(v, path)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

pub(crate) fn num_at(v: &Value, path: &[&str]) -> Option<f64> {
    at(v, path)
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite())
}
