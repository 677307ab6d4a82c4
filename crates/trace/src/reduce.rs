//! Requests reduced to a workload's fingerprint as they come, in memory that does not grow with their
//! number: per-class histograms, a depth-time table, a timeline of at most [`MAX_BINS`] bins, and the
//! requests of a short reorder window.
//!
//! Requests arrive in completion order, but queue depth, think time and sequential runs are questions of
//! issue order. So requests wait in a window until no request still to come can have been issued before
//! them (those complete later, and a request's service is far shorter than the window), then are swept in
//! time order: every issue raises the depth, every completion lowers it.

use crate::{Op, Request};
use drivescope_record::{
    AccessPattern, DepthShare, Fingerprint, IoClass, IoDirection, ThinkTime, TimeMode,
    TimelinePoint,
};
use drivescope_stats::Histogram;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

/// Timeline bins at most; the step doubles to stay under.
pub const MAX_BINS: usize = 300;
const FIRST_STEP_NS: u64 = 10_000_000;
/// The reorder window: twice the longest service time seen, within these bounds.
const MIN_WINDOW_NS: u64 = 200_000_000;
const MAX_WINDOW_NS: u64 = 10_000_000_000;
/// Ends of recent requests kept per device and direction, to tell a continuing request.
const RECENT: usize = 16;
/// Depths above this count here.
const MAX_DEPTH: usize = 1024;

/// Which run was traced, and what the capture knows about it.
#[derive(Debug, Clone, PartialEq)]
pub struct TracedRun {
    pub mode: TimeMode,
    pub run: u32,
    pub devices: Vec<String>,
    pub wall_ns: u64,
    pub unmatched: u64,
    pub lost_events: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Waiting {
    issue_ns: u64,
    seq: u64,
    req: Key,
}

/// A request's fields in an orderable form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    dev: u32,
    sector: u64,
    bytes: u32,
    op: Op,
    sync: bool,
    complete_ns: u64,
    error: i32,
}

#[derive(Debug, Default)]
struct ClassAcc {
    requests: u64,
    bytes: u64,
    service: Histogram,
    depth_sum: u64,
}

#[derive(Debug, Clone, Default)]
struct Bin {
    depth_ns: f64,
    read_bytes: u64,
    write_bytes: u64,
    requests: u64,
}

#[derive(Debug)]
struct Timeline {
    step_ns: u64,
    bins: Vec<Bin>,
}

impl Timeline {
    fn bin(&mut self, t: u64) -> &mut Bin {
        let mut i = (t / self.step_ns) as usize;
        while i >= MAX_BINS {
            self.coarsen();
            i = (t / self.step_ns) as usize;
        }
        if self.bins.len() <= i {
            self.bins.resize(i + 1, Bin::default());
        }
        &mut self.bins[i]
    }

    fn coarsen(&mut self) {
        self.step_ns *= 2;
        let old = std::mem::take(&mut self.bins);
        for pair in old.chunks(2) {
            let mut b = pair[0].clone();
            if let Some(o) = pair.get(1) {
                b.depth_ns += o.depth_ns;
                b.read_bytes += o.read_bytes;
                b.write_bytes += o.write_bytes;
                b.requests += o.requests;
            }
            self.bins.push(b);
        }
    }

    /// `depth` requests in flight from `a` to `b`.
    fn depth(&mut self, mut a: u64, b: u64, depth: u32) {
        while a < b {
            let step = self.step_ns;
            let end = ((a / step + 1) * step).min(b);
            self.bin(a).depth_ns += (end - a) as f64 * f64::from(depth);
            a = end;
        }
    }
}

/// Turns requests into a [`Fingerprint`].
#[derive(Debug)]
pub struct Reducer {
    waiting: BinaryHeap<Reverse<Waiting>>,
    completions: BinaryHeap<Reverse<u64>>,
    seq: u64,
    latest_complete: u64,
    longest_service: u64,
    watermark: u64,
    now: u64,
    depth: u32,
    idle_since: Option<u64>,
    recent: HashMap<(u32, IoDirection), ([u64; RECENT], usize)>,
    classes: BTreeMap<(IoDirection, u64, AccessPattern), ClassAcc>,
    depth_time: Vec<u64>,
    busy_ns: u64,
    think: Histogram,
    timeline: Timeline,
    requests: u64,
    flushes: u64,
    discards: u64,
    sync_requests: u64,
    failed: u64,
    late: u64,
}

impl Default for Reducer {
    fn default() -> Self {
        Reducer::new()
    }
}

fn direction(op: Op) -> Option<IoDirection> {
    match op {
        Op::Read => Some(IoDirection::Read),
        Op::Write => Some(IoDirection::Write),
        Op::Flush | Op::Discard => None,
    }
}

/// The size class of a request: the power of two at or above its size, 4 KiB at least.
pub fn size_class(bytes: u32) -> u64 {
    u64::from(bytes.max(4096)).next_power_of_two()
}

impl Reducer {
    pub fn new() -> Reducer {
        Reducer {
            waiting: BinaryHeap::new(),
            completions: BinaryHeap::new(),
            seq: 0,
            latest_complete: 0,
            longest_service: 0,
            watermark: 0,
            now: 0,
            depth: 0,
            idle_since: None,
            recent: HashMap::new(),
            classes: BTreeMap::new(),
            depth_time: Vec::new(),
            busy_ns: 0,
            think: Histogram::new(),
            timeline: Timeline {
                step_ns: FIRST_STEP_NS,
                bins: Vec::new(),
            },
            requests: 0,
            flushes: 0,
            discards: 0,
            sync_requests: 0,
            failed: 0,
            late: 0,
        }
    }

    /// One completed request (in completion order, as a capture or a kept trace gives them).
    pub fn push(&mut self, r: &Request) {
        self.seq += 1;
        self.waiting.push(Reverse(Waiting {
            issue_ns: r.issue_ns,
            seq: self.seq,
            req: Key {
                dev: r.dev,
                sector: r.sector,
                bytes: r.bytes,
                op: r.op,
                sync: r.sync,
                complete_ns: r.complete_ns.max(r.issue_ns),
                error: r.error,
            },
        }));
        self.completions
            .push(Reverse(r.complete_ns.max(r.issue_ns)));
        self.latest_complete = self.latest_complete.max(r.complete_ns);
        self.longest_service = self.longest_service.max(r.service_ns());
        let window = (2 * self.longest_service).clamp(MIN_WINDOW_NS, MAX_WINDOW_NS);
        self.watermark = self
            .watermark
            .max(self.latest_complete.saturating_sub(window));
        self.sweep(self.watermark);
    }

    /// Requests waiting in the reorder window (what the reducer's memory grows with: the rate, not the count).
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    fn span(&mut self, to: u64) {
        let from = self.now;
        if to <= from {
            return;
        }
        if self.depth > 0 {
            let d = (self.depth as usize).min(MAX_DEPTH);
            if self.depth_time.len() <= d {
                self.depth_time.resize(d + 1, 0);
            }
            self.depth_time[d] += to - from;
            self.busy_ns += to - from;
            self.timeline.depth(from, to, self.depth);
        }
        self.now = to;
    }

    fn sweep(&mut self, until: u64) {
        loop {
            let issue = self.waiting.peek().map(|w| w.0.issue_ns);
            let done = self.completions.peek().map(|c| c.0);
            let completion_first = match (issue, done) {
                (None, None) => return,
                (Some(i), Some(c)) => c <= i,
                (None, Some(_)) => true,
                (Some(_), None) => false,
            };
            let t = if completion_first { done } else { issue }.expect("one");
            if t > until {
                return;
            }
            if t < self.now {
                self.late += u64::from(!completion_first);
            }
            self.span(t);
            if completion_first {
                self.completions.pop();
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    self.idle_since = Some(self.now);
                }
            } else {
                let w = self.waiting.pop().expect("peeked").0;
                if self.depth == 0 {
                    if let Some(since) = self.idle_since.take() {
                        self.think.record(self.now - since);
                    }
                }
                self.depth += 1;
                self.issued(&w);
            }
        }
    }

    fn issued(&mut self, w: &Waiting) {
        let r = &w.req;
        self.requests += 1;
        self.sync_requests += u64::from(r.sync);
        self.failed += u64::from(r.error != 0);
        let bin = self.timeline.bin(self.now);
        bin.requests += 1;
        let Some(dir) = direction(r.op) else {
            match r.op {
                Op::Flush => self.flushes += 1,
                _ => self.discards += 1,
            }
            return;
        };
        match dir {
            IoDirection::Read => bin.read_bytes += u64::from(r.bytes),
            IoDirection::Write => bin.write_bytes += u64::from(r.bytes),
        }
        let (ends, next) = self
            .recent
            .entry((r.dev, dir))
            .or_insert(([u64::MAX; RECENT], 0));
        let pattern = if ends.contains(&r.sector) {
            AccessPattern::Sequential
        } else {
            AccessPattern::Random
        };
        ends[*next] = r.sector + u64::from(r.bytes / 512);
        *next = (*next + 1) % RECENT;
        let c = self
            .classes
            .entry((dir, size_class(r.bytes), pattern))
            .or_default();
        c.requests += 1;
        c.bytes += u64::from(r.bytes);
        c.service.record(r.complete_ns - w.issue_ns);
        c.depth_sum += u64::from(self.depth);
    }

    /// Sweeps what is left and writes the fingerprint.
    pub fn finish(mut self, run: TracedRun) -> Fingerprint {
        self.sweep(u64::MAX);
        let wall_ns = run.wall_ns.max(self.now);
        // The timeline reaches the end of the trace.
        if wall_ns > 0 {
            self.timeline.bin(wall_ns - 1);
        }
        let mut classes: Vec<IoClass> = self
            .classes
            .iter()
            .map(|(&(direction, size_max_bytes, pattern), c)| IoClass {
                direction,
                size_max_bytes,
                pattern,
                requests: c.requests,
                bytes: c.bytes,
                service_ns_mean: c.service.mean(),
                service_ns_p50: c.service.quantile(0.5),
                service_ns_p99: c.service.quantile(0.99),
                queue_depth_mean: c.depth_sum as f64 / c.requests.max(1) as f64,
            })
            .collect();
        classes.sort_by(|a, b| b.requests.cmp(&a.requests).then(b.bytes.cmp(&a.bytes)));
        let busy = self.busy_ns.max(1) as f64;
        let queue_depth: Vec<DepthShare> = self
            .depth_time
            .iter()
            .enumerate()
            .filter(|(_, &t)| t > 0)
            .map(|(d, &t)| DepthShare {
                depth: d as u32,
                share: t as f64 / busy,
            })
            .collect();
        let mean_queue_depth = self
            .depth_time
            .iter()
            .enumerate()
            .map(|(d, &t)| d as f64 * t as f64)
            .sum::<f64>()
            / busy;
        let step = self.timeline.step_ns;
        let timeline = self
            .timeline
            .bins
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let start = i as u64 * step;
                let span = step.min(wall_ns.saturating_sub(start)).max(1);
                TimelinePoint {
                    t_s: start as f64 / 1e9,
                    queue_depth: b.depth_ns / span as f64,
                    read_bytes: b.read_bytes,
                    write_bytes: b.write_bytes,
                    requests: b.requests,
                }
            })
            .collect();
        let mut notes = Vec::new();
        if run.lost_events > 0 {
            notes.push(format!(
                "the kernel dropped {} trace events (its buffer overran): some requests are missing",
                run.lost_events
            ));
        }
        if run.unmatched > 0 {
            notes.push(format!(
                "{} requests were seen only half (in flight when the trace started or stopped) and are not counted",
                run.unmatched
            ));
        }
        if self.failed > 0 {
            notes.push(format!("{} requests completed with an error", self.failed));
        }
        if self.late > 0 {
            notes.push(format!(
                "{} requests were in service longer than the reorder window: their queue depth is approximate",
                self.late
            ));
        }
        Fingerprint {
            mode: run.mode,
            run: run.run,
            devices: run.devices,
            requests: self.requests,
            unmatched: run.unmatched,
            lost_events: run.lost_events,
            wall_ns,
            busy_ns: self.busy_ns,
            classes,
            flushes: self.flushes,
            discards: self.discards,
            sync_requests: self.sync_requests,
            queue_depth,
            mean_queue_depth: if self.busy_ns == 0 {
                0.0
            } else {
                mean_queue_depth
            },
            think: ThinkTime {
                gaps: self.think.count(),
                total_ns: (self.think.mean() * self.think.count() as f64).round() as u64,
                p50_ns: self.think.quantile(0.5),
                p90_ns: self.think.quantile(0.9),
                max_ns: self.think.max().unwrap_or(0),
            },
            timeline,
            timeline_step_s: step as f64 / 1e9,
            notes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEV: u32 = (7 << 20) | 2;
    const K4: u32 = 4096;

    fn req(sector: u64, bytes: u32, op: Op, issue_ns: u64, complete_ns: u64) -> Request {
        Request {
            dev: DEV,
            sector,
            bytes,
            op,
            sync: false,
            issue_ns,
            complete_ns,
            error: 0,
        }
    }

    fn run(wall_ns: u64) -> TracedRun {
        TracedRun {
            mode: TimeMode::Cold,
            run: 1,
            devices: vec!["loop2".into()],
            wall_ns,
            unmatched: 0,
            lost_events: 0,
        }
    }

    /// Requests pushed in completion order, as a capture delivers them.
    fn reduce(mut rs: Vec<Request>, wall_ns: u64) -> Fingerprint {
        rs.sort_by_key(|r| r.complete_ns);
        let mut red = Reducer::new();
        for r in &rs {
            red.push(r);
        }
        red.finish(run(wall_ns))
    }

    /// A simple pseudo-random sequence (no dependency for tests).
    fn scatter(i: u64) -> u64 {
        (i.wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407)
            >> 20)
            % 1_000_000
            * 8
    }

    #[test]
    fn random_4k_reads_one_at_a_time_are_random_at_depth_one_with_think_time() {
        // 1000 reads of 4 KiB, 100 µs each, 20 µs apart.
        let rs: Vec<Request> = (0..1000)
            .map(|i| {
                let t = i * 120_000;
                req(scatter(i), K4, Op::Read, t, t + 100_000)
            })
            .collect();
        let f = reduce(rs, 120_000_000);
        assert_eq!(f.requests, 1000);
        assert_eq!(f.classes.len(), 1, "{:?}", f.classes);
        let c = &f.classes[0];
        assert_eq!(
            (c.direction, c.size_max_bytes, c.pattern),
            (IoDirection::Read, 4096, AccessPattern::Random)
        );
        assert_eq!((c.requests, c.bytes), (1000, 1000 * 4096));
        assert!((c.service_ns_mean - 100_000.0).abs() < 1.0);
        assert!((c.queue_depth_mean - 1.0).abs() < 1e-9);
        assert!((f.mean_queue_depth - 1.0).abs() < 1e-9);
        assert_eq!(f.queue_depth.len(), 1);
        assert_eq!(f.busy_ns, 1000 * 100_000);
        assert_eq!(f.think.gaps, 999);
        assert!((f.think.p50_ns as f64 - 20_000.0).abs() < 200.0);
        assert_eq!(f.wall_ns, 120_000_000);
    }

    #[test]
    fn a_sequential_stream_at_depth_two_completing_out_of_order_is_sequential() {
        // 128 KiB reads, two in flight: each issued when the one before the previous completes, the
        // second of each pair completing first.
        let mut rs = Vec::new();
        for i in 0..400u64 {
            let issue = (i / 2) * 1_000_000 + (i % 2) * 10;
            let complete = issue + if i % 2 == 0 { 900_000 } else { 800_000 };
            rs.push(req(i * 256, 128 * 1024, Op::Read, issue, complete));
        }
        let f = reduce(rs, 200_000_000);
        let seq: u64 = f
            .classes
            .iter()
            .filter(|c| c.pattern == AccessPattern::Sequential)
            .map(|c| c.requests)
            .sum();
        assert_eq!(seq, 399, "all but the first continue: {:?}", f.classes);
        assert_eq!(f.classes[0].size_max_bytes, 128 * 1024);
        // Of each 0.9 ms busy: 0.8 ms at depth 2, 0.1 ms at depth 1.
        assert!(
            (f.mean_queue_depth - 17.0 / 9.0).abs() < 0.01,
            "{}",
            f.mean_queue_depth
        );
        let at2 = f.queue_depth.iter().find(|d| d.depth == 2).unwrap();
        assert!((at2.share - 8.0 / 9.0).abs() < 0.01, "{:?}", f.queue_depth);
        assert_eq!(f.busy_ns, 200 * 900_000);
        assert_eq!(f.think.gaps, 199);
        assert!((f.classes[0].queue_depth_mean - 1.5).abs() < 0.01);
    }

    #[test]
    fn sizes_fall_in_power_of_two_classes_and_flushes_count_apart() {
        assert_eq!(size_class(512), 4096);
        assert_eq!(size_class(4096), 4096);
        assert_eq!(size_class(4097), 8192);
        assert_eq!(size_class(1 << 20), 1 << 20);
        let mut w = req(0, 12 * 1024, Op::Write, 0, 50);
        w.sync = true;
        let rs = vec![
            w,
            req(0, 0, Op::Flush, 60, 70),
            req(5000, 64 * 1024, Op::Discard, 80, 90),
        ];
        let f = reduce(rs, 100);
        assert_eq!(
            (f.requests, f.flushes, f.discards, f.sync_requests),
            (3, 1, 1, 1)
        );
        assert_eq!(f.classes.len(), 1);
        assert_eq!(f.classes[0].size_max_bytes, 16 * 1024);
        assert_eq!(f.classes[0].direction, IoDirection::Write);
    }

    #[test]
    fn the_timeline_stays_short_and_memory_waits_only_for_the_window() {
        // 200 000 requests over 100 s at depth 4.
        let mut red = Reducer::new();
        let mut max_waiting = 0;
        for i in 0..200_000u64 {
            let t = i * 500_000;
            red.push(&req(i * 8, K4, Op::Write, t, t + 2_000_000));
            max_waiting = max_waiting.max(red.waiting());
        }
        // The window is 200 ms: some 400 requests at 2000 per second.
        assert!(max_waiting < 1000, "{max_waiting} requests waiting");
        let f = red.finish(run(100_002_000_000));
        assert!(f.timeline.len() <= MAX_BINS, "{}", f.timeline.len());
        assert!(f.timeline.len() > MAX_BINS / 3, "{}", f.timeline.len());
        let total: u64 = f.timeline.iter().map(|p| p.requests).sum();
        assert_eq!(total, 200_000);
        let bytes: u64 = f.timeline.iter().map(|p| p.write_bytes).sum();
        assert_eq!(bytes, 200_000 * 4096);
        let mid = &f.timeline[f.timeline.len() / 2];
        assert!((mid.queue_depth - 4.0).abs() < 0.01, "{mid:?}");
        assert!((f.mean_queue_depth - 4.0).abs() < 0.01);
        assert_eq!(f.classes[0].pattern, AccessPattern::Sequential);
    }

    #[test]
    fn what_was_dropped_is_said() {
        let mut red = Reducer::new();
        let mut r = req(8, K4, Op::Read, 0, 10);
        r.error = -5;
        red.push(&r);
        let f = red.finish(TracedRun {
            unmatched: 3,
            lost_events: 7,
            ..run(100)
        });
        assert_eq!((f.unmatched, f.lost_events), (3, 7));
        let notes = f.notes.join("\n");
        assert!(notes.contains("dropped 7 trace events"), "{notes}");
        assert!(notes.contains("3 requests were seen only half"), "{notes}");
        assert!(
            notes.contains("1 requests completed with an error"),
            "{notes}"
        );
    }
}
