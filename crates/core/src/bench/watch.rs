//! What a live view of a bench, sweep or soak reads while the run goes on: per worker thread
//! one lane of relaxed atomics (bytes, commands, failed, response-time bands, the latency
//! histogram) that only its worker writes, ten times a second and when its run ends, from the
//! counts it keeps anyway; and a line saying what runs now. A reader on another thread adds
//! the lanes up when it redraws. Nothing is locked or shared on a command's path.

use crate::scan::live::BANDS;
use drivescope_stats::{AtomicHistogram, Histogram, BAND_LIMITS_NS};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One worker's counters, as the worker last published them.
#[derive(Debug, Default)]
pub struct Lane {
    bytes: AtomicU64,
    commands: AtomicU64,
    failed: AtomicU64,
    bands: [AtomicU64; BANDS],
    /// Latencies of the test that runs now (cleared when the next one begins).
    hist: AtomicHistogram,
}

/// A worker's own count of its current run, published to its lane now and then: per
/// command it costs a band's increment and a clock comparison, not a store per counter.
#[derive(Debug)]
pub struct LaneWriter {
    lane: Arc<Lane>,
    /// The lane's bytes, commands and failures before this run.
    base: [u64; 3],
    bands: [u64; BANDS],
    next_ns: u64,
}

/// How often a worker publishes: a view redraws four times a second.
const PUBLISH_NS: u64 = 100_000_000;

impl LaneWriter {
    pub fn new(lane: Arc<Lane>) -> LaneWriter {
        let base = [
            lane.bytes.load(Relaxed),
            lane.commands.load(Relaxed),
            lane.failed.load(Relaxed),
        ];
        LaneWriter {
            lane,
            base,
            bands: [0; BANDS],
            next_ns: 0,
        }
    }

    /// A command completed in `latency_ns` (`ok`: it moved its bytes).
    #[inline]
    pub fn command(&mut self, ok: bool, latency_ns: u64) {
        let band = if ok {
            BAND_LIMITS_NS
                .iter()
                .position(|&l| latency_ns < l)
                .unwrap_or(BAND_LIMITS_NS.len())
        } else {
            BANDS - 1
        };
        self.bands[band] += 1;
    }

    /// Whether it is time to publish, at `now_ns` of the run's clock.
    #[inline]
    pub fn due(&mut self, now_ns: u64) -> bool {
        if now_ns < self.next_ns {
            return false;
        }
        self.next_ns = now_ns.saturating_add(PUBLISH_NS);
        true
    }

    /// Publish the run's totals so far and its latency histogram.
    pub fn publish(&self, bytes: u64, commands: u64, failed: u64, hist: &Histogram) {
        let l = &self.lane;
        l.bytes.store(self.base[0] + bytes, Relaxed);
        l.commands.store(self.base[1] + commands, Relaxed);
        l.failed.store(self.base[2] + failed, Relaxed);
        for (a, &n) in l.bands.iter().zip(&self.bands) {
            a.store(n, Relaxed);
        }
        l.hist.set_from(hist);
    }
}

/// What runs now, as the run says it.
#[derive(Debug, Clone)]
pub struct Phase {
    /// The test (`RND4K Q32T1 read`), a sweep's cell, a diagnosis' experiment.
    pub what: String,
    /// Where it stands among its like (`run 2 of 5`, `preparing`), when it says.
    pub step: String,
    pub since: Instant,
    /// How many phases have begun: a view sees a new one even when its text repeats.
    pub number: u64,
}

/// The live counters of one run of workers, and its phase.
#[derive(Debug)]
pub struct Watch {
    lanes: Mutex<Vec<Arc<Lane>>>,
    phase: Mutex<Phase>,
}

impl Default for Watch {
    fn default() -> Self {
        Watch {
            lanes: Mutex::new(Vec::new()),
            phase: Mutex::new(Phase {
                what: String::new(),
                step: String::new(),
                since: Instant::now(),
                number: 0,
            }),
        }
    }
}

/// The counters added up at one moment.
#[derive(Debug, Clone)]
pub struct WatchSnap {
    /// Since the watch began (all phases).
    pub bytes: u64,
    pub commands: u64,
    pub failed: u64,
    /// The phase that runs now: its bands (the last is failed) and latencies.
    pub bands: [u64; BANDS],
    pub hist: Histogram,
    pub phase: Phase,
}

impl Watch {
    /// A watch that lives as long as the process: a run's options carry it by reference and
    /// stay `Copy`, and a process watches one run.
    pub fn leaked() -> &'static Watch {
        Box::leak(Box::default())
    }

    /// The lane of worker `i`, made when first asked for.
    pub fn lane(&self, i: usize) -> Arc<Lane> {
        let mut lanes = self.lanes.lock().expect("watch lanes");
        while lanes.len() <= i {
            lanes.push(Arc::default());
        }
        lanes[i].clone()
    }

    /// A new phase begins: its bands and latencies start from nothing (no worker runs between
    /// two phases). `step` stays as last set.
    pub fn begin(&self, what: String) {
        for l in self.lanes.lock().expect("watch lanes").iter() {
            for b in &l.bands {
                b.store(0, Relaxed);
            }
            l.hist.clear();
        }
        let mut p = self.phase.lock().expect("watch phase");
        p.what = what;
        p.since = Instant::now();
        p.number += 1;
    }

    /// Where the phase stands among its like.
    pub fn step(&self, step: String) {
        self.phase.lock().expect("watch phase").step = step;
    }

    pub fn snapshot(&self) -> WatchSnap {
        let mut s = WatchSnap {
            bytes: 0,
            commands: 0,
            failed: 0,
            bands: [0; BANDS],
            hist: Histogram::new(),
            phase: self.phase.lock().expect("watch phase").clone(),
        };
        for l in self.lanes.lock().expect("watch lanes").iter() {
            s.bytes += l.bytes.load(Relaxed);
            s.commands += l.commands.load(Relaxed);
            s.failed += l.failed.load(Relaxed);
            for (a, b) in s.bands.iter_mut().zip(&l.bands) {
                *a += b.load(Relaxed);
            }
            l.hist.add_to(&mut s.hist);
        }
        s
    }
}
