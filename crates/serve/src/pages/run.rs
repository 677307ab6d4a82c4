//! `/runs/ID`: the run's report page (the report's own rendering) with links to its raw JSON and
//! its downloads; `/runs/ID/json|csv|html` and `/runs/ID/png/CHART` download it.

use super::{load, nav, with_store};
use crate::app::Shared;
use crate::fail::Fail;
use crate::query;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use drivescope_report::exporter::Exporter;

pub(crate) async fn page(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Html<String>, Fail> {
    let id = query::run_id(&id)?;
    let run = with_store(&state, move |store| load(store, id)).await?;
    let runs = [run];
    let charts = drivescope_report::charts::build(&runs);
    let mut links = format!(
        r#" · run {id}: <a href="/runs/{id}/json">raw JSON</a> <a href="/runs/{id}/html" download>HTML</a> <a href="/runs/{id}/csv" download>CSV</a>"#
    );
    for c in &charts {
        links += &format!(
            r#" <a href="/runs/{id}/png/{chart}" download>PNG {chart}</a>"#,
            chart = c.id
        );
    }
    let drive = runs[0]
        .device_summary()
        .serial
        .filter(|s| !s.is_empty())
        .or_else(|| runs[0].header().map(|h| h.target.path.clone()));
    if let Some(key) = drive {
        links += &format!(
            r#" · <a href="/drives/{}">every run of this drive</a>"#,
            path_segment(&key)
        );
    }
    let title = format!("drivescope run {id}");
    let (html, _) = drivescope_report::html::render_with(&runs, &title, &nav(&links))
        .map_err(Fail::internal)?;
    Ok(Html(html))
}

/// `serial` as one URL path segment (every byte but letters, digits and `-._~` escaped).
pub(crate) fn path_segment(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

pub(crate) async fn download(
    State(state): State<Shared>,
    Path((id, format)): Path<(String, String)>,
) -> Result<Response, Fail> {
    let id = query::run_id(&id)?;
    let (mime, ext) = match format.as_str() {
        "json" => ("application/json", "json"),
        "csv" => ("text/csv; charset=utf-8", "csv"),
        "html" => ("text/html; charset=utf-8", "html"),
        _ => return Err(Fail::not_found("downloads: json, csv, html or png/CHART")),
    };
    let body = with_store(&state, move |store| {
        if ext == "json" {
            // The document as stored, not re-serialized.
            let v = store
                .get_json(drivescope_store::RunId(id))
                .map_err(|e| match e {
                    drivescope_store::Error::NotFound(_) => Fail::not_found(format!("no run {id}")),
                    e => Fail::internal(e),
                })?;
            let mut bytes = serde_json::to_vec_pretty(&v).map_err(Fail::internal)?;
            bytes.push(b'\n');
            return Ok(bytes);
        }
        let runs = [load(store, id)?];
        let exporter: Box<dyn Exporter> = if ext == "csv" {
            Box::new(drivescope_report::csv::Csv::default())
        } else {
            Box::new(drivescope_report::html::Html::Page {
                title: format!("drivescope run {id}"),
            })
        };
        exporter.to_bytes(&runs).map_err(Fail::internal)
    })
    .await?;
    let disposition = if ext == "json" {
        "inline".to_string()
    } else {
        format!("attachment; filename=\"drivescope-run-{id}.{ext}\"")
    };
    Ok((
        [
            (header::CONTENT_TYPE, mime.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        body,
    )
        .into_response())
}

pub(crate) async fn png(
    State(state): State<Shared>,
    Path((id, chart)): Path<(String, String)>,
) -> Result<Response, Fail> {
    let id = query::run_id(&id)?;
    if chart.len() > 100
        || !chart
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(Fail::bad("a chart's id: letters, digits and -"));
    }
    let name = chart.clone();
    let bytes = with_store(&state, move |store| {
        let runs = [load(store, id)?];
        if !drivescope_report::charts::build(&runs)
            .iter()
            .any(|c| c.id == chart)
        {
            return Err(Fail::not_found(format!("run {id} has no chart {chart}")));
        }
        drivescope_report::png::Png { chart }
            .to_bytes(&runs)
            .map_err(Fail::internal)
    })
    .await?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"drivescope-run-{id}-{name}.png\""),
            ),
        ],
        bytes,
    )
        .into_response())
}
