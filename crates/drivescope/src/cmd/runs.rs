//! `drivescope runs`: the stored runs, newest first, filtered by device, kind and date.

use crate::finish::Outcome;
use crate::opts::store::StorePath;
use drivescope_record::{Document, RunStatus};
use drivescope_report::text::{self, ListedRun};
use drivescope_store::{ListFilter, RunInfo};

#[derive(clap::Args)]
pub struct RunsArgs {
    /// Only runs whose device model, serial or target path contains this (case-insensitive).
    #[arg(long)]
    pub device: Option<String>,
    /// Only runs of this kind.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(
        drivescope_record::Kind::SAVED.iter().map(drivescope_record::Kind::as_str)
    ))]
    pub kind: Option<String>,
    /// Only runs started at or after this date/time (RFC 3339 prefix: 2026-11-01, 2026-11-01T10:00).
    #[arg(long)]
    pub since: Option<String>,
    /// Only runs started on or before this date/time (inclusive: 2026-11-30 keeps the whole day).
    #[arg(long)]
    pub until: Option<String>,
    /// At most this many runs.
    #[arg(long, default_value_t = 100, value_parser = crate::opts::args::parse_count_usize)]
    pub limit: usize,
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StorePath,
}

pub fn run(a: RunsArgs) -> anyhow::Result<Outcome> {
    let store = a.store.open()?;
    let filter = ListFilter {
        device: a.device,
        kind: a.kind,
        since: a.since,
        until: a.until,
        limit: Some(a.limit),
        ..ListFilter::default()
    };
    let runs = store.list(&filter)?;
    let states: Vec<_> = runs.iter().map(|r| store.status(r)).collect();
    // A document this version cannot read still lists, without its result.
    let docs: Vec<Option<Document>> = runs.iter().map(|r| store.get(r.id).ok()).collect();
    let text = if a.json {
        json_list(&runs, &states, &docs)?
    } else if runs.is_empty() {
        eprintln!("no runs in {}", store.location());
        return Ok(Outcome::Success);
    } else {
        text_list(&runs, &states, &docs)
    };
    crate::finish::print_all(text.as_bytes())?;
    Ok(Outcome::Success)
}

fn header(d: &Option<Document>) -> Option<&drivescope_record::Header> {
    d.as_ref().and_then(|d| d.header())
}

/// `runs --json`: one object per run, newest first.
fn json_list(
    runs: &[RunInfo],
    states: &[Option<RunStatus>],
    docs: &[Option<Document>],
) -> anyhow::Result<String> {
    let list: Vec<serde_json::Value> = runs
        .iter()
        .zip(states)
        .zip(docs)
        .map(|((r, state), doc)| {
            serde_json::json!({
                "id": r.id.0, "kind": r.kind, "state": state.map(|s| s.as_str()), "started_at": r.started_at, "ended_at": r.ended_at,
                "host": r.host, "tool_version": r.tool_version, "target": r.target_path,
                "device": {"model": r.device_model, "serial": r.device_serial, "firmware": r.device_firmware,
                           "capacity": r.device_capacity, "transport": r.device_transport, "name": r.device_name},
                "drive": header(doc).map(drivescope_record::drive_key),
            })
        })
        .collect();
    Ok(format!("{}\n", serde_json::to_string_pretty(&list)?))
}

/// `runs`: the table, fitted to the terminal.
fn text_list(runs: &[RunInfo], states: &[Option<RunStatus>], docs: &[Option<Document>]) -> String {
    let list: Vec<ListedRun> = runs
        .iter()
        .zip(states)
        .zip(docs)
        .map(|((r, state), doc)| ListedRun {
            drive: header(doc).map(drivescope_record::drive_key),
            facts: header(doc).and_then(drivescope_record::drive_facts),
            id: r.id.0,
            kind: r.kind.clone(),
            state: state.map(|s| s.words().to_string()),
            started_at: r.started_at.clone(),
            ended_at: r.ended_at.clone(),
            device: r.device(),
            target: r.target_path.clone(),
            host: r.host.clone(),
            result: doc.as_ref().and_then(text::headline),
            took_ns: doc.as_ref().and_then(text::took),
        })
        .collect();
    text::runs(&list, terminal_width())
}

/// The width to fit the table to: `COLUMNS` when set, else the terminal's; none for a pipe.
fn terminal_width() -> Option<usize> {
    if let Some(c) = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()) {
        return Some(c);
    }
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    crossterm::terminal::size()
        .ok()
        .map(|(cols, _)| cols as usize)
        .filter(|c| *c > 0)
}
