//! The rows of a compare table: for each kind of run, the numbers a drive review puts side by side, and which
//! direction is better. Unknown kinds fall back to their numeric top-level fields.

use crate::doc::Run;
pub use crate::format::Unit;
use drivescope_record::{BenchRecord, Document, ScanRecord, SoakRecord, SweepRecord};
use drivescope_stats::LatencySummary;

mod screen;
mod steady;
mod time;
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
    /// How much the value moved between the run's own repetitions (the sample standard
    /// deviation over a bench test's runs), where it has them: a compare does not mark a
    /// difference within it.
    pub spread: Option<f64>,
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
            spread: None,
        });
    }
}

/// Sets the spread of the metric pushed last (if it was pushed: its value was known).
fn spread(out: &mut [Metric], key: &str, v: Option<f64>) {
    if let Some(m) = out.last_mut().filter(|m| m.key == key) {
        m.spread = v;
    }
}

/// The sample standard deviation of `v`, from two values on.
fn sd(v: impl Iterator<Item = f64>) -> Option<f64> {
    let v: Vec<f64> = v.collect();
    let n = v.len() as f64;
    if v.len() < 2 {
        return None;
    }
    let mean = v.iter().sum::<f64>() / n;
    Some((v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt())
}

/// The metrics of a run, in display order.
pub fn of(run: &Run) -> Vec<Metric> {
    let mut out = Vec::new();
    match &run.doc {
        Document::Scan(s) => scan(s, &mut out),
        Document::Bench(b) => bench(b, &mut out),
        Document::Sweep(s) => sweep(s, &mut out),
        Document::Soak(s) => soak(s, &mut out),
        Document::Diagnose(d) => diagnose(d, &mut out),
        Document::Screen(r) => screen::rows(r, &mut out),
        Document::Time(r) => time::rows(r, &mut out),
        Document::Multi(r) => multi(r, &mut out),
        Document::Capacity(c) => capacity(c, &mut out),
        Document::Steady(s) => steady::rows(s, &mut out),
        Document::Durability(d) => durability(d, &mut out),
        Document::Replay(r) => replay(r, &mut out),
        Document::Info(_) => {}
        Document::Unknown { doc, .. } => generic(doc, &mut out),
    }
    out
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn scan(d: &ScanRecord, out: &mut Vec<Metric>) {
    use Better::*;
    let rw = d.direction();
    let k = |s: &str| format!("scan.{rw}.{s}");
    for (f, label, better, v) in [
        ("mean", "mean", Higher, d.mb_per_s.mean),
        ("min", "min (per bin)", Higher, d.mb_per_s.min),
        ("max", "max (per bin)", Higher, d.mb_per_s.max),
    ] {
        push(
            out,
            k(&format!("mb_per_s.{f}")),
            format!("Rate {rw} {label}"),
            Unit::MBps,
            better,
            Some(v),
        );
    }
    if let Some(regions) = d.regions.as_ref().filter(|r| !r.is_empty()) {
        let rates: Vec<f64> = regions.iter().map(|r| r.mb_per_s).collect();
        push(
            out,
            k("regions.mean"),
            format!("Rate {rw} mean of regions"),
            Unit::MBps,
            Higher,
            mean(&rates),
        );
        push(
            out,
            k("regions.min"),
            format!("Rate {rw} slowest region"),
            Unit::MBps,
            Higher,
            rates.iter().cloned().reduce(f64::min),
        );
        let firsts: Vec<f64> = regions.iter().map(|r| r.first_ns as f64).collect();
        push(
            out,
            k("regions.first_ns"),
            "Access time (first command)".into(),
            Unit::Nanos,
            Lower,
            mean(&firsts),
        );
    }
    push(
        out,
        k("zone_ratio"),
        "Zone ratio (end / start)".into(),
        Unit::Ratio,
        Neither,
        // Only where offsets are a medium's positions: on a file, memory or null it means nothing.
        d.zone_ratio.filter(|_| d.header.positions().is_ok()),
    );
    latency(Some(&d.latency), &k("latency"), "Latency", out);
    for (i, b) in d.bands.iter().enumerate() {
        let better = if i == 0 { Higher } else { Lower };
        push(
            out,
            k(&format!("band.{}", b.label)),
            format!("Commands {}", b.label),
            Unit::Count,
            better,
            Some(b.count as f64),
        );
    }
    for (key, label, v) in [
        ("slow_total", "Slow commands", d.slow_total),
        ("failed_total", "Failed sectors", d.failed_sectors()),
    ] {
        push(
            out,
            k(key),
            label.into(),
            Unit::Count,
            Lower,
            Some(v as f64),
        );
    }
    push(
        out,
        k("duration_ns"),
        "Duration".into(),
        Unit::Elapsed,
        Lower,
        Some(d.duration_ns as f64),
    );
}

fn latency(l: Option<&LatencySummary>, key: &str, label: &str, out: &mut Vec<Metric>) {
    let Some(l) = l else {
        return;
    };
    push(
        out,
        format!("{key}.mean"),
        format!("{label} mean"),
        Unit::Nanos,
        Better::Lower,
        Some(l.mean_ns as f64),
    );
    for (q, v) in &l.percentiles_ns {
        push(
            out,
            format!("{key}.p{q}"),
            format!("{label} p{q}"),
            Unit::Nanos,
            Better::Lower,
            Some(*v as f64),
        );
    }
    push(
        out,
        format!("{key}.max"),
        format!("{label} max"),
        Unit::Nanos,
        Better::Lower,
        Some(l.max_ns as f64),
    );
}

/// The aggregate of a multi-rank run per test, then each rank's own rate (its rows matched across
/// runs by rank and host).
fn multi(r: &drivescope_record::MultiRecord, out: &mut Vec<Metric>) {
    for t in &r.tests {
        let name = format!("{} {}", t.name, t.rw);
        push(
            out,
            format!("multi.{name}.mb_per_s"),
            name.clone(),
            Unit::MBps,
            Better::Higher,
            Some(t.mb_per_s),
        );
        push(
            out,
            format!("multi.{name}.iops"),
            name.clone(),
            Unit::Iops,
            Better::Higher,
            Some(t.iops),
        );
        push(
            out,
            format!("multi.{name}.p99"),
            format!("{name} p99"),
            Unit::Nanos,
            Better::Lower,
            t.latency.percentiles_ns.get("99").map(|&v| v as f64),
        );
    }
    for m in &r.members {
        for x in m.tests() {
            let name = format!("{} {}", x.name, x.rw);
            push(
                out,
                format!("multi.{name}.rank.{}.{}.mb_per_s", m.rank, m.host),
                format!("{name} rank {} on {}", m.rank, m.host),
                Unit::MBps,
                Better::Higher,
                Some(x.mb_per_s),
            );
        }
    }
}

fn bench(b: &BenchRecord, out: &mut Vec<Metric>) {
    for t in &b.tests {
        let name = format!("{} {}", t.name, t.rw);
        let key = format!("bench.{name}.mb_per_s");
        push(
            out,
            key.clone(),
            name.clone(),
            Unit::MBps,
            Better::Higher,
            Some(t.mb_per_s),
        );
        spread(out, &key, sd(t.runs.iter().map(|r| r.mb_per_s)));
        let key = format!("bench.{name}.iops");
        push(
            out,
            key.clone(),
            name.clone(),
            Unit::Iops,
            Better::Higher,
            Some(t.iops),
        );
        spread(out, &key, sd(t.runs.iter().map(|r| r.iops)));
        let key = format!("bench.{name}.p99");
        push(
            out,
            key.clone(),
            format!("{name} p99"),
            Unit::Nanos,
            Better::Lower,
            t.latency.percentiles_ns.get("99").map(|v| *v as f64),
        );
        spread(out, &key, sd(t.runs.iter().map(|r| r.p99_ns as f64)));
    }
}

fn sweep(d: &SweepRecord, out: &mut Vec<Metric>) {
    let what = format!("{} {}", d.pattern, d.rw);
    let peak = d.cells.iter().map(|c| c.iops).reduce(f64::max);
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
        d.queueing_gain,
    );
    for c in &d.cells {
        let cell = format!("Q{}T{}", c.queue_depth, c.threads);
        push(
            out,
            format!("sweep.{cell}.iops"),
            format!("{what} {cell}"),
            Unit::Iops,
            Better::Higher,
            Some(c.iops),
        );
        push(
            out,
            format!("sweep.{cell}.p99"),
            format!("{what} {cell} p99"),
            Unit::Nanos,
            Better::Lower,
            Some(c.p99_ns as f64),
        );
    }
}

fn soak(d: &SoakRecord, out: &mut Vec<Metric>) {
    let test = &d.test;
    push(
        out,
        "soak.steady".into(),
        format!("{test} steady rate"),
        Unit::MBps,
        Better::Higher,
        Some(d.steady_mb_per_s),
    );
    push(
        out,
        "soak.first_to_steady".into(),
        "First / steady".into(),
        Unit::Ratio,
        Better::Neither,
        d.first_to_steady,
    );
    push(
        out,
        "soak.min".into(),
        format!("{test} slowest interval"),
        Unit::MBps,
        Better::Higher,
        d.series.iter().map(|p| p.mb_per_s).reduce(f64::min),
    );
    push(
        out,
        "soak.steps".into(),
        "Steps".into(),
        Unit::Count,
        Better::Lower,
        Some(d.steps.len() as f64),
    );
}

/// A capacity probe: the size the drive reports, and what of it kept its data.
fn capacity(c: &drivescope_record::CapacityRecord, out: &mut Vec<Metric>) {
    push(
        out,
        "capacity.reported".into(),
        "Reported size".into(),
        Unit::Bytes,
        Better::Neither,
        Some(c.nominal as f64),
    );
    push(
        out,
        "capacity.real".into(),
        "Real capacity".into(),
        Unit::Bytes,
        Better::Higher,
        c.real_capacity.map(|r| r as f64),
    );
}

/// A durability run: the commit p99 at one committer (4 KiB `write`+`fdatasync`), and whether
/// flushes return early (1) or not (0).
fn durability(d: &drivescope_record::durability::DurabilityRecord, out: &mut Vec<Metric>) {
    use drivescope_record::durability::{CommitModeName, FlushHonestyVerdict};
    let qd1 = d
        .data
        .commits
        .iter()
        .find(|c| c.mode == CommitModeName::Fdatasync && c.committers == 1 && c.size == 4096);
    push(
        out,
        "durability.commit_p99".into(),
        "Commit p99 (4 KiB fdatasync, 1 committer)".into(),
        Unit::Nanos,
        Better::Lower,
        qd1.map(|c| c.p99_ns as f64),
    );
    let early = d.data.flush_honesty.as_ref().and_then(|f| match f.verdict {
        FlushHonestyVerdict::Early => Some(1.0),
        FlushHonestyVerdict::Inconclusive => None,
        _ => Some(0.0),
    });
    push(
        out,
        "durability.flush_early".into(),
        "Flushes return early".into(),
        Unit::Count,
        Better::Lower,
        early,
    );
}

/// A document of a kind this version does not know: its numeric top-level fields.
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

/// Which way a finding's number is better, where it has a way: rates and IOPS up, the queueing
/// gain up, stalls down. Ratios, shares, sizes, times and factors that describe what was found
/// (a zone ratio, a cache's size, when a step came) have none and are never marked.
fn evidence_direction(name: &str) -> Better {
    if name.starts_with("iops") || name == "gain" {
        Better::Higher
    } else if name.starts_with("stall") {
        Better::Lower
    } else {
        Better::Neither
    }
}

/// A diagnosis: the numbers of its findings (cache sizes and rates, the queueing gain, the zone ratio, …).
fn diagnose(d: &drivescope_record::DiagnoseRecord, out: &mut Vec<Metric>) {
    for f in &d.header.findings {
        for (name, value) in &f.evidence.numbers {
            let (unit, better) = if name.ends_with("mb_per_s") {
                (Unit::MBps, Better::Higher)
            } else if name.ends_with("bytes") || name.starts_with("written") {
                (Unit::Bytes, Better::Neither)
            } else {
                (Unit::Plain, evidence_direction(name))
            };
            push(
                out,
                format!("diagnose.{}.{name}", f.code.as_str()),
                crate::evidence::number_label(&f.code, name),
                unit,
                better,
                Some(*value),
            );
        }
    }
}

/// A replay: its I/O time against the trace's, and its requests that failed.
fn replay(r: &drivescope_record::ReplayRecord, out: &mut Vec<Metric>) {
    push(
        out,
        "replay.io_ratio".into(),
        "I/O time, replayed over traced".into(),
        Unit::Ratio,
        Better::Lower,
        r.io_ratio(),
    );
    push(
        out,
        "replay.io_time".into(),
        "I/O time replayed".into(),
        Unit::Nanos,
        Better::Lower,
        Some(r.kernel.as_ref().unwrap_or(&r.replayed).io_ns as f64),
    );
    push(
        out,
        "replay.errors".into(),
        "Failed requests".into(),
        Unit::Count,
        Better::Lower,
        Some(r.errors as f64),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_record::Direction;

    #[test]
    fn the_failed_row_counts_the_sectors_of_the_extents() {
        let mut r = sample::scan(1, 1 << 30, 100, 0, 0, Direction::Read);
        // A 1 MiB bad spot: the failed list keeps only its first sector here, the extent
        // holds all 2048.
        r.failed = vec![drivescope_record::Event {
            offset: 1 << 20,
            lba: 2048,
            latency_ns: 1,
            errno: Some(5),
        }];
        r.failed_total = 1;
        r.failed_extents = vec![sample::failed_extent(2048, 2048)];
        let ms = of(&Run::new(Some(1), Document::from(r)));
        let m = ms
            .iter()
            .find(|m| m.key == "scan.read.failed_total")
            .unwrap();
        assert_eq!((m.label.as_str(), m.value), ("Failed sectors", 2048.0));
    }

    #[test]
    fn a_screen_counts_its_verdicts_and_each_drive_by_its_target() {
        let ms = of(&Run::new(Some(1), Document::from(sample::screen(1, 4))));
        let v = |k: &str| ms.iter().find(|m| m.key == k).map(|m| m.value);
        assert_eq!(v("screen.drives"), Some(4.0));
        assert_eq!(
            [
                v("screen.pass"),
                v("screen.warn"),
                v("screen.incomplete"),
                v("screen.fail")
            ],
            [Some(2.0), Some(1.0), Some(0.0), Some(1.0)]
        );
        assert_eq!(v("screen./dev/sdc.failed_sectors"), Some(3.0));
        assert_eq!(v("screen.failed_sectors"), Some(3.0));
        assert_eq!(v("screen./dev/sdd.slow_total"), Some(25.0));
        assert!((v("screen.shared.ratio").unwrap() - 0.6).abs() < 0.01);
    }

    #[test]
    fn numbers_without_a_direction_are_never_marked() {
        for name in [
            "zone_ratio",
            "falling_share",
            "factor",
            "queue_depth",
            "step_s",
        ] {
            assert_eq!(evidence_direction(name), Better::Neither, "{name}");
        }
        assert_eq!(evidence_direction("gain"), Better::Higher);
        assert_eq!(evidence_direction("iops_deep"), Better::Higher);
        assert_eq!(evidence_direction("stalls"), Better::Lower);
        let scan = sample::scan(1, 1 << 30, 100, 0, 0, Direction::Read);
        let ms = of(&Run::new(Some(1), Document::from(scan)));
        let zone = ms.iter().find(|m| m.key.ends_with("zone_ratio"));
        assert!(zone.is_none_or(|m| m.better == Better::Neither));
    }

    #[test]
    fn every_kind_has_rows() {
        let docs: [Document; 6] = [
            sample::scan(1, 1 << 30, 100, 3, 1, Direction::Read).into(),
            sample::quick_scan(1, 1 << 30, 256).into(),
            sample::bench(1).into(),
            sample::sweep(1).into(),
            sample::soak(1, 60).into(),
            sample::capacity(1, 1 << 30, 1 << 28).into(),
        ];
        for doc in docs {
            let run = Run::new(Some(1), doc);
            let m = of(&run);
            assert!(m.len() >= 2, "{} has {} rows", run.kind(), m.len());
        }
        // A kind a newer version writes: its numeric fields are its rows.
        let future = serde_json::json!({"schema": "drivescope/1", "kind": "future", "answer": 42, "name": "x"});
        let unknown = Run::new(None, Document::from_value(future).unwrap());
        assert_eq!(of(&unknown).len(), 1);
    }
}
