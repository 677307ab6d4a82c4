//! When each command completes: the model's service time laid on virtual clocks.
//!
//! Service time of one command = overhead + positioning (seek + rotation, only when not
//! sequential and not a cache hit) + slow-spot latency + transfer (bytes / rate at that position,
//! or the cache's rate on a hit), never faster than the interface cap allows.
//!
//! Commands are laid on *virtual clocks* in nanoseconds since the device started, not on the
//! wall clock of the moment they were served, so sleep jitter never accumulates: a serial device
//! has one slot (its head); a parallel one has `depth` slots that overlap their per-command
//! overhead but share one media clock (positioning, slow-spot retries and transfer: the head) and
//! one bus clock (the interface). A parallel device with a seek (a disk with NCQ) also reorders:
//! commands wait in its queue ([`Timeline::submit`]) and, whenever the media comes free, it
//! serves the one with the shortest positioning time from the head ([`pick_next`],
//! [`Timeline::advance`]); any other device decides each command at once, in arrival order
//! ([`Timeline::schedule`]).
//! A sequential command that arrives within `lookahead` of the previous command's completion
//! starts at that completion, as if there had been no gap: this hides the emulator's own
//! FUSE + loop round trip (and short stalls of the kernel's loop worker) from sequential
//! throughput. A command that arrives later starts when it arrives.
//!
//! A device on a shared [`Bus`] also carries every transfer over it: the command completes no
//! earlier than its bytes have crossed the bus, which other devices' transfers may hold.

use crate::bus::Bus;
use crate::cache::{ReadLru, WriteBack};
use crate::model::{Model, QueueMode, ZoneLayout};
use crate::smr::MediaCache;

/// Direction of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
}

/// What the device does with one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Completion time, ns since the device's epoch.
    pub done_ns: u64,
    /// `Some(EIO)` when the command fails.
    pub errno: Option<i32>,
    /// Served from a cache.
    pub cache_hit: bool,
}

/// Nanoseconds to move `len` bytes at `mb_s` MB/s (10^6 B/s).
pub fn xfer_ns(len: u64, mb_s: f64) -> f64 {
    len as f64 * 1e3 / mb_s
}

/// A command the device has decided: its ticket from [`Timeline::submit`], when it arrived,
/// and what happens to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decided {
    pub id: u64,
    pub arrival: u64,
    pub outcome: Outcome,
}

/// How many times a reordering device lets nearer commands pass a waiting one: after that it
/// is served next (real drives age their queues likewise, so no command starves). Counted in
/// choices, not time, so a slow disk is not pushed back into arrival order.
pub const MAX_PASS_OVER: u32 = 64;

/// Which waiting command a reordering device serves next. `candidates` holds, in arrival
/// order, each command's positioning time from the head's position and how often it has been
/// passed over. The shortest positioning time wins (the earlier arrival on a tie), unless a
/// command has been passed over [`MAX_PASS_OVER`] times: then the oldest such goes first.
pub fn pick_next(candidates: &[(u64, u32)]) -> Option<usize> {
    if let Some(i) = candidates.iter().position(|c| c.1 >= MAX_PASS_OVER) {
        return Some(i);
    }
    candidates
        .iter()
        .enumerate()
        .min_by_key(|(i, c)| (c.0, *i))
        .map(|(i, _)| i)
}

/// The bad spot a command touches, if it fails there.
fn failing_spot(model: &Model, op: Op, offset: u64, len: u64) -> Option<&crate::model::BadSpot> {
    model.bad.iter().find(|b| {
        overlaps(offset, len, b.offset, b.length)
            && ((op == Op::Read && b.read) || (op == Op::Write && b.write))
    })
}

/// The error a command fails with (a bad spot), known from its position alone.
pub fn fails(model: &Model, op: Op, offset: u64, len: u64) -> Option<i32> {
    failing_spot(model, op, offset, len).map(|_| libc::EIO)
}

#[derive(Debug, Clone, Copy)]
struct Waiting {
    id: u64,
    op: Op,
    offset: u64,
    len: u64,
    arrival: u64,
    /// Choices of another command while this one was eligible.
    passed: u32,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    free_at: u64,
    next_offset: u64,
}

/// The device's state in virtual time.
#[derive(Debug, Clone)]
pub struct Timeline {
    model: Model,
    layout: ZoneLayout,
    slots: Vec<Slot>,
    media_free: u64,
    bus_free: u64,
    head: u64,
    rng: u64,
    epoch: Option<u64>,
    rcache: Option<ReadLru>,
    wcache: Option<WriteBack>,
    /// A drive-managed SMR disk's media cache.
    mcache: Option<MediaCache>,
    /// A DM-SMR disk's write streams: where its recent streamed writes ended, and how many
    /// writes each stream has had. A write a little ahead of an established stream (two writes or
    /// more: its queue took a later command first) still streams.
    smr_streams: std::collections::VecDeque<(u64, u32)>,
    /// Commands submitted and not yet decided, in arrival order.
    waiting: Vec<Waiting>,
    next_id: u64,
    /// Reordering device: where its recent commands ended and when they finished (streams
    /// it continues without positioning, as the slots do for [`Timeline::schedule`]).
    ends: std::collections::VecDeque<(u64, u64)>,
    /// The shared bus the device's transfers cross, if any; its clocks then count from the
    /// bus's epoch.
    bus: Option<std::sync::Arc<Bus>>,
    /// When this device's last transfer on the shared bus ended.
    bus_end: u64,
    /// Commands that other devices' transfers on the shared bus held up.
    bus_waits: u64,
    /// The media's heat, for a model that throttles.
    heat: crate::throttle::Heat,
    /// A flash drive's translation layer (a model with a `flash` section).
    flash: Option<crate::flash_served::FlashDrive>,
}

/// Recent write streams a DM-SMR disk follows.
const SMR_STREAMS: usize = 8;
/// How many commands ahead of a stream's end a write may land and still stream.
const SMR_STREAM_SKIP: u64 = 4;

/// Media time (ns) to transfer `[offset, offset + len)` at the model's zone rates.
pub fn media_ns(model: &Model, layout: &ZoneLayout, offset: u64, len: u64) -> f64 {
    let size = model.size;
    match layout {
        ZoneLayout::Steps(rates) => {
            let n = rates.len();
            let mut t = 0.0;
            let mut pos = offset;
            let end = offset + len;
            while pos < end {
                let z = crate::model::zone_index(n, size, pos.min(size - 1));
                let zone_end = if z + 1 == n {
                    u64::MAX
                } else {
                    crate::model::zone_start(n, size, z + 1)
                };
                let chunk_end = end.min(zone_end);
                t += xfer_ns(chunk_end - pos, rates[z]);
                pos = chunk_end;
            }
            t
        }
        ZoneLayout::Linear { outer, inner } => {
            // rate(x) = outer + k x; time = ∫ dx / rate(x) = ln(rate(b)/rate(a)) / k.
            let k = (inner - outer) / size as f64;
            let a = outer + k * offset as f64;
            let b = outer + k * (offset + len) as f64;
            if (b - a).abs() < 1e-9 * a {
                xfer_ns(len, a)
            } else {
                (b / a).ln() / k * 1e3
            }
        }
    }
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn overlaps(a_off: u64, a_len: u64, b_off: u64, b_len: u64) -> bool {
    a_off < b_off + b_len && b_off < a_off + a_len
}

impl Timeline {
    /// The model the device follows.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// A fresh device: idle, caches empty, head at offset 0.
    pub fn new(model: &Model) -> Self {
        let depth = match model.queue.mode {
            QueueMode::Serial => 1,
            QueueMode::Parallel => model.queue.depth as usize,
        };
        Timeline {
            layout: model.zone_layout().expect("validated model"),
            slots: vec![
                Slot {
                    free_at: 0,
                    next_offset: u64::MAX,
                };
                depth
            ],
            media_free: 0,
            bus_free: 0,
            head: 0,
            rng: model.seed,
            epoch: None,
            rcache: model.read_cache.as_ref().map(|c| ReadLru::new(c.size)),
            wcache: model.write_cache.as_ref().map(|c| WriteBack::new(c.size)),
            mcache: model.smr.as_ref().map(|_| MediaCache::default()),
            smr_streams: std::collections::VecDeque::new(),
            waiting: Vec::new(),
            next_id: 0,
            ends: std::collections::VecDeque::new(),
            bus: None,
            bus_end: 0,
            bus_waits: 0,
            heat: Default::default(),
            flash: model
                .flash
                .as_ref()
                .map(|f| crate::flash_served::FlashDrive::new(f, model.size, model.seed)),
            model: model.clone(),
        }
    }

    /// A fresh device whose transfers also cross the shared `bus` (its times are then ns since
    /// [`Bus::epoch`]).
    pub fn on_bus(model: &Model, bus: std::sync::Arc<Bus>) -> Self {
        bus.attach(model.lookahead_ns);
        Timeline {
            bus: Some(bus),
            ..Timeline::new(model)
        }
    }

    /// The shared bus, if the device is on one.
    pub fn bus(&self) -> Option<&std::sync::Arc<Bus>> {
        self.bus.as_ref()
    }

    /// Commands that other devices' transfers on the shared bus held up (they completed later
    /// for it).
    pub fn bus_waits(&self) -> u64 {
        self.bus_waits
    }

    /// A flash drive's page counters since it was served (None without a `flash` section).
    pub fn flash_counters(&self) -> Option<crate::flash::Counters> {
        self.flash.as_ref().map(|f| f.counters())
    }

    /// Discard (TRIM) `[offset, offset + len)`: a flash drive unmaps the whole pages inside it.
    pub fn discard(&mut self, offset: u64, len: u64) {
        if let Some(f) = self.flash.as_mut() {
            f.discard(offset, len);
        }
    }

    /// Seek time over `distance` bytes.
    pub fn seek_ns(&self, distance: u64) -> u64 {
        match &self.model.seek {
            Some(s) if distance > 0 => {
                let f = (distance as f64 / self.model.size as f64).min(1.0).sqrt();
                s.min_ns + ((s.max_ns - s.min_ns) as f64 * f) as u64
            }
            _ => 0,
        }
    }

    fn rotation_ns(&mut self) -> u64 {
        match &self.model.rotation {
            Some(r) => {
                let rev = 60e9 / r.rpm;
                let u = (splitmix(&mut self.rng) >> 11) as f64 / (1u64 << 53) as f64;
                (u * rev) as u64
            }
            None => 0,
        }
    }

    fn warm_factor(&self, at: u64) -> f64 {
        match (&self.model.warmup, self.epoch) {
            (Some(w), Some(e)) if at.saturating_sub(e) < w.duration_ns => w.factor,
            _ => 1.0,
        }
    }

    /// The thermal throttle's rate factor for a media transfer starting at `at`.
    fn heat_factor(&mut self, at: u64) -> f64 {
        match &self.model.throttle {
            Some(t) => self.heat.factor_at(t, at),
            None => 1.0,
        }
    }

    /// Media write bandwidth (bytes per ns) at `offset`, used to drain the write cache.
    fn drain_bytes_per_ns(&self, offset: u64, at: u64) -> f64 {
        self.model.media_mb_s(offset) * 1e-3 * self.model.write_rate_factor * self.warm_factor(at)
    }

    /// Lay one command on the clocks at once, in arrival order, and say when it completes.
    /// (A reordering device decides through [`Timeline::submit`] and [`Timeline::advance`].)
    pub fn schedule(&mut self, op: Op, offset: u64, len: u64, arrival: u64) -> Outcome {
        let m = &self.model;
        self.epoch.get_or_insert(arrival);
        // Pick a slot: the one this command continues, when it is idle; else the first free.
        // (A serial device has one slot, so it always continues when the offset matches.)
        let (si, continuing) = match self.slots.iter().position(|s| s.next_offset == offset) {
            Some(i) if self.slots.len() == 1 || self.slots[i].free_at <= arrival => (i, true),
            _ => {
                let i = (0..self.slots.len())
                    .min_by_key(|i| self.slots[*i].free_at)
                    .expect("at least one slot");
                (i, false)
            }
        };
        let slot = self.slots[si];
        // Bridge a short host gap (the emulator's own round trip, a stalled loop worker): the
        // stream goes on as if the command had been there when the previous one finished.
        // After a longer idle time the command starts when it arrives.
        let start =
            if continuing && slot.free_at <= arrival && arrival - slot.free_at <= m.lookahead_ns {
                slot.free_at
            } else {
                slot.free_at.max(arrival)
            };
        let sequential = continuing || offset == self.head;
        let outcome = self.serve(op, offset, len, start, sequential);
        self.slots[si] = Slot {
            free_at: outcome.done_ns,
            next_offset: offset + len,
        };
        outcome
    }

    /// Serve one command that the device starts at `start` (its overhead begins then): it
    /// takes the media when the media is free, positions the head unless `sequential` or
    /// cached, and transfers.
    fn serve(&mut self, op: Op, offset: u64, len: u64, start: u64, sequential: bool) -> Outcome {
        let smr_write = op == Op::Write && self.mcache.is_some();
        let follows = smr_write && !sequential && self.follows_stream(offset, len);
        let sequential = sequential || follows;
        let outcome = self.serve_on_media(op, offset, len, start, sequential);
        if let Some(c) = self.mcache.as_mut() {
            c.busy_until(outcome.done_ns);
        }
        if smr_write && sequential {
            let continued = match self.smr_streams.iter().position(|e| e.0 == offset) {
                Some(i) => self.smr_streams.remove(i).map_or(0, |e| e.1),
                None => 0,
            };
            // A write that follows a stream a little ahead keeps that stream's standing.
            let writes = if follows { 2 } else { continued + 1 };
            self.smr_streams.push_back((offset + len, writes));
            if self.smr_streams.len() > SMR_STREAMS {
                self.smr_streams.pop_front();
            }
        }
        outcome
    }

    /// Whether a write at `offset` lands within a few commands ahead of the end of an established
    /// write stream: the stream's commands were taken a little out of order, as a queue does.
    fn follows_stream(&self, offset: u64, len: u64) -> bool {
        self.smr_streams.iter().any(|&(end, writes)| {
            writes >= 2 && offset >= end && offset - end <= SMR_STREAM_SKIP * len
        })
    }

    fn serve_on_media(
        &mut self,
        op: Op,
        offset: u64,
        len: u64,
        start: u64,
        sequential: bool,
    ) -> Outcome {
        if let (Some(c), Some(s)) = (self.mcache.as_mut(), self.model.smr.as_ref()) {
            c.settle(s, start);
        }
        if let Some(f) = self.flash.as_mut() {
            let page_ns = crate::flash_served::page_program_ns(&self.model, f.page(), offset);
            f.idle(start.saturating_sub(self.media_free), page_ns);
        }
        let m = &self.model;
        let end = offset + len;

        if let Some(bad) = failing_spot(m, op, offset, len) {
            let positioning = if sequential {
                0
            } else {
                self.seek_ns(offset.abs_diff(self.head))
            };
            let done = (start + m.overhead_ns).max(self.media_free) + positioning + bad.latency_ns;
            self.media_free = done;
            self.head = end;
            return Outcome {
                done_ns: done,
                errno: Some(libc::EIO),
                cache_hit: false,
            };
        }

        let read_hit = self.read_hit(op, offset, len);
        let write_cached = op == Op::Write && self.wcache.is_some();
        // A DM-SMR disk takes a write that continues no stream into its media cache.
        let smr_cached = op == Op::Write && !sequential && self.mcache.is_some();
        let write_cached = write_cached || smr_cached;
        let positioning = if read_hit || write_cached || sequential {
            0
        } else {
            self.seek_ns(offset.abs_diff(self.head)) + self.rotation_ns()
        };
        let m = &self.model;
        let slow = m
            .slow
            .iter()
            .filter(|s| overlaps(offset, len, s.offset, s.length))
            .map(|s| s.latency_ns)
            .max()
            .unwrap_or(0);
        // The per-command overhead overlaps between slots; positioning, slow-spot retries and
        // the transfer itself occupy the media (the head), which the slots share.
        let xfer_start = (start + m.overhead_ns).max(self.media_free) + positioning + slow;
        // When the data begin to move (a full write cache first makes room).
        let mut data_start = xfer_start;
        let xfer = if read_hit {
            xfer_ns(len, m.read_cache.as_ref().expect("cache").rate_mb_s) as u64
        } else if smr_cached {
            let s = m.smr.as_ref().expect("smr");
            let stall = self
                .mcache
                .as_mut()
                .expect("cache")
                .write(s, xfer_start, len);
            data_start += stall;
            stall + xfer_ns(len, s.cache_mb_s) as u64
        } else if write_cached {
            let rate = m.write_cache.as_ref().expect("cache").rate_mb_s;
            let drain = self.drain_bytes_per_ns(offset, xfer_start);
            let wait = self
                .wcache
                .as_mut()
                .expect("cache")
                .accept(xfer_start, len, drain);
            data_start += wait;
            wait + xfer_ns(len, rate) as u64
        } else {
            let factor = self.warm_factor(xfer_start)
                * self.heat_factor(xfer_start)
                * if op == Op::Write {
                    self.model.write_rate_factor
                } else {
                    1.0
                };
            match self.flash.as_mut().filter(|_| op == Op::Write) {
                // Every page programmed while the write waits: its own and the collector's copies.
                Some(f) => {
                    let pages = f.write(offset, len);
                    let page = media_ns(&self.model, &self.layout, offset, f.page());
                    let slower = f.slowdown(xfer_start - self.epoch.unwrap_or(xfer_start));
                    (pages as f64 * page * slower / factor) as u64
                }
                None => (media_ns(&self.model, &self.layout, offset, len) / factor) as u64,
            }
        };
        let media_done = xfer_start + xfer;
        if !read_hit && !write_cached {
            if let Some(t) = &self.model.throttle {
                self.heat.work(t, xfer_start, media_done);
            }
        }
        let mut done = match self.model.interface_mb_s {
            Some(cap) => media_done.max(self.bus_free.max(xfer_start) + xfer_ns(len, cap) as u64),
            None => media_done,
        };
        if let Some(bus) = &self.bus {
            let carried = bus.carry(data_start, len, self.bus_end);
            if carried.waited && carried.done_ns > done {
                self.bus_waits += 1;
            }
            self.bus_end = self.bus_end.max(carried.done_ns);
            done = done.max(carried.done_ns);
        }
        self.media_free = media_done;
        self.bus_free = done;
        if !read_hit && !write_cached {
            self.head = end;
        }
        if let Some(c) = self.rcache.as_mut() {
            c.insert(offset, len);
        }
        Outcome {
            done_ns: done,
            errno: None,
            cache_hit: read_hit || write_cached,
        }
    }

    fn read_hit(&self, op: Op, offset: u64, len: u64) -> bool {
        op == Op::Read
            && self
                .rcache
                .as_ref()
                .is_some_and(|c| c.contains(offset, len))
    }

    /// Whether this device reorders its queue: it queues commands (`parallel`) and has a
    /// head to position (a seek).
    pub fn reorders(&self) -> bool {
        self.model.queue.mode == QueueMode::Parallel && self.model.seek.is_some()
    }

    /// A command arrives at `arrival`; returns its ticket. [`Timeline::advance`] says when
    /// it completes: at once on a device that serves in arrival order, when the device
    /// picks it on a reordering one.
    pub fn submit(&mut self, op: Op, offset: u64, len: u64, arrival: u64) -> u64 {
        self.next_id += 1;
        self.epoch.get_or_insert(arrival);
        self.waiting.push(Waiting {
            id: self.next_id,
            op,
            offset,
            len,
            arrival,
            passed: 0,
        });
        self.next_id
    }

    /// Decide every command whose turn has come by `now` (in virtual time: a decision at `t`
    /// sees only the commands that arrived by `t`).
    pub fn advance(&mut self, now: u64) -> Vec<Decided> {
        let mut out = Vec::new();
        if !self.reorders() {
            for w in std::mem::take(&mut self.waiting) {
                let outcome = self.schedule(w.op, w.offset, w.len, w.arrival);
                out.push(Decided {
                    id: w.id,
                    arrival: w.arrival,
                    outcome,
                });
            }
            return out;
        }
        while let Some(t) = self.next_decision() {
            if t > now {
                break;
            }
            let window = self.window();
            let eligible: Vec<usize> = (0..window)
                .filter(|&i| self.start_of(&self.waiting[i]) + self.model.overhead_ns <= t)
                .collect();
            let candidates: Vec<(u64, u32)> = eligible
                .iter()
                .map(|&i| {
                    let w = self.waiting[i];
                    (self.positioning_cost(&w), w.passed)
                })
                .collect();
            let pick = eligible[pick_next(&candidates).expect("one is eligible at t")];
            for &i in &eligible {
                self.waiting[i].passed += 1;
            }
            let w = self.waiting.remove(pick);
            let start = self.start_of(&w);
            let stream = self.ends.iter().position(|e| e.0 == w.offset);
            let sequential = stream.is_some() || w.offset == self.head;
            let outcome = self.serve(w.op, w.offset, w.len, start, sequential);
            if let Some(i) = stream {
                self.ends.remove(i);
            }
            self.ends.push_back((w.offset + w.len, outcome.done_ns));
            if self.ends.len() > self.model.queue.depth as usize {
                self.ends.pop_front();
            }
            out.push(Decided {
                id: w.id,
                arrival: w.arrival,
                outcome,
            });
        }
        out
    }

    /// Virtual time of the next decision of a reordering device, while commands wait.
    pub fn next_decision(&self) -> Option<u64> {
        if !self.reorders() {
            return self.waiting.first().map(|w| w.arrival);
        }
        let ready = self.waiting[..self.window()]
            .iter()
            .map(|w| self.start_of(w) + self.model.overhead_ns)
            .min()?;
        Some(ready.max(self.media_free))
    }

    /// The device holds up to `depth` commands; later ones wait outside in arrival order.
    fn window(&self) -> usize {
        self.waiting.len().min(self.model.queue.depth as usize)
    }

    /// When a waiting command's overhead begins: at its arrival, or, when it continues a
    /// stream whose previous command finished at most `lookahead` before, at that finish
    /// (gap bridging, as in [`Timeline::schedule`]).
    fn start_of(&self, w: &Waiting) -> u64 {
        match self.ends.iter().find(|e| e.0 == w.offset) {
            Some(&(_, done))
                if done <= w.arrival && w.arrival - done <= self.model.lookahead_ns =>
            {
                done
            }
            _ => w.arrival,
        }
    }

    /// What the device knows of a command's positioning time from the head's position: none
    /// when it continues a stream or hits a cache, else the seek. (The model keeps no angular
    /// position, so the rotational latency, drawn when the command is served, is the same
    /// expectation for every candidate.)
    fn positioning_cost(&self, w: &Waiting) -> u64 {
        let continues = w.offset == self.head || self.ends.iter().any(|e| e.0 == w.offset);
        let cached = self.read_hit(w.op, w.offset, w.len)
            || (w.op == Op::Write && (self.wcache.is_some() || self.mcache.is_some()));
        if continues || cached {
            0
        } else {
            self.seek_ns(w.offset.abs_diff(self.head))
        }
    }

    /// A flush arriving at `arrival`: when it completes. An honoured flush waits until the write
    /// cache has drained, a partial one until its share has; an ignored one (and one on a disk
    /// without a write cache) completes at once.
    pub fn flush(&mut self, arrival: u64) -> u64 {
        use crate::model::FlushPolicy;
        let drain = self.drain_bytes_per_ns(self.head.min(self.model.size - 1), arrival);
        let (Some(w), Some(c)) = (self.wcache.as_mut(), self.model.write_cache.as_ref()) else {
            return arrival;
        };
        arrival
            + match c.flush_policy() {
                FlushPolicy::Honoured => w.flush(arrival, drain),
                FlushPolicy::Partial => w.flush_share(arrival, drain, c.flushed_share),
                FlushPolicy::Ignored => {
                    w.settle(arrival, drain);
                    0
                }
            }
    }

    /// Dirty bytes in the write cache at `now` (0 without one): what a power cut then drops.
    pub fn dirty_at(&mut self, now: u64) -> u64 {
        let drain = self.drain_bytes_per_ns(self.head.min(self.model.size - 1), now);
        self.wcache.as_mut().map_or(0, |w| {
            w.settle(now, drain);
            w.dirty()
        })
    }

    /// The power goes at `now`: the write cache's dirty bytes then (see [`Timeline::dirty_at`]);
    /// the cache is empty after it.
    pub fn cut_power(&mut self, now: u64) -> u64 {
        let dirty = self.dirty_at(now);
        if let Some(c) = &self.model.write_cache {
            self.wcache = Some(WriteBack::new(c.size));
        }
        dirty
    }

    /// Dirty bytes in the write cache as of its last update (0 without one).
    pub fn dirty_bytes(&self) -> u64 {
        self.wcache.as_ref().map_or(0, |w| w.dirty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;

    fn model(extra: &str) -> Model {
        let overhead = if extra.contains("overhead") {
            ""
        } else {
            "overhead='10us'"
        };
        let text =
            format!("name='t'\nsize='100M'\nzones={{rates_mb_s=[200, 100]}}\n{overhead}\n{extra}");
        Model::from_toml_str(&text, "test").unwrap()
    }

    /// Drive `n` sequential commands of `bs` back to back at QD1 from `offset`, starting at
    /// `*now` and leaving `*now` at the end; MB/s over that stretch.
    fn qd1_at(t: &mut Timeline, now: &mut u64, offset: u64, bs: u64, n: u64, rtt: u64) -> f64 {
        let begin = *now;
        let mut last = begin;
        for i in 0..n {
            let o = t.schedule(Op::Read, offset + i * bs, bs, *now);
            last = o.done_ns.max(*now);
            *now = last + rtt;
        }
        (n * bs) as f64 * 1e3 / (last - begin) as f64
    }

    fn qd1_rate(t: &mut Timeline, offset: u64, bs: u64, n: u64, rtt: u64) -> f64 {
        qd1_at(t, &mut 1_000_000_000, offset, bs, n, rtt)
    }

    #[test]
    fn media_time_integrates_over_zones() {
        let m = model("");
        let l = m.zone_layout().unwrap();
        let half = 50 << 20;
        // 1 MB at 200 MB/s = 5 ms; 1 MB at 100 MB/s = 10 ms.
        assert!((media_ns(&m, &l, 0, 1_000_000) - 5e6).abs() < 1.0);
        assert!((media_ns(&m, &l, half, 1_000_000) - 10e6).abs() < 1.0);
        let across = media_ns(&m, &l, half - 500_000, 1_000_000);
        assert!((across - 7.5e6).abs() < 1.0, "{across}");
    }

    #[test]
    fn linear_zones_integrate_exactly() {
        let m = Model::from_toml_str(
            "name='l'\nsize='100M'\nzones={linear=true,outer_mb_s=200,inner_mb_s=100}",
            "t",
        )
        .unwrap();
        let l = m.zone_layout().unwrap();
        let whole = media_ns(&m, &l, 0, m.size);
        // ∫ dx / (200 - 100 x/S) = S/100 ln 2 (in µs per byte units: S * 1e3/100 * ln2 ns).
        let expect = m.size as f64 * 1e3 / 100.0 * std::f64::consts::LN_2;
        assert!((whole / expect - 1.0).abs() < 1e-9);
    }

    #[test]
    fn sequential_stream_hides_the_host_round_trip() {
        let m = model("");
        let mut t = Timeline::new(&m);
        let bs = 65536;
        let expect = bs as f64 * 1e3 / (10_000.0 + xfer_ns(bs, 200.0));
        let r = qd1_rate(&mut t, 0, bs, 200, 80_000);
        assert!((r / expect - 1.0).abs() < 0.001, "{r} vs {expect}");
        // A round trip longer than the look-ahead is no longer hidden.
        let mut t = Timeline::new(&m);
        let r = qd1_rate(&mut t, 0, bs, 200, 9_000_000);
        assert!(r < expect * 0.8, "{r}");
    }

    #[test]
    fn random_reads_pay_seek_and_rotation() {
        let m = model("seek={min='1ms',max='10ms'}\nrotation={rpm=6000}");
        let mut t = Timeline::new(&m);
        assert_eq!(t.seek_ns(0), 0);
        assert_eq!(t.seek_ns(m.size), 10_000_000);
        assert_eq!(t.seek_ns(m.size / 4), 5_500_000);
        let mut now = 0;
        let mut total = 0;
        let n = 2000;
        for i in 0..n {
            let off = (i * 7919 % 1000) * (m.size / 1000);
            let o = t.schedule(Op::Read, off, 4096, now);
            total += o.done_ns - now;
            now = o.done_ns + 1;
        }
        let mean = total as f64 / n as f64;
        // overhead 10 µs + seek (>= 1 ms) + half a revolution (5 ms) on average.
        assert!(mean > 6.0e6 && mean < 14.0e6, "{mean}");
    }

    #[test]
    fn serial_gains_nothing_from_queue_depth_parallel_does() {
        let bs = 65536;
        for (extra, gain) in [
            ("overhead='200us'", false),
            ("overhead='200us'\nqueue={mode='parallel',depth=32}", true),
        ] {
            let m = model(extra);
            let mut t = Timeline::new(&m);
            let qd1 = qd1_rate(&mut t, 0, bs, 100, 50_000);
            // QD32: all commands arrive at once.
            let mut t = Timeline::new(&m);
            let start = 1_000_000_000;
            let last = (0..100)
                .map(|i| t.schedule(Op::Read, i * bs, bs, start).done_ns)
                .max()
                .unwrap();
            let qd32 = (100 * bs) as f64 * 1e3 / (last - start) as f64;
            assert_eq!(qd32 > qd1 * 1.5, gain, "{extra}: qd1 {qd1} qd32 {qd32}");
            assert!(qd32 <= 200.0 * 1.001, "media bandwidth is shared: {qd32}");
        }
    }

    #[test]
    fn interface_cap_limits_streaming() {
        let m = model("interface_mb_s=40");
        let mut t = Timeline::new(&m);
        let bs = 65536;
        let r = qd1_rate(&mut t, 0, bs, 100, 0);
        let expect = bs as f64 * 1e3 / (10_000.0 + xfer_ns(bs, 40.0));
        assert!((r / expect - 1.0).abs() < 0.001, "{r} vs {expect}");
    }

    #[test]
    fn slow_and_bad_spots() {
        let m = model(
            "slow=[{offset='1M',length='4K',latency='80ms'}]\nbad=[{offset='2M',latency='5ms'}]",
        );
        let mut t = Timeline::new(&m);
        let o = t.schedule(Op::Read, (1 << 20) - 4096, 65536, 0);
        assert!(o.done_ns >= 80_000_000 && o.errno.is_none());
        let o = t.schedule(Op::Read, 2 << 20, 512, o.done_ns);
        assert_eq!(o.errno, Some(libc::EIO));
        let o2 = t.schedule(Op::Write, 2 << 20, 512, o.done_ns);
        assert_eq!(o2.errno, None, "the spot fails reads only");
    }

    #[test]
    fn read_cache_serves_a_second_pass_fast() {
        let m = model("read_cache={size='4M',rate_mb_s=1000}");
        let mut t = Timeline::new(&m);
        let bs = 65536;
        let now = &mut 0;
        let first = qd1_at(&mut t, now, 0, bs, 32, 0);
        let second = qd1_at(&mut t, now, 0, bs, 32, 0);
        assert!(first < 200.0 && second > 800.0, "{first} {second}");
        // A pass larger than the cache evicts what it needs again (LRU): no hits.
        let big = 128;
        qd1_at(&mut t, now, 0, bs, big, 0);
        let again = qd1_at(&mut t, now, 0, bs, big, 0);
        assert!(again < 200.0, "{again}");
    }

    #[test]
    fn write_cache_fast_until_full_then_media_speed() {
        let m = model("write_cache={size='8M',rate_mb_s=1000}\nwrite_rate_factor=0.5");
        let mut t = Timeline::new(&m);
        let bs = 1 << 20;
        let mut now = 0;
        let mut rates = vec![];
        for i in 0..32u64 {
            let o = t.schedule(Op::Write, i * bs, bs, now);
            rates.push(bs as f64 * 1e3 / (o.done_ns - now) as f64);
            now = o.done_ns;
        }
        assert!(rates[2] > 900.0, "{rates:?}");
        // Full: paced by the drain, 200 MB/s × 0.5 in the outer zone.
        assert!((rates[31] / 100.0 - 1.0).abs() < 0.05, "{rates:?}");
        assert!(t.flush(now) > now);
    }

    #[test]
    fn warmup_halves_the_rate_at_first() {
        let m = model("warmup={factor=0.5,duration='1s'}");
        let mut t = Timeline::new(&m);
        let bs = 65536;
        let cold = qd1_rate(&mut t, 0, bs, 50, 0);
        // Seconds later it runs at full speed (a non-sequential read: no look-ahead credit).
        let o = t.schedule(Op::Read, 80 * bs, bs, 5_000_000_000);
        let warm = bs as f64 * 1e3 / (o.done_ns - 5_000_000_000) as f64;
        assert!(cold < 0.55 * warm && cold > 0.45 * warm, "{cold} {warm}");
    }

    #[test]
    fn an_smr_disk_streams_a_sequential_write_taken_a_little_out_of_order() {
        let m = model("smr={media_cache='8M',cache_mb_s=100,band='1M',stall='100ms',idle_after='1s',drain_mb_s=40}");
        let mb = 1u64 << 20;
        let mut t = Timeline::new(&m);
        // A stream from 0 whose commands arrive 0, 1, 3, 2, 5, 4, 6 (MiB): all go to their bands.
        for (i, at) in [0u64, 1, 3, 2, 5, 4, 6].iter().enumerate() {
            t.schedule(Op::Write, at * mb, mb, i as u64 * 1_000_000);
        }
        assert_eq!(t.mcache.as_ref().unwrap().used(), 0);
        // A random write far from any stream goes to the media cache.
        t.schedule(Op::Write, 50 * mb, 64 << 10, 10_000_000);
        assert_eq!(t.mcache.as_ref().unwrap().used(), 64 << 10);
    }

    #[test]
    fn throttle_slows_sustained_reads_and_a_rest_restores_them() {
        let m = model("throttle={factor=0.5,after='1s',cooling='1s'}");
        let mut t = Timeline::new(&m);
        let bs = 1 << 20;
        let now = &mut 0;
        let cool = qd1_at(&mut t, now, 0, bs, 20, 0);
        // 200 MB/s for well over a second of work: throttled by the end.
        qd1_at(&mut t, now, 0, bs, 300, 0);
        let hot = qd1_at(&mut t, now, 0, bs, 20, 0);
        assert!((hot / cool - 0.5).abs() < 0.03, "{cool} {hot}");
        *now += 1_500_000_000;
        let rested = qd1_at(&mut t, now, 0, bs, 20, 0);
        assert!((rested / cool - 1.0).abs() < 0.03, "{cool} {rested}");
    }

    #[test]
    fn the_shortest_positioning_goes_first_unless_one_waited_too_long() {
        assert_eq!(pick_next(&[]), None);
        assert_eq!(pick_next(&[(9, 0), (3, 0), (5, 0)]), Some(1));
        // A tie goes to the earlier arrival (the lower index).
        assert_eq!(pick_next(&[(9, 0), (3, 0), (3, 0)]), Some(1));
        // A command passed over too often goes first, however far.
        assert_eq!(pick_next(&[(1, 3), (9, MAX_PASS_OVER), (0, 1)]), Some(1));
        assert_eq!(
            pick_next(&[(1, 3), (9, MAX_PASS_OVER - 1), (0, 1)]),
            Some(2)
        );
    }

    /// Offsets in the order a device served commands that all arrived at once.
    fn service_order(queue: &str, mib: &[u64]) -> Vec<u64> {
        let m = model(&format!(
            "seek={{min='1ms',max='10ms'}}\nrotation={{rpm=6000}}\n{queue}"
        ));
        let mut t = Timeline::new(&m);
        for o in mib {
            t.submit(Op::Read, o << 20, 4096, 0);
        }
        assert!(t.next_decision().is_some());
        let mut done = t.advance(u64::MAX);
        assert_eq!(t.next_decision(), None);
        done.sort_by_key(|d| d.outcome.done_ns);
        done.iter().map(|d| mib[d.id as usize - 1]).collect()
    }

    #[test]
    fn a_queueing_disk_serves_the_nearest_command_next() {
        let arrived = [90, 10, 50, 11, 0, 60];
        // The head starts at 0: 0 continues it, then each nearest in turn.
        let order = service_order("queue={mode='parallel',depth=32}", &arrived);
        assert_eq!(order, [0, 10, 11, 50, 60, 90]);
        // From the middle, the nearer side first.
        let order = service_order("queue={mode='parallel',depth=32}", &[99, 52, 10, 48, 5]);
        assert_eq!(order, [5, 10, 48, 52, 99]);
        // A serial device (a bridge without queueing) serves in arrival order.
        assert_eq!(service_order("", &arrived), arrived);
        // Only `depth` commands are inside the device; later ones wait outside, in order.
        let order = service_order("queue={mode='parallel',depth=2}", &[90, 10, 50, 11]);
        assert_eq!(order, [10, 50, 11, 90]);
    }

    #[test]
    fn a_far_command_is_not_starved_by_near_ones() {
        let m = model("seek={min='1ms',max='10ms'}\nqueue={mode='parallel',depth=4}");
        let mut t = Timeline::new(&m);
        let far = t.submit(Op::Read, 90 << 20, 4096, 0);
        // Near commands keep arriving, always nearer to the head than the far one.
        let mut now = 0;
        let mut served = 0;
        for i in 0..3 {
            t.submit(Op::Read, (i + 1) << 20, 4096, now);
        }
        let mut next = 4u64;
        while served < 200 {
            now = t.next_decision().unwrap();
            for d in t.advance(now) {
                served += 1;
                if d.id == far {
                    assert!(served > MAX_PASS_OVER as u64 / 2, "served early: {served}");
                    assert!(served <= MAX_PASS_OVER as u64 + 1, "starved: {served}");
                    return;
                }
                t.submit(Op::Read, (next % 8 + 1) << 20, 4096, now);
                next += 1;
            }
        }
        panic!("the far command was never served");
    }
}
