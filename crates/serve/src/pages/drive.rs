//! `/drives/KEY`: every run of one drive over time: rate, p99, slow and failed counts, the verdict
//! a screen gave it and the findings of each run, and the rate and p99 as trend charts. KEY is the drive's serial number;
//! a target without one (a file, a share, a loop device) is known by its path.

use super::{nav, with_store};
use crate::app::Shared;
use crate::fail::Fail;
use crate::query;
use axum::extract::{Path, State};
use axum::response::Html;
use drivescope_record::ScreenRecord;
use drivescope_report::charts::trend::{self, Series};
use drivescope_report::metrics::{self, Metric, Unit};
use drivescope_store::{ListFilter, RunId};
use serde::Serialize;
use std::collections::BTreeMap;

/// Runs a drive page reads at most (the newest).
const MOST: usize = 2000;

#[derive(Serialize)]
struct Row {
    id: i64,
    kind: String,
    started: String,
    rate: String,
    p99: String,
    slow: String,
    failed: String,
    /// The verdict a screen gave this run's drive (`pass`, `warn: …`, `fail: …`).
    verdict: String,
    findings: Vec<String>,
}

/// Screens looked at for verdicts (the newest).
const SCREENS: usize = 200;

/// The verdicts screens gave, by the run number of the drive's scan: grade and its first reason.
fn verdicts(store: &drivescope_store::Store) -> Result<BTreeMap<i64, String>, Fail> {
    let newest = ListFilter {
        limit: Some(SCREENS),
        ..ListFilter::default()
    };
    let mut out = BTreeMap::new();
    for screen in store
        .runs_of::<ScreenRecord>(&newest)
        .map_err(Fail::internal)?
    {
        let (RunId(screen), r) = screen.map_err(Fail::internal)?;
        for m in &r.members {
            if let (Some(run), Some(v)) = (m.run, &m.verdict) {
                let text = match v.reasons.first() {
                    Some(why) => format!("{}: {}", v.grade.as_str(), why.text),
                    None => v.grade.as_str().to_string(),
                };
                out.insert(run, format!("{text} (screen run {screen})"));
            }
        }
    }
    Ok(out)
}

/// A run's figures: its first rate, its first p99, its slow and failed counts.
struct Figures {
    rate: Option<Metric>,
    p99: Option<Metric>,
    slow: Option<f64>,
    failed: Option<f64>,
}

fn figures(run: &drivescope_report::Run) -> Figures {
    let m = metrics::of(run);
    let find = |f: &dyn Fn(&Metric) -> bool| m.iter().find(|x| f(x)).cloned();
    Figures {
        rate: find(&|x| x.unit == Unit::MBps),
        p99: find(&|x| x.key.ends_with(".p99")),
        slow: find(&|x| x.key.ends_with(".slow_total")).map(|x| x.value),
        failed: find(&|x| x.key.ends_with(".failed_total")).map(|x| x.value),
    }
}

/// One device's history on the page: a heading where the path held several, its rows and charts.
#[derive(Serialize)]
struct Group {
    label: Option<String>,
    rows: Vec<Row>,
    charts: Vec<drivescope_report::charts::Chart>,
}

/// The rows (newest first) and the trend charts of one device's runs (newest first as listed).
fn history(
    runs: &[&drivescope_report::Run],
    verdicts: &BTreeMap<i64, String>,
    serial: &str,
    label: Option<&String>,
    n: usize,
) -> Result<(Vec<Row>, Vec<drivescope_report::charts::Chart>), Fail> {
    let mut rows = Vec::new();
    // Per figure's label (a scan's rate and a bench's are different lines): its points.
    let mut rates: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut p99s: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for run in runs.iter().rev() {
        let f = figures(run);
        let when = run
            .header()
            .map(|h| h.started_at.clone())
            .unwrap_or_default();
        if let Some(t) = epoch(&when) {
            if let Some(r) = &f.rate {
                rates.entry(r.label.clone()).or_default().push((t, r.value));
            }
            if let Some(p) = &f.p99 {
                p99s.entry(p.label.clone())
                    .or_default()
                    .push((t, p.value / 1e6));
            }
        }
        let count = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.0}"));
        rows.push(Row {
            id: run.id.unwrap_or(0),
            kind: run.kind(),
            started: when,
            rate: f.rate.map_or(String::new(), |r| {
                format!("{:.1} MB/s ({})", r.value, r.label)
            }),
            p99: f
                .p99
                .map_or(String::new(), |p| format!("{:.3} ms", p.value / 1e6)),
            slow: count(f.slow),
            failed: count(f.failed),
            verdict: run
                .id
                .and_then(|id| verdicts.get(&id).cloned())
                .unwrap_or_default(),
            findings: run
                .header()
                .map(|h| h.findings.iter().map(|x| x.claim.clone()).collect())
                .unwrap_or_default(),
        });
    }
    let series = |m: BTreeMap<String, Vec<(f64, f64)>>| -> Vec<Series> {
        m.into_iter()
            .map(|(name, points)| Series { name, points })
            .collect()
    };
    let (what, id) = match label {
        Some(l) => (format!("{serial} ({l})"), format!("-{n}")),
        None => (serial.to_string(), String::new()),
    };
    let charts: Vec<_> = [
        trend::chart(
            &format!("trend-rate{id}"),
            &format!("Transfer rate over time — {what}"),
            "MB/s",
            "Each run's rate (a scan's mean, a bench's first test), by the day it ran.",
            &series(rates),
        ),
        trend::chart(
            &format!("trend-p99{id}"),
            &format!("p99 latency over time — {what}"),
            "p99 (ms)",
            "Each run's 99th-percentile completion latency, by the day it ran.",
            &series(p99s),
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    rows.reverse();
    Ok((rows, charts))
}

/// Seconds since the Unix epoch of an RFC 3339 time.
fn epoch(t: &str) -> Option<f64> {
    let when = humantime::parse_rfc3339_weak(t.get(..19)?).ok()?;
    Some(
        when.duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_secs_f64(),
    )
}

pub(crate) async fn page(
    State(state): State<Shared>,
    Path(serial): Path<String>,
) -> Result<Html<String>, Fail> {
    let serial = query::text(Some(&serial), "serial")?.unwrap_or_default();
    let wanted = serial.clone();
    let (runs, verdicts) = with_store(&state, move |store| {
        let listed = store
            .list(&ListFilter {
                device: Some(wanted.clone()),
                limit: Some(MOST),
                ..ListFilter::default()
            })
            .map_err(Fail::internal)?;
        let mut runs = Vec::new();
        let mine = |r: &drivescope_store::RunInfo| match r.device_serial.as_deref() {
            Some(s) if !s.is_empty() => s == wanted,
            _ => r.target_path.as_deref() == Some(wanted.as_str()),
        };
        for info in listed.into_iter().filter(|r| mine(r)) {
            let doc = store.get(info.id).map_err(Fail::internal)?;
            let RunId(id) = info.id;
            runs.push(drivescope_report::Run::new(Some(id), doc));
        }
        let verdicts = if runs.is_empty() {
            BTreeMap::new()
        } else {
            verdicts(store)?
        };
        Ok((runs, verdicts))
    })
    .await?;
    if runs.is_empty() {
        return Err(Fail::not_found(format!(
            "no run of a drive with serial {serial}, nor of a target without one at that path"
        )));
    }
    // One history per device: runs under one path whose identities differ (lab disks served
    // as /dev/loop0 in turn) are different devices, each with its own rows and trend.
    let mut groups: Vec<(String, Vec<&drivescope_report::Run>)> = Vec::new();
    for run in &runs {
        let key = run
            .header()
            .map(drivescope_record::drive_key)
            .unwrap_or_default();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(run),
            None => groups.push((key, vec![run])),
        }
    }
    let model = runs
        .iter()
        .find_map(|r| r.device_summary().model)
        .unwrap_or_default();
    let several = groups.len() > 1;
    let mut shown = Vec::new();
    for (n, (_, group)) in groups.iter().enumerate() {
        let label = group
            .iter()
            .find_map(|r| r.header().and_then(drivescope_record::drive_facts))
            .unwrap_or_else(|| "identity unknown".into());
        let (rows, charts) = history(group, &verdicts, &serial, several.then_some(&label), n)?;
        shown.push(Group {
            label: several.then_some(label),
            rows,
            charts,
        });
    }
    let note = several.then(|| {
        format!(
            "{serial} held {} different devices: not the same device, so each has its own history below",
            groups.len()
        )
    });
    let html = crate::templates::render(
        "drive.html",
        minijinja::context! {
            title => format!("drivescope drive {serial}"),
            nav => nav(""),
            serial,
            model,
            runs => runs.len(),
            note,
            groups => minijinja::Value::from(minijinja::value::Serde(&shown)),
        },
    )
    .map_err(Fail::internal)?;
    Ok(Html(html))
}
