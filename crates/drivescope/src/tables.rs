//! Human output of bench, sweep and soak records (from the record alone, so stored runs
//! print as they did).

use crate::summary::sparkline;
use drivescope_core::bench::{BenchRecord, SoakRecord, SweepCell, SweepRecord, TestResult};
use drivescope_core::engine::Reap;
use drivescope_core::units::{format_ns, format_size};
use drivescope_record::Direction;
use std::io::Write;

fn mark(direct: bool) -> &'static str {
    crate::cmd::workload::buffered_mark(direct)
}

/// One line per finished test (progress).
pub fn bench_line(t: &TestResult, direct: bool) -> String {
    format!(
        "  {:<14} {:<5} {:>10.2} MB/s {:>11.0} IOPS  p99 {}{}",
        t.name,
        t.rw,
        t.mb_per_s,
        t.iops,
        format_ns(*t.latency.percentiles_ns.get("99").unwrap_or(&0)),
        mark(direct)
    )
}

/// CrystalDiskMark-shaped table (tests as rows, read and write side by side), then details.
pub fn print_bench(r: &BenchRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let h = &r.header;
    writeln!(
        out,
        "drivescope bench {} ({} {}, {} data, {} runs × {:.1} s, best run shown){}",
        h.target.path,
        if h.target.kind == drivescope_core::target::TargetType::File {
            "test file of"
        } else {
            "device region of"
        },
        format_size(h.target.size),
        serde_json::to_value(r.workload.data)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default(),
        r.runs,
        r.duration_ns as f64 / 1e9,
        mark(r.workload.direct)
    )?;
    let mut names: Vec<&str> = Vec::new();
    for t in &r.tests {
        if !names.contains(&t.name.as_str()) {
            names.push(&t.name);
        }
    }
    let has_mix = r.tests.iter().any(|t| t.rw == Direction::Mix);
    write!(
        out,
        "  {:<14} {:>14} {:>14}",
        "", "Read [MB/s]", "Write [MB/s]"
    )?;
    if has_mix {
        write!(out, " {:>14}", "Mix [MB/s]")?;
    }
    writeln!(out)?;
    let cell = |name: &str, rw: &str| {
        r.tests
            .iter()
            .find(|t| t.name == name && t.rw.as_str() == rw)
            .map(|t| format!("{:.2}", t.mb_per_s))
            .unwrap_or_else(|| "—".into())
    };
    for n in &names {
        write!(
            out,
            "  {:<14} {:>14} {:>14}",
            n,
            cell(n, "read"),
            cell(n, "write")
        )?;
        if has_mix {
            write!(out, " {:>14}", cell(n, "mix"))?;
        }
        writeln!(out, "{}", mark(r.workload.direct))?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "  {:<14} {:<5} {:>9} {:>16} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "test",
        "rw",
        "MB/s",
        "mean ± sd",
        "IOPS",
        "lat mean",
        "p50",
        "p99",
        "p99.9",
        "p99.99",
        "max"
    )?;
    for t in &r.tests {
        let p = |k: &str| format_ns(*t.latency.percentiles_ns.get(k).unwrap_or(&0));
        writeln!(
            out,
            "  {:<14} {:<5} {:>9.2} {:>16} {:>10.0} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}{}",
            t.name,
            t.rw,
            t.mb_per_s,
            format!("{:.1} ± {:.1}", t.mean_mb_per_s, t.stddev_mb_per_s),
            t.iops,
            format_ns(t.latency.mean_ns),
            p("50"),
            p("99"),
            p("99.9"),
            p("99.99"),
            format_ns(t.latency.max_ns),
            mark(r.workload.direct)
        )?;
    }
    let polled: Vec<String> = r
        .tests
        .iter()
        .filter(|t| t.load.reap == Reap::Poll)
        .map(|t| format!("{} {}", t.name, t.rw))
        .collect();
    if !polled.is_empty() {
        writeln!(
            out,
            "  completions polled (--reap poll; fio sleeps for them): {}{}",
            polled.join(", "),
            mark(r.workload.direct)
        )?;
    }
    if r.workload.interrupted {
        writeln!(
            out,
            "  [interrupted: the tests above are complete, the rest did not run]"
        )?;
    }
    Ok(())
}

/// One line per finished sweep cell (progress).
pub fn sweep_line(c: &SweepCell, direct: bool) -> String {
    format!(
        "  Q{:<3} T{:<3} {:>11.0} IOPS {:>10.2} MB/s  p99 {}{}",
        c.queue_depth,
        c.threads,
        c.iops,
        c.mb_per_s,
        format_ns(c.p99_ns),
        mark(direct)
    )
}

/// The sweep grid: IOPS per cell, then MB/s and p99.
pub fn print_sweep(r: &SweepRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let h = &r.header;
    writeln!(
        out,
        "drivescope sweep {} {} {} ({}, {:.1} s per cell){}",
        h.target.path,
        r.pattern,
        r.rw,
        format_size(h.target.size),
        r.duration_ns as f64 / 1e9,
        mark(r.workload.direct)
    )?;
    let mut qds: Vec<u32> = r.cells.iter().map(|c| c.queue_depth).collect();
    qds.dedup();
    qds.sort_unstable();
    qds.dedup();
    let mut ths: Vec<u32> = r.cells.iter().map(|c| c.threads).collect();
    ths.sort_unstable();
    ths.dedup();
    for (title, f) in [
        (
            "IOPS",
            &(|c: &SweepCell| format!("{:.0}", c.iops)) as &dyn Fn(&SweepCell) -> String,
        ),
        ("MB/s", &|c: &SweepCell| format!("{:.2}", c.mb_per_s)),
        ("p99", &|c: &SweepCell| format_ns(c.p99_ns)),
    ] {
        write!(out, "  {title:<8}")?;
        for q in &qds {
            write!(out, " {:>10}", format!("Q{q}"))?;
        }
        writeln!(out)?;
        for t in &ths {
            write!(out, "  {:<8}", format!("T{t}"))?;
            for q in &qds {
                let v = r
                    .cells
                    .iter()
                    .find(|c| c.queue_depth == *q && c.threads == *t)
                    .map(f)
                    .unwrap_or_else(|| "—".into());
                write!(out, " {v:>10}")?;
            }
            writeln!(out)?;
        }
    }
    match (&r.best, r.queueing_gain) {
        (Some(b), Some(g)) => writeln!(
            out,
            "  queueing gain {g:.2}× (best Q{}T{} {:.0} IOPS over Q1T1){}",
            b.queue_depth,
            b.threads,
            b.iops,
            if g < 1.2 {
                ": this path does not queue commands (e.g. a USB bridge without UAS)"
            } else {
                ""
            }
        )?,
        _ => writeln!(out, "  queueing gain: needs a Q1T1 cell")?,
    }
    Ok(())
}

/// The soak summary with its time series.
pub fn print_soak(r: &SoakRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let h = &r.header;
    writeln!(
        out,
        "drivescope soak {} {} {} ({:.1} s, {} intervals of {}){}",
        h.target.path,
        r.test,
        r.rw,
        r.duration_ns as f64 / 1e9,
        r.series.len(),
        format_ns(r.interval_ns),
        mark(r.workload.direct)
    )?;
    writeln!(
        out,
        "  overall   {:.2} MB/s, {:.0} IOPS, p99 {}",
        r.mb_per_s,
        r.iops,
        format_ns(*r.latency.percentiles_ns.get("99").unwrap_or(&0))
    )?;
    let rates: Vec<f64> = r.series.iter().map(|p| p.mb_per_s).collect();
    writeln!(out, "  series    {}", sparkline(&rates, 64))?;
    writeln!(
        out,
        "  steady    {:.2} MB/s (last 30 %); first interval / steady = {}",
        r.steady_mb_per_s,
        r.first_to_steady
            .map(|x| format!("{x:.2}"))
            .unwrap_or_else(|| "—".into())
    )?;
    if r.steps.is_empty() {
        writeln!(out, "  steps     none over the threshold")?;
    }
    for s in &r.steps {
        writeln!(
            out,
            "  step      at {:.1} s: {:.1} → {:.1} MB/s ({:+.0} %)",
            s.t_ns as f64 / 1e9,
            s.from_mb_per_s,
            s.to_mb_per_s,
            s.change * 100.0
        )?;
    }
    Ok(())
}
