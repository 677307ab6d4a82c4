//! A traced run's I/O fingerprint as `drivescope time --trace` prints it: one line on the run, one table
//! row per request class (largest first), and the flushes, queue depth and think time under it. The
//! sentence of what bounds it is the record's finding, printed with the others.

use crate::format::{bytes, duration};
use drivescope_record::Fingerprint;
use std::io::Write;

/// Rows shown; the rest are summed in one.
const ROWS: usize = 6;

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".into();
    }
    let p = part as f64 * 100.0 / whole as f64;
    if p > 0.0 && p < 1.0 {
        "<1 %".into()
    } else {
        format!("{p:.0} %")
    }
}

pub fn print_fingerprint(f: &Fingerprint, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "  I/O of {} (traced on {}): {}, {}, the disk busy {} of {} ({:.0} %), mean queue depth {:.2}",
        f.run_label(),
        f.devices.join(", "),
        drivescope_units::count(f.requests, "request"),
        bytes(f.bytes() as f64),
        duration(f.busy_ns as f64),
        duration(f.wall_ns as f64),
        f.busy_share() * 100.0,
        f.mean_queue_depth
    )?;
    let data: u64 = f.classes.iter().map(|c| c.requests).sum();
    let total_bytes = f.bytes();
    writeln!(
        out,
        "    {:<26} {:>9} {:>7} {:>10} {:>10} {:>10} {:>6}",
        "class", "requests", "bytes", "mean", "p50", "p99", "QD"
    )?;
    for c in f.classes.iter().take(ROWS) {
        writeln!(
            out,
            "    {:<26} {:>9} {:>7} {:>10} {:>10} {:>10} {:>6.1}",
            c.label(),
            pct(c.requests, data),
            pct(c.bytes, total_bytes),
            duration(c.service_ns_mean),
            duration(c.service_ns_p50 as f64),
            duration(c.service_ns_p99 as f64),
            c.queue_depth_mean
        )?;
    }
    if f.classes.len() > ROWS {
        let rest = &f.classes[ROWS..];
        writeln!(
            out,
            "    {:<26} {:>9} {:>7}",
            format!("{} other classes", rest.len()),
            pct(rest.iter().map(|c| c.requests).sum(), data),
            pct(rest.iter().map(|c| c.bytes).sum(), total_bytes),
        )?;
    }
    let mut extra = Vec::new();
    if f.flushes > 0 {
        extra.push(drivescope_units::count_as(f.flushes, "flush", "flushes"));
    }
    if f.discards > 0 {
        extra.push(drivescope_units::count(f.discards, "discard"));
    }
    if f.sync_requests > 0 {
        extra.push(format!("{} sync", f.sync_requests));
    }
    if f.think.gaps > 0 {
        extra.push(format!(
            "idle gaps p50 {}, p90 {}, {} in all",
            duration(f.think.p50_ns as f64),
            duration(f.think.p90_ns as f64),
            duration(f.think.total_ns as f64)
        ));
    }
    if !extra.is_empty() {
        writeln!(out, "    {}", extra.join("; "))?;
    }
    for n in &f.notes {
        writeln!(out, "    note: {n}")?;
    }
    Ok(())
}
