//! CSV: one table of one run (`drivescope export RUN --format csv [--table NAME]`), one row per entry, nested
//! objects flattened to dotted columns; without a table, the run's metrics as `metric,unit,value` rows.

use crate::doc::Run;
use crate::exporter::{one, Exporter};
use crate::{metrics, Result};
use drivescope_record::Document;
use serde_json::{Map, Value};
use std::io::Write;

/// One table of the run: `table`, else the kind's default (see [`default_table`]).
#[derive(Debug, Clone, Default)]
pub struct Csv {
    pub table: Option<String>,
}

impl Exporter for Csv {
    fn export(&self, runs: &[Run], out: &mut dyn Write) -> Result<()> {
        write(one("csv", runs)?, self.table.as_deref(), out)
    }
}

/// The table CSV exports when none is named: the data a chart of this kind draws.
pub fn default_table(kind: &str) -> Option<&'static str> {
    match kind {
        "scan" => Some("curve"),
        "quick_scan" => Some("regions"),
        "bench" => Some("tests"),
        "sweep" => Some("cells"),
        "soak" => Some("series"),
        "screen" => Some("members"),
        "time" => Some("runs"),
        "multi" => Some("tests"),
        _ => None,
    }
}

/// The tables a record has, by the names `--table` takes.
pub fn tables(doc: &Document) -> Vec<&'static str> {
    match doc {
        Document::Scan(_) => vec![
            "curve",
            "regions",
            "slow",
            "failed",
            "failed_extents",
            "untried_extents",
            "slow_regions",
            "bands",
            "histogram.buckets",
            "series",
            "verify.wrong",
            "verify.misplaced",
            "verify.lost",
            "verify.unreadable",
        ],
        Document::Bench(_) => vec!["tests"],
        Document::Sweep(_) => vec!["cells"],
        Document::Soak(_) => vec!["series", "steps"],
        Document::Diagnose(_) => vec!["outcomes", "warm_up", "zones", "working_sets", "write"],
        Document::Screen(_) => vec!["members", "shared_path"],
        Document::Time(_) => vec!["runs", "devices"],
        Document::Multi(_) => vec!["tests"],
        Document::Capacity(_) => vec!["evidence"],
        Document::Steady(_) => vec!["rounds"],
        Document::Durability(_) => vec!["commits", "pairs"],
        Document::Replay(_) => vec!["classes"],
        Document::Info(_) | Document::Unknown { .. } => vec![],
    }
}

fn rows<T: serde::Serialize>(v: &[T]) -> Option<Vec<Value>> {
    Some(
        v.iter()
            .map(|r| serde_json::to_value(r).expect("records serialize"))
            .collect(),
    )
}

/// The rows of table `name` of a record, each as its JSON object (to be flattened into columns).
fn table_rows(doc: &Document, name: &str) -> Option<Vec<Value>> {
    match doc {
        Document::Scan(r) => match name {
            "curve" => rows(&r.curve),
            "regions" => rows(r.regions.as_deref().unwrap_or_default()),
            "slow" => rows(&r.slow),
            "failed" => rows(&r.failed),
            "failed_extents" => rows(&r.failed_extents_or_derived()),
            "untried_extents" => rows(&r.untried_extents),
            "slow_regions" => rows(&r.slow_regions_or_derived()),
            "bands" => rows(&r.bands),
            "histogram.buckets" | "histogram" => rows(&r.histogram.buckets),
            "series" => rows(&r.series),
            "verify.wrong" => rows(&r.verify.as_ref()?.wrong),
            "verify.misplaced" => rows(&r.verify.as_ref()?.misplaced),
            "verify.lost" => rows(&r.verify.as_ref()?.lost),
            "verify.unreadable" => rows(&r.verify.as_ref()?.unreadable),
            _ => None,
        },
        Document::Bench(r) if name == "tests" => rows(&r.tests),
        Document::Multi(r) if name == "tests" => rows(&r.tests),
        Document::Sweep(r) if name == "cells" => rows(&r.cells),
        Document::Soak(r) => match name {
            "series" => rows(&r.series),
            "steps" => rows(&r.steps),
            _ => None,
        },
        Document::Diagnose(r) => match name {
            "outcomes" => rows(&r.outcomes),
            "warm_up" => rows(&r.warm_up.as_ref()?.points),
            "zones" => rows(&r.zones.as_ref()?.curve),
            "working_sets" => rows(&r.read_cache.as_ref()?.points),
            "write" => rows(&r.write_cache.as_ref()?.points),
            _ => None,
        },
        Document::Screen(r) => match name {
            "members" => Some(crate::screen::member_rows(r)),
            "shared_path" => Some(crate::screen::shared_rows(r.shared_path.as_ref()?, r)),
            _ => None,
        },
        Document::Steady(r) if name == "rounds" => rows(&r.rounds),
        Document::Capacity(r) => match name {
            "evidence" => rows(&r.evidence),
            _ => None,
        },
        Document::Durability(r) => match name {
            "commits" => rows(&r.data.commits),
            "pairs" => rows(&r.pairs),
            _ => None,
        },
        Document::Replay(r) if name == "classes" => rows(&r.classes),
        Document::Time(r) => match name {
            "runs" => Some(crate::time::run_rows(r)),
            "devices" => Some(crate::time::device_rows(r)),
            _ => None,
        },
        // A kind this version does not know: a list at the dotted path `name`.
        Document::Unknown { doc, .. } => name
            .split('.')
            .try_fold(doc, |v, k| v.get(k))
            .and_then(Value::as_array)
            .cloned(),
        _ => None,
    }
}

/// The columns of a table that has an order of its own (the screen's members, in the order of
/// its text: the latency bands from the fastest up).
fn table_columns(doc: &Document, name: &str) -> Option<Vec<String>> {
    match (doc, name) {
        (Document::Screen(r), "members") => Some(crate::screen::member_table(r).0),
        _ => None,
    }
}

/// Columns that identify a row, in this order, before the others.
const LEADING: &[&str] = &[
    "index",
    "target",
    "name",
    "rw",
    "t_ns",
    "offset",
    "lba",
    "length",
    "first_lba",
    "last_lba",
    "count",
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

/// CSV of table `table` of the run (see [`tables`]; default by kind), one row per entry, nested objects
/// flattened to dotted columns. Without a table: `metric,unit,value` rows.
fn write(run: &Run, table: Option<&str>, out: &mut dyn Write) -> Result<()> {
    let kind = run.kind();
    let name = table.or_else(|| default_table(&kind));
    let mut w = csv::Writer::from_writer(out);
    match name.and_then(|n| table_rows(&run.doc, n)) {
        Some(rows) => {
            let flat: Vec<Map<String, Value>> = rows
                .iter()
                .map(|r| {
                    let mut m = Map::new();
                    flatten("", r, &mut m);
                    m
                })
                .collect();
            // serde_json maps are sorted by key: a table with an order of its own keeps it,
            // others put the identifying columns first.
            let mut cols: Vec<String> = match name.and_then(|n| table_columns(&run.doc, n)) {
                Some(order) => order,
                None => LEADING.iter().map(|c| c.to_string()).collect(),
            };
            cols.retain(|c| flat.iter().any(|m| m.contains_key(c)));
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
            return Err(crate::Error::NoTable {
                table: table.unwrap_or_default().to_string(),
                kind,
                tables: tables(&run.doc).join(", "),
            })
        }
        None => {
            w.write_record(["metric", "unit", "value"])?;
            for m in metrics::of(run) {
                w.write_record([m.key, m.unit.suffix().to_string(), m.value.to_string()])?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_record::Direction;

    fn csv(run: &Run, table: Option<&str>) -> Result<String> {
        let csv = Csv {
            table: table.map(String::from),
        };
        Ok(String::from_utf8(csv.to_bytes(std::slice::from_ref(run))?).unwrap())
    }

    #[test]
    fn csv_exports_the_curve_and_named_tables() {
        let run = Run::new(Some(1), sample::scan(5, 1 << 30, 50, 3, 1, Direction::Read));
        let text = csv(&run, None).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next().unwrap(),
            "offset,length,max_mb_per_s,max_ns,mb_per_s,min_mb_per_s,min_ns"
        );
        assert_eq!(lines.count(), 50);
        let buckets = csv(&run, Some("histogram.buckets")).unwrap();
        assert_eq!(
            buckets.lines().count(),
            1 + match &run.doc {
                Document::Scan(s) => s.histogram.buckets.len(),
                _ => unreachable!(),
            }
        );
        assert!(csv(&run, Some("nope")).is_err());
        let extents = csv(&run, Some("failed_extents")).unwrap();
        assert_eq!(
            extents.lines().next().unwrap(),
            "offset,length,first_lba,last_lba,count,errno"
        );
        assert_eq!(extents.lines().count(), 1 + 1, "{extents}");
        let regions = csv(&run, Some("slow_regions")).unwrap();
        assert_eq!(
            regions.lines().next().unwrap(),
            "offset,length,count,max_latency_ns"
        );
        assert_eq!(regions.lines().count(), 1 + 3, "{regions}");
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
    fn one_run_at_a_time() {
        let run = Run::new(Some(2), sample::bench(1));
        let two = [run.clone(), run];
        assert!(matches!(
            Csv::default().to_bytes(&two),
            Err(crate::Error::OneRun { runs: 2, .. })
        ));
        assert!(Csv::default().to_bytes(&two[..1]).is_ok());
    }
}
