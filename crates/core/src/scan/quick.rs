//! The quick scan: the range split into equal regions; at the head of each the job reads in
//! order for a dwell time. The first command of a region is issued alone, so its latency is
//! the seek into the region.

use super::accum::{Accum, Progress, TAG_MAIN};
use super::lost::Prober;
use crate::engine::{Cmd, Completion, Job, Next};
pub use drivescope_record::Region;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The stretches a quick scan's probes tell apart (see `lost`): a thousandth of the range.
const QUICK_STRETCHES: usize = 1000;

#[derive(Debug, Clone, Copy, Default)]
struct RegionAcc {
    /// Bytes of the commands after the first.
    bytes_after: u64,
    first_bytes: u64,
    first_done: u64,
    last_done: u64,
    first_ns: u64,
}

impl RegionAcc {
    /// Sustained rate after the seek in: bytes after the first command over the time from
    /// its completion to the last; the first command's own rate when it was alone.
    fn rate(&self) -> f64 {
        if self.bytes_after > 0 {
            crate::units::mb_per_s(self.bytes_after, self.last_done - self.first_done)
        } else {
            crate::units::mb_per_s(self.first_bytes, self.first_ns)
        }
    }
}

/// Parameters of a quick scan.
#[derive(Debug, Clone, Copy)]
pub struct QuickParams {
    pub start: u64,
    pub length: u64,
    pub regions: u32,
    pub block_size: u64,
    pub sector: u64,
    pub dwell_ns: u64,
    pub slow_ns: u64,
    pub interval_ns: u64,
}

/// The quick-scan job.
pub struct QuickScan {
    pub params: QuickParams,
    region: u32,
    region_start: u64,
    region_end: u64,
    next_off: u64,
    deadline: u64,
    first_pending: bool,
    acc_regions: Vec<RegionAcc>,
    pub acc: Accum,
}

impl QuickScan {
    pub fn new(params: QuickParams, progress: Arc<Progress>) -> Self {
        let mut q = QuickScan {
            region: 0,
            region_start: 0,
            region_end: 0,
            next_off: 0,
            deadline: 0,
            first_pending: false,
            acc_regions: vec![RegionAcc::default(); params.regions as usize],
            acc: Accum::new(
                params.start,
                Prober::new(params.start, params.length, params.sector, QUICK_STRETCHES),
                params.block_size,
                params.sector,
                params.slow_ns,
                params.interval_ns,
                progress,
            ),
            params,
        };
        q.enter(0, None);
        q
    }

    /// Start offset of region `i`, aligned down to the sector.
    pub fn region_offset(&self, i: u32) -> u64 {
        let p = &self.params;
        let raw = (p.length as u128 * i as u128 / p.regions as u128) as u64;
        p.start + raw / p.sector * p.sector
    }

    fn enter(&mut self, i: u32, now: Option<u64>) {
        self.region = i;
        if i < self.params.regions {
            self.region_start = self.region_offset(i);
            self.region_end = self.region_offset(i + 1).max(self.region_start);
            if i + 1 == self.params.regions {
                self.region_end = self.params.start + self.params.length;
            }
            self.next_off = self.region_start;
            self.deadline = now.map_or(u64::MAX, |n| n + self.params.dwell_ns);
            self.first_pending = true;
        }
    }

    pub fn regions(&self) -> Vec<Region> {
        self.acc_regions
            .iter()
            .enumerate()
            .take(self.region as usize + 1)
            .filter(|(_, r)| r.last_done > 0)
            .map(|(i, r)| Region {
                index: i as u32,
                offset: self.region_offset(i as u32),
                bytes: r.first_bytes + r.bytes_after,
                mb_per_s: r.rate(),
                first_ns: r.first_ns,
            })
            .collect()
    }
}

impl Job for QuickScan {
    fn next(&mut self, now_ns: u64, in_flight: usize) -> Next {
        // The device gone (the regions left are not read), or a probe due.
        if let Some(n) = self.acc.lost_or_probe(now_ns, in_flight) {
            return n;
        }
        if let Some(c) = self.acc.retries.next() {
            return Next::Issue(c);
        }
        if self.acc.retries.waiting() && in_flight > 0 {
            // Nothing new while a failure waits for its probe.
            return Next::Wait;
        }
        loop {
            if self.region >= self.params.regions {
                return if in_flight > 0 || !self.acc.retries.is_idle() {
                    Next::Wait
                } else if let Some(c) = self.acc.prober.last_check() {
                    Next::Issue(c)
                } else {
                    Next::Done
                };
            }
            if self.deadline == u64::MAX {
                self.deadline = now_ns + self.params.dwell_ns;
            }
            let expired = now_ns >= self.deadline || self.next_off >= self.region_end;
            if expired {
                if in_flight > 0 {
                    return Next::Wait;
                }
                self.enter(self.region + 1, Some(now_ns));
                continue;
            }
            if self.first_pending && in_flight > 0 {
                return Next::Wait;
            }
            let len = (self.region_end - self.next_off).min(self.params.block_size);
            let c = Cmd {
                offset: self.next_off,
                len: len as u32,
                tag: TAG_MAIN,
                write: false,
            };
            self.next_off += len;
            return Next::Issue(c);
        }
    }

    fn complete(&mut self, c: &Completion) {
        let ok = self.acc.record(c);
        if c.cmd.tag != TAG_MAIN {
            return;
        }
        let r = &mut self.acc_regions[self.region.min(self.params.regions - 1) as usize];
        let bytes = if ok { c.cmd.len as u64 } else { 0 };
        if self.first_pending {
            self.first_pending = false;
            r.first_ns = c.latency_ns();
            r.first_done = c.done_ns;
            r.first_bytes = bytes;
        } else {
            r.bytes_after += bytes;
        }
        r.last_done = r.last_done.max(c.done_ns);
        self.acc
            .progress
            .position
            .store(self.region as u64 + 1, Ordering::Relaxed);
    }
}
