//! Any record read back: the typed run of a known kind, or a document this version does not know.

use crate::bench::{BenchRecord, SoakRecord, SweepRecord};
use crate::capacity::CapacityRecord;
use crate::diagnose::DiagnoseRecord;
use crate::durability::DurabilityRecord;
use crate::header::Header;
use crate::info::InfoRecord;
use crate::kind::Kind;
use crate::multi::MultiRecord;
use crate::replay::ReplayRecord;
use crate::scan::ScanRecord;
use crate::screen::ScreenRecord;
use crate::steady::SteadyRecord;
use crate::time::TimeRecord;
use drivescope_probe::Identity;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A `drivescope/1` document.
#[derive(Debug, Clone)]
pub enum Document {
    /// `scan` and `quick_scan`.
    Scan(Box<ScanRecord>),
    Bench(Box<BenchRecord>),
    Sweep(Box<SweepRecord>),
    Soak(Box<SoakRecord>),
    Diagnose(Box<DiagnoseRecord>),
    Screen(Box<ScreenRecord>),
    Time(Box<TimeRecord>),
    Multi(Box<MultiRecord>),
    Capacity(Box<CapacityRecord>),
    Steady(Box<SteadyRecord>),
    Durability(Box<DurabilityRecord>),
    Replay(Box<ReplayRecord>),
    Info(Box<InfoRecord>),
    /// A kind this version does not know (written by a newer one), or a known kind in a shape it cannot
    /// read: kept as it was, with the reason it is not typed.
    Unknown {
        kind: Kind,
        doc: Value,
        why: String,
    },
}

/// Why a JSON value is not a drivescope document at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocumentError {
    NotAnObject,
    Schema(String),
    NoKind,
}

impl std::fmt::Display for DocumentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DocumentError::NotAnObject => f.write_str("not a JSON object"),
            DocumentError::Schema(s) => {
                write!(f, "schema is {s:?}, expected \"{}\"", crate::SCHEMA)
            }
            DocumentError::NoKind => f.write_str("no \"kind\""),
        }
    }
}

impl std::error::Error for DocumentError {}

fn typed<T: serde::de::DeserializeOwned>(
    doc: Value,
    kind: Kind,
    wrap: fn(Box<T>) -> Document,
) -> Document {
    match T::deserialize(&doc) {
        Ok(rec) => wrap(Box::new(rec)),
        Err(e) => Document::Unknown {
            kind,
            doc,
            why: e.to_string(),
        },
    }
}

impl Document {
    /// Reads a document: it must be an object naming the drivescope schema and a kind.
    pub fn from_value(doc: Value) -> Result<Document, DocumentError> {
        let obj = doc.as_object().ok_or(DocumentError::NotAnObject)?;
        let schema = obj
            .get("schema")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !schema.starts_with("drivescope/") {
            return Err(DocumentError::Schema(schema.to_string()));
        }
        let kind = match obj.get("kind").and_then(Value::as_str) {
            Some(k) if !k.is_empty() => Kind::parse(k),
            _ => return Err(DocumentError::NoKind),
        };
        Ok(match kind {
            Kind::Scan | Kind::QuickScan => typed(doc, kind, Document::Scan),
            Kind::Bench => typed(doc, kind, Document::Bench),
            Kind::Sweep => typed(doc, kind, Document::Sweep),
            Kind::Soak => typed(doc, kind, Document::Soak),
            Kind::Diagnose => typed(doc, kind, Document::Diagnose),
            Kind::Screen => typed(doc, kind, Document::Screen),
            Kind::Time => typed(doc, kind, Document::Time),
            Kind::Multi => typed(doc, kind, Document::Multi),
            Kind::Info => typed(doc, kind, Document::Info),
            Kind::Capacity => typed(doc, kind, Document::Capacity),
            Kind::Steady => typed(doc, kind, Document::Steady),
            Kind::Durability => typed(doc, kind, Document::Durability),
            Kind::Replay => typed(doc, kind, Document::Replay),
            kind => Document::Unknown {
                kind,
                doc,
                why: "a kind this version does not know".into(),
            },
        })
    }

    /// The document as JSON.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("records always serialize")
    }

    pub fn kind(&self) -> Kind {
        match self {
            Document::Info(r) => r.kind.clone(),
            Document::Unknown { kind, .. } => kind.clone(),
            _ => self.header().expect("a run").kind.clone(),
        }
    }

    /// The common header of a run (None for info documents and unknown ones).
    pub fn header(&self) -> Option<&Header> {
        match self {
            Document::Scan(r) => Some(&r.header),
            Document::Bench(r) => Some(&r.header),
            Document::Sweep(r) => Some(&r.header),
            Document::Soak(r) => Some(&r.header),
            Document::Diagnose(r) => Some(&r.header),
            Document::Screen(r) => Some(&r.header),
            Document::Time(r) => Some(&r.header),
            Document::Multi(r) => Some(&r.header),
            Document::Capacity(r) => Some(&r.header),
            Document::Steady(r) => Some(&r.header),
            Document::Durability(r) => Some(&r.header),
            Document::Replay(r) => Some(&r.header),
            Document::Info(_) | Document::Unknown { .. } => None,
        }
    }

    pub fn header_mut(&mut self) -> Option<&mut Header> {
        match self {
            Document::Scan(r) => Some(&mut r.header),
            Document::Bench(r) => Some(&mut r.header),
            Document::Sweep(r) => Some(&mut r.header),
            Document::Soak(r) => Some(&mut r.header),
            Document::Diagnose(r) => Some(&mut r.header),
            Document::Screen(r) => Some(&mut r.header),
            Document::Time(r) => Some(&mut r.header),
            Document::Multi(r) => Some(&mut r.header),
            Document::Capacity(r) => Some(&mut r.header),
            Document::Steady(r) => Some(&mut r.header),
            Document::Durability(r) => Some(&mut r.header),
            Document::Replay(r) => Some(&mut r.header),
            Document::Info(_) | Document::Unknown { .. } => None,
        }
    }

    /// The identity of the run's device (for an info document, of its target).
    pub fn device(&self) -> Option<&Identity> {
        match self {
            Document::Info(r) => r.identity.as_ref(),
            _ => self.header()?.device.as_ref(),
        }
    }
}

impl Serialize for Document {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Document::Scan(r) => r.serialize(s),
            Document::Bench(r) => r.serialize(s),
            Document::Sweep(r) => r.serialize(s),
            Document::Soak(r) => r.serialize(s),
            Document::Diagnose(r) => r.serialize(s),
            Document::Screen(r) => r.serialize(s),
            Document::Time(r) => r.serialize(s),
            Document::Multi(r) => r.serialize(s),
            Document::Capacity(r) => r.serialize(s),
            Document::Steady(r) => r.serialize(s),
            Document::Durability(r) => r.serialize(s),
            Document::Replay(r) => r.serialize(s),
            Document::Info(r) => r.serialize(s),
            Document::Unknown { doc, .. } => doc.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Document, D::Error> {
        Document::from_value(Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A run record of one kind: its header, and the document it is.
pub trait Record: Into<Document> + Clone + Serialize {
    fn header(&self) -> &Header;
    fn header_mut(&mut self) -> &mut Header;
}

macro_rules! record {
    ($($t:ty),*) => {$(
        impl Record for $t {
            fn header(&self) -> &Header {
                &self.header
            }
            fn header_mut(&mut self) -> &mut Header {
                &mut self.header
            }
        }
    )*};
}

record!(
    ScanRecord,
    BenchRecord,
    SweepRecord,
    SoakRecord,
    DiagnoseRecord,
    ScreenRecord,
    TimeRecord,
    MultiRecord,
    CapacityRecord,
    SteadyRecord,
    DurabilityRecord,
    ReplayRecord
);

macro_rules! from_record {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Document {
            fn from(r: $t) -> Document {
                Document::$v(Box::new(r))
            }
        }
    )*};
}

from_record!(ScanRecord => Scan, BenchRecord => Bench, SweepRecord => Sweep, SoakRecord => Soak, DiagnoseRecord => Diagnose, ScreenRecord => Screen, TimeRecord => Time, MultiRecord => Multi, CapacityRecord => Capacity, SteadyRecord => Steady, DurabilityRecord => Durability, ReplayRecord => Replay, InfoRecord => Info);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_is_not_a_document_is_refused() {
        assert_eq!(
            Document::from_value(json!([1])).unwrap_err(),
            DocumentError::NotAnObject
        );
        assert!(matches!(
            Document::from_value(json!({"kind": "scan"})),
            Err(DocumentError::Schema(_))
        ));
        assert_eq!(
            Document::from_value(json!({"schema": "drivescope/1"})).unwrap_err(),
            DocumentError::NoKind
        );
    }

    #[test]
    fn unknown_kinds_and_unreadable_shapes_are_kept_as_they_came() {
        let future = json!({"schema": "drivescope/1", "kind": "fleet", "drives": [1, 2]});
        let doc = Document::from_value(future.clone()).unwrap();
        assert_eq!(doc.kind(), Kind::Other("fleet".into()));
        assert!(doc.header().is_none() && doc.device().is_none());
        assert_eq!(doc.to_value(), future);
        // A known kind in a shape this version cannot read is not forced into its type.
        let odd = json!({"schema": "drivescope/1", "kind": "bench", "tests": "none"});
        match Document::from_value(odd.clone()).unwrap() {
            Document::Unknown { kind, doc, why } => {
                assert_eq!(kind, Kind::Bench);
                assert_eq!(doc, odd);
                assert!(!why.is_empty());
            }
            other => panic!("read as {:?}", other.kind()),
        }
    }
}
