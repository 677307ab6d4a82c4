//! The full-surface scan: the range read in order, back to back, every command timed.

use super::accum::{Accum, Progress, TAG_MAIN};
use crate::engine::{Cmd, Completion, Job, Next};
use drivescope_stats::Curve;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Parameters of a scan over `[start, start + length)`.
#[derive(Debug, Clone, Copy)]
pub struct ScanParams {
    pub start: u64,
    pub length: u64,
    pub block_size: u64,
    pub sector: u64,
    pub points: usize,
    pub slow_ns: u64,
    pub interval_ns: u64,
    /// Write the range instead of reading it (the target must be writable).
    pub write: bool,
}

/// The sequential scan job.
pub struct SequentialScan {
    pub params: ScanParams,
    next_off: u64,
    end: u64,
    pub curve: Curve,
    pub acc: Accum,
}

impl SequentialScan {
    pub fn new(params: ScanParams, progress: Arc<Progress>) -> Self {
        let mut acc = Accum::new(
            params.start,
            params.block_size,
            params.sector,
            params.slow_ns,
            params.interval_ns,
            progress,
        );
        acc.retries.set_write(params.write);
        SequentialScan {
            next_off: params.start,
            end: params.start + params.length,
            curve: Curve::new(
                params.start,
                params.length,
                params.block_size,
                params.points,
            ),
            acc,
            params,
        }
    }

    /// Start at `offset` (a command boundary of the range) instead of the range's start: the
    /// continuation of an interrupted scan. The curve keeps the whole range's bins.
    pub fn starting_at(mut self, offset: u64) -> Self {
        debug_assert!((offset - self.params.start).is_multiple_of(self.params.block_size));
        self.next_off = offset.clamp(self.params.start, self.end);
        self.acc
            .progress
            .position
            .store(self.next_off - self.params.start, Ordering::Relaxed);
        self
    }

    /// Where the next main command would start (the resume point after a stop).
    pub fn next_offset(&self) -> u64 {
        self.next_off
    }
}

impl Job for SequentialScan {
    #[inline]
    fn next(&mut self, _now_ns: u64, in_flight: usize) -> Next {
        if self.acc.lost.is_some() {
            return if in_flight > 0 {
                Next::Wait
            } else {
                Next::Done
            };
        }
        if let Some(c) = self.acc.retries.next() {
            return Next::Issue(c);
        }
        if self.next_off < self.end {
            let len = (self.end - self.next_off).min(self.params.block_size);
            let c = Cmd {
                offset: self.next_off,
                len: len as u32,
                tag: TAG_MAIN,
                write: self.params.write,
            };
            self.next_off += len;
            Next::Issue(c)
        } else if in_flight > 0 || !self.acc.retries.is_idle() {
            Next::Wait
        } else {
            Next::Done
        }
    }

    #[inline]
    fn complete(&mut self, c: &Completion) {
        if c.cmd.tag != TAG_MAIN {
            self.acc.record(c);
            return;
        }
        if self.acc.record(c) {
            self.curve
                .record(c.cmd.offset, c.cmd.len as u64, c.issue_ns, c.done_ns);
        } else {
            self.curve
                .record_failed(c.cmd.offset, c.submit_ns, c.done_ns);
        }
        self.acc.progress.position.store(
            c.cmd.offset + c.cmd.len as u64 - self.params.start,
            Ordering::Relaxed,
        );
    }
}
