//! A replay against its trace, for people.

use drivescope_record::ReplayRecord;
use std::io::Write;

/// The replay against the trace, for people.
pub fn print_replay(r: &ReplayRecord, out: &mut dyn Write) -> std::io::Result<()> {
    use drivescope_units::{format_bytes, format_latency};
    let ratio = |a: f64, b: f64| {
        if b > 0.0 {
            format!("{:+.0} %", (a / b - 1.0) * 100.0)
        } else {
            "-".into()
        }
    };
    writeln!(
        out,
        "Replay of {} ({} from `{}`) on {}",
        r.trace,
        r.traced_device,
        r.traced_command.join(" "),
        r.header.target.path
    )?;
    writeln!(
        out,
        "{:<12} {:>12} {:>12} {:>8}",
        "", "traced", "replayed", "change"
    )?;
    let (o, p) = (&r.original, &r.replayed);
    writeln!(
        out,
        "{:<12} {:>12} {:>12} {:>8}",
        "requests",
        o.requests,
        p.requests,
        ratio(p.requests as f64, o.requests as f64)
    )?;
    for (name, a, b) in [
        ("I/O time", o.io_ns, p.io_ns),
        ("wall time", o.wall_ns, p.wall_ns),
    ] {
        writeln!(
            out,
            "{:<12} {:>12} {:>12} {:>8}",
            name,
            format_latency(a as f64),
            format_latency(b as f64),
            ratio(b as f64, a as f64)
        )?;
    }
    if let Some(k) = &r.kernel {
        writeln!(
            out,
            "{:<12} {:>12} {:>12} {:>8}   (the replay's block requests as the kernel saw them)",
            "kernel I/O",
            format_latency(o.io_ns as f64),
            format_latency(k.io_ns as f64),
            ratio(k.io_ns as f64, o.io_ns as f64)
        )?;
        writeln!(
            out,
            "{:<12} {:>12} {:>12} {:>8}",
            "kernel reqs",
            o.requests,
            k.requests,
            ratio(k.requests as f64, o.requests as f64)
        )?;
    }
    writeln!(out, "\nService time per class (mean, traced → replayed):")?;
    for c in &r.classes {
        let (dir, pat) = (c.direction.as_str(), c.pattern.as_str());
        writeln!(
            out,
            "  {dir:<5} ≤{:>8} {pat:<10} {:>8} requests  {:>9} → {:>9}  {}",
            format_bytes(c.size_max_bytes as f64),
            c.requests,
            format_latency(c.original_service_ns),
            format_latency(c.replayed_service_ns),
            ratio(c.replayed_service_ns, c.original_service_ns)
        )?;
    }
    if r.skipped > 0 || r.errors > 0 {
        writeln!(
            out,
            "\n{} skipped, {} failed",
            drivescope_units::count(r.skipped, "request"),
            r.errors
        )?;
    }
    for n in &r.notes {
        writeln!(out, "note: {n}")?;
    }
    Ok(())
}
