//! The rows of a compare table: for each kind of run, the numbers a drive review puts side by side, and which
//! direction is better. Unknown kinds fall back to their numeric top-level fields.

use crate::doc::{num_at, str_at, Run};
pub use crate::format::Unit;
use serde_json::Value;

/// Whether a larger value is better, smaller is better, or neither (then nothing is marked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
    Neither,
}

/// One number of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// Stable key, also the row identity across runs (`scan.mb_per_s.mean`, `bench.SEQ1M Q8T1.read.mb_per_s`).
    pub key: String,
    /// Row label for people.
    pub label: String,
    pub unit: Unit,
    pub better: Better,
    pub value: f64,
}

fn push(
    out: &mut Vec<Metric>,
    key: String,
    label: String,
    unit: Unit,
    better: Better,
    value: Option<f64>,
) {
    if let Some(value) = value {
        out.push(Metric {
            key,
            label,
            unit,
            better,
            value,
        });
    }
}

/// The metrics of a run, in display order.
pub fn of(run: &Run) -> Vec<Metric> {
    let mut out = Vec::new();
    let d = &run.doc;
    match run.kind() {
        "scan" | "quick_scan" => scan(d, run.rw(), &mut out),
        "bench" => bench(run, &mut out),
        "sweep" => sweep(run, &mut out),
        "soak" => soak(run, &mut out),
        _ => {}
    }
    if out.is_empty() {
        generic(d, &mut out);
    }
    out
}

fn scan(d: &Value, rw: &str, out: &mut Vec<Metric>) {
    use Better::*;
    let k = |s: &str| format!("scan.{rw}.{s}");
    for (f, label, better) in [
        ("mean", "mean", Higher),
        ("min", "min (per bin)", Higher),
        ("max", "max (per bin)", Higher),
    ] {
        push(
            out,
            k(&format!("mb_per_s.{f}")),
            format!("Rate {rw} {label}"),
            Unit::MBps,
            better,
            num_at(d, &["mb_per_s", f]),
        );
    }
    if let Some(regions) = d
        .get("regions")
        .and_then(Value::as_array)
        .filter(|r| !r.is_empty())
    {
        let rates: Vec<f64> = regions
            .iter()
            .filter_map(|r| num_at(r, &["mb_per_s"]))
            .collect();
        if !rates.is_empty() {
            let mean = rates.iter().sum::<f64>() / rates.len() as f64;
            push(
                out,
                k("regions.mean"),
                format!("Rate {rw} mean of regions"),
                Unit::MBps,
                Higher,
                Some(mean),
            );
            let min = rates.iter().cloned().fold(f64::INFINITY, f64::min);
            push(
                out,
                k("regions.min"),
                format!("Rate {rw} slowest region"),
                Unit::MBps,
                Higher,
                Some(min),
            );
        }
        let firsts: Vec<f64> = regions
            .iter()
            .filter_map(|r| num_at(r, &["first_ns"]))
            .collect();
        if !firsts.is_empty() {
            let mean = firsts.iter().sum::<f64>() / firsts.len() as f64;
            push(
                out,
                k("regions.first_ns"),
                "Access time (first command)".into(),
                Unit::Nanos,
                Lower,
                Some(mean),
            );
        }
    }
    push(
        out,
        k("zone_ratio"),
        "Zone ratio (end / start)".into(),
        Unit::Ratio,
        Higher,
        num_at(d, &["zone_ratio"]),
    );
    latency(d.get("latency"), &k("latency"), "Latency", out);
    if let Some(bands) = d.get("bands").and_then(Value::as_array) {
        for (i, b) in bands.iter().enumerate() {
            let label = str_at(b, &["label"]).unwrap_or("?");
            let better = if i == 0 { Higher } else { Lower };
            push(
                out,
                k(&format!("band.{label}")),
                format!("Commands {label}"),
                Unit::Count,
                better,
                num_at(b, &["count"]),
            );
        }
    }
    push(
        out,
        k("slow_total"),
        "Slow commands".into(),
        Unit::Count,
        Lower,
        num_at(d, &["slow_total"]),
    );
    push(
        out,
        k("failed_total"),
        "Failed commands".into(),
        Unit::Count,
        Lower,
        num_at(d, &["failed_total"]),
    );
    push(
        out,
        k("duration_ns"),
        "Duration".into(),
        Unit::Nanos,
        Lower,
        num_at(d, &["duration_ns"]),
    );
}

fn latency(l: Option<&Value>, key: &str, label: &str, out: &mut Vec<Metric>) {
    let Some(l) = l else { return };
    push(
        out,
        format!("{key}.mean"),
        format!("{label} mean"),
        Unit::Nanos,
        Better::Lower,
        num_at(l, &["mean_ns"]),
    );
    if let Some(p) = l.get("percentiles_ns").and_then(Value::as_object) {
        for (q, v) in p {
            push(
                out,
                format!("{key}.p{q}"),
                format!("{label} p{q}"),
                Unit::Nanos,
                Better::Lower,
                v.as_f64(),
            );
        }
    }
    push(
        out,
        format!("{key}.max"),
        format!("{label} max"),
        Unit::Nanos,
        Better::Lower,
        num_at(l, &["max_ns"]),
    );
}

fn bench(run: &Run, out: &mut Vec<Metric>) {
    for t in run.array("tests") {
        let name = format!(
            "{} {}",
            str_at(t, &["name"]).unwrap_or("?"),
            str_at(t, &["rw"]).unwrap_or("")
        );
        let name = name.trim();
        push(
            out,
            format!("bench.{name}.mb_per_s"),
            name.to_string(),
            Unit::MBps,
            Better::Higher,
            num_at(t, &["mb_per_s"]),
        );
        push(
            out,
            format!("bench.{name}.iops"),
            name.to_string(),
            Unit::Iops,
            Better::Higher,
            num_at(t, &["iops"]),
        );
        let p99 = num_at(t, &["latency", "percentiles_ns", "99"]);
        push(
            out,
            format!("bench.{name}.p99"),
            format!("{name} p99"),
            Unit::Nanos,
            Better::Lower,
            p99,
        );
    }
}

fn sweep(run: &Run, out: &mut Vec<Metric>) {
    let d = &run.doc;
    let what = format!(
        "{} {}",
        str_at(d, &["pattern"]).unwrap_or(""),
        str_at(d, &["rw"]).unwrap_or("")
    )
    .trim()
    .to_string();
    let cells = run.array("cells");
    let peak = cells
        .iter()
        .filter_map(|c| num_at(c, &["iops"]))
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    push(
        out,
        "sweep.peak_iops".into(),
        format!("{what} peak"),
        Unit::Iops,
        Better::Higher,
        peak,
    );
    push(
        out,
        "sweep.queueing_gain".into(),
        "Queueing gain".into(),
        Unit::Ratio,
        Better::Higher,
        num_at(d, &["queueing_gain"]),
    );
    for c in cells {
        let (Some(q), Some(t)) = (num_at(c, &["queue_depth"]), num_at(c, &["threads"])) else {
            continue;
        };
        let cell = format!("Q{q}T{t}");
        push(
            out,
            format!("sweep.{cell}.iops"),
            format!("{what} {cell}"),
            Unit::Iops,
            Better::Higher,
            num_at(c, &["iops"]),
        );
        push(
            out,
            format!("sweep.{cell}.p99"),
            format!("{what} {cell} p99"),
            Unit::Nanos,
            Better::Lower,
            num_at(c, &["p99_ns"]),
        );
    }
}

fn soak(run: &Run, out: &mut Vec<Metric>) {
    let d = &run.doc;
    let test = str_at(d, &["test"]).unwrap_or("soak");
    push(
        out,
        "soak.steady".into(),
        format!("{test} steady rate"),
        Unit::MBps,
        Better::Higher,
        num_at(d, &["steady_mb_per_s"]),
    );
    push(
        out,
        "soak.first_to_steady".into(),
        "First / steady".into(),
        Unit::Ratio,
        Better::Lower,
        num_at(d, &["first_to_steady"]),
    );
    let rates: Vec<f64> = run
        .array("series")
        .iter()
        .filter_map(|s| num_at(s, &["mb_per_s"]))
        .collect();
    if !rates.is_empty() {
        let min = rates.iter().cloned().fold(f64::INFINITY, f64::min);
        push(
            out,
            "soak.min".into(),
            format!("{test} slowest interval"),
            Unit::MBps,
            Better::Higher,
            Some(min),
        );
    }
    push(
        out,
        "soak.steps".into(),
        "Steps".into(),
        Unit::Count,
        Better::Lower,
        Some(run.array("steps").len() as f64),
    );
}

fn generic(d: &Value, out: &mut Vec<Metric>) {
    if let Some(obj) = d.as_object() {
        for (k, v) in obj {
            let unit = if k.ends_with("_ns") {
                Unit::Nanos
            } else if k.contains("mb_per_s") {
                Unit::MBps
            } else {
                Unit::Plain
            };
            push(out, k.clone(), k.clone(), unit, Better::Neither, v.as_f64());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    #[test]
    fn every_kind_has_rows() {
        for doc in [
            sample::scan(1, 1 << 30, 100, 3, 1, "read"),
            sample::quick_scan(1, 1 << 30, 256),
            sample::bench(1),
            sample::sweep(1),
            sample::soak(1, 60),
        ] {
            let run = Run::new(Some(1), doc);
            let m = of(&run);
            assert!(m.len() >= 2, "{} has {} rows", run.kind(), m.len());
        }
        let unknown = Run::new(
            None,
            serde_json::json!({"kind": "future", "answer": 42, "name": "x"}),
        );
        assert_eq!(of(&unknown).len(), 1);
    }
}
