//! A soak record as text: the overall rate, the series as a sparkline, the steady state and the steps.

use super::buffered_mark as mark;
use super::sparkline;
use drivescope_record::SoakRecord;
use drivescope_units::format_ns;
use std::io::Write;

/// The soak summary with its time series.
pub fn print_soak(r: &SoakRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let h = &r.header;
    writeln!(
        out,
        "drivescope soak {} {} {} ({:.1} s, {} of {}){}",
        h.target.path,
        r.test,
        r.rw,
        r.duration_ns as f64 / 1e9,
        drivescope_units::count(r.series.len() as u64, "interval"),
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
    if let Some(t) = super::temperature::line(r.temperature.as_ref()) {
        writeln!(out, "  {t}")?;
    }
    for g in &r.resumed {
        writeln!(
            out,
            "  gap       at {:.1} s: stopped for {}, resumed {} (nothing measured in between)",
            g.at_ns as f64 / 1e9,
            format_ns(g.gap_ns),
            g.started_at
        )?;
    }
    if let Some(s) = &r.resume {
        writeln!(
            out,
            "  stopped   after {:.1} s of {:.1} s; `soak --resume` runs the rest",
            r.duration_ns as f64 / 1e9,
            s.planned_ns as f64 / 1e9
        )?;
    }
    if r.steps.is_empty() {
        writeln!(out, "  steps     none over the threshold")?;
    }
    for s in &r.steps {
        let change = match s.change {
            Some(c) => format!("{:+.0} %", c * 100.0),
            None => "from a stall".to_string(),
        };
        writeln!(
            out,
            "  step      at {:.1} s: {:.1} → {:.1} MB/s ({change})",
            s.t_ns as f64 / 1e9,
            s.from_mb_per_s,
            s.to_mb_per_s,
        )?;
    }
    Ok(())
}
