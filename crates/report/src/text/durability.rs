//! The text of a durability run: what the cache says of itself, what a commit costs, and whether
//! flushes reach the media, with the evidence.

use drivescope_record::durability::{
    CommitCostRow, CommitInto, CommitModeName, DurabilityRecord, FlushHonestyVerdict, FlushSizeRow,
};
use drivescope_units::{format_latency, format_rate, format_size};
use std::io::Write;

/// A commit mode as the run made it durable: on a block device `fdatasync` is a write and a flush of the
/// device. An `O_DSYNC` write through the page cache is written back, then flushed, on a device as in a
/// file (the kernel sends a Force Unit Access write only for a direct one, and on a block device it then
/// flushes as well: a raw loop device counted two flushes per direct `O_DSYNC` commit), so no mode here
/// is a FUA write alone.
fn mode(m: CommitModeName, on_device: bool) -> &'static str {
    match (m, on_device) {
        (CommitModeName::Fdatasync, true) => "write+flush",
        (CommitModeName::Fdatasync, false) => "write+fdatasync",
        (CommitModeName::Fsync, _) => "write+fsync",
        (CommitModeName::ODsync, _) => "O_DSYNC write",
    }
}

fn yes_no(v: Option<bool>, yes: &str, no: &str) -> String {
    match v {
        Some(true) => yes.into(),
        Some(false) => no.into(),
        None => "unknown".into(),
    }
}

/// The verdict in words.
pub fn verdict_words(v: FlushHonestyVerdict) -> &'static str {
    match v {
        FlushHonestyVerdict::Early => "flushes return before the data can have reached the media",
        FlushHonestyVerdict::Honest => "flushes take what the pending data need: honest",
        FlushHonestyVerdict::NothingPending => {
            "writes ran at the media rate: nothing was left in a cache to flush"
        }
        FlushHonestyVerdict::Protected => {
            "power-loss protection declared: early flushes keep the data"
        }
        FlushHonestyVerdict::Inconclusive => "not settled",
    }
}

fn size_row(r: &FlushSizeRow, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "    {:<10} {:>10} {:>10} {:>10} {:>5}/{}",
        format_size(r.bytes),
        format_latency(r.write_ns),
        format_latency(r.flush_ns),
        format_latency(r.bound_ns),
        r.below,
        r.repeats
    )
}

/// What a file's commits wrote into, as the table says it.
fn into(row: &CommitCostRow) -> &'static str {
    match row.into {
        Some(CommitInto::New) => "new",
        Some(CommitInto::Written) => "written",
        None => "",
    }
}

fn commit_rows(r: &DurabilityRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let files = r.data.commits.iter().any(|c| c.into.is_some());
    writeln!(
        out,
        "  commit cost        {}committers  size      commits  flushes  device  p50        p99        max",
        if files { "file     " } else { "" }
    )?;
    for row in &r.data.commits {
        writeln!(
            out,
            "  {:<18} {}{:>10}  {:<9} {:>7}  {:>7}  {:>6}  {:<10} {:<10} {}",
            mode(row.mode, r.on == "device"),
            if files {
                format!("{:<9}", into(row))
            } else {
                String::new()
            },
            row.committers,
            format_size(row.size),
            row.count,
            row.flushes,
            row.device_flushes
                .map_or("-".to_string(), |d| d.to_string()),
            format_latency(row.p50_ns as f64),
            format_latency(row.p99_ns as f64),
            format_latency(row.max_ns as f64)
        )?;
    }
    serial_rates(r, out)
}

/// One committer's commits per second (what a database committing one transaction at a time gets),
/// for the 4 KiB `fdatasync` commits, each file state apart; and the rate the user asked for.
fn serial_rates(r: &DurabilityRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let rates: Vec<String> = r
        .data
        .commits
        .iter()
        .filter(|c| c.mode == CommitModeName::Fdatasync && c.size == 4096)
        .filter_map(|c| {
            let rate = c.serial_rate()?;
            Some(match c.into {
                Some(CommitInto::Written) => format!("{rate:.0} commits/s into written blocks"),
                Some(CommitInto::New) => format!("{rate:.0} commits/s into a new file"),
                None => format!("{rate:.0} commits/s"),
            })
        })
        .collect();
    if rates.is_empty() {
        return Ok(());
    }
    write!(
        out,
        "  one committer, 4 KiB write+{}: {}",
        if r.on == "device" {
            "flush"
        } else {
            "fdatasync"
        },
        rates.join(", ")
    )?;
    match r.need_commits_per_s {
        Some(n) => writeln!(out, " (needed: {n:.0})"),
        None => writeln!(out),
    }
}

pub fn print_durability(r: &DurabilityRecord, out: &mut dyn Write) -> std::io::Result<()> {
    if let Some(c) = &r.power_cut {
        return super::power_cut::print_power_cut(&r.header.target.path, c, out);
    }
    writeln!(
        out,
        "durability of {} ({}): {} written, {} flushes, {} of a {} budget",
        r.header.target.path,
        if r.on == "device" {
            "the device"
        } else {
            "a test file"
        },
        format_size(r.bytes_written),
        r.flushes,
        format_latency(r.duration_ns as f64),
        format_latency(r.budget_ns as f64)
    )?;
    let c = &r.cache;
    writeln!(
        out,
        "  cache: {}, FUA {}, power-loss protection {}",
        c.write_cache.as_deref().unwrap_or("write cache unknown"),
        yes_no(c.fua, "yes", "no"),
        yes_no(c.power_loss_protection, "declared", "not declared")
    )?;
    if !r.data.commits.is_empty() {
        commit_rows(r, out)?;
    }
    if let Some(s) = &r.sustained {
        writeln!(
            out,
            "  sustained write {} ({} in {}, then a flush of {}; the stream's second half {})",
            format_rate(s.bytes_per_s / 1e6),
            format_size(s.bytes),
            format_latency(s.write_ns as f64),
            format_latency(s.flush_ns as f64),
            format_rate(s.tail_bytes_per_s / 1e6)
        )?;
    }
    if let Some(f) = &r.data.flush_honesty {
        writeln!(out, "  flush honesty: {}", verdict_words(f.verdict))?;
        if let Some(d) = r.device_flushes {
            writeln!(
                out,
                "    (the block layer counted {d} flush requests on the device during the experiment)"
            )?;
        }
        if let Some(why) = &f.reason {
            writeln!(out, "    ({why})")?;
        }
        if !f.sizes.is_empty() {
            writeln!(
                out,
                "    {:<10} {:>10} {:>10} {:>10} {:>7}",
                "after", "write", "flush", "bound", "early"
            )?;
            for row in &f.sizes {
                size_row(row, out)?;
            }
        }
    }
    Ok(())
}
