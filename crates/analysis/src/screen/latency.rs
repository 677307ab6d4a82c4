//! The latency rules: too many slow commands, and any command at or over the latency limit.

use super::reason;
use drivescope_record::{Criteria, Grade, Reason, Rule, ScanRecord, SlowRegion};
use drivescope_units::format_ns;

/// The slowest listed slow region (its slowest command), if the scan listed any.
fn slowest(s: &ScanRecord) -> Option<SlowRegion> {
    s.slow_regions_or_derived()
        .iter()
        .max_by_key(|g| g.max_latency_ns)
        .cloned()
}

/// Warn above `max_slow_commands` commands at or over the scan's slow threshold.
pub(super) fn slow_commands(s: &ScanRecord, c: &Criteria) -> Option<Reason> {
    if s.slow_total <= c.max_slow_commands {
        return None;
    }
    let regions = s.slow_regions_or_derived();
    let first = regions.first().map(|g| g.offset);
    let at = first
        .map(|o| format!(", the first at offset {o}"))
        .unwrap_or_default();
    Some(reason(
        Rule::SlowCommands,
        Grade::Warn,
        format!(
            "{} took {} or longer{at}: more than the {} allowed",
            drivescope_units::count(s.slow_total, "command"),
            format_ns(s.slow_threshold_ns),
            c.max_slow_commands
        ),
    ))
}

/// How many commands took `limit` or longer, and whether the count is exact: from the slow list when it
/// holds them all, else from the bands when the limit is a band's edge, else (about) from the histogram.
pub fn commands_at_or_over(s: &ScanRecord, limit: u64) -> (u64, bool) {
    if limit >= s.slow_threshold_ns && s.slow.len() as u64 == s.slow_total {
        let n = s.slow.iter().filter(|e| e.latency_ns >= limit).count();
        return (n as u64, true);
    }
    let mut lower = 0u64;
    let mut from_bands = None;
    for b in s.bands.iter().filter(|b| b.label != "failed") {
        if lower == limit {
            from_bands = Some(0);
        }
        if let Some(n) = from_bands.as_mut() {
            *n += b.count;
        }
        lower = b.upper_ns.unwrap_or(u64::MAX);
    }
    if let Some(n) = from_bands {
        return (n, true);
    }
    let n = s
        .histogram
        .buckets
        .iter()
        .filter(|b| b.low_ns >= limit)
        .map(|b| b.count)
        .sum();
    (n, false)
}

/// Warn when any command took `max_latency_ns` or longer (the slowest successful command, which the scan
/// keeps exactly).
pub(super) fn max_latency(s: &ScanRecord, c: &Criteria) -> Option<Reason> {
    let max = s.latency.max_ns;
    if s.latency.count == 0 || max < c.max_latency_ns {
        return None;
    }
    let (n, exact) = commands_at_or_over(s, c.max_latency_ns);
    let count = match (n, exact) {
        (0 | 1, _) => "a command".to_string(),
        (n, true) => format!("{n} commands"),
        (n, false) => format!("about {n} commands"),
    };
    let at = slowest(s)
        .filter(|g| g.max_latency_ns == max)
        .map(|g| match g.count {
            1 => format!(" at offset {}", g.offset),
            n => format!(
                " in a stretch of {n} slow commands from offset {}",
                g.offset
            ),
        })
        .unwrap_or_default();
    Some(reason(
        Rule::MaxLatency,
        Grade::Warn,
        format!(
            "{count} took {} or longer, the slowest {}{at}",
            format_ns(c.max_latency_ns),
            format_ns(max)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::Direction;
    use drivescope_report::sample;

    #[test]
    fn counts_come_from_the_slow_list_then_the_bands_then_the_histogram() {
        let s = sample::scan(3, 1 << 30, 100, 30, 0, Direction::Read);
        let over = |l: u64| s.slow.iter().filter(|e| e.latency_ns >= l).count() as u64;
        assert_eq!(commands_at_or_over(&s, 50_000_000), (30, true));
        assert_eq!(
            commands_at_or_over(&s, 200_000_000),
            (over(200_000_000), true)
        );
        // Under the slow threshold: a band's edge counts exactly, any other limit from the histogram.
        let from_bands: u64 = s.bands[4..8].iter().map(|b| b.count).sum();
        assert_eq!(s.bands[4].label, "<50ms");
        assert_eq!(commands_at_or_over(&s, 20_000_000), (from_bands, true));
        let (n, exact) = commands_at_or_over(&s, 1_000);
        assert!(!exact && n > 0 && n <= s.commands, "{n}");
    }
}
