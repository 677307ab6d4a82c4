//! A timed workload as `drivescope time` prints it: a row per mode (mean ± sd, min, median, max, CPU, the
//! disk's busy time and bytes), the sentence a person quotes, the devices that saw I/O, outliers and notes.

use crate::format::{bytes, duration};
use drivescope_record::{ModeResult, TimeRecord, TimedRun};
use std::io::Write;

/// `12.4 s ± 0.3`: the mean with its sd in the mean's unit.
pub fn mean_sd(m: &ModeResult) -> String {
    let w = &m.summary.wall_ns;
    format!("{} ± {}", duration(w.mean), duration(w.sd))
}

/// The sentence of a mode: `cold: 12.4 s ± 0.3 s, the disk busy 9.8 s (79 %), 1.9 GiB read`.
pub fn sentence(m: &ModeResult) -> String {
    let s = &m.summary;
    let mut line = format!(
        "{}: {}, the disk busy {} ({:.0} %), {} read",
        m.mode,
        mean_sd(m),
        duration(s.busy_ns.mean),
        s.busy_share * 100.0,
        bytes(s.read_bytes.mean)
    );
    if s.written_bytes.mean > 0.0 {
        line.push_str(&format!(", {} written", bytes(s.written_bytes.mean)));
    }
    line.push_str(&format!(
        ", CPU {} user + {} sys",
        duration(s.user_ns.mean),
        duration(s.sys_ns.mean)
    ));
    line
}

fn how_ended(r: &TimedRun) -> String {
    match (r.exit_code, r.signal) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(s)) => format!("signal {s}"),
        _ => "?".into(),
    }
}

pub fn print_time(r: &TimeRecord, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "drivescope time: {} (in {}; {} run{} per mode)",
        r.command_line(),
        r.header.target.path,
        r.runs,
        if r.runs == 1 { "" } else { "s" }
    )?;
    let source = match r.io_source {
        drivescope_record::IoSource::Cgroup => "the command's cgroup and the device counters",
        drivescope_record::IoSource::Diskstats => "the device counters",
    };
    if !r.members.is_empty() {
        writeln!(
            out,
            "  devices: {} (a file system over {} members: I/O from {}, added over the members; busy while \
             the busiest member was)",
            r.members.join(", "),
            r.members.len(),
            source
        )?;
    } else if !r.devices.is_empty() {
        writeln!(
            out,
            "  devices: {} (I/O from {source})",
            r.devices.join(", ")
        )?;
    }
    writeln!(
        out,
        "  {:<5} {:>4}  {:<22} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10}",
        "mode",
        "runs",
        "mean ± sd",
        "min",
        "median",
        "max",
        "user",
        "sys",
        "busy",
        "read",
        "written"
    )?;
    for m in &r.modes {
        let s = &m.summary;
        writeln!(
            out,
            "  {:<5} {:>4}  {:<22} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10}",
            m.mode.as_str(),
            s.count,
            mean_sd(m),
            duration(s.wall_ns.min),
            duration(s.wall_ns.median),
            duration(s.wall_ns.max),
            duration(s.user_ns.mean),
            duration(s.sys_ns.mean),
            duration(s.busy_ns.mean),
            bytes(s.read_bytes.mean),
            bytes(s.written_bytes.mean),
        )?;
    }
    for m in &r.modes {
        writeln!(out, "  {}", sentence(m))?;
        if let Some(line) = super::time_members::line(m, &r.members) {
            writeln!(out, "  {line}")?;
        }
    }
    // Devices outside the watched ones and the members that saw I/O in any run.
    let mut others: Vec<&str> = Vec::new();
    for run in r.modes.iter().flat_map(|m| &m.runs) {
        for d in &run.devices {
            if !r.devices.contains(&d.name)
                && !r.members.contains(&d.name)
                && !others.contains(&d.name.as_str())
            {
                others.push(&d.name);
            }
        }
    }
    if !others.is_empty() {
        writeln!(
            out,
            "  other devices with I/O during the runs: {}",
            others.join(", ")
        )?;
    }
    for m in &r.modes {
        for run in m.runs.iter().filter(|x| x.outlier) {
            writeln!(
                out,
                "  outlier: {} run {} took {} (median {})",
                m.mode,
                run.index,
                duration(run.wall_ns as f64),
                duration(m.summary.wall_ns.median)
            )?;
        }
        for run in m.runs.iter().filter(|x| !x.succeeded()) {
            writeln!(
                out,
                "  failed: {} run {} ended with {}",
                m.mode,
                run.index,
                how_ended(run)
            )?;
        }
    }
    if let Some(f) = &r.fingerprint {
        super::print_fingerprint(f, out)?;
    }
    if let Some(p) = &r.prediction {
        super::print_prediction(p, out)?;
    }
    for n in &r.notes {
        writeln!(out, "  note: {n}")?;
    }
    if r.interrupted {
        writeln!(out, "  INTERRUPTED: not every run was made")?;
    }
    Ok(())
}
