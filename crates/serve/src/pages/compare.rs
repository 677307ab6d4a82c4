//! `/compare?run=1&run=2…`: the ticked runs side by side, through the report's own page (the
//! compare table with best and worst marked, the curves overlaid).

use super::{load, nav, with_store};
use crate::app::Shared;
use crate::fail::Fail;
use crate::query;
use axum::extract::{RawQuery, State};
use axum::response::Html;

/// Runs one comparison takes.
const MOST: usize = 12;

pub(crate) async fn page(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
) -> Result<Html<String>, Fail> {
    let q = query::pairs(raw.as_deref())?;
    let mut ids = Vec::new();
    for (_, v) in q.iter().filter(|(k, _)| k == "run") {
        let id = query::run_id(v)?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.len() < 2 {
        return Err(Fail::bad("tick at least two runs to compare"));
    }
    if ids.len() > MOST {
        return Err(Fail::bad(format!("at most {MOST} runs at once")));
    }
    let shown = ids.clone();
    let runs = with_store(&state, move |store| {
        ids.iter()
            .map(|&id| load(store, id))
            .collect::<Result<Vec<_>, _>>()
    })
    .await?;
    let links: String = shown
        .iter()
        .map(|id| format!(r#" <a href="/runs/{id}">run {id}</a>"#))
        .collect();
    let title = format!(
        "drivescope: runs {} compared",
        shown
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (html, _) =
        drivescope_report::html::render_with(&runs, &title, &nav(&format!(" ·{links}")))
            .map_err(Fail::internal)?;
    Ok(Html(html))
}
