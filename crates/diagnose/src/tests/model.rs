//! A small model of a storage device, run as a scripted device (core's `engine::scripted`): each command is
//! answered with the latency the device's state gives it, on the device's virtual time. Every behaviour the
//! diagnosis explains is a knob here, off by default, so each test names the one it models.
//!
//! The model, per command issued at device time `t`:
//! - **media**: the data moves through one media channel at the rate of its position, falling linearly from
//!   `outer` at offset 0 to `inner` at the end of the device (zones; equal rates are flat), or, with `zones` of
//!   2 or more, in that many equal bands of one rate each, stepping evenly from `outer` to `inner`. Transfers
//!   queue on the channel one after another: a stream's rate is the media rate whatever the queue depth.
//! - **access**: before its transfer a command spends `access_ns` (a seek, a flash read) in one of `lanes`
//!   lanes; lanes work in parallel and each holds its command until the transfer ends. One lane serialises
//!   every command (no queueing gain); many let a deep queue overlap the accesses. With `seq_free`, a command
//!   starting where the last one ended needs no access (a disk's head is already there).
//! - **warm-up**: for the first `warm_up.0` ns of device time, the media runs at `warm_up.1` of its rate.
//! - **throttle** `(after, factor, cooling)`: media busy time heats the device, idle media time cools it; once
//!   it has worked `after` ns without rest the media runs at `factor` of its rate, and `cooling` ns of rest
//!   cool it fully (the lab's heat budget, with the heat allowed 5 % past `after`).
//! - **read cache**: an LRU of `read_cache.0` bytes in 64 KiB chunks; a read whose chunks are all cached is
//!   served from it, one at a time, in [`HIT_NS`] plus its transfer at `read_cache.1` MB/s (no media access);
//!   every read fills it.
//! - **writes**: the media writes at `write_factor` of its read rate.
//! - **write cache**: a write-back cache of `write_cache.0` bytes taking writes at `write_cache.1` MB/s; it
//!   drains to the media at the media's write rate all the time, and a write that does not fit waits until enough
//!   has drained. Without one, writes go through the media as reads do.
//! - **link**: every transfer then crosses a link of `link` MB/s (one after another), capping every shape.
//! - **SMR** (drive-managed shingled recording): a write that continues no stream goes into a media cache of
//!   `cache` bytes at `rate` MB/s with no access; once it is full each such write first waits `stall_ns` per
//!   `band` bytes the drive must clean; from `idle_after_ns` after the last command the drive drains the cache at
//!   `drain` MB/s. Such writes hold the media channel (one at a time).
//! - **noise** (command jitter and a busy host): each completion is seen up to `jitter_ns` later than the device
//!   gave it, and a `slow_share` of them `slow_ns` later still; the device's own timing is unchanged.
//! - **failures**: `fail` picks an errno for a command (a bad sector, a device gone), answered after 100 µs.

use drivescope_core::engine::scripted::{Call, Reply, Scripted};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

pub const MIB: u64 = 1 << 20;
pub const GIB: u64 = 1 << 30;
const CHUNK: u64 = 64 << 10;
/// The read cache's own time per command.
pub const HIT_NS: u64 = 50_000;

/// The rate of back-to-back cache hits of `bs` bytes from a cache of `mb_per_s`.
pub fn hit_rate(bs: u64, mb_per_s: f64) -> f64 {
    bs as f64 * 1e3 / (HIT_NS as f64 + bs as f64 * 1e3 / mb_per_s)
}

/// Which commands fail, and with which errno.
pub type Fail = fn(&Call) -> Option<i32>;

/// A device, as the module docs describe it.
#[derive(Clone)]
pub struct Model {
    pub size: u64,
    pub outer: f64,
    pub inner: f64,
    pub access_ns: u64,
    pub lanes: usize,
    pub seq_free: bool,
    pub warm_up: Option<(u64, f64)>,
    pub throttle: Option<(u64, f64, u64)>,
    pub read_cache: Option<(u64, f64)>,
    pub write_cache: Option<(u64, f64)>,
    pub link: Option<f64>,
    pub fail: Option<Fail>,
    /// The media writes at this share of its read rate (an SSD's native writes behind its SLC cache).
    pub write_factor: f64,
    /// Equal bands of one rate each from `outer` to `inner` (0 or 1: the rate falls linearly).
    pub zones: u32,
    pub smr: Option<Smr>,
    pub noise: Option<Noise>,
    /// Set the stop flag once device time reaches this (a user's Ctrl-C at a known moment).
    pub stop_at: Option<(u64, Arc<AtomicBool>)>,
}

/// A flash device: 500 MB/s everywhere, a 1 ms access, 8 commands at once.
pub fn ssd() -> Model {
    Model {
        size: GIB,
        outer: 500.0,
        inner: 500.0,
        access_ns: 1_000_000,
        lanes: 8,
        seq_free: false,
        warm_up: None,
        throttle: None,
        read_cache: None,
        write_cache: None,
        link: None,
        fail: None,
        write_factor: 1.0,
        zones: 0,
        smr: None,
        noise: None,
        stop_at: None,
    }
}

/// A drive-managed SMR disk's media cache, as the module docs describe it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Smr {
    pub cache: u64,
    pub rate: f64,
    pub band: u64,
    pub stall_ns: u64,
    pub idle_after_ns: u64,
    pub drain: f64,
}

/// Completions seen late by a busy host, as the module docs describe it; `seed` makes the draws repeat.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Noise {
    pub seed: u64,
    pub jitter_ns: u64,
    pub slow_share: f64,
    pub slow_ns: u64,
}

/// A hard disk: 200 MB/s at the outer edge falling to 100 MB/s inside, an 8 ms seek, one command at a time.
pub fn hdd() -> Model {
    Model {
        outer: 200.0,
        inner: 100.0,
        access_ns: 8_000_000,
        lanes: 1,
        seq_free: true,
        ..ssd()
    }
}

/// What the device saw.
#[derive(Debug, Default)]
pub struct Seen {
    pub reads: AtomicU64,
    pub writes: AtomicU64,
    pub failed: AtomicU64,
}

impl Seen {
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }
    pub fn failed(&self) -> u64 {
        self.failed.load(Ordering::Relaxed)
    }
}

/// The recently read chunks, least recent first.
#[derive(Default)]
struct Lru {
    cap: u64,
    /// Chunk -> the stamp of its latest use.
    stamp: HashMap<u64, u64>,
    order: VecDeque<(u64, u64)>,
    next: u64,
}

impl Lru {
    fn holds(&self, offset: u64, len: u64) -> bool {
        (offset / CHUNK..(offset + len).div_ceil(CHUNK)).all(|c| self.stamp.contains_key(&c))
    }
    fn touch(&mut self, offset: u64, len: u64) {
        for c in offset / CHUNK..(offset + len).div_ceil(CHUNK) {
            self.next += 1;
            self.stamp.insert(c, self.next);
            self.order.push_back((c, self.next));
        }
        while self.stamp.len() as u64 * CHUNK > self.cap {
            let (c, s) = self.order.pop_front().expect("an entry per chunk");
            if self.stamp.get(&c) == Some(&s) {
                self.stamp.remove(&c);
            }
        }
    }
}

/// The device's state as commands arrive.
struct State {
    m: Model,
    lanes: Vec<u64>,
    media_free: u64,
    cache_free: u64,
    write_free: u64,
    link_free: u64,
    last_end: Option<u64>,
    lru: Lru,
    /// Bytes in the write cache at `dirty_at`.
    dirty: f64,
    dirty_at: u64,
    /// Work not yet cooled off, ns (a throttling device).
    heat: f64,
    /// Bytes in the SMR media cache at `smr_at`, and when the last command was done.
    smr_used: f64,
    smr_at: u64,
    last_done: u64,
    rng: u64,
    seen: Arc<Seen>,
}

/// Nanoseconds to move `len` bytes at `mb_per_s`.
fn ns(len: u64, mb_per_s: f64) -> u64 {
    (len as f64 * 1e3 / mb_per_s).round() as u64
}

impl Model {
    /// The media rate at `offset`, MB/s (before a warm-up).
    pub fn rate_at(&self, offset: u64) -> f64 {
        let x = offset as f64 / self.size as f64;
        if self.zones >= 2 {
            let band = ((x * self.zones as f64) as u32).min(self.zones - 1);
            return self.outer + (self.inner - self.outer) * band as f64 / (self.zones - 1) as f64;
        }
        self.outer + (self.inner - self.outer) * x
    }

    /// The scripted device, and what it saw.
    pub fn device(self) -> (Scripted<impl FnMut(&Call) -> Reply + Send>, Arc<Seen>) {
        let (script, seen) = self.script();
        (Scripted::new(script).unlogged(), seen)
    }

    /// The device's answers, command by command (what [`Model::device`] runs), and what it saw.
    pub fn script(self) -> (impl FnMut(&Call) -> Reply + Send, Arc<Seen>) {
        let seen = Arc::new(Seen::default());
        let mut s = State {
            lanes: vec![0; self.lanes.max(1)],
            lru: Lru {
                cap: self.read_cache.map_or(0, |c| c.0),
                ..Lru::default()
            },
            m: self,
            media_free: 0,
            cache_free: 0,
            write_free: 0,
            link_free: 0,
            last_end: None,
            dirty: 0.0,
            dirty_at: 0,
            heat: 0.0,
            smr_used: 0.0,
            smr_at: 0,
            last_done: 0,
            rng: 0,
            seen: seen.clone(),
        };
        (move |c: &Call| s.answer(c), seen)
    }
}

impl State {
    fn answer(&mut self, c: &Call) -> Reply {
        let t = c.device_ns;
        if let Some((at, stop)) = &self.m.stop_at {
            if t >= *at {
                stop.store(true, Ordering::Relaxed);
            }
        }
        let counter = if c.write {
            &self.seen.writes
        } else {
            &self.seen.reads
        };
        counter.fetch_add(1, Ordering::Relaxed);
        if let Some(errno) = self.m.fail.and_then(|f| f(c)) {
            self.seen.failed.fetch_add(1, Ordering::Relaxed);
            return Reply::err(100_000, errno);
        }
        let len = c.len as u64;
        let hit = self
            .m
            .read_cache
            .filter(|_| !c.write && self.lru.holds(c.offset, len));
        if let Some(smr) = self.m.smr {
            self.drain_smr(&smr, t.max(self.media_free));
        }
        let done = if let Some((_, rate)) = hit {
            self.cache_free = self.cache_free.max(t) + HIT_NS + ns(len, rate);
            self.cache_free
        } else if c.write && self.m.write_cache.is_some() {
            self.cached_write(c.offset, len, t)
        } else if let Some(smr) = self
            .m
            .smr
            .filter(|_| c.write && self.last_end != Some(c.offset))
        {
            self.smr_write(&smr, c.offset, len, t)
        } else {
            self.media(c.offset, len, t, c.write)
        };
        if !c.write && self.m.read_cache.is_some() {
            self.lru.touch(c.offset, len);
        }
        let done = match self.m.link {
            Some(link) => {
                self.link_free = done.max(self.link_free + ns(len, link));
                self.link_free
            }
            None => done,
        };
        self.last_done = self.last_done.max(done);
        Reply::ok(done - t + self.late())
    }

    /// How much later than the device gave it the host sees a completion.
    fn late(&mut self) -> u64 {
        let Some(n) = self.m.noise else {
            return 0;
        };
        if self.rng == 0 {
            self.rng = n.seed | 1;
        }
        let mut draw = || {
            // xorshift64*: a uniform draw in [0, 1).
            self.rng ^= self.rng >> 12;
            self.rng ^= self.rng << 25;
            self.rng ^= self.rng >> 27;
            (self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
        };
        let jitter = (n.jitter_ns as f64 * draw()) as u64;
        let slow = if draw() < n.slow_share { n.slow_ns } else { 0 };
        jitter + slow
    }

    /// The media cache drains from `idle_after_ns` after the last command until `now`.
    fn drain_smr(&mut self, smr: &Smr, now: u64) {
        let from = (self.last_done + smr.idle_after_ns).max(self.smr_at);
        if now > from {
            self.smr_used = (self.smr_used - (now - from) as f64 * smr.drain * 1e-3).max(0.0);
            self.smr_at = now;
        }
    }

    /// A write that continues no stream, into the media cache once the bands it needs are cleaned.
    fn smr_write(&mut self, smr: &Smr, offset: u64, len: u64, t: u64) -> u64 {
        self.last_end = Some(offset + len);
        let start = t.max(self.media_free);
        let mut stall = 0;
        while self.smr_used + len as f64 > smr.cache as f64 {
            self.smr_used = (self.smr_used - smr.band as f64).max(0.0);
            stall += smr.stall_ns;
        }
        self.smr_used += len as f64;
        self.media_free = start + stall + ns(len, smr.rate);
        self.media_free
    }

    /// The media rate at `offset` at device time `t`.
    fn rate(&self, offset: u64, t: u64) -> f64 {
        let r = self.m.rate_at(offset);
        match self.m.warm_up {
            Some((until, factor)) if t < until => r * factor,
            _ => r,
        }
    }

    /// An access in the first free lane, then the transfer on the media channel: when it is done.
    fn media(&mut self, offset: u64, len: u64, t: u64, write: bool) -> u64 {
        let sequential = self.m.seq_free && self.last_end == Some(offset);
        self.last_end = Some(offset + len);
        let lane = (0..self.lanes.len())
            .min_by_key(|&i| self.lanes[i])
            .expect("a lane");
        let accessed = self.lanes[lane].max(t) + if sequential { 0 } else { self.m.access_ns };
        let start = accessed.max(self.media_free);
        let mut rate = self.rate(offset, start);
        if write {
            rate *= self.m.write_factor;
        }
        if let Some((after, factor, cooling)) = self.m.throttle {
            let top = after as f64 * 1.05;
            let idle = start.saturating_sub(self.media_free) as f64;
            self.heat = (self.heat - idle * top / cooling as f64).max(0.0);
            if self.heat >= after as f64 {
                rate *= factor;
            }
            self.heat = (self.heat + ns(len, rate) as f64).min(top);
        }
        self.media_free = start + ns(len, rate);
        self.lanes[lane] = self.media_free;
        self.media_free
    }

    /// A write into the write-back cache, once it has room: when it is done.
    fn cached_write(&mut self, offset: u64, len: u64, t: u64) -> u64 {
        let (cap, rate) = self.m.write_cache.unwrap();
        let drain = self.rate(offset, t) * self.m.write_factor * 1e6 / 1e9; // bytes per ns
        let start = t.max(self.write_free);
        let dirty = |at: u64, s: &Self| (s.dirty - (at - s.dirty_at) as f64 * drain).max(0.0);
        let over = dirty(start, self) + len as f64 - cap as f64;
        let start = if over > 0.0 {
            start + (over / drain).ceil() as u64
        } else {
            start
        };
        self.dirty = dirty(start, self) + len as f64;
        self.dirty_at = start;
        self.write_free = start + ns(len, rate);
        self.write_free
    }
}
