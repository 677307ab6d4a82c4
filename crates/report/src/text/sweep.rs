//! A sweep record as text: one progress line per finished cell, then the queue depth × threads grids of
//! IOPS, MB/s and p99, and the queueing gain.

use super::buffered_mark as mark;
use drivescope_record::{SweepCell, SweepRecord};
use drivescope_units::{format_ns, format_size};
use std::io::Write;

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
        // The region the cells ran over (`--size`), not the whole device it lies on.
        format_size(if r.workload.size > 0 {
            r.workload.size
        } else {
            h.target.size
        }),
        r.duration_ns as f64 / 1e9,
        mark(r.workload.direct)
    )?;
    if let Some(n) = h.memory_note() {
        writeln!(out, "  note: {n}")?;
    }
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
