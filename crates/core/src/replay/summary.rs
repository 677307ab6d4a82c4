//! A replay's numbers against the trace's: request counts, I/O (busy) time, wall time, and the service
//! time of each class of request.

use super::schedule::Schedule;
use drivescope_record::{AccessPattern, IoDirection, ReplayClass, ReplayTotals};
use drivescope_trace::Op;
use std::collections::BTreeMap;

/// When the replay issued a step and saw it complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Timing {
    pub issue_ns: u64,
    pub done_ns: u64,
    /// The errno of a failed request.
    pub error: Option<i32>,
}

/// Time with at least one interval open; `spans` sorted by start.
pub fn busy(spans: impl Iterator<Item = (u64, u64)>) -> u64 {
    let mut total = 0;
    let mut open: Option<(u64, u64)> = None;
    for (s, e) in spans {
        open = match open {
            Some((os, oe)) if s <= oe => Some((os, oe.max(e))),
            Some((os, oe)) => {
                total += oe - os;
                Some((s, e))
            }
            None => Some((s, e)),
        };
    }
    total + open.map_or(0, |(s, e)| e - s)
}

/// The class of a request: power-of-two size class from 4 KiB.
pub fn size_class(bytes: u32) -> u64 {
    u64::from(bytes).next_power_of_two().max(4096)
}

fn totals(spans: &[(u64, u64, u64)]) -> ReplayTotals {
    let first = spans.iter().map(|s| s.0).min().unwrap_or(0);
    let last = spans.iter().map(|s| s.1).max().unwrap_or(0);
    ReplayTotals {
        requests: spans.len() as u64,
        bytes: spans.iter().map(|s| s.2).sum(),
        io_ns: busy(spans.iter().map(|s| (s.0, s.1))),
        wall_ns: last.saturating_sub(first),
    }
}

fn p50(v: &mut [u64]) -> u64 {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    v[(v.len() - 1) / 2]
}

fn mean(v: &[u64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64
    }
}

/// The trace's and the replay's totals over the steps that were replayed (`timings[i]` is step `i`'s,
/// `None` where it was skipped or never issued), and the classes, most requests first.
pub fn summarize(
    s: &Schedule,
    timings: &[Option<Timing>],
) -> (ReplayTotals, ReplayTotals, Vec<ReplayClass>) {
    let mut orig = Vec::new();
    let mut rep = Vec::new();
    type Key = (IoDirection, u64, AccessPattern);
    let mut classes: BTreeMap<Key, (Vec<u64>, Vec<u64>)> = BTreeMap::new();
    let mut last_end: BTreeMap<(u32, IoDirection), u64> = BTreeMap::new();
    for (step, t) in s.steps.iter().zip(timings) {
        let r = &step.request;
        let dir = match r.op {
            Op::Read => IoDirection::Read,
            Op::Write => IoDirection::Write,
            Op::Flush | Op::Discard => continue,
        };
        let seq = last_end.insert((r.dev, dir), r.end_sector()) == Some(r.sector);
        let Some(t) = t else { continue };
        orig.push((r.issue_ns, r.complete_ns, u64::from(r.bytes)));
        rep.push((t.issue_ns, t.done_ns, u64::from(step.len)));
        let pattern = if seq {
            AccessPattern::Sequential
        } else {
            AccessPattern::Random
        };
        let e = classes
            .entry((dir, size_class(r.bytes), pattern))
            .or_default();
        e.0.push(r.service_ns());
        e.1.push(t.done_ns.saturating_sub(t.issue_ns));
    }
    orig.sort_unstable();
    rep.sort_unstable();
    let mut out: Vec<ReplayClass> = classes
        .into_iter()
        .map(
            |((direction, size_max_bytes, pattern), (mut o, mut r))| ReplayClass {
                direction,
                size_max_bytes,
                pattern,
                requests: o.len() as u64,
                original_service_ns: mean(&o),
                replayed_service_ns: mean(&r),
                original_p50_ns: p50(&mut o),
                replayed_p50_ns: p50(&mut r),
            },
        )
        .collect();
    out.sort_by_key(|c| std::cmp::Reverse(c.requests));
    (totals(&orig), totals(&rep), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_time_counts_overlaps_once_and_gaps_not_at_all() {
        assert_eq!(busy([(0, 10), (5, 20), (30, 40)].into_iter()), 30);
        assert_eq!(busy([(0, 10), (2, 3), (10, 12)].into_iter()), 12);
        assert_eq!(busy(std::iter::empty()), 0);
    }

    #[test]
    fn size_classes_are_powers_of_two_from_4k() {
        assert_eq!(size_class(512), 4096);
        assert_eq!(size_class(4096), 4096);
        assert_eq!(size_class(4097), 8192);
        assert_eq!(size_class(131_072), 131_072);
    }
}
