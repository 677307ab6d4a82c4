//! Earlier stored full scans of drives of the same model.

use crate::opts::store::StoreOpts;
use drivescope_analysis::screen;
use drivescope_record::{History, Member, ScanRecord};
use drivescope_store::{ListFilter, RunId, Store};
use std::collections::HashMap;

/// Fills each member's history from an existing store (none is created to look), each model looked
/// up once.
pub fn fill(members: &mut [Member], store: &StoreOpts) {
    let Some(store) = store.open_existing() else {
        return;
    };
    let ours: Vec<i64> = members.iter().filter_map(|m| m.run).collect();
    let mut found: HashMap<String, Option<History>> = HashMap::new();
    for m in members.iter_mut() {
        let Some(model) = m.scan.as_deref().and_then(screen::model) else {
            continue;
        };
        m.history = found
            .entry(model)
            .or_insert_with_key(|model| of_model(&store, model, &ours))
            .clone();
    }
}

/// The stored whole, finished reads of drives of `model`, oldest first, other than `ours`.
fn of_model(store: &Store, model: &str, ours: &[i64]) -> Option<History> {
    let newest = ListFilter {
        device: Some(model.to_string()),
        limit: Some(200),
        ..Default::default()
    };
    let scans: Vec<(RunId, ScanRecord)> =
        store.runs_of(&newest).ok()?.map_while(Result::ok).collect();
    let mut h = History {
        model: model.to_string(),
        runs: Vec::new(),
        mean_mb_per_s: Vec::new(),
    };
    for (id, s) in scans.iter().rev().filter(|(id, _)| !ours.contains(&id.0)) {
        if screen::model(s).as_deref() == Some(model)
            && !s.interrupted
            && !s.write
            && s.device_lost.is_none()
            && s.length == s.header.target.size
        {
            h.runs.push(id.0);
            h.mean_mb_per_s.push(s.mb_per_s.mean);
        }
    }
    (!h.runs.is_empty()).then_some(h)
}
