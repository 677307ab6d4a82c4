//! The pages, each a handler that reads the store on the blocking pool.

pub(crate) mod compare;
pub(crate) mod drive;
pub(crate) mod run;
pub(crate) mod runs;

use crate::app::Shared;
use crate::fail::Fail;
use drivescope_store::Store;

/// Runs `f` with the store on the blocking pool (store calls block; the store answers one at a
/// time).
pub(crate) async fn with_store<T: Send + 'static>(
    state: &Shared,
    f: impl FnOnce(&Store) -> Result<T, Fail> + Send + 'static,
) -> Result<T, Fail> {
    let state = state.clone();
    tokio::task::spawn_blocking(move || {
        let mut store = state
            .store
            .lock()
            .map_err(|_| Fail::internal("the store's lock was poisoned"))?;
        // A store read as a snapshot is opened again, so each page shows the runs saved since.
        store.refresh().map_err(Fail::internal)?;
        f(&store)
    })
    .await
    .map_err(Fail::internal)?
}

/// A stored run for the report, or 404.
pub(crate) fn load(store: &Store, id: i64) -> Result<drivescope_report::Run, Fail> {
    match store.get(drivescope_store::RunId(id)) {
        Ok(doc) => Ok(drivescope_report::Run::new(Some(id), doc)),
        Err(drivescope_store::Error::NotFound(_)) => Err(Fail::not_found(format!("no run {id}"))),
        Err(e) => Err(Fail::internal(e)),
    }
}

/// The links at the top of every page.
pub(crate) fn nav(extra: &str) -> String {
    format!(r#"<nav class="browse"><a href="/">All runs</a>{extra}</nav>"#)
}

pub(crate) async fn not_found() -> Fail {
    Fail::not_found("no such page")
}
