//! What every scan accumulates from its completions: histogram, bands, series, slow and
//! failed lists, totals. Failed commands are re-read in logical-sector steps (see
//! [`Retries`]) so the failed list names the exact LBAs.

use crate::engine::{Cmd, Completion};
use drivescope_stats::{Bands, Capped, Histogram, Series};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Most entries kept in the slow and failed lists; the rest are counted.
pub const LIST_CAP: usize = 10_000;

/// Tag of a main command.
pub const TAG_MAIN: u32 = 0;
/// Tag of a sector re-read after a failure.
pub const TAG_RETRY: u32 = 1;

/// A slow or failed command (or failed sector).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub offset: u64,
    pub lba: u64,
    pub latency_ns: u64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub errno: Option<i32>,
}

/// Live counters a progress display reads from another thread.
#[derive(Debug, Default)]
pub struct Progress {
    pub bytes: AtomicU64,
    pub commands: AtomicU64,
    pub failed: AtomicU64,
    pub slow: AtomicU64,
    /// Position reached (byte offset of the last completed main command's end).
    pub position: AtomicU64,
}

#[derive(Debug)]
struct Pending {
    remaining: u32,
    bad: u32,
    errno: i32,
    latency_ns: u64,
}

/// Sector re-reads of failed commands.
#[derive(Debug)]
pub struct Retries {
    sector: u64,
    block_size: u64,
    start: u64,
    queue: VecDeque<u64>,
    pending: BTreeMap<u64, Pending>,
}

impl Retries {
    pub fn new(start: u64, block_size: u64, sector: u64) -> Self {
        Retries {
            sector,
            block_size,
            start,
            queue: VecDeque::new(),
            pending: BTreeMap::new(),
        }
    }

    /// The next sector re-read to issue, if any.
    #[inline]
    pub fn next(&mut self) -> Option<Cmd> {
        let off = self.queue.pop_front()?;
        Some(Cmd {
            offset: off,
            len: self.sector as u32,
            tag: TAG_RETRY,
            write: false,
        })
    }

    pub fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.pending.is_empty()
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
    /// Completion latency of successful main commands.
    pub hist: Histogram,
    /// Submission latency of all main commands.
    pub submit_hist: Histogram,
    pub bands: Bands,
    pub series: Series,
    pub slow: Capped<Event>,
    pub failed: Capped<Event>,
    pub bytes: u64,
    pub commands: u64,
    pub failed_commands: u64,
    pub slow_ns: u64,
    pub sector: u64,
    pub retries: Retries,
    pub progress: Arc<Progress>,
}

impl Accum {
    pub fn new(
        start: u64,
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
            series: Series::new(interval_ns),
            slow: Capped::new(LIST_CAP),
            failed: Capped::new(LIST_CAP),
            bytes: 0,
            commands: 0,
            failed_commands: 0,
            slow_ns,
            sector,
            retries: Retries::new(start, block_size, sector),
            progress,
        }
    }

    /// Account a completion. Returns true for a successful main command.
    #[inline]
    pub fn record(&mut self, c: &Completion) -> bool {
        let lat = c.latency_ns();
        if c.cmd.tag == TAG_RETRY {
            if let Err(errno) = c.result {
                self.failed.push(Event {
                    offset: c.cmd.offset,
                    lba: c.cmd.offset / self.sector,
                    latency_ns: lat,
                    errno: Some(errno),
                });
            }
            if let Some(e) = self.retries.finish(c) {
                self.failed.push(e);
            }
            self.progress
                .failed
                .store(self.failed.total(), Ordering::Relaxed);
            return false;
        }
        self.commands += 1;
        self.submit_hist.record(c.submit_latency_ns());
        self.progress
            .commands
            .store(self.commands, Ordering::Relaxed);
        match c.result {
            Ok(n) => {
                self.bytes += n as u64;
                self.hist.record(lat);
                self.bands.record(lat);
                self.series.record(c.done_ns, n as u64, lat);
                if lat >= self.slow_ns {
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
                true
            }
            Err(errno) => {
                self.failed_commands += 1;
                self.bands.record_failed();
                self.series.record(c.done_ns, 0, lat);
                self.retries.schedule(c, errno);
                false
            }
        }
    }
}
