//! What every scan accumulates from its completions: histogram, bands, series, slow and
//! failed lists, totals. A quick scan re-reads its failed commands in logical-sector steps
//! (see [`Retries`]) so the failed list names the exact LBAs; a full scan orders its re-reads
//! in passes (see `passes`).

use super::extents::{FailedSpans, SlowSpans};
use super::live::{self, Live};
use super::lost::{is_gone, AfterFailure, AfterProbe, Ask, Prober};
use crate::engine::{Cmd, Completion, Next};
pub use drivescope_record::Event;
use drivescope_record::EXTENT_LIST_CAP;
use drivescope_stats::{Bands, Capped, Histogram, Series};
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

/// How often a live view gets the latency histogram and bands: it redraws four times a second.
const LIVE_PUBLISH_NS: u64 = 100_000_000;
/// Most entries kept in the slow and failed lists; the rest are counted.
pub const LIST_CAP: usize = 10_000;

/// Receives every failed-list entry as the scan finds it (`scan --failed-list`), in the order
/// the failures are found.
pub type FailedSink = Box<dyn FnMut(&Event) + Send>;

/// Tag of a main command.
pub const TAG_MAIN: u32 = 0;
/// Tag of a sector re-read (or re-write) after a failure.
pub const TAG_RETRY: u32 = 1;
/// Tag of a one-sector read of a place that read fine before, issued after a failure to tell
/// a bad spot from a device that has gone away.
pub const TAG_PROBE: u32 = 2;
/// Tag of a command of a full scan's later passes over what its first pass skipped.
pub const TAG_GAP: u32 = 3;
/// Tag of a failed sector read again (a retry pass).
pub const TAG_AGAIN: u32 = 4;

/// Live counters a progress display reads from another thread.
#[derive(Debug, Default)]
pub struct Progress {
    pub bytes: AtomicU64,
    pub commands: AtomicU64,
    pub failed: AtomicU64,
    pub slow: AtomicU64,
    /// Position reached (byte offset of the last completed main command's end).
    pub position: AtomicU64,
    /// A full scan's pass: 0 first, 1 trimming, 2 scraping, 3 retrying, 4 done.
    pub pass: AtomicU8,
    /// Curve, bands and latencies for a live view, kept only when set before the run.
    pub live: OnceLock<Live>,
    /// A verified write scan's read-back pass, once it starts: its own counters (and live
    /// ones when this progress has them).
    pub read_back: OnceLock<Arc<Progress>>,
}

#[derive(Debug)]
struct Pending {
    remaining: u32,
    bad: u32,
    errno: i32,
    latency_ns: u64,
}

/// Sector re-reads (re-writes, in a write scan) of failed commands.
///
/// Before a failed command is split into sectors, a sector far from every failure that read
/// fine earlier is read again (a probe; see `lost` for the rule): when the device is then
/// taken as gone (unplugged, detached, its server dead), the scan ends instead of listing
/// every sector of the rest of the range as bad.
#[derive(Debug)]
pub struct Retries {
    sector: u64,
    block_size: u64,
    start: u64,
    write: bool,
    queue: VecDeque<u64>,
    pending: BTreeMap<u64, Pending>,
    /// Failed commands waiting for their probe's answer: (completion, errno).
    awaiting: VecDeque<(Completion, i32)>,
}

impl Retries {
    pub fn new(start: u64, block_size: u64, sector: u64) -> Self {
        Retries {
            sector,
            block_size,
            start,
            write: false,
            queue: VecDeque::new(),
            pending: BTreeMap::new(),
            awaiting: VecDeque::new(),
        }
    }

    /// Retry failed writes as sector writes (a write scan).
    pub fn set_write(&mut self, write: bool) {
        self.write = write;
    }

    /// The next sector re-read to issue, if any.
    #[inline]
    pub fn next(&mut self) -> Option<Cmd> {
        let off = self.queue.pop_front()?;
        Some(Cmd {
            offset: off,
            len: self.sector as u32,
            tag: TAG_RETRY,
            write: self.write,
        })
    }

    pub fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.pending.is_empty() && self.awaiting.is_empty()
    }

    /// Whether failed commands wait for a probe's answer.
    pub fn waiting(&self) -> bool {
        !self.awaiting.is_empty()
    }

    /// Forget everything still to do (the device is gone).
    fn clear(&mut self) {
        self.queue.clear();
        self.pending.clear();
        self.awaiting.clear();
    }

    /// A probe read fine: the oldest failed command waiting is split into sectors.
    fn probed(&mut self) {
        if let Some((c, errno)) = self.awaiting.pop_front() {
            self.schedule(&c, errno);
        }
    }

    fn schedule(&mut self, c: &Completion, errno: i32) {
        let n = (c.cmd.len as u64).div_ceil(self.sector);
        for i in 0..n {
            self.queue.push_back(c.cmd.offset + i * self.sector);
        }
        self.pending.insert(
            c.cmd.offset,
            Pending {
                remaining: n as u32,
                bad: 0,
                errno,
                latency_ns: c.latency_ns(),
            },
        );
    }

    /// Account a re-read; returns the failed-list entry when the command's re-reads end
    /// with none failing (the failure did not repeat: the command itself is listed).
    fn finish(&mut self, c: &Completion) -> Option<Event> {
        let cmd_off = self.start + (c.cmd.offset - self.start) / self.block_size * self.block_size;
        let p = self.pending.get_mut(&cmd_off)?;
        p.remaining -= 1;
        if c.result.is_err() {
            p.bad += 1;
        }
        if p.remaining == 0 {
            let p = self.pending.remove(&cmd_off)?;
            if p.bad == 0 {
                return Some(Event {
                    offset: cmd_off,
                    lba: cmd_off / self.sector,
                    latency_ns: p.latency_ns,
                    errno: Some(p.errno),
                });
            }
        }
        None
    }
}

/// The scan's accumulators.
pub struct Accum {
    /// When the live view next gets the histogram and bands (the run's clock).
    live_next_ns: u64,
    /// Completion latency of successful main commands.
    pub hist: Histogram,
    /// Submission latency of all main commands.
    pub submit_hist: Histogram,
    pub bands: Bands,
    pub series: Series,
    pub slow: Capped<Event>,
    pub failed: Capped<Event>,
    /// Failed sectors grouped into extents.
    pub failed_extents: FailedSpans,
    /// Slow commands grouped into regions.
    pub slow_regions: SlowSpans,
    /// Where every failed-list entry goes too, when asked.
    pub sink: Option<FailedSink>,
    pub bytes: u64,
    pub commands: u64,
    pub failed_commands: u64,
    /// Time spent on errors: failed commands over the range, sector re-reads, probes and the pauses before them,
    /// later passes (latencies summed; the caller bounds it by the run's time).
    pub error_ns: u64,
    /// Bytes the error handling read (a later pass's reads next to failures).
    pub error_bytes: u64,
    pub slow_ns: u64,
    pub sector: u64,
    pub retries: Retries,
    pub progress: Arc<Progress>,
    /// Places known good, far from failures, and the probes read there (see `lost`).
    pub prober: Prober,
    /// Set when the device went away: why, in one line. The scan then stops.
    pub lost: Option<String>,
}

impl Accum {
    pub fn new(
        start: u64,
        prober: Prober,
        block_size: u64,
        sector: u64,
        slow_ns: u64,
        interval_ns: u64,
        progress: Arc<Progress>,
    ) -> Self {
        Accum {
            hist: Histogram::new(),
            submit_hist: Histogram::new(),
            bands: Bands::default(),
            live_next_ns: 0,
            series: Series::new(interval_ns),
            slow: Capped::new(LIST_CAP),
            failed: Capped::new(LIST_CAP),
            failed_extents: FailedSpans::new(EXTENT_LIST_CAP),
            slow_regions: SlowSpans::new(EXTENT_LIST_CAP),
            sink: None,
            bytes: 0,
            commands: 0,
            failed_commands: 0,
            error_ns: 0,
            error_bytes: 0,
            slow_ns,
            sector,
            retries: Retries::new(start, block_size, sector),
            progress,
            prober,
            lost: None,
        }
    }

    /// Continue the totals, histograms, bands and lists of an interrupted run (resume).
    pub fn absorb(&mut self, prior: &super::ScanRecord, submit: &drivescope_stats::HistogramOut) {
        self.hist = Histogram::from_out(&prior.histogram);
        self.submit_hist = Histogram::from_out(submit);
        self.bands = Bands::from_out(&prior.bands);
        self.slow = Capped::with_prior(LIST_CAP, prior.slow.clone(), prior.slow_total);
        self.failed = Capped::with_prior(LIST_CAP, prior.failed.clone(), prior.failed_total);
        self.failed_extents
            .absorb(&prior.failed_extents_or_derived());
        self.failed_extents.set_cut(prior.failed_extents_cut);
        self.slow_regions.absorb(&prior.slow_regions_or_derived());
        self.slow_regions.set_cut(prior.slow_regions_cut);
        self.bytes = prior.bytes;
        self.commands = prior.commands;
        self.failed_commands = prior.failed_commands;
        self.progress.bytes.store(self.bytes, Ordering::Relaxed);
        self.progress
            .commands
            .store(self.commands, Ordering::Relaxed);
    }

    /// A failed-list entry: listed, joined into its extent, passed to the sink.
    pub fn failed_sector(&mut self, e: Event) {
        self.failed_extents
            .sector(e.offset, self.sector, e.errno.unwrap_or(0));
        if let Some(sink) = self.sink.as_mut() {
            sink(&e);
        }
        self.failed.push(e);
        self.progress
            .failed
            .store(self.failed.total(), Ordering::Relaxed);
    }

    /// A probe for the failure at `failed_at` failed: `true` when another probe is queued,
    /// `false` when the failure stands without a verdict or the device is now taken as lost
    /// (`lost` says which).
    pub fn probe_failed(&mut self, c: &Completion, failed_at: u64) -> bool {
        if self.lost.is_some() {
            return false;
        }
        match self.prober.failed(c, failed_at) {
            AfterProbe::Again => true,
            AfterProbe::Stands => false,
            AfterProbe::Lost(why) => {
                self.lost = Some(why);
                self.prober.clear();
                false
            }
        }
    }

    /// What a scan issues first, if anything: nothing more once the device is lost (a wait
    /// for what is in flight, then done), else a probe that is due, or the pause before it.
    #[inline]
    pub fn lost_or_probe(&mut self, now_ns: u64, in_flight: usize) -> Option<Next> {
        if self.lost.is_some() {
            return Some(if in_flight > 0 {
                Next::Wait
            } else {
                Next::Done
            });
        }
        match self.prober.next(now_ns) {
            Ask::Issue(c) => Some(Next::Issue(c)),
            Ask::Later(ns) if in_flight == 0 => {
                self.error_ns = self.error_ns.saturating_add(ns);
                Some(Next::Pause(ns))
            }
            Ask::Later(_) => Some(Next::Wait),
            Ask::Nothing => None,
        }
    }

    /// A failure over `[offset, offset + len)` that did not say gone: whether it waits for a
    /// probe (`true`) or stands (`false`, also when the device was found lost).
    pub fn failure(&mut self, offset: u64, len: u64) -> bool {
        match self.prober.failure(offset, len) {
            AfterFailure::Probe => true,
            AfterFailure::Stands => false,
            AfterFailure::Lost(why) => {
                self.lost.get_or_insert(why);
                self.prober.clear();
                false
            }
        }
    }

    /// A sector re-read failed with an error that says the device is gone: mark it lost.
    pub fn gone(&mut self, c: &Completion) {
        if let Err(errno) = c.result {
            if self.lost.is_none() && is_gone(errno) {
                self.lost = Some(format!(
                    "the device is gone ({} at LBA {})",
                    std::io::Error::from_raw_os_error(errno),
                    c.cmd.offset / self.sector
                ));
            }
        }
    }

    /// Account a completion (a quick scan's, whose failed commands are re-read at once in
    /// sectors). Returns true for a successful main command.
    #[inline]
    pub fn record(&mut self, c: &Completion) -> bool {
        let lat = c.latency_ns();
        if c.cmd.tag == TAG_PROBE {
            if self.lost.is_none() {
                if c.result.is_ok() {
                    self.prober.read_fine();
                    self.retries.probed();
                } else if let Some(&(f, _)) = self.retries.awaiting.front() {
                    if !self.probe_failed(c, f.cmd.offset) {
                        if self.lost.is_some() {
                            self.retries.clear();
                        } else {
                            // No verdict: the failure stands, its sectors are read.
                            self.retries.probed();
                        }
                    }
                }
            }
            return false;
        }
        if c.cmd.tag == TAG_RETRY {
            if c.result.is_ok() {
                self.prober.present();
            }
            if let Err(errno) = c.result {
                self.failed_sector(Event {
                    offset: c.cmd.offset,
                    lba: c.cmd.offset / self.sector,
                    latency_ns: lat,
                    errno: Some(errno),
                });
            }
            if let Some(e) = self.retries.finish(c) {
                self.failed_sector(e);
            }
            return false;
        }
        let ok = self.command(c);
        if let Err(errno) = c.result {
            if self.lost.is_none() && self.failure(c.cmd.offset, c.cmd.len as u64) {
                self.retries.awaiting.push_back((*c, errno));
            } else if self.lost.is_none() {
                self.retries.schedule(c, errno);
            } else {
                self.retries.clear();
                self.prober.clear();
            }
        }
        ok
    }

    /// Account a command over the range (not a sector re-read or a probe): counts, latency,
    /// bands, series, slow list. Returns true when it succeeded; an error that says the
    /// device is gone marks it lost.
    #[inline]
    pub fn command(&mut self, c: &Completion) -> bool {
        let lat = c.latency_ns();
        // saturating: a resumed scan starts from the stored totals, whatever they say
        self.commands = self.commands.saturating_add(1);
        self.submit_hist.record(c.submit_latency_ns());
        self.progress
            .commands
            .store(self.commands, Ordering::Relaxed);
        if let Some(live) = self.progress.live.get() {
            live.position(live::Done {
                offset: c.cmd.offset,
                bytes: c.result.ok().map(u64::from),
                issue_ns: c.issue_ns,
                done_ns: c.done_ns,
                latency_ns: lat,
                slow: c.result.is_ok() && lat >= self.slow_ns,
                paced: c.cmd.tag == TAG_MAIN,
            });
        }
        let ok = match c.result {
            Ok(n) => {
                self.bytes = self.bytes.saturating_add(n as u64);
                self.hist.record(lat);
                self.bands.record(lat);
                self.series.record(c.done_ns, n as u64, lat);
                if lat >= self.slow_ns {
                    self.slow_regions.command(c.cmd.offset, n as u64, lat);
                    self.slow.push(Event {
                        offset: c.cmd.offset,
                        lba: c.cmd.offset / self.sector,
                        latency_ns: lat,
                        errno: None,
                    });
                    self.progress
                        .slow
                        .store(self.slow.total(), Ordering::Relaxed);
                }
                self.progress.bytes.store(self.bytes, Ordering::Relaxed);
                self.prober.good(c.cmd.offset);
                true
            }
            Err(_) => {
                self.failed_commands = self.failed_commands.saturating_add(1);
                self.bands.record_failed();
                self.series.record(c.done_ns, 0, lat);
                self.gone(c);
                false
            }
        };
        if c.done_ns >= self.live_next_ns {
            self.live_next_ns = c.done_ns.saturating_add(LIVE_PUBLISH_NS);
            self.publish_live();
        }
        ok
    }

    /// Hand the latency histogram and bands to a live view, if one is shown.
    pub fn publish_live(&self) {
        if let Some(live) = self.progress.live.get() {
            live.publish(&self.hist, &self.bands);
        }
    }
}
