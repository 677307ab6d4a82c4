//! The identity columns of a run, copied (not computed) from its record.

use drivescope_record::{DeviceSummary, Document};

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
    pub device: DeviceSummary,
    /// How the run ended (`finished`, `interrupted`, `device_lost`, `checkpoint`).
    pub state: Option<String>,
}

fn text(s: &str) -> Option<String> {
    Some(s.trim().to_string()).filter(|s| !s.is_empty())
}

fn int(n: u64) -> Option<i64> {
    Some(n.min(i64::MAX as u64) as i64)
}

impl Identity {
    pub(crate) fn of(doc: &Document) -> Identity {
        let schema = match doc {
            Document::Info(r) => r.schema.clone(),
            Document::Unknown { doc, .. } => doc
                .get("schema")
                .and_then(|s| s.as_str())
                .unwrap_or(drivescope_record::SCHEMA)
                .to_string(),
            _ => doc.header().map(|h| h.schema.clone()).unwrap_or_default(),
        };
        let mut id = Identity {
            kind: doc.kind().as_str().to_string(),
            schema,
            device: doc.device().map(DeviceSummary::of).unwrap_or_default(),
            state: doc.state().map(|s| s.as_str().to_string()),
            ..Identity::default()
        };
        if let Some(h) = doc.header() {
            id.started_at = text(&h.started_at);
            id.ended_at = text(&h.ended_at);
            id.host = text(&h.host);
            id.tool_version = text(&h.tool.version);
            id.target_path = text(&h.target.path);
            id.target_type = Some(h.target.kind.as_str().to_string());
            id.target_size = int(h.target.size);
        }
        id
    }
}
