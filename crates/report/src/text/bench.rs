//! A bench record as text: one progress line per finished test, then the CrystalDiskMark-shaped table
//! (tests as rows, read and write side by side) and the details of every test. From the record alone, so a
//! stored run prints as it did when it ran.

use super::buffered_mark as mark;
use drivescope_record::{BenchRecord, Direction, Reap, TargetType, TestResult};
use drivescope_units::{
    format_count, format_duration, format_iops, format_ns, format_rate, format_size,
};
use std::io::Write;

/// One line per finished test (progress).
pub fn bench_line(t: &TestResult, direct: bool) -> String {
    format!(
        "  {:<14} {:<5} {:>13} {:>14}  p99 {}{}",
        t.name,
        t.rw,
        format_rate(t.mb_per_s),
        format_iops(t.iops),
        format_ns(*t.latency.percentiles_ns.get("99").unwrap_or(&0)),
        mark(direct)
    )
}

/// What the bench ran on: a test file it made in a directory, an existing file (read only), a
/// device's region, or the null target; and its size.
fn region(r: &BenchRecord) -> String {
    let made = r.workload.test_file.is_some()
        || std::path::Path::new(&r.header.target.path)
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("drivescope-test-") && n.ends_with(".tmp"));
    let size = format_size(r.workload.size);
    match r.header.target.kind {
        TargetType::File if made => format!("a test file of {size} made there"),
        TargetType::File => format!(
            "the existing file, {}, read only",
            format_size(r.header.target.size)
        ),
        TargetType::Null => format!("the null target, {size}"),
        TargetType::Block => format!("a region of {size} of the device"),
    }
}

/// `1 run`, `5 runs`.
fn plural(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// What an interrupted bench measured: the tests it cut short name how many of their runs
/// finished; only when none was cut short are the tests shown complete.
fn interrupted(r: &BenchRecord) -> String {
    let short: Vec<String> = r
        .tests
        .iter()
        .filter(|t| (t.runs.len() as u64) < r.runs as u64)
        .map(|t| {
            format!(
                "{} {} ran {} of {}",
                t.name,
                t.rw,
                t.runs.len(),
                plural(r.runs as u64, "run")
            )
        })
        .collect();
    if short.is_empty() {
        "[interrupted: the tests above are complete, the rest did not run]".into()
    } else {
        format!("[interrupted: {}; the rest did not run]", short.join(", "))
    }
}

/// A test's mean rate over its runs, and their spread where there is more than one.
fn spread(r: &BenchRecord, t: &TestResult) -> String {
    if r.runs > 1 && t.runs.len() != 1 {
        format!("{:.1} ± {:.1}", t.mean_mb_per_s, t.stddev_mb_per_s)
    } else {
        format!("{:.1}", t.mean_mb_per_s)
    }
}

/// CrystalDiskMark-shaped table (tests as rows, read and write side by side), then details.
pub fn print_bench(r: &BenchRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let h = &r.header;
    writeln!(
        out,
        "drivescope bench {} ({}{}, {} × {}{}){}",
        h.target.path,
        region(r),
        if r.tests.iter().any(|t| t.rw != Direction::Read) {
            format!(
                ", {} data",
                serde_json::to_value(r.workload.data)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default()
            )
        } else {
            String::new()
        },
        plural(r.runs as u64, "run"),
        format_duration(r.duration_ns),
        if r.runs > 1 { ", best run shown" } else { "" },
        mark(r.workload.direct)
    )?;
    if let Some(n) = h.memory_note() {
        writeln!(out, "  note: {n}")?;
    }
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
    // A result inflated by a cache is said under the numbers it inflates, where a reader of the table sees it.
    for f in r.header.findings.iter().filter(|f| {
        f.code == drivescope_record::FindingCode::ReadCache && f.number("test_bytes").is_some()
    }) {
        writeln!(out, "  !! READ RESULTS FROM A CACHE: {}", f.claim)?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "  {:<14} {:<5} {:>9} {:>16} {:>13} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "test",
        "rw",
        "MB/s",
        if r.runs > 1 { "mean ± sd" } else { "mean" },
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
            "  {:<14} {:<5} {:>9.2} {:>16} {:>13} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}{}",
            t.name,
            t.rw,
            t.mb_per_s,
            spread(r, t),
            format_count(t.iops),
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
            "  note: a CPU watched for the completions of {} instead of sleeping until they came as fio does (--reap sleep to sleep){}",
            polled.join(", "),
            mark(r.workload.direct)
        )?;
    }
    if r.workload.interrupted {
        writeln!(out, "  {}", interrupted(r))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    fn text(r: &BenchRecord) -> String {
        let mut out = Vec::new();
        print_bench(r, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn an_interrupted_bench_says_which_test_it_cut_short() {
        let mut r = sample::bench(2);
        r.workload.interrupted = true;
        r.tests.truncate(3);
        r.tests[2].runs.truncate(1);
        let out = text(&r);
        assert!(
            out.contains("[interrupted: SEQ1M Q1T1 read ran 1 of 5 runs; the rest did not run]"),
            "{out}"
        );
        assert!(!out.contains("tests above are complete"), "{out}");
        // Cut between tests: those shown are whole.
        r.tests.truncate(2);
        let out = text(&r);
        assert!(
            out.contains("[interrupted: the tests above are complete, the rest did not run]"),
            "{out}"
        );
    }
}
