//! A record of one kind taken out of a document read back, for readers that walk stored runs of
//! one kind (`Store::runs_of`, `Store::latest`).

use crate::{
    BenchRecord, CapacityRecord, DiagnoseRecord, Document, Kind, MultiRecord, ScanRecord,
    ScreenRecord, SoakRecord, SteadyRecord, SweepRecord, TimeRecord,
};

/// What a typed read of stored runs returns: a record type, or any [`Document`].
pub trait FromDocument: Sized {
    /// The kind a walk asks the store for when its filter names none (`None`: every kind). A
    /// scan's is `scan`; quick scans, also [`ScanRecord`]s, are asked for by name.
    fn kind() -> Option<Kind>;
    /// The record, when the document is one (`Err` gives the document back).
    fn from_document(doc: Document) -> Result<Self, Document>;
}

impl FromDocument for Document {
    fn kind() -> Option<Kind> {
        None
    }
    fn from_document(doc: Document) -> Result<Self, Document> {
        Ok(doc)
    }
}

macro_rules! from_document {
    ($($t:ty => $v:ident, $k:expr);* $(;)?) => {$(
        impl FromDocument for $t {
            fn kind() -> Option<Kind> {
                Some($k)
            }
            fn from_document(doc: Document) -> Result<Self, Document> {
                match doc {
                    Document::$v(r) => Ok(*r),
                    other => Err(other),
                }
            }
        }

        impl TryFrom<Document> for $t {
            type Error = Document;
            fn try_from(doc: Document) -> Result<Self, Document> {
                <$t as FromDocument>::from_document(doc)
            }
        }
    )*};
}

from_document!(
    ScanRecord => Scan, Kind::Scan;
    BenchRecord => Bench, Kind::Bench;
    SweepRecord => Sweep, Kind::Sweep;
    SoakRecord => Soak, Kind::Soak;
    DiagnoseRecord => Diagnose, Kind::Diagnose;
    ScreenRecord => Screen, Kind::Screen;
    TimeRecord => Time, Kind::Time;
    MultiRecord => Multi, Kind::Multi;
    CapacityRecord => Capacity, Kind::Capacity;
    SteadyRecord => Steady, Kind::Steady;
    crate::durability::DurabilityRecord => Durability, Kind::Durability;
);
