//! The text of a steady-state run: what was done before the rounds, the convergence of the tracked
//! variable round by round, the measurement window's table and the verdict.

use drivescope_record::{SteadyCell, SteadyRecord, SteadyState};
use drivescope_units::{
    format_duration, format_elapsed, format_iops, format_latency, format_rate, format_size,
};
use std::io::Write;

/// The tracked variable's value `v` as a person reads it: IOPS, or a latency for the latency test.
pub fn format_tracked(r: &SteadyRecord, v: f64) -> String {
    if r.test.tracks_latency() {
        format_latency(v)
    } else {
        format_iops(v)
    }
}

fn mix(read_pct: u8) -> String {
    format!("{}/{}", read_pct, 100u8.saturating_sub(read_pct))
}

/// One line per round: its tracked value, a bar against the largest, the bytes written so far;
/// the window's rounds marked.
fn convergence(r: &SteadyRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let top = r.rounds.iter().map(|x| x.tracked).fold(0.0, f64::max);
    let window = r
        .verdict
        .window
        .as_ref()
        .map(|w| w.first_round..=w.last_round);
    writeln!(out, "  convergence of {}:", r.tracked)?;
    for x in &r.rounds {
        let width = if top > 0.0 {
            (x.tracked / top * 30.0).round() as usize
        } else {
            0
        };
        let mark = if window.as_ref().is_some_and(|w| w.contains(&x.round)) {
            '*'
        } else {
            ' '
        };
        writeln!(
            out,
            "  {mark}round {:>2}  {:>12}  {:<30}  {} written",
            x.round,
            format_tracked(r, x.tracked),
            "#".repeat(width),
            format_size(x.total_bytes_written)
        )?;
    }
    Ok(())
}

/// The measurement window: each cell's mean over the window's rounds.
fn window_table(r: &SteadyRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let Some(w) = &r.verdict.window else {
        return Ok(());
    };
    let rounds: Vec<_> = r
        .rounds
        .iter()
        .filter(|x| x.round >= w.first_round && x.round <= w.last_round)
        .collect();
    if rounds.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "  measurement window, rounds {}–{} (mean of {}):",
        w.first_round,
        w.last_round,
        rounds.len()
    )?;
    let latency = r.test.tracks_latency();
    if latency {
        writeln!(
            out,
            "    {:>7}  {:>7}  {:>12}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}",
            "R/W", "block", "IOPS", "mean", "p99", "p99.9", "p99.99", "max"
        )?;
    } else {
        writeln!(
            out,
            "    {:>7}  {:>7}  {:>12}  {:>11}  {:>9}  {:>9}",
            "R/W", "block", "IOPS", "rate", "mean", "p99"
        )?;
    }
    for (i, c) in r.matrix.iter().enumerate() {
        let cells: Vec<_> = rounds.iter().filter_map(|x| x.cells.get(i)).collect();
        let n = cells.len().max(1) as f64;
        let avg = |f: &dyn Fn(&SteadyCell) -> f64| cells.iter().map(|c| f(c)).sum::<f64>() / n;
        // The window's maximum is the largest of its rounds'.
        let max = cells.iter().map(|c| c.max_ns).max().unwrap_or(0);
        if latency {
            writeln!(
                out,
                "    {:>7}  {:>7}  {:>12}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}",
                mix(c.read_pct),
                format_size(c.block_size),
                format_iops(avg(&|c| c.iops)),
                format_latency(avg(&|c| c.mean_ns)),
                format_latency(avg(&|c| c.p99_ns as f64)),
                format_latency(avg(&|c| c.p999_ns as f64)),
                format_latency(avg(&|c| c.p9999_ns as f64)),
                format_latency(max as f64)
            )?;
            continue;
        }
        writeln!(
            out,
            "    {:>7}  {:>7}  {:>12}  {:>11}  {:>9}  {:>9}",
            mix(c.read_pct),
            format_size(c.block_size),
            format_iops(avg(&|c| c.iops)),
            format_rate(avg(&|c| c.mb_per_s)),
            format_latency(avg(&|c| c.mean_ns)),
            format_latency(avg(&|c| c.p99_ns as f64))
        )?;
    }
    writeln!(
        out,
        "    tracked: average {}, range {:.1} % (at most {:.0} %), best-fit excursion {:.1} % (at most {:.0} %)",
        format_tracked(r, w.average),
        w.range_ratio * 100.0,
        w.range_allowed * 100.0,
        w.excursion_ratio * 100.0,
        w.excursion_allowed * 100.0
    )
}

pub fn print_steady(r: &SteadyRecord, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "steady state ({} test) of {} ({}), {} per cell, {} cell{} a round, QD{} × {} thread{}",
        r.test.as_str().replace('_', " "),
        r.header.target.path,
        format_size(r.workload.size),
        format_duration(r.round_time_ns),
        r.matrix.len(),
        if r.matrix.len() == 1 { "" } else { "s" },
        r.queue_depth,
        r.threads,
        if r.threads == 1 { "" } else { "s" },
    )?;
    let purge = match (&r.purge.method, r.purge.skipped) {
        (_, true) => "skipped (--no-purge)".to_string(),
        (Some(m), _) => format!("{m} of the whole device"),
        (None, _) => "none possible".to_string(),
    };
    writeln!(out, "  purge: {purge}")?;
    for x in r.purge.refused.iter() {
        writeln!(out, "    not {}: {}", x.method, x.why)?;
    }
    let p = &r.precondition;
    writeln!(
        out,
        "  preconditioning: {} of {} in {} sequential writes ({}, {})",
        format_size(p.written_bytes),
        format_size(p.planned_bytes),
        format_size(p.block_size),
        format_rate(p.mb_per_s),
        format_elapsed(p.duration_ns)
    )?;
    if r.conformant {
        writeln!(out, "  conformant to the SNIA PTS procedure")?;
    } else {
        writeln!(out, "  not conformant to the SNIA PTS:")?;
        for why in &r.not_conformant {
            writeln!(out, "    {why}")?;
        }
    }
    if !r.rounds.is_empty() {
        convergence(r, out)?;
        window_table(r, out)?;
    }
    let head = match r.verdict.state {
        SteadyState::Reached => "steady state reached",
        SteadyState::NotReached => "steady state NOT reached",
        SteadyState::Undecided if r.workload.interrupted => "stopped before a verdict",
        SteadyState::Undecided => "no verdict",
    };
    writeln!(out, "  {head}: {}", r.verdict.why)?;
    if let Some(v) = r.steady_value {
        writeln!(
            out,
            "  steady-state {}: {}",
            r.tracked,
            format_tracked(r, v)
        )?;
    }
    idle_recovery(r, out)?;
    if let Some(l) = super::steady_wa::line(r.write_amplification.as_ref()) {
        writeln!(out, "  {l}")?;
    }
    if r.resume.is_some() {
        writeln!(
            out,
            "  continue it with `drivescope steady --resume RUN` (the run's number, or last)"
        )?;
    }
    Ok(())
}

/// The host idle recovery test: each wait state's bursts against the steady rate.
fn idle_recovery(r: &SteadyRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let Some(h) = &r.idle_recovery else {
        return Ok(());
    };
    if h.segments.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "  host idle recovery: {} bursts of {} a wait state, against {} steady:",
        h.cycles,
        format_duration(h.burst_ns),
        format_iops(h.baseline_iops)
    )?;
    let top = h
        .segments
        .iter()
        .flat_map(|s| s.bursts.iter().map(|b| b.iops))
        .fold(0.0, f64::max);
    for s in &h.segments {
        let width = if top > 0.0 {
            (s.mean_iops / top * 30.0).round() as usize
        } else {
            0
        };
        writeln!(
            out,
            "    WS{:<2} idle {:>7}  bursts {:>12} ({:.2}× steady)  {:<30}  then {}",
            s.wait_state,
            format_duration(s.idle_ns),
            format_iops(s.mean_iops),
            s.recovery,
            "#".repeat(width),
            format_iops(s.baseline_after_iops)
        )?;
    }
    Ok(())
}

/// One line on where a running steady test stands (after a precondition pass, a round or a
/// wait state), or None before any of them.
pub fn steady_progress(r: &SteadyRecord) -> Option<String> {
    if let Some(s) = r.idle_recovery.as_ref().and_then(|h| h.segments.last()) {
        return Some(format!(
            "idle recovery WS{}: bursts at {} ({:.2}× steady)",
            s.wait_state,
            format_iops(s.mean_iops),
            s.recovery
        ));
    }
    match r.rounds.last() {
        None if r.precondition.written_bytes > 0 => Some(format!(
            "preconditioned {} of {}",
            format_size(r.precondition.written_bytes),
            format_size(r.precondition.planned_bytes)
        )),
        None => None,
        Some(x) => Some(format!(
            "round {}: {} ({})",
            x.round,
            format_tracked(r, x.tracked),
            r.verdict.why
        )),
    }
}
