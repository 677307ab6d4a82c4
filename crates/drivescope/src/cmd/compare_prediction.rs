//! `compare`: a time run's prediction for another disk beside a traced time run measured there.

use drivescope_record::{Document, TimeRecord};
use drivescope_report::Run;
use drivescope_units::format_latency;
use std::io::Write;

/// One line per pair of a time run with a prediction and another traced time run of the same command:
/// predicted against measured I/O time and wall time of the traced run. Nothing when there is no pair.
pub fn print(runs: &[Run], out: &mut dyn Write) -> std::io::Result<()> {
    let time = |r: &Run| match &r.doc {
        Document::Time(t) => Some(t.as_ref().clone()),
        _ => None,
    };
    let timed: Vec<(Option<i64>, TimeRecord)> =
        runs.iter().filter_map(|r| Some((r.id, time(r)?))).collect();
    let mut header = false;
    for (pid, p) in &timed {
        let Some(pred) = &p.prediction else { continue };
        for (mid, m) in &timed {
            let Some(fp) = &m.fingerprint else { continue };
            if pid == mid || m.command_line() != p.command_line() {
                continue;
            }
            if !header {
                writeln!(
                    out,
                    "\nPredicted against measured (the traced run's I/O and wall time):"
                )?;
                header = true;
            }
            let err = |pred: f64, meas: u64| {
                if meas > 0 {
                    format!("{:+.0} %", (pred / meas as f64 - 1.0) * 100.0)
                } else {
                    "-".into()
                }
            };
            let name = |id: &Option<i64>| id.map_or("?".into(), |i| i.to_string());
            writeln!(
                out,
                "  run {} on {}: I/O {} ({} to {}), measured in run {} on {}: {} ({}); wall {} vs {} ({})",
                name(pid),
                pred.on,
                format_latency(pred.io_ns),
                format_latency(pred.io_low_ns),
                format_latency(pred.io_high_ns),
                name(mid),
                m.header.target.path,
                format_latency(fp.busy_ns as f64),
                err(pred.io_ns, fp.busy_ns),
                format_latency(pred.total_ns),
                format_latency(fp.wall_ns as f64),
                err(pred.total_ns, fp.wall_ns)
            )?;
        }
    }
    Ok(())
}
