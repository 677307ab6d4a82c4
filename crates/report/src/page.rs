//! The HTML report: one self-contained file (inline CSS and SVG; no scripts, no fonts, no network).

use crate::charts::{self, Chart};
use crate::compare::Table;
use crate::doc::{str_at, Run};
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

/// Identity and result fields, which are not parameters.
const NOT_PARAMS: &[&str] = &[
    "schema",
    "kind",
    "host",
    "started_at",
    "ended_at",
    "bytes",
    "commands",
    "duration_ns",
    "zone_ratio",
    "slow_total",
    "failed_total",
    "queueing_gain",
    "steady_mb_per_s",
    "first_to_steady",
];

/// The parameters of a run: its top-level scalars that are not identity or results.
pub fn params(doc: &Value) -> Vec<(String, String)> {
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
    let d = &r.doc;
    let target = match (
        str_at(d, &["target", "path"]),
        d.get("target")
            .and_then(|t| t.get("size"))
            .and_then(Value::as_f64),
    ) {
        (Some(p), Some(s)) => format!("{p} ({})", crate::format::bytes(s)),
        (Some(p), None) => p.to_string(),
        _ => String::new(),
    };
    let s = |k: &str| str_at(d, &[k]).unwrap_or("").to_string();
    RunRow {
        label: r.label(),
        kind: r.kind().into(),
        device: r.device(),
        target,
        host: s("host"),
        started: s("started_at"),
        ended: s("ended_at"),
        params: params(d),
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

    #[test]
    fn page_is_self_contained_and_escaped() {
        let mut doc = sample::scan(3, 1 << 30, 200, 5, 1, "read");
        doc["host"] = "<script>alert(1)</script>".into();
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
