//! Findings that need an earlier run: a bench whose test fits in a read cache a stored diagnosis of the same
//! device found.

use crate::opts::store::StoreOpts;
use drivescope_record::{BenchRecord, DeviceMatch, DiagnoseRecord, Document, Finding};
use drivescope_store::{ListFilter, Store};

/// The newest stored diagnosis of the bench's device (the record crate's rule: the same serial
/// numbers, else the same target path), with its run number.
fn newest_diagnosis(store: &Store, b: &BenchRecord) -> Option<(i64, DiagnoseRecord)> {
    let newest = ListFilter {
        limit: Some(50),
        ..Default::default()
    };
    store
        .runs_of::<DiagnoseRecord>(&newest)
        .ok()?
        .map_while(Result::ok)
        .find(|(_, d)| DeviceMatch::same_runs(&d.header, &b.header))
        .map(|(id, d)| (id.0, d))
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
