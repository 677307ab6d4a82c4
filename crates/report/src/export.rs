//! Exports of one run: JSON (the document as saved), CSV (one of its tables), Markdown (a readable summary).

use crate::compare::Table;
use crate::doc::{at, str_at, Run};
use crate::{metrics, Result};
use serde_json::{Map, Value};
use std::fmt::Write;

/// The document, pretty-printed.
pub fn json(run: &Run) -> String {
    serde_json::to_string_pretty(&run.doc).expect("a serde_json::Value always serializes")
}

/// The table CSV exports when none is named: the data a chart of this kind draws.
pub fn default_table(kind: &str) -> Option<&'static str> {
    match kind {
        "scan" => Some("curve"),
        "quick_scan" => Some("regions"),
        "bench" => Some("tests"),
        "sweep" => Some("cells"),
        "soak" => Some("series"),
        _ => None,
    }
}

/// Columns that identify a row, in this order, before the others.
const LEADING: &[&str] = &[
    "index",
    "name",
    "rw",
    "t_ns",
    "offset",
    "lba",
    "length",
    "low_ns",
    "high_ns",
    "queue_depth",
    "threads",
    "block_size",
];

fn flatten(prefix: &str, v: &Value, out: &mut Map<String, Value>) {
    match v {
        Value::Object(o) => {
            for (k, v) in o {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        Value::Array(_) => {}
        v => {
            out.insert(prefix.to_string(), v.clone());
        }
    }
}

/// CSV of the array at `table` (a dotted path: `curve`, `slow`, `histogram.buckets`; default by kind), one row
/// per entry, nested objects flattened to dotted columns. Without such an array: `metric,unit,value` rows.
pub fn csv(run: &Run, table: Option<&str>) -> Result<String> {
    let name = table.or_else(|| default_table(run.kind()));
    let path: Vec<&str> = name.map(|n| n.split('.').collect()).unwrap_or_default();
    let mut w = csv::Writer::from_writer(Vec::new());
    match name
        .and_then(|_| at(&run.doc, &path))
        .and_then(Value::as_array)
    {
        Some(rows) => {
            let flat: Vec<Map<String, Value>> = rows
                .iter()
                .map(|r| {
                    let mut m = Map::new();
                    flatten("", r, &mut m);
                    m
                })
                .collect();
            // serde_json maps are sorted by key: put the identifying columns first.
            let mut cols: Vec<String> = LEADING
                .iter()
                .filter(|c| flat.iter().any(|m| m.contains_key(**c)))
                .map(|c| c.to_string())
                .collect();
            for m in &flat {
                for k in m.keys() {
                    if !cols.contains(k) {
                        cols.push(k.clone());
                    }
                }
            }
            w.write_record(&cols)?;
            for m in &flat {
                w.write_record(cols.iter().map(|c| match m.get(c) {
                    None | Some(Value::Null) => String::new(),
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                }))?;
            }
        }
        None if table.is_some() => {
            return Err(crate::Error::Png(format!(
                "no table {:?} in this {} run",
                table.unwrap_or(""),
                run.kind()
            )))
        }
        None => {
            w.write_record(["metric", "unit", "value"])?;
            for m in metrics::of(run) {
                w.write_record([m.key, m.unit.suffix().to_string(), m.value.to_string()])?;
            }
        }
    }
    let bytes = w
        .into_inner()
        .map_err(|e| crate::Error::Csv(e.into_error().into()))?;
    Ok(String::from_utf8(bytes).expect("csv of UTF-8 strings is UTF-8"))
}

/// A Markdown summary: identity, parameters, results (best/worst marks need two runs: see `compare`),
/// bands, and the first slow and failed commands.
pub fn markdown(run: &Run) -> String {
    let d = &run.doc;
    let mut o = format!("# {} — {}\n\n", run.label(), run.kind());
    let field = |path: &[&str]| {
        str_at(d, path)
            .map(str::to_string)
            .or_else(|| at(d, path).filter(|v| v.is_number()).map(Value::to_string))
    };
    for (name, path) in [
        ("Device", &["device", "model"][..]),
        ("Serial", &["device", "serial"]),
        ("Firmware", &["device", "firmware"]),
        ("Capacity (bytes)", &["device", "capacity"]),
        ("Transport", &["device", "transport"]),
        ("Target", &["target", "path"]),
        ("Host", &["host"]),
        ("Started", &["started_at"]),
        ("Ended", &["ended_at"]),
        ("drivescope", &["tool", "version"]),
    ] {
        if let Some(v) = field(path) {
            let _ = writeln!(o, "- **{name}:** {}", v.replace('|', "\\|"));
        }
    }
    let params = crate::page::params(d);
    if !params.is_empty() {
        let p: Vec<String> = params.iter().map(|(k, v)| format!("`{k}={v}`")).collect();
        let _ = writeln!(o, "- **Parameters:** {}", p.join(" "));
    }
    o += "\n## Results\n\n";
    o += &Table::new(std::slice::from_ref(run)).to_markdown();
    for key in ["slow", "failed"] {
        let list = run.array(key);
        if list.is_empty() {
            continue;
        }
        let _ = write!(
            o,
            "\n## {} commands\n\n| LBA | offset | latency (ns) | errno |\n|---:|---:|---:|---:|\n",
            if key == "slow" { "Slow" } else { "Failed" }
        );
        for e in list.iter().take(crate::text::LIST_MAX) {
            let g = |k: &str| {
                e.get(k)
                    .filter(|v| !v.is_null())
                    .map_or(String::new(), Value::to_string)
            };
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} |",
                g("lba"),
                g("offset"),
                g("latency_ns"),
                g("errno")
            );
        }
        if list.len() > crate::text::LIST_MAX {
            let _ = writeln!(o, "\n…and {} more.", list.len() - crate::text::LIST_MAX);
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    #[test]
    fn csv_exports_the_curve_and_named_tables() {
        let run = Run::new(Some(1), sample::scan(5, 1 << 30, 50, 3, 1, "read"));
        let text = csv(&run, None).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next().unwrap(),
            "offset,length,max_ns,mb_per_s,min_ns"
        );
        assert_eq!(lines.count(), 50);
        let buckets = csv(&run, Some("histogram.buckets")).unwrap();
        assert_eq!(
            buckets.lines().count(),
            1 + run.doc["histogram"]["buckets"].as_array().unwrap().len()
        );
        assert!(csv(&run, Some("nope")).is_err());
        let bench = Run::new(Some(2), sample::bench(1));
        let b = csv(&bench, None).unwrap();
        assert!(
            b.lines()
                .next()
                .unwrap()
                .contains("latency.percentiles_ns.99"),
            "{b}"
        );
    }

    #[test]
    fn markdown_has_identity_and_results() {
        let run = Run::new(Some(9), sample::scan(5, 1 << 30, 50, 3, 1, "write"));
        let md = markdown(&run);
        assert!(md.starts_with("# run 9 — scan"));
        assert!(md.contains("- **Serial:** SAMPLE-0005"));
        assert!(md.contains("| Rate write mean |"));
        assert!(md.contains("## Failed commands"));
    }
}
