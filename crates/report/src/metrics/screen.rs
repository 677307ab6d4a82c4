//! The compare rows of a group screen.

use super::{push, Better, Metric, Unit};
use drivescope_record::{Grade, ScanRecord, ScreenRecord};

/// A group screen: how many drives got each verdict, the group's totals and shared path, and each drive's
/// rates, failures and slowest command (keyed by its target, so two screens of the same bays line up).
pub(super) fn rows(r: &ScreenRecord, out: &mut Vec<Metric>) {
    use Better::*;
    let count = |v: u64| Some(v as f64);
    push(
        out,
        "screen.drives".into(),
        "Drives".into(),
        Unit::Count,
        Neither,
        count(r.members.len() as u64),
    );
    if r.members.iter().any(|m| m.verdict.is_some()) {
        for g in [Grade::Pass, Grade::Warn, Grade::Incomplete, Grade::Fail] {
            let n = r
                .members
                .iter()
                .filter(|m| m.verdict.as_ref().is_some_and(|v| v.grade == g))
                .count();
            let better = if g == Grade::Pass { Higher } else { Lower };
            push(
                out,
                format!("screen.{g}"),
                format!("Drives {g}"),
                Unit::Count,
                better,
                count(n as u64),
            );
        }
    }
    let scans: Vec<(&str, &ScanRecord)> = r
        .members
        .iter()
        .filter_map(|m| Some((m.target.as_str(), m.scan.as_deref()?)))
        .collect();
    let failed: u64 = scans
        .iter()
        .map(|(_, s)| crate::screen::failed_sectors(s))
        .sum();
    push(
        out,
        "screen.failed_sectors".into(),
        "Failed sectors (all drives)".into(),
        Unit::Count,
        Lower,
        count(failed),
    );
    let slow: u64 = scans.iter().map(|(_, s)| s.slow_total).sum();
    push(
        out,
        "screen.slow_commands".into(),
        "Slow commands (all drives)".into(),
        Unit::Count,
        Lower,
        count(slow),
    );
    if let Some(sp) = &r.shared_path {
        let (a, t) = (sp.alone_sum(), sp.together_sum());
        push(
            out,
            "screen.shared.alone".into(),
            "Shared path: sum alone".into(),
            Unit::MBps,
            Higher,
            Some(a),
        );
        push(
            out,
            "screen.shared.together".into(),
            "Shared path: together".into(),
            Unit::MBps,
            Higher,
            Some(t),
        );
        push(
            out,
            "screen.shared.ratio".into(),
            "Shared path: together / alone".into(),
            Unit::Ratio,
            Higher,
            (a > 0.0).then(|| t / a),
        );
    }
    for (target, s) in scans {
        let k = |f: &str| format!("screen.{target}.{f}");
        push(
            out,
            k("mb_per_s.mean"),
            format!("{target} rate mean"),
            Unit::MBps,
            Higher,
            Some(s.mb_per_s.mean),
        );
        push(
            out,
            k("mb_per_s.min"),
            format!("{target} rate min (per bin)"),
            Unit::MBps,
            Higher,
            Some(s.mb_per_s.min),
        );
        push(
            out,
            k("latency.max"),
            format!("{target} latency max"),
            Unit::Nanos,
            Lower,
            Some(s.latency.max_ns as f64),
        );
        push(
            out,
            k("slow_total"),
            format!("{target} slow commands"),
            Unit::Count,
            Lower,
            count(s.slow_total),
        );
        push(
            out,
            k("failed_sectors"),
            format!("{target} failed sectors"),
            Unit::Count,
            Lower,
            count(crate::screen::failed_sectors(s)),
        );
    }
    push(
        out,
        "screen.duration_ns".into(),
        "Duration".into(),
        Unit::Elapsed,
        Neither,
        Some(r.duration_ns as f64),
    );
}
