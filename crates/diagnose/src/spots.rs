//! What the experiments met on the way: commands that failed and reads that were slow, gathered by place into
//! the record's [`Spots`].
//!
//! Reads are judged in the streams over the region (the warm-up, throttle and link experiments); the read cache's
//! working sets end where a cache does, every time, and the queueing experiment reads at random. A read is slow
//! when it took at least [`SLOW_NS`] longer than the median read of its run so far (a queue of
//! commands ahead of it is in every read's time alike). Only reads that continue the one issued before are judged, and
//! none issued before a jump's read completed: their time holds the move (a run's start, a stream's wrap to the
//! start of its region: a seek, the queue filling), and every run and pass starts at the same place. Random reads
//! are so never judged: a position reordering queue keeps some of them waiting far longer than the rest on any
//! disk, and one place is seldom read twice. A busy host delays a command once, anywhere; a slow spot delays every
//! read of it. So once a read was slow, every later read of its place is counted, and the place is listed only
//! when at least two reads of it were slow and most of those counted were ([`SLOW_SHARE`]).

use drivescope_core::engine::{Cmd, Completion};
use drivescope_core::scan::ScanRecord;
use drivescope_record::{BadSpot, BadSpotKind, Experiment, ExperimentSpots, Spots, SPOT_LIST_CAP};
use drivescope_stats::Histogram;
use std::collections::BTreeMap;

/// How much longer than its run's median read a slow read took at least (the scan's `--slow` default).
pub const SLOW_NS: u64 = 50_000_000;
/// The most commands kept per kind; more are counted, not placed.
const MAX_KEPT: usize = 4096;
/// Reads of a run whose time makes its median before any is judged.
const MEDIAN_AFTER: u64 = 16;
/// The share of a place's reads (from its first slow one on) that must be slow for it to be listed.
pub const SLOW_SHARE: f64 = 0.75;
/// The longest command an experiment issues (a place is looked for this far back).
const MAX_CMD: u64 = 64 << 20;
/// Places of one kind this close together are listed as one (random reads meet a bad area in many small
/// places).
const MERGE_GAP: u64 = 1 << 20;

#[derive(Debug, Clone)]
struct Place {
    len: u64,
    commands: u64,
    errno: Option<i32>,
    max_latency_ns: u64,
    /// Bit `i`: `Experiment::ALL[i]` met it.
    experiments: u16,
    /// Reads of it since its first slow one, that one included (slow places): every slow one, and those that
    /// read the bytes every slow one read (`core`) and were not slow.
    reads: u64,
    core: (u64, u64),
}

impl Place {
    /// Listed: a failed place always, a slow one when read slow at least twice and mostly.
    fn listed(&self) -> bool {
        self.errno.is_some()
            || (self.commands >= 2 && self.commands as f64 >= SLOW_SHARE * self.reads as f64)
    }
}

fn bit(e: Experiment) -> u16 {
    1 << Experiment::ALL.iter().position(|x| *x == e).unwrap_or(0)
}

/// The gathering, over every run of a diagnosis.
#[derive(Debug)]
pub(crate) struct Seen {
    failed: BTreeMap<u64, Place>,
    slow: BTreeMap<u64, Place>,
    failed_commands: u64,
    slow_commands: u64,
    by: Vec<ExperimentSpots>,
    /// The run going on: its experiment, whether its reads are judged, their latencies.
    experiment: Experiment,
    judge: bool,
    hist: Histogram,
    /// Where the last completed read ended, and when the last read that did not continue the one before it (a
    /// jump: a run's start, a stream's wrap to the start of its region) completed: neither it nor the reads
    /// issued before it completed are judged, their time holds the move (a seek, the queue filling).
    last_end: Option<u64>,
    restart_ns: u64,
    /// A read issued at a jump, until it completes.
    jump: Option<u64>,
    /// Failures the lost-device rule has not yet decided on: (experiment, offset, length, errno, latency).
    pending: Vec<(Experiment, u64, u64, i32, u64)>,
    /// Failures that were part of the device going away.
    pub gone: u64,
}

impl Default for Seen {
    fn default() -> Self {
        Seen {
            failed: BTreeMap::new(),
            slow: BTreeMap::new(),
            failed_commands: 0,
            slow_commands: 0,
            by: Vec::new(),
            experiment: Experiment::WarmUp,
            judge: false,
            hist: Histogram::new(),
            last_end: None,
            restart_ns: 0,
            jump: None,
            pending: Vec::new(),
            gone: 0,
        }
    }
}

impl Seen {
    /// What a stopped diagnosis saw before, kept as places already seen.
    pub fn continuing(prior: Option<&Spots>) -> Seen {
        let mut s = Seen::default();
        let Some(p) = prior else { return s };
        s.failed_commands = p.failed_commands;
        s.slow_commands = p.slow_commands;
        s.by = p.experiments.clone();
        for spot in &p.places {
            let place = Place {
                len: spot.length,
                commands: spot.commands,
                errno: spot.errno,
                max_latency_ns: spot.max_latency_ns,
                experiments: spot.experiments.iter().fold(0, |b, e| b | bit(*e)),
                reads: spot.commands,
                core: (spot.offset, spot.offset + spot.length),
            };
            match spot.kind {
                BadSpotKind::Failed => s.failed.insert(spot.offset, place),
                BadSpotKind::Slow => s.slow.insert(spot.offset, place),
            };
        }
        s
    }

    /// The runs of `experiment` come next.
    pub fn begin(&mut self, experiment: Experiment) {
        self.experiment = experiment;
    }

    /// A run starts; its reads are judged slow or not when `judge`, and only in the experiments that stream over
    /// the region (the read cache's working sets end where a cache does, every time: no place of the medium).
    pub fn start_run(&mut self, judge: bool) {
        self.judge = judge
            && matches!(
                self.experiment,
                Experiment::WarmUp | Experiment::Throttle | Experiment::Link
            );
        self.hist.clear();
        self.last_end = None;
        self.restart_ns = 0;
        self.jump = None;
    }

    /// A command is issued: a read that does not continue the one issued before it is a jump.
    pub fn issued(&mut self, c: &Cmd) {
        if c.write {
            return;
        }
        if self.last_end != Some(c.offset) {
            self.jump = Some(c.offset);
        }
        self.last_end = Some(c.offset + u64::from(c.len));
    }

    fn tally(&mut self) -> &mut ExperimentSpots {
        let e = self.experiment;
        if let Some(i) = self.by.iter().position(|x| x.experiment == e) {
            return &mut self.by[i];
        }
        self.by.push(ExperimentSpots {
            experiment: e,
            failed_commands: 0,
            failed_bytes: 0,
            slow_commands: 0,
        });
        self.by.last_mut().expect("just pushed")
    }

    /// A command of the run completed (not a probe of the lost-device rule).
    pub fn command(&mut self, c: &Completion) {
        let lat = c.latency_ns();
        match c.result {
            Err(errno) if self.pending.len() < MAX_KEPT => self.pending.push((
                self.experiment,
                c.cmd.offset,
                u64::from(c.cmd.len),
                errno,
                lat,
            )),
            Err(errno) => self.failed(c.cmd.offset, u64::from(c.cmd.len), errno, lat),
            Ok(_) if self.judge && !c.cmd.write => {
                if self.jump == Some(c.cmd.offset) {
                    self.jump = None;
                    self.restart_ns = c.done_ns;
                    return;
                }
                if self.jump.is_some() || c.issue_ns < self.restart_ns {
                    return;
                }
                // The median is of the reads judged (the queue filled), once there are a few.
                self.hist.record(lat);
                if self.hist.count() < MEDIAN_AFTER {
                    return;
                }
                // The median is read only for a read that may be slow (rarely).
                let slow = lat >= SLOW_NS && lat >= self.hist.quantile(0.5).saturating_add(SLOW_NS);
                self.read(c.cmd.offset, u64::from(c.cmd.len), lat, slow);
            }
            Ok(_) => {}
        }
    }

    /// The lost-device rule decided on the failures so far: bad spots, or (`gone`) the device going away.
    pub fn settle(&mut self, gone: bool) {
        if self.pending.is_empty() {
            return;
        }
        let now = self.experiment;
        for (e, offset, len, errno, lat) in std::mem::take(&mut self.pending) {
            if gone {
                self.gone += 1;
            } else {
                self.experiment = e;
                self.failed(offset, len, errno, lat);
            }
        }
        self.experiment = now;
    }

    fn failed(&mut self, offset: u64, len: u64, errno: i32, lat: u64) {
        self.failed_commands += 1;
        let t = self.tally();
        t.failed_commands += 1;
        t.failed_bytes += len;
        self.failed_place(offset, len, errno, lat);
    }

    fn failed_place(&mut self, offset: u64, len: u64, errno: i32, lat: u64) {
        let e = bit(self.experiment);
        // A failure at most `MERGE_GAP` past a place joins it: memory stays bounded however many small reads
        // meet a bad area.
        if let Some((&k, p)) = self.failed.range_mut(..=offset).next_back() {
            if offset <= k + p.len + MERGE_GAP {
                p.len = p.len.max(offset + len - k);
                p.commands += 1;
                p.max_latency_ns = p.max_latency_ns.max(lat);
                p.experiments |= e;
                return;
            }
        }
        if self.failed.len() >= MAX_KEPT {
            return;
        }
        let p = self.failed.entry(offset).or_insert(Place {
            len,
            commands: 0,
            errno: Some(errno),
            max_latency_ns: 0,
            experiments: 0,
            reads: 0,
            core: (offset, offset + len),
        });
        p.len = p.len.max(len);
        p.commands += 1;
        p.max_latency_ns = p.max_latency_ns.max(lat);
        p.experiments |= e;
    }

    /// A judged read of `[offset, offset + len)` that read fine, slow or not: counted at every slow place it
    /// touches; a slow one that touches none starts a place.
    fn read(&mut self, offset: u64, len: u64, lat: u64, slow: bool) {
        if !slow && self.slow.is_empty() {
            return;
        }
        let e = bit(self.experiment);
        let mut met = false;
        for (k, p) in self
            .slow
            .range_mut(offset.saturating_sub(MAX_CMD)..offset + len.max(1))
        {
            if k + p.len <= offset {
                continue;
            }
            met = true;
            if slow {
                p.reads += 1;
                p.commands += 1;
                p.max_latency_ns = p.max_latency_ns.max(lat);
                p.experiments |= e;
                let core = (p.core.0.max(offset), p.core.1.min(offset + len));
                if core.0 < core.1 {
                    p.core = core;
                }
            } else if offset <= p.core.0 && p.core.1 <= offset + len {
                p.reads += 1;
            }
        }
        if !slow {
            return;
        }
        self.slow_commands += 1;
        self.tally().slow_commands += 1;
        if met || self.slow.len() >= MAX_KEPT {
            return;
        }
        self.slow.insert(
            offset,
            Place {
                len,
                commands: 1,
                errno: None,
                max_latency_ns: lat,
                experiments: e,
                reads: 1,
                core: (offset, offset + len),
            },
        );
    }

    /// What a scan run inside an experiment (the zones' quick scan) met: its failed sectors and its slow reads
    /// (one command at a time: their latency is their own).
    pub fn scan(&mut self, experiment: Experiment, s: &ScanRecord) {
        self.begin(experiment);
        self.start_run(false);
        let sector = s.header.target.logical_block_size.max(1) as u64;
        if s.failed_commands > 0 {
            self.failed_commands += s.failed_commands;
            let t = self.tally();
            t.failed_commands += s.failed_commands;
            t.failed_bytes += s.failed_commands * s.block_size;
        }
        for f in &s.failed {
            self.failed_place(f.offset, sector, f.errno.unwrap_or(libc::EIO), f.latency_ns);
        }
        for w in &s.slow {
            self.read(w.offset, s.block_size, w.latency_ns, true);
        }
    }

    /// The record's account, or None when nothing failed and nothing was slow.
    pub fn spots(&self) -> Option<Spots> {
        if self.failed_commands == 0 && self.slow_commands == 0 {
            return None;
        }
        let mut places = merged(&self.failed, BadSpotKind::Failed);
        places.extend(merged(&self.slow, BadSpotKind::Slow));
        places.sort_by_key(|p| (p.offset, p.kind == BadSpotKind::Slow));
        let more = places.len().saturating_sub(SPOT_LIST_CAP) as u64;
        places.truncate(SPOT_LIST_CAP);
        Some(Spots {
            failed_commands: self.failed_commands,
            slow_commands: self.slow_commands,
            slow_ns: SLOW_NS,
            places,
            places_more: more,
            experiments: self.by.clone(),
        })
    }
}

/// The places of one kind merged where they overlap or touch (slow ones only where read slow more than once).
fn merged(map: &BTreeMap<u64, Place>, kind: BadSpotKind) -> Vec<BadSpot> {
    let mut out: Vec<(BadSpot, u16)> = Vec::new();
    for (&offset, p) in map.iter().filter(|(_, p)| p.listed()) {
        match out.last_mut() {
            Some((s, bits)) if offset <= s.offset + s.length + MERGE_GAP => {
                s.length = s.length.max(offset + p.len - s.offset);
                s.commands += p.commands;
                s.max_latency_ns = s.max_latency_ns.max(p.max_latency_ns);
                *bits |= p.experiments;
            }
            _ => out.push((
                BadSpot {
                    kind,
                    offset,
                    length: p.len,
                    commands: p.commands,
                    max_latency_ns: p.max_latency_ns,
                    errno: p.errno,
                    experiments: Vec::new(),
                },
                p.experiments,
            )),
        }
    }
    out.into_iter()
        .map(|(mut s, bits)| {
            s.experiments = Experiment::ALL
                .iter()
                .enumerate()
                .filter(|(i, _)| bits & (1 << i) != 0)
                .map(|(_, e)| *e)
                .collect();
            s
        })
        .collect()
}
