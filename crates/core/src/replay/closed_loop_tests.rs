//! The replay's rule on a virtual clock: a program that keeps `depth` requests in flight on a disk with
//! random service times is traced, and its trace replayed on the same kind of disk (fresh draws) by a
//! loop that issues each step when [`State::due`](super::uring::State::due) says, paying its own
//! reaction time as the traced program did. The replay's I/O time must come out as the trace's.

use super::schedule::{build, Mapping, Schedule};
use super::summary::busy;
use super::uring::State;
use drivescope_trace::{Op, Request};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        // splitmix64 of the seed: neighbouring seeds give unrelated streams
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng((z ^ (z >> 31)) | 1)
    }

    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// A disk whose commands overlap freely: each takes `base` plus an exponential spread of mean `spread`.
#[derive(Clone, Copy, Debug)]
struct Disk {
    base: f64,
    spread: f64,
}

impl Disk {
    fn service(&self, rng: &mut Rng) -> u64 {
        (self.base - self.spread * (1.0 - rng.unit()).ln()) as u64
    }
}

/// The trace of a program that keeps `depth` requests in flight and, one completion at a time,
/// issues the next request `react` ns after it sees a completion (a single thread: a completion that
/// arrives while it issues waits for it).
fn trace(n: usize, depth: usize, disk: Disk, react: u64, rng: &mut Rng) -> Vec<Request> {
    let mut out: Vec<Request> = Vec::with_capacity(n);
    let mut flight = BinaryHeap::new();
    let mut app = 0u64;
    let issue = |at: u64, out: &mut Vec<Request>, flight: &mut BinaryHeap<_>, rng: &mut Rng| {
        let done = at + disk.service(rng);
        flight.push(Reverse((done, out.len())));
        out.push(Request {
            dev: 1,
            sector: out.len() as u64 * 8,
            bytes: 4096,
            op: Op::Read,
            sync: false,
            issue_ns: at,
            complete_ns: done,
            error: 0,
        });
    };
    for _ in 0..depth.min(n) {
        app += react;
        issue(app, &mut out, &mut flight, rng);
    }
    while let Some(Reverse((done, _))) = flight.pop() {
        if out.len() < n {
            app = app.max(done) + react;
            issue(app, &mut out, &mut flight, rng);
        }
    }
    out
}

/// The replay of `s` on `disk` by a single-threaded loop that takes `react` ns to issue a due step,
/// with at most `depth` in flight: (issue, completion) of every step.
fn replay(s: &Schedule, depth: usize, disk: Disk, react: u64, rng: &mut Rng) -> Vec<(u64, u64)> {
    let n = s.steps.len();
    let mut st = State::new(n);
    let mut flight: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut times = vec![(0u64, 0u64); n];
    let (mut next, mut last) = (0usize, 0u64);
    while next < n || !flight.is_empty() {
        let at = (next < n && flight.len() < depth)
            .then(|| st.due(s, next, false))
            .flatten()
            .map(|due| due.max(last) + react);
        match (at, flight.peek()) {
            (Some(t), top) if top.is_none_or(|Reverse((c, _))| *c > t) => {
                st.issued(t);
                let done = t + disk.service(rng);
                times[next] = (t, done);
                flight.push(Reverse((done, next)));
                (next, last) = (next + 1, t);
            }
            _ => {
                let Reverse((c, i)) = flight.pop().expect("something in flight");
                st.finish(i, c);
            }
        }
    }
    times
}

const M: Mapping = Mapping {
    size: 1 << 40,
    block: 512,
    wrap: false,
    writable: false,
};

/// Replayed over traced I/O time for one drawn disk, program and depth.
fn ratio(seed: u64, depth: usize) -> (f64, Disk, u64) {
    let mut rng = Rng::new(seed);
    // 10 µs (a RAM-backed loop device) to 2 ms (a disk's seek), evenly on a log scale
    let base = 10e3 * 200f64.powf(rng.unit());
    let disk = Disk {
        base,
        spread: base * rng.range(0.05, 1.5),
    };
    let react = rng.range(2e3, 40e3) as u64; // a program's wake-up and submitting call
    let reqs = trace(3000, depth, disk, react, &mut rng);
    let traced = busy(sorted(reqs.iter().map(|r| (r.issue_ns, r.complete_ns))));
    let s = build(&reqs, &M);
    let times = replay(&s, super::max_depth(&reqs), disk, react, &mut rng);
    let replayed = busy(sorted(times.into_iter()));
    (replayed as f64 / traced as f64, disk, react)
}

fn sorted(v: impl Iterator<Item = (u64, u64)>) -> std::vec::IntoIter<(u64, u64)> {
    let mut v: Vec<_> = v.collect();
    v.sort_unstable();
    v.into_iter()
}

#[test]
fn a_replay_on_the_same_kind_of_disk_takes_the_traced_io_time_at_every_depth() {
    for depth in [1, 2, 8, 32] {
        for seed in 1..=12u64 {
            let (r, disk, react) = ratio(seed * 7919 + depth as u64, depth);
            assert!(
                (r - 1.0).abs() <= 0.10,
                "QD{depth}, {disk:?}, reaction {react} ns: replayed / traced I/O time {r:.3}"
            );
        }
    }
}
