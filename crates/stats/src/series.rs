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

/// Accumulates completions into fixed intervals by completion time. Completions are expected
/// in roughly increasing time; a late one lands in the current interval.
#[derive(Debug, Clone)]
pub struct Series {
    interval_ns: u64,
    current: u64,
    bytes: u64,
    commands: u64,
    hist: Histogram,
    points: Vec<SeriesPoint>,
}

impl Series {
    pub fn new(interval_ns: u64) -> Self {
        assert!(interval_ns > 0);
        Series {
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
        let idx = done_ns / self.interval_ns;
        if idx > self.current {
            self.roll_to(idx);
        }
        self.bytes += bytes;
        self.commands += 1;
        self.hist.record(latency_ns);
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

    /// Close the series at `end_ns` (the run's duration); the last, partial interval is kept
    /// when it is at least a tenth of an interval long.
    pub fn finish(mut self, end_ns: u64) -> Vec<SeriesPoint> {
        let idx = end_ns / self.interval_ns;
        self.roll_to(idx);
        let rest = end_ns - idx * self.interval_ns;
        if rest * 10 >= self.interval_ns && (self.commands > 0 || rest > 0) {
            self.flush(rest);
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
        assert_eq!(p[0].commands, 10);
        assert!((p[0].mb_per_s - 10.0).abs() < 1e-9);
        assert_eq!(p[1].commands, 0);
        assert_eq!(p[2].t_ns, 2_500_000_000);
        assert!((p[2].mb_per_s - 10.0).abs() < 1e-9);
        assert_eq!(p[2].p99_ns, 2000);
    }
}
