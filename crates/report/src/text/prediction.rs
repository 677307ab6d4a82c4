//! A traced time run's prediction on another disk (`time --predict-on`): the predicted time with its
//! range, and each class's service time here and there.

use drivescope_record::{AccessPattern, IoDirection, Prediction};
use drivescope_units::{format_bytes, format_latency};
use std::io::Write;

fn class_name(direction: IoDirection, size: u64, pattern: AccessPattern) -> String {
    format!(
        "{} ≤{} {}",
        direction.as_str(),
        format_bytes(size as f64),
        pattern.as_str()
    )
}

pub fn print_prediction(p: &Prediction, out: &mut dyn Write) -> std::io::Result<()> {
    let on = match &p.device {
        Some(d) if *d != p.on => format!("{} ({d})", p.on),
        Some(_) => p.on.clone(),
        None => p.on.clone(),
    };
    writeln!(
        out,
        "\nPredicted on {on}: {} ({} to {}), of which I/O {} (here {}); CPU and think time {}",
        format_latency(p.total_ns),
        format_latency(p.total_low_ns),
        format_latency(p.total_high_ns),
        format_latency(p.io_ns),
        format_latency(p.measured_io_ns as f64),
        format_latency(p.other_ns as f64)
    )?;
    writeln!(
        out,
        "  {:<28} {:>8} {:>5} {:>9} {:>9} {:>6}  from",
        "class", "requests", "QD", "here", "there", "share"
    )?;
    for c in &p.classes {
        let stretch = if (c.size_stretch - 1.0).abs() > 0.01 || (c.depth_stretch - 1.0).abs() > 0.01
        {
            format!(
                " (stretched: size ×{:.2}, depth ×{:.2})",
                c.size_stretch, c.depth_stretch
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            "  {:<28} {:>8} {:>5.1} {:>9} {:>9} {:>5.0} %  {}{stretch}",
            class_name(c.direction, c.size_max_bytes, c.pattern),
            c.requests,
            c.queue_depth,
            format_latency(c.measured_service_ns),
            format_latency(c.service_ns),
            c.share * 100.0,
            c.basis
        )?;
    }
    if let Some(c) = p.dominant.and_then(|i| p.classes.get(i)) {
        writeln!(
            out,
            "  {} at queue depth {:.1} take {:.0} % of the predicted I/O time there.",
            class_name(c.direction, c.size_max_bytes, c.pattern),
            c.queue_depth,
            c.share * 100.0
        )?;
    }
    for n in &p.notes {
        writeln!(out, "  note: {n}")?;
    }
    Ok(())
}
