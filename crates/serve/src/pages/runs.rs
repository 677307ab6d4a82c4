//! `/`: the runs, filtered by device, kind and date, newest or oldest first, a page at a time;
//! ticked runs go to `/compare`.

use super::with_store;
use crate::app::Shared;
use crate::fail::Fail;
use crate::query;
use axum::extract::{RawQuery, State};
use axum::response::Html;
use drivescope_store::ListFilter;
use serde::Serialize;

/// Runs on a page unless `per` says otherwise (at most [`MOST_PER_PAGE`]).
pub(crate) const PAGE: usize = 50;
const MOST_PER_PAGE: usize = 500;

#[derive(Serialize)]
struct Row {
    id: i64,
    kind: String,
    state: String,
    started: String,
    model: String,
    serial: String,
    /// The drive page's key (the serial, else the target's path) as a URL path segment.
    drive: String,
    device: String,
    target: String,
    host: String,
}

pub(crate) async fn page(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
) -> Result<Html<String>, Fail> {
    let q = query::pairs(raw.as_deref())?;
    let device = query::text(query::one(&q, "device"), "device")?;
    let kind = query::kind(query::one(&q, "kind"))?;
    let since = query::date(query::one(&q, "since"), "since")?;
    let until = query::date(query::one(&q, "until"), "until")?;
    let oldest_first = match query::one(&q, "sort") {
        None | Some("newest") => false,
        Some("oldest") => true,
        Some(_) => return Err(Fail::bad("sort: newest or oldest")),
    };
    let page = query::page(query::one(&q, "page"))?;
    let per = match query::one(&q, "per") {
        None => PAGE,
        Some(p) => p
            .parse::<usize>()
            .ok()
            .filter(|p| (1..=MOST_PER_PAGE).contains(p))
            .ok_or_else(|| Fail::bad(format!("per: runs on a page, 1 to {MOST_PER_PAGE}")))?,
    };
    let filter = ListFilter {
        device: device.clone(),
        kind: kind.clone(),
        since: since.clone(),
        until: until.clone(),
        limit: Some(per),
        offset: Some((page - 1).saturating_mul(per)),
        oldest_first,
    };
    let (total, runs) = with_store(&state, move |store| {
        let total = store.count(&filter).map_err(Fail::internal)?;
        let runs = store.list(&filter).map_err(Fail::internal)?;
        let status: Vec<_> = runs.iter().map(|r| store.status(r)).collect();
        Ok((total, runs.into_iter().zip(status).collect::<Vec<_>>()))
    })
    .await?;
    let rows: Vec<Row> = runs
        .into_iter()
        .map(|(r, status)| Row {
            id: r.id.0,
            kind: r.kind.clone(),
            state: status.map(|s| s.words().to_string()).unwrap_or_default(),
            started: r.started_at.clone().unwrap_or_default(),
            model: r.device_model.clone().unwrap_or_default(),
            serial: r.device_serial.clone().unwrap_or_default(),
            drive: super::run::path_segment(
                r.device_serial
                    .as_deref()
                    .filter(|s| !s.is_empty())
                    .or(r.target_path.as_deref())
                    .unwrap_or(""),
            ),
            device: r.device_name.clone().unwrap_or_default(),
            target: r.target_path.clone().unwrap_or_default(),
            host: r.host.clone().unwrap_or_default(),
        })
        .collect();
    let pages = (total as usize).div_ceil(per).max(1);
    // The filter as a query, for the paging links.
    let keep: Vec<(&str, String)> = [
        ("device", device),
        ("kind", kind),
        ("since", since),
        ("until", until),
        ("sort", oldest_first.then(|| "oldest".to_string())),
        ("per", (per != PAGE).then(|| per.to_string())),
    ]
    .into_iter()
    .filter_map(|(k, v)| Some((k, v?)))
    .collect();
    let keep = serde_urlencoded::to_string(&keep).map_err(Fail::internal)?;
    let html = crate::templates::render(
        "runs.html",
        minijinja::context! {
            title => "drivescope runs",
            rows => minijinja::Value::from(minijinja::value::Serde(&rows)),
            total,
            page,
            pages,
            keep,
            device => query::one(&q, "device").unwrap_or(""),
            kind => query::one(&q, "kind").unwrap_or(""),
            since => query::one(&q, "since").unwrap_or(""),
            until => query::one(&q, "until").unwrap_or(""),
            oldest_first,
            kinds => minijinja::Value::from(minijinja::value::Serde(KINDS)),
        },
    )
    .map_err(Fail::internal)?;
    Ok(Html(html))
}

/// The kinds the filter offers.
const KINDS: &[&str] = &[
    "scan",
    "quick_scan",
    "bench",
    "sweep",
    "soak",
    "diagnose",
    "screen",
    "time",
    "multi",
    "info",
];
