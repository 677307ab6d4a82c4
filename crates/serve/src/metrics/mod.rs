//! `/metrics`: the latest measurements of each drive in the Prometheus text format, behind the
//! same token as the pages. The store's documents are read again only when its runs changed
//! (a run saved, replaced or removed), and then only the runs not read before; between, a scrape
//! lists the runs and adds the ages.

mod collect;
mod families;

use crate::app::Shared;
use crate::exposition::CONTENT_TYPE;
use crate::fail::Fail;
use crate::pages::with_store;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use collect::{Fingerprint, Snapshot};
use std::sync::{Arc, Mutex};

/// The last snapshot and the store state it was read from, and what it read of each run.
#[derive(Default)]
pub(crate) struct Cache(Mutex<(Option<Last>, collect::Reads)>);

/// The last snapshot, and the store state it was read from.
type Last = (Fingerprint, Arc<Snapshot>);

/// The document for `store` at `now` (seconds since the epoch), through `cache`.
fn document(store: &drivescope_store::Store, cache: &Cache, now: f64) -> Result<String, Fail> {
    let (runs, fp) = collect::listed(store).map_err(Fail::internal)?;
    let mut held = cache
        .0
        .lock()
        .map_err(|_| Fail::internal("the metrics cache's lock was poisoned"))?;
    let (last, reads) = &mut *held;
    let snap = match last {
        Some((was, snap)) if *was == fp => snap.clone(),
        _ => {
            let snap = Arc::new(collect::collect(store, &runs, reads));
            *last = Some((fp, snap.clone()));
            snap
        }
    };
    drop(held);
    let mut out = snap.exposition.clone();
    for (l, ended) in &snap.ended {
        out.set(
            &families::RUN_AGE,
            &[&l[0], &l[1], &l[2], &l[3]],
            (now - ended).max(0.0),
        );
    }
    Ok(out.render())
}

/// Reads what `/metrics` needs into the cache, before anyone asks; a failure is left for the first
/// scrape to report.
pub(crate) fn warm(state: &crate::app::State) {
    let Ok(mut store) = state.store.lock() else {
        return;
    };
    if store.refresh().is_ok() {
        let _ = document(&store, &state.metrics, 0.0);
    }
}

pub(crate) async fn page(State(state): State<Shared>) -> Result<impl IntoResponse, Fail> {
    let shared = state.clone();
    let body = with_store(&state, move |store| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        document(store, &shared.metrics, now)
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, CONTENT_TYPE)], body))
}

#[cfg(test)]
mod tests;
