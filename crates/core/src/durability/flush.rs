//! The flush-honesty experiment: a sustained write to learn the media's write rate, then writes
//! of growing size X, each followed by a flush, both timed. The rule that judges the pairs is
//! `drivescope_analysis::flush_honesty`; this only gathers them, within a time budget.
//!
//! 1. **Sustained rate.** One sequential stream of `chunk` writes from offset 0 (up to
//!    `sustain_max` bytes, the region, or 35 % of the budget), then a flush. The rate the bound
//!    uses is the lower of the stream's second half (a cache smaller than half the stream is
//!    full by then, so the writes go at the media's pace) and the whole stream with its flush (an
//!    honest device has all of it on the media when the flush returns). A cache larger than half
//!    the stream is not seen through: its rate is taken for the media's and nothing looks pending.
//! 2. **Pairs.** Sizes `first`, 2 × `first`, 4 × `first`, … as large as the rest of the budget
//!    allows for `repeats` rounds (a round: each size once, smallest first) and no larger than
//!    half the stream, each written from offset 0 and flushed. A pair starts only where its
//!    estimated time (at the slowest pace seen yet) fits in the budget. Before each pair the
//!    device is left idle for as long as the data the previous flush may have left in a cache
//!    need at the measured rate (and a quarter more), so a cache that returns flushes early or in
//!    part starts each pair empty, as an honest one does.
//!
//! The device is behind a trait with its own clock, so the same experiment runs on a real device
//! or file (wall clock) and on a lab model's timeline (virtual clock) in tests.

use std::sync::atomic::{AtomicBool, Ordering};

/// What the experiment writes to and flushes.
pub trait FlushDevice {
    /// Bytes the experiment may write, from offset 0.
    fn room(&self) -> u64;
    /// Write `len` bytes at `offset` (returns once the device took them).
    fn write(&mut self, offset: u64, len: usize) -> std::io::Result<()>;
    /// Make everything written durable (`fdatasync`: a flush of the device's cache).
    fn flush(&mut self) -> std::io::Result<()>;
    /// The device's clock (ns).
    fn now_ns(&self) -> u64;
    /// Do nothing for `ns`.
    fn idle(&mut self, ns: u64);
}

/// How the experiment runs.
#[derive(Debug, Clone, PartialEq)]
pub struct FlushPlan {
    /// Bytes per write command.
    pub chunk: u64,
    /// The smallest X.
    pub first: u64,
    /// Rounds over the sizes.
    pub repeats: u32,
    /// Most bytes the sustained stream writes.
    pub sustain_max: u64,
    /// Time the whole experiment may take (ns); it stops short of it.
    pub budget_ns: u64,
}

impl Default for FlushPlan {
    fn default() -> Self {
        FlushPlan {
            chunk: 1 << 20,
            first: 1 << 20,
            repeats: 3,
            sustain_max: 1 << 30,
            budget_ns: 4_000_000_000,
        }
    }
}

/// The sustained stream and the rate taken from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sustained {
    pub bytes: u64,
    pub write_ns: u64,
    pub flush_ns: u64,
    /// Bytes/s over the stream's second half.
    pub tail_bytes_per_s: f64,
    /// The rate the bound uses (bytes/s).
    pub bytes_per_s: f64,
}

/// One write-then-flush pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    pub bytes: u64,
    pub write_ns: u64,
    pub flush_ns: u64,
}

/// What the experiment gathered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlushRun {
    pub sustained: Option<Sustained>,
    pub pairs: Vec<Pair>,
    pub bytes_written: u64,
    pub flushes: u64,
    /// Stopped by `stop` before it finished.
    pub interrupted: bool,
}

impl FlushRun {
    /// The sustained stream as the records keep it.
    pub fn sustained_record(&self) -> Option<drivescope_record::durability::SustainedWrite> {
        self.sustained
            .map(|s| drivescope_record::durability::SustainedWrite {
                bytes: s.bytes,
                write_ns: s.write_ns,
                flush_ns: s.flush_ns,
                tail_bytes_per_s: s.tail_bytes_per_s,
                bytes_per_s: s.bytes_per_s,
            })
    }

    /// Every write-then-flush pair, in order, as the records keep them.
    pub fn pair_records(&self) -> Vec<drivescope_record::durability::FlushPair> {
        self.pairs
            .iter()
            .map(|p| drivescope_record::durability::FlushPair {
                bytes: p.bytes,
                write_ns: p.write_ns,
                flush_ns: p.flush_ns,
            })
            .collect()
    }
}

/// Share of the budget the sustained stream may take.
const SUSTAIN_SHARE: f64 = 0.35;
/// Fewest chunks in the sustained stream (its second half needs a few).
const MIN_SUSTAIN_CHUNKS: u64 = 8;

struct Counting<'a> {
    dev: &'a mut dyn FlushDevice,
    run: FlushRun,
}

impl Counting<'_> {
    /// Write `bytes` from offset 0 in chunks; the time it took.
    fn write(&mut self, bytes: u64, chunk: u64) -> std::io::Result<u64> {
        let t0 = self.dev.now_ns();
        let mut off = 0;
        while off < bytes {
            let len = chunk.min(bytes - off);
            self.dev.write(off, len as usize)?;
            off += len;
        }
        self.run.bytes_written += bytes;
        Ok(self.dev.now_ns() - t0)
    }

    fn flush(&mut self) -> std::io::Result<u64> {
        let t0 = self.dev.now_ns();
        self.dev.flush()?;
        self.run.flushes += 1;
        Ok(self.dev.now_ns() - t0)
    }
}

/// Time (ns) data of `bytes` need at `rate` (bytes/s) beyond `spent` ns: what a cache that
/// returned its flushes early (or in part) may still hold of everything written since `spent`
/// began.
/// The estimate is stretched by [`IDLE_MARGIN`]: the measured rate may be a little high (a cache
/// still filling during the stream's second half), and idling too short leaves a backlog that
/// the next flush would honestly write out.
fn left_to_drain(bytes: u64, rate: f64, spent: u64) -> u64 {
    let owed = ((bytes as f64 / rate * 1e9) as u64).saturating_sub(spent);
    (owed as f64 * IDLE_MARGIN) as u64
}

/// How much longer than its estimate a device is left idle before a pair.
const IDLE_MARGIN: f64 = 1.25;

/// The sustained stream: write until `cap` bytes or `time` ns, then flush.
fn sustain(c: &mut Counting, plan: &FlushPlan, time: u64) -> std::io::Result<Sustained> {
    let cap = plan.sustain_max.min(c.dev.room()) / plan.chunk * plan.chunk;
    let cap = cap.max(plan.chunk);
    let t0 = c.dev.now_ns();
    let mut marks: Vec<(u64, u64)> = vec![(0, t0)];
    let mut off = 0;
    while off < cap {
        let len = plan.chunk.min(cap - off);
        c.dev.write(off, len as usize)?;
        off += len;
        let now = c.dev.now_ns();
        marks.push((off, now));
        if now - t0 >= time && off >= MIN_SUSTAIN_CHUNKS * plan.chunk {
            break;
        }
    }
    c.run.bytes_written += off;
    let t1 = c.dev.now_ns();
    let flush_ns = c.flush()?;
    let write_ns = t1 - t0;
    let half = marks
        .iter()
        .find(|m| m.0 * 2 >= off)
        .copied()
        .unwrap_or((0, t0));
    let tail_ns = (t1 - half.1).max(1);
    let tail = (off - half.0) as f64 / tail_ns as f64 * 1e9;
    let whole = off as f64 / (write_ns + flush_ns).max(1) as f64 * 1e9;
    Ok(Sustained {
        bytes: off,
        write_ns,
        flush_ns,
        tail_bytes_per_s: tail,
        bytes_per_s: tail.min(whole),
    })
}

/// The sizes the pairs use: `first` doubling up to `len` while a round of them, each costing
/// about three times its time at `rate` (idle, write, flush) per repeat, fits in `time`; at
/// least three where `len` holds them.
pub fn sizes(plan: &FlushPlan, len: u64, rate: f64, time: u64) -> Vec<u64> {
    let cost = |x: u64| 3.0 * x as f64 / rate * 1e9 * plan.repeats as f64;
    let mut out = Vec::new();
    let mut x = plan.first.min(len);
    let mut total = 0.0;
    while x > 0 && x <= len && (out.len() < 3 || total + cost(x) <= time as f64) {
        total += cost(x);
        out.push(x);
        x *= 2;
    }
    out
}

/// Runs the experiment on `dev` within the plan's budget.
pub fn run(
    dev: &mut dyn FlushDevice,
    plan: &FlushPlan,
    stop: &AtomicBool,
) -> std::io::Result<FlushRun> {
    let start = dev.now_ns();
    let deadline = start + plan.budget_ns;
    let mut c = Counting {
        dev,
        run: FlushRun::default(),
    };
    c.flush()?;
    let s = sustain(&mut c, plan, (plan.budget_ns as f64 * SUSTAIN_SHARE) as u64)?;
    c.run.sustained = Some(s);
    let rate = s.bytes_per_s;
    if !(rate.is_finite() && rate > 0.0) {
        return Ok(c.run);
    }
    // What the stream may have left in a cache that returned its flush early or in part. Each
    // idle waits that out (and a little more), so before each pair nothing is owed but what the
    // previous pair may have left.
    let mut owed = left_to_drain(s.bytes, rate, s.write_ns + s.flush_ns);
    let time = deadline.saturating_sub(c.dev.now_ns() + owed);
    // Sizes past half the stream show nothing the stream did not: a cache that large was not
    // seen through, and its rate stands for the media's.
    let most = c.dev.room().min((s.bytes / 2).max(4 * plan.first));
    let xs = sizes(plan, most, rate, time);
    // The slowest pace seen so far (bytes/s): a pair whose writes went slower than the rate (a
    // cache filled) makes the next pairs' time estimates follow it.
    let mut pace = rate;
    for _ in 0..plan.repeats {
        for &x in &xs {
            if stop.load(Ordering::Relaxed) {
                c.run.interrupted = true;
                return Ok(c.run);
            }
            let needs = owed + (3.0 * x as f64 / pace * 1e9) as u64;
            if c.dev.now_ns() + needs > deadline {
                return Ok(c.run);
            }
            c.dev.idle(owed);
            let write_ns = c.write(x, plan.chunk)?;
            let flush_ns = c.flush()?;
            c.run.pairs.push(Pair {
                bytes: x,
                write_ns,
                flush_ns,
            });
            owed = left_to_drain(x, rate, write_ns + flush_ns);
            pace = pace.min(x as f64 / (write_ns + flush_ns).max(1) as f64 * 1e9);
        }
    }
    Ok(c.run)
}

#[cfg(test)]
#[path = "flush_tests.rs"]
mod tests;
