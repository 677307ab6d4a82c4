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
///
/// With a cap ([`Series::with_cap`]) the series keeps at most that many points whatever the
/// run's length: when the points reach the cap, neighbouring pairs merge into one point of
/// twice the interval (see [`merge_pairs`]) and the interval doubles, so the points still
/// cover the whole run and [`Series::interval_ns`] says their interval.
#[derive(Debug, Clone)]
pub struct Series {
    origin_ns: u64,
    /// The interval asked for; `interval_ns` is it doubled once per merge.
    base_ns: u64,
    interval_ns: u64,
    cap: usize,
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
            base_ns: interval_ns,
            interval_ns,
            cap: usize::MAX,
            current: 0,
            bytes: 0,
            commands: 0,
            hist: Histogram::new(),
            points: Vec::new(),
        }
    }

    /// Keep at most `cap` points (at least 2; an odd cap is taken as the even number below),
    /// merging neighbours and doubling the interval whenever the points reach it.
    pub fn with_cap(mut self, cap: usize) -> Self {
        self.cap = (cap.max(2)) & !1;
        self
    }

    /// The interval of the points: the one asked for, doubled once per merge.
    pub fn interval_ns(&self) -> u64 {
        self.interval_ns
    }

    #[inline]
    pub fn record(&mut self, done_ns: u64, bytes: u64, latency_ns: u64) {
        let rel = done_ns.saturating_sub(self.origin_ns);
        if rel / self.interval_ns > self.current {
            self.roll_to(rel);
        }
        self.bytes += bytes;
        self.commands += 1;
        self.hist.record(latency_ns);
    }

    /// The interval asked for (not doubled) a completion at `done_ns` falls in (0 for the
    /// first).
    #[inline]
    pub fn index_of(&self, done_ns: u64) -> u64 {
        done_ns.saturating_sub(self.origin_ns) / self.base_ns
    }

    /// Close every interval before the `idx`-th of those asked for (none may be recorded into
    /// again: a later completion timed before it lands in the current interval) and return
    /// the points so far. With a cap, `idx` must be one that [`cut_index`] gives, so that it
    /// falls on the boundary of a merged interval.
    pub fn cut(&mut self, idx: u64) -> &[SeriesPoint] {
        self.roll_to(idx.saturating_mul(self.base_ns));
        debug_assert_eq!(
            idx.saturating_mul(self.base_ns) % self.interval_ns,
            0,
            "a cut inside a merged interval"
        );
        &self.points
    }

    /// Close every interval that ends at or before `rel_ns` from the origin.
    fn roll_to(&mut self, rel_ns: u64) {
        while self.current < rel_ns / self.interval_ns {
            self.flush(self.interval_ns);
            self.current += 1;
            if self.points.len() >= self.cap {
                self.halve();
            }
        }
    }

    /// Merge the closed points pairwise and double the interval. The points are as many as
    /// the intervals closed (`current`), an even number at the cap, so the open interval
    /// starts where one of twice the length does and carries on into it.
    fn halve(&mut self) {
        debug_assert_eq!(self.points.len() as u64, self.current);
        debug_assert_eq!(self.current % 2, 0);
        self.points = merge_pairs(&self.points);
        self.interval_ns *= 2;
        self.current /= 2;
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
    pub fn finish(self, end_ns: u64) -> Vec<SeriesPoint> {
        self.finish_with_interval(end_ns).1
    }

    /// [`Series::finish`], with the interval the points ended at (merges may have doubled it
    /// while the last intervals closed).
    pub fn finish_with_interval(mut self, end_ns: u64) -> (u64, Vec<SeriesPoint>) {
        let end = end_ns.saturating_sub(self.origin_ns);
        self.roll_to(end);
        let idx = end / self.interval_ns;
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
        (self.interval_ns, self.points)
    }
}

/// The first interval index at or after `idx` where a series capped at `cap` points (see
/// [`Series::with_cap`]) is at the boundary of its merged interval: a series that merged `m`
/// times has intervals of `2^m` of those asked for, and merges when `cap`, `2 cap`, `4 cap`, …
/// of them are closed. Series with the same cap that cut there all hold the same points.
pub fn cut_index(idx: u64, cap: usize) -> u64 {
    let cap = ((cap.max(2)) & !1) as u64;
    let merges = |n: u64| -> u32 {
        let mut m = 0;
        while n >= cap.saturating_mul(1u64 << m.min(63)) && m < 63 {
            m += 1;
        }
        m
    };
    let mut k = idx;
    loop {
        let a = 1u64 << merges(k);
        let aligned = k.div_ceil(a) * a;
        if aligned == k {
            return k;
        }
        k = aligned;
    }
}

/// Points of twice the interval from contiguous points that start at the origin: each pair
/// becomes one point ending where the second ends, its bytes and commands summed, its rates
/// over the pair's span, its p99 the higher of the two (the pair's own p99 is not kept). A
/// last point without a partner stays as it is.
pub fn merge_pairs(points: &[SeriesPoint]) -> Vec<SeriesPoint> {
    let mut out: Vec<SeriesPoint> = Vec::with_capacity(points.len().div_ceil(2));
    for pair in points.chunks(2) {
        let start = out.last().map_or(0, |p| p.t_ns);
        let merged = match pair {
            [a, b] => {
                let secs = b.t_ns.saturating_sub(start).max(1) as f64 / 1e9;
                let (bytes, commands) = (a.bytes + b.bytes, a.commands + b.commands);
                SeriesPoint {
                    t_ns: b.t_ns,
                    bytes,
                    commands,
                    mb_per_s: bytes as f64 / 1e6 / secs,
                    iops: commands as f64 / secs,
                    p99_ns: a.p99_ns.max(b.p99_ns),
                }
            }
            [a] => a.clone(),
            _ => unreachable!("chunks of two"),
        };
        out.push(merged);
    }
    out
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

    /// One 1000-byte command every `step` ns from the origin up to `end`, each taking `lat`.
    fn steady(s: &mut Series, step: u64, end: u64) -> u64 {
        let mut n = 0;
        let mut t = step;
        while t < end {
            s.record(t, 1000, 10 + t % 7);
            t += step;
            n += 1;
        }
        n
    }

    #[test]
    fn a_capped_series_merges_pairs_and_covers_the_whole_run() {
        const MS: u64 = 1_000_000;
        // 1000 intervals of 1 ms with a cap of 16: merged six times (1000 / 64 < 16 points).
        let mut s = Series::new(MS).with_cap(16);
        let n = steady(&mut s, MS / 10, 1000 * MS);
        assert_eq!(
            s.interval_ns(),
            64 * MS,
            "merged while running, not only at the end"
        );
        let (interval, p) = s.finish_with_interval(1000 * MS);
        assert_eq!(interval, 64 * MS);
        assert!(p.len() <= 16, "{} points", p.len());
        assert_eq!(
            p.len(),
            16,
            "15 whole intervals of 64 ms and the last 40 ms"
        );
        assert_eq!(
            p.last().unwrap().t_ns,
            1000 * MS,
            "the last point ends at the run's end"
        );
        assert_eq!(p.iter().map(|x| x.commands).sum::<u64>(), n);
        assert_eq!(p.iter().map(|x| x.bytes).sum::<u64>(), n * 1000);
        for (i, q) in p[..15].iter().enumerate() {
            assert_eq!(q.t_ns, (i as u64 + 1) * 64 * MS);
            // 10 commands of 1000 B per ms: 10 MB/s, 10000 IOPS, whatever the interval
            assert!(
                (q.mb_per_s - 10.0).abs() < 0.2,
                "point {i}: {} MB/s",
                q.mb_per_s
            );
            assert!(
                (q.iops - 10_000.0).abs() < 200.0,
                "point {i}: {} IOPS",
                q.iops
            );
        }
        assert!(
            (p[15].mb_per_s - 10.0).abs() < 0.3,
            "{} MB/s",
            p[15].mb_per_s
        );
    }

    #[test]
    fn capped_points_are_the_uncapped_points_merged() {
        const MS: u64 = 1_000_000;
        let mut fine = Series::starting_at(7, MS);
        let mut coarse = Series::starting_at(7, MS).with_cap(8);
        // a rate that changes every 5 ms, latencies that grow, so merged p99s differ
        let mut t = 7;
        while t < 7 + 64 * MS {
            let k = (t - 7) / (5 * MS);
            let bytes = 512 * (1 + k % 3);
            fine.record(t, bytes, 100 * (k + 1));
            coarse.record(t, bytes, 100 * (k + 1));
            t += MS / 8 + k * 1000;
        }
        let fine = fine.finish(7 + 64 * MS);
        let (interval, coarse) = coarse.finish_with_interval(7 + 64 * MS);
        assert_eq!(fine.len(), 64);
        assert_eq!(interval, 16 * MS);
        let mut want = fine;
        for _ in 0..4 {
            want = merge_pairs(&want);
        }
        assert_eq!(want.len(), 4);
        assert_eq!(coarse.len(), 4);
        for (a, b) in coarse.iter().zip(&want) {
            assert_eq!((a.t_ns, a.bytes, a.commands), (b.t_ns, b.bytes, b.commands));
            assert!((a.mb_per_s - b.mb_per_s).abs() < 1e-9 * a.mb_per_s.max(1.0));
            // merging keeps the higher p99 of a pair; the capped series measured its own
            // p99 over the whole interval, which is never above that
            assert!(a.p99_ns <= b.p99_ns, "{} > {}", a.p99_ns, b.p99_ns);
        }
    }

    #[test]
    fn merge_pairs_keeps_an_odd_last_point() {
        let pt = |t_ns, bytes| SeriesPoint {
            t_ns,
            bytes,
            commands: 1,
            mb_per_s: 0.0,
            iops: 0.0,
            p99_ns: t_ns,
        };
        let m = merge_pairs(&[
            pt(1_000_000_000, 2_000_000),
            pt(2_000_000_000, 4_000_000),
            pt(2_500_000_000, 7),
        ]);
        assert_eq!(m.len(), 2);
        assert_eq!(
            (m[0].t_ns, m[0].bytes, m[0].commands),
            (2_000_000_000, 6_000_000, 2)
        );
        assert!((m[0].mb_per_s - 3.0).abs() < 1e-12);
        assert_eq!(m[0].p99_ns, 2_000_000_000);
        assert_eq!(m[1], pt(2_500_000_000, 7));
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
    fn a_capped_series_cuts_at_the_boundaries_cut_index_gives() {
        // cap 4: merges after 4, 8, 16 intervals of 10.
        assert_eq!(cut_index(3, 4), 3);
        assert_eq!(cut_index(5, 4), 6);
        assert_eq!(cut_index(9, 4), 12);
        assert_eq!(cut_index(17, 4), 24);
        assert_eq!(cut_index(5, usize::MAX), 5);
        for k in [3u64, 5, 9, 13, 17, 30] {
            let c = cut_index(k, 4);
            let mut cut = Series::new(10).with_cap(4);
            for t in 0..c * 10 {
                cut.record(t, 1, 1);
            }
            let p = cut.cut(c).to_vec();
            // Every point closed and whole: the cut's points hold its c intervals exactly.
            assert_eq!(p.iter().map(|x| x.commands).sum::<u64>(), c * 10, "k {k}");
            assert_eq!(p.last().unwrap().t_ns, c * 10, "k {k}");
            assert!(p.len() <= 4, "k {k}");
        }
    }
}
