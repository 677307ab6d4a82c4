//! Findings that need an earlier run: a bench whose test fits in a read cache a stored diagnosis of the same
//! device found.

use crate::opts::store::StoreOpts;
use drivescope_record::{BenchRecord, DeviceSummary, Document, Finding, Kind};
use drivescope_store::{ListFilter, Store};

/// The same device: the same serial when both have one, else the same target path.
fn same_device(a: &drivescope_record::Header, b: &drivescope_record::Header) -> bool {
    let serial = |h: &drivescope_record::Header| {
        h.device
            .as_ref()
            .and_then(|id| DeviceSummary::of(id).serial)
    };
    match (serial(a), serial(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a.target.path == b.target.path,
    }
}

/// The newest stored diagnosis of the bench's device, with its run number.
fn newest_diagnosis(
    store: &Store,
    b: &BenchRecord,
) -> Option<(i64, drivescope_record::DiagnoseRecord)> {
    let runs = store
        .list(&ListFilter {
            kind: Some(Kind::Diagnose.as_str().to_string()),
            limit: Some(50),
            ..Default::default()
        })
        .ok()?;
    runs.iter().find_map(|r| match store.get(r.id).ok()? {
        Document::Diagnose(d) if same_device(&d.header, &b.header) => Some((r.id.0, *d)),
        _ => None,
    })
}

/// Findings from stored runs of the same device (an existing store only: none is created to look).
pub fn findings(doc: &Document, store: &StoreOpts) -> Vec<Finding> {
    let Document::Bench(b) = doc else {
        return Vec::new();
    };
    let Some(store) = store.named().and_then(crate::opts::store::open_existing) else {
        return Vec::new();
    };
    newest_diagnosis(&store, b)
        .and_then(|(id, d)| drivescope_analysis::cache_fit::of_bench(b, &d, Some(id)))
        .into_iter()
        .collect()
}
