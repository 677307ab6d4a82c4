//! The HTML report: one self-contained file (inline CSS and SVG; no scripts, no fonts, no network).

use crate::charts::{self, Chart};
use crate::compare::Table;
use crate::doc::Run;
use drivescope_record::{DataPattern, Document};
use minijinja::{context, Environment, Value as J};
use serde::Serialize;
use serde_json::Value;

const PAGE: &str = include_str!("../templates/report.html");
const COMPARE: &str = include_str!("../templates/compare.html");

fn env() -> Environment<'static> {
    let mut env = Environment::new();
    // The `.html` names turn on HTML auto-escaping; SVG and the compare table come in pre-escaped (`|safe`).
    env.add_template("report.html", PAGE)
        .expect("report template parses");
    env.add_template("compare.html", COMPARE)
        .expect("compare template parses");
    env
}

#[derive(Serialize)]
struct RunRow {
    label: String,
    kind: String,
    device: String,
    target: String,
    host: String,
    started: String,
    ended: String,
    params: Vec<(String, String)>,
}

/// The parameters of a run: what it was asked to do, not what it measured.
pub fn params(doc: &Document) -> Vec<(String, String)> {
    let mut p: Vec<(&str, String)> = Vec::new();
    match doc {
        Document::Scan(r) => {
            p.push(("block_size", r.block_size.to_string()));
            p.push(("queue_depth", r.queue_depth.to_string()));
            p.push(("offset", r.offset.to_string()));
            p.push(("length", r.length.to_string()));
            p.push(("engine", r.engine.to_string()));
            p.push(("reap", r.reap.to_string()));
            p.push(("slow_threshold_ns", r.slow_threshold_ns.to_string()));
            if let Some(d) = r.dwell_ns {
                p.push(("dwell_ns", d.to_string()));
            }
            p.push(("points", r.points.to_string()));
            p.push(("interval_ns", r.interval_ns.to_string()));
            p.push(("write", r.write.to_string()));
            p.push(("interrupted", r.interrupted.to_string()));
            if let Some(from) = r.resumed_from {
                p.push(("resumed_from", from.to_string()));
            }
        }
        Document::Bench(r) => {
            p.push(("profile", r.profile.clone()));
            p.push(("runs", r.runs.to_string()));
            p.push(("duration_ns", r.duration_ns.to_string()));
            p.push(("pause_ns", r.pause_ns.to_string()));
        }
        Document::Sweep(r) => {
            p.push(("pattern", r.pattern.clone()));
            p.push(("rw", r.rw.to_string()));
            p.push(("block_size", r.block_size.to_string()));
            p.push(("duration_ns", r.duration_ns.to_string()));
        }
        Document::Soak(r) => {
            p.push(("test", r.test.clone()));
            p.push(("rw", r.rw.to_string()));
            p.push(("block_size", r.load.block_size.to_string()));
            p.push(("queue_depth", r.load.queue_depth.to_string()));
            p.push(("threads", r.load.threads.to_string()));
            p.push(("engine", r.load.engine.to_string()));
            p.push(("reap", r.load.reap.to_string()));
            p.push(("duration_ns", r.duration_ns.to_string()));
            p.push(("interval_ns", r.interval_ns.to_string()));
        }
        Document::Info(_) => {}
        Document::Unknown { doc, .. } => return unknown_params(doc),
    }
    if let Document::Bench(_) | Document::Sweep(_) | Document::Soak(_) = doc {
        let w = match doc {
            Document::Bench(r) => &r.workload,
            Document::Sweep(r) => &r.workload,
            Document::Soak(r) => &r.workload,
            _ => unreachable!(),
        };
        p.push(("size", w.size.to_string()));
        p.push((
            "data",
            match w.data {
                DataPattern::Random => "random",
                DataPattern::Zero => "zero",
            }
            .into(),
        ));
        p.push(("direct", w.direct.to_string()));
        p.push(("interrupted", w.interrupted.to_string()));
    }
    p.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The parameters of a document of a kind this version does not know: its top-level scalars.
fn unknown_params(doc: &Value) -> Vec<(String, String)> {
    const NOT_PARAMS: &[&str] = &["schema", "kind", "host", "started_at", "ended_at"];
    let Some(obj) = doc.as_object() else {
        return Vec::new();
    };
    obj.iter()
        .filter(|(k, v)| {
            !NOT_PARAMS.contains(&k.as_str()) && !v.is_object() && !v.is_array() && !v.is_null()
        })
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str().map_or_else(|| v.to_string(), str::to_string),
            )
        })
        .collect()
}

fn run_row(r: &Run) -> RunRow {
    let h = r.header();
    let target = h
        .map(|h| {
            format!(
                "{} ({})",
                h.target.path,
                crate::format::bytes(h.target.size as f64)
            )
        })
        .unwrap_or_default();
    let s = |f: fn(&drivescope_record::Header) -> &String| h.map(f).cloned().unwrap_or_default();
    RunRow {
        label: r.label(),
        kind: r.kind(),
        device: r.device(),
        target,
        host: s(|h| &h.host),
        started: s(|h| &h.started_at),
        ended: s(|h| &h.ended_at),
        params: params(&r.doc),
    }
}

/// The compare table as an HTML fragment.
pub fn render_compare(table: &Table) -> crate::Result<String> {
    Ok(env()
        .get_template("compare.html")?
        .render(context! { table => J::from(minijinja::value::Serde(table)) })?)
}

/// The whole report page for `runs`, with its charts (also returned, for PNG export or checks).
pub fn render(runs: &[Run], title: &str) -> crate::Result<(String, Vec<Chart>)> {
    let charts = charts::build(runs);
    let compare = render_compare(&Table::new(runs))?;
    let rows: Vec<RunRow> = runs.iter().map(run_row).collect();
    let html = env().get_template("report.html")?.render(context! {
        title,
        version => env!("CARGO_PKG_VERSION"),
        runs => J::from(minijinja::value::Serde(&rows)),
        compare,
        charts => J::from(minijinja::value::Serde(&charts)),
    })?;
    Ok((html, charts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_record::Direction;

    #[test]
    fn page_is_self_contained_and_escaped() {
        let mut doc = sample::scan(3, 1 << 30, 200, 5, 1, Direction::Read);
        doc.header.host = "<script>alert(1)</script>".into();
        let (html, charts) = render(&[Run::new(Some(7), doc)], "Report").unwrap();
        assert!(
            !html.contains("<script"),
            "no scripts, and document text is escaped"
        );
        assert!(html.contains("&lt;script&gt;"));
        for forbidden in ["http://", "https://", "@import", "url("] {
            let outside_ns = html.replace("http://www.w3.org/2000/svg", "");
            assert!(
                !outside_ns.contains(forbidden),
                "external reference {forbidden}"
            );
        }
        assert_eq!(charts.iter().find(|c| c.id == "curve").unwrap().marks, 200);
        assert!(html.contains(r#"data-points="200""#));
    }
}
