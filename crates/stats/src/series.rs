//! Per-interval throughput and latency over time.

use crate::Histogram;
use serde::{Deserialize, Serialize};

/// One interval as it appears in JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// End of the interval, from the start of the run.
    pub t_ns: u64,
    pub bytes: u64,
    pub commands: u64,
    pub mb_per_s: f64,
    pub iops: f64,
    pub p99_ns: u64,
}

/// Accumulates completions into fixed intervals by completion time, from an origin.
/// Completions are expected in roughly increasing time; a late one lands in the current
/// interval. Point times (`t_ns`) are from the origin.
#[derive(Debug, Clone)]
pub struct Series {
    origin_ns: u64,
    interval_ns: u64,
    current: u64,
    bytes: u64,
    commands: u64,
    hist: Histogram,
    points: Vec<SeriesPoint>,
}

impl Series {
    pub fn new(interval_ns: u64) -> Self {
        Self::starting_at(0, interval_ns)
    }

    /// A series whose first interval starts at `origin_ns`.
    pub fn starting_at(origin_ns: u64, interval_ns: u64) -> Self {
        assert!(interval_ns > 0);
        Series {
            origin_ns,
            interval_ns,
            current: 0,
            bytes: 0,
            commands: 0,
            hist: Histogram::new(),
            points: Vec::new(),
        }
    }

    #[inline]
    pub fn record(&mut self, done_ns: u64, bytes: u64, latency_ns: u64) {
        let idx = done_ns.saturating_sub(self.origin_ns) / self.interval_ns;
        if idx > self.current {
            self.roll_to(idx);
        }
        self.bytes += bytes;
        self.commands += 1;
        self.hist.record(latency_ns);
    }

    /// The interval a completion at `done_ns` falls in (0 for the first).
    #[inline]
    pub fn index_of(&self, done_ns: u64) -> u64 {
        done_ns.saturating_sub(self.origin_ns) / self.interval_ns
    }

    /// Close every interval before `idx` (none may be recorded into again: a later completion
    /// timed before it lands in the current interval) and return the points so far, one per
    /// interval before `idx`.
    pub fn cut(&mut self, idx: u64) -> &[SeriesPoint] {
        self.roll_to(idx);
        &self.points
    }

    fn roll_to(&mut self, idx: u64) {
        while self.current < idx {
            self.flush(self.interval_ns);
            self.current += 1;
        }
    }

    fn flush(&mut self, span_ns: u64) {
        let secs = span_ns as f64 / 1e9;
        self.points.push(SeriesPoint {
            t_ns: self.current * self.interval_ns + span_ns,
            bytes: self.bytes,
            commands: self.commands,
            mb_per_s: self.bytes as f64 / 1e6 / secs,
            iops: self.commands as f64 / secs,
            p99_ns: self.hist.quantile(0.99),
        });
        self.bytes = 0;
        self.commands = 0;
        if self.hist.count() > 0 {
            self.hist.clear();
        }
    }

    /// Close the series at `end_ns` (same clock as the completions). The last, partial
    /// interval becomes a point of its own when it is at least a tenth of an interval long;
    /// a shorter one (commands draining after a deadline) is added to the point before, whose
    /// span grows by as much, so every byte and command is in some point.
    pub fn finish(mut self, end_ns: u64) -> Vec<SeriesPoint> {
        let end = end_ns.saturating_sub(self.origin_ns);
        let idx = end / self.interval_ns;
        self.roll_to(idx);
        let rest = end - idx * self.interval_ns;
        if rest * 10 >= self.interval_ns || (self.points.is_empty() && self.commands > 0) {
            self.flush(rest.max(1));
        } else if self.commands > 0 {
            let span = self.interval_ns + rest;
            let (bytes, commands) = (self.bytes, self.commands);
            let last = self.points.last_mut().expect("a point before");
            last.bytes += bytes;
            last.commands += commands;
            last.t_ns += rest;
            last.mb_per_s = last.bytes as f64 / 1e6 / (span as f64 / 1e9);
            last.iops = last.commands as f64 / (span as f64 / 1e9);
        }
        self.points
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_and_rates() {
        let mut s = Series::new(1_000_000_000);
        // 10 commands of 1 MB in the first second, none in the second, 5 in the third
        for i in 0..10 {
            s.record(i * 90_000_000, 1_000_000, 1000);
        }
        for i in 0..5 {
            s.record(2_000_000_000 + i * 10, 1_000_000, 2000);
        }
        let p = s.finish(2_500_000_000);
        assert_eq!(p.len(), 3);
        assert_eq!(p.iter().map(|x| x.bytes).sum::<u64>(), 15_000_000);
        assert_eq!(p[0].commands, 10);
        assert!((p[0].mb_per_s - 10.0).abs() < 1e-9);
        assert_eq!(p[1].commands, 0);
        assert_eq!(p[2].t_ns, 2_500_000_000);
        assert!((p[2].mb_per_s - 10.0).abs() < 1e-9);
        assert_eq!(p[2].p99_ns, 2000);
    }

    #[test]
    fn a_cut_closes_the_intervals_before_it() {
        let mut s = Series::starting_at(100, 1000);
        s.record(100 + 10, 7, 1);
        s.record(100 + 1500, 5, 1);
        assert_eq!(s.index_of(100 + 2999), 2);
        let p = s.cut(3).to_vec();
        assert_eq!(p.len(), 3);
        assert_eq!(
            p.iter().map(|x| (x.t_ns, x.bytes)).collect::<Vec<_>>(),
            [(1000, 7), (2000, 5), (3000, 0)]
        );
        // a late completion (timed before the cut) counts in the interval after it
        s.record(100 + 2500, 3, 1);
        let all = s.finish(100 + 4000);
        assert_eq!(all.len(), 4);
        assert_eq!(all[3].bytes, 3);
        assert_eq!(all[..3], p[..]);
    }

    #[test]
    fn a_short_tail_joins_the_last_point() {
        let mut s = Series::starting_at(500, 1_000_000_000);
        s.record(500 + 999_999_999, 1_000_000, 10);
        s.record(500 + 1_000_000_100, 1_000_000, 10);
        let p = s.finish(500 + 1_000_000_200);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].bytes, 2_000_000);
        assert_eq!(p[0].commands, 2);
        assert_eq!(p[0].t_ns, 1_000_000_200);
    }
}
