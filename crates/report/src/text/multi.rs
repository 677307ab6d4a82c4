//! The terminal summary of a multi-rank run: the aggregate per test, then one row per rank.

use crate::format::duration;
use drivescope_record::MultiRecord;
use std::io::Write;

pub fn print_multi(r: &MultiRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let asked = if r.duration_ns == 0 {
        String::new()
    } else {
        format!(
            "{} run{} × {:.1} s{}; ",
            r.runs,
            if r.runs == 1 { "" } else { "s" },
            r.duration_ns as f64 / 1e9,
            if r.stonewall { ", stonewall" } else { "" },
        )
    };
    writeln!(
        out,
        "drivescope {} on {} ranks, target {} ({asked}aggregate = all bytes / (latest end − earliest start){})",
        r.command,
        r.ranks,
        r.target_template,
        if r.runs > 1 { ", best run shown" } else { "" },
    )?;
    writeln!(
        out,
        "  {:<12} {:<5} {:>11} {:>11} {:>10} {:>10}  {:<24} {:<24}",
        "test", "rw", "MB/s", "IOPS", "p99", "spread", "slowest rank", "fastest rank"
    )?;
    for t in &r.tests {
        let p99 = t.latency.percentiles_ns.get("99").copied().unwrap_or(0);
        writeln!(
            out,
            "  {:<12} {:<5} {:>11.2} {:>11.0} {:>10} {:>10}  {:<24} {:<24}",
            t.name,
            t.rw,
            t.mb_per_s,
            t.iops,
            duration(p99 as f64),
            duration(t.start_spread_ns as f64),
            format!(
                "{} {} {:.1}",
                t.slowest.rank, t.slowest.host, t.slowest.mb_per_s
            ),
            format!(
                "{} {} {:.1}",
                t.fastest.rank, t.fastest.host, t.fastest.mb_per_s
            ),
        )?;
        if !t.bands.is_empty() {
            let bands: Vec<String> = t
                .bands
                .iter()
                .map(|b| format!("{} {}", b.label, b.count))
                .collect();
            writeln!(out, "    bands of every rank: {}", bands.join(", "))?;
        }
        if let Some(slow) = t.slow_commands {
            writeln!(
                out,
                "    slow commands {slow}, failed commands {} (every rank)",
                t.errors
            )?;
        }
    }
    writeln!(out, "per rank (mean MB/s of its runs):")?;
    write!(out, "  {:>5} {:<16} {:<28}", "rank", "host", "target")?;
    for t in &r.tests {
        write!(out, " {:>14}", format!("{} {}", t.name, t.rw))?;
    }
    writeln!(out)?;
    for m in &r.members {
        write!(out, "  {:>5} {:<16} {:<28}", m.rank, m.host, m.target)?;
        let tests = m.tests();
        match &m.error {
            Some(e) => write!(out, " FAILED: {e}")?,
            None if tests.is_empty() => write!(out, " no results")?,
            None => {
                for t in &r.tests {
                    match tests.iter().find(|x| x.name == t.name && x.rw == t.rw) {
                        Some(x) => write!(out, " {:>14.2}", x.mb_per_s)?,
                        None => write!(out, " {:>14}", "-")?,
                    }
                }
            }
        }
        writeln!(out)?;
    }
    Ok(())
}
