//! The full-surface scan: the range read (or written) in order, back to back, every command
//! timed; what fails is dealt with in passes after the first (see `passes`).

use super::accum::{Accum, Progress, TAG_AGAIN, TAG_GAP, TAG_MAIN, TAG_PROBE, TAG_RETRY};
use super::lost::Prober;
use super::passes::{PassParams, Passes};
use crate::engine::{Completion, Job, Next};
use drivescope_record::{ErrorBudget, Pass};
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
    /// Time for scraping and retries after the first pass and trimming.
    pub budget: ErrorBudget,
    /// Passes over the failed sectors, within the budget.
    pub retries: u32,
}

/// The sequential scan job.
pub struct SequentialScan {
    pub params: ScanParams,
    pub passes: Passes,
    pub curve: Curve,
    pub acc: Accum,
    /// This run's clock when the job last saw it.
    now_ns: u64,
    /// Where the last command of the later passes ended and when, while nothing else came
    /// between.
    run_end: Option<(u64, u64)>,
}

impl SequentialScan {
    pub fn new(params: ScanParams, progress: Arc<Progress>) -> Self {
        let acc = Accum::new(
            params.start,
            Prober::new(params.start, params.length, params.sector, params.points),
            params.block_size,
            params.sector,
            params.slow_ns,
            params.interval_ns,
            progress,
        );
        SequentialScan {
            passes: Passes::new(PassParams {
                start: params.start,
                end: params.start + params.length,
                block_size: params.block_size,
                sector: params.sector,
                write: params.write,
                budget: params.budget,
                retries: params.retries,
            }),
            curve: Curve::new(
                params.start,
                params.length,
                params.block_size,
                params.points,
            ),
            acc,
            params,
            now_ns: 0,
            run_end: None,
        }
    }

    /// Start the first pass at `offset` (a command boundary of the range) instead of the
    /// range's start: the continuation of an interrupted scan. The curve keeps the whole
    /// range's bins.
    pub fn starting_at(mut self, offset: u64) -> Self {
        let end = self.params.start + self.params.length;
        debug_assert!(
            offset >= end || (offset - self.params.start).is_multiple_of(self.params.block_size)
        );
        self.passes.next_off = offset.clamp(self.params.start, end);
        self.acc
            .progress
            .position
            .store(self.passes.next_off - self.params.start, Ordering::Relaxed);
        self
    }

    /// Where the first pass's next command would start (the resume point after a stop).
    pub fn next_offset(&self) -> u64 {
        self.passes.next_off
    }

    /// Whether the scan got to the end of every pass.
    pub fn finished(&self) -> bool {
        self.passes.finished() && self.acc.lost.is_none()
    }

    fn set_pass(&self) {
        let n = match self.passes.pass {
            Pass::First => 0,
            Pass::Trim => 1,
            Pass::Scrape => 2,
            Pass::Retry => 3,
            Pass::Done => 4,
        };
        self.acc.progress.pass.store(n, Ordering::Relaxed);
    }
}

impl Job for SequentialScan {
    #[inline]
    fn next(&mut self, now_ns: u64, in_flight: usize) -> Next {
        self.now_ns = now_ns;
        if let Some(n) = self.acc.lost_or_probe(now_ns, in_flight) {
            return n;
        }
        if self.passes.pass == Pass::First {
            // Nothing new while a failure waits for its probe: the probe decides whether the
            // device is still there.
            if !self.passes.awaiting() {
                if let Some(c) = self.passes.first() {
                    return Next::Issue(c);
                }
            }
            if in_flight > 0 || self.passes.awaiting() {
                return Next::Wait;
            }
            self.passes.first_done(now_ns);
        }
        // After the first pass, one command at a time.
        if in_flight > 0 || self.passes.awaiting() {
            return Next::Wait;
        }
        let c = self.passes.later(now_ns);
        self.set_pass();
        match c.or_else(|| self.acc.prober.last_check()) {
            Some(c) => Next::Issue(c),
            None => Next::Done,
        }
    }

    #[inline]
    fn complete(&mut self, c: &Completion) {
        self.now_ns = self.now_ns.max(c.done_ns);
        if c.cmd.tag != TAG_MAIN || c.result.is_err() {
            // Time on errors: everything but the first pass's good reads.
            self.acc.error_ns = self.acc.error_ns.saturating_add(c.latency_ns());
            if let (TAG_GAP, Ok(n)) = (c.cmd.tag, c.result) {
                self.acc.error_bytes += u64::from(n);
            }
        }
        match c.cmd.tag {
            TAG_MAIN => {
                if self.acc.command(c) {
                    if self.passes.jumped_to == Some(c.cmd.offset) {
                        // The first command after a skip: its time holds the jump.
                        self.curve
                            .record_unpaced(c.cmd.offset, c.cmd.len as u64, c.latency_ns());
                    } else {
                        self.curve
                            .record(c.cmd.offset, c.cmd.len as u64, c.issue_ns, c.done_ns);
                    }
                } else {
                    self.curve
                        .record_failed(c.cmd.offset, c.submit_ns, c.done_ns);
                }
                self.passes.first_completed(c, &mut self.acc);
                self.acc.progress.position.store(
                    (c.cmd.offset + c.cmd.len as u64 - self.params.start)
                        .max(self.acc.progress.position.load(Ordering::Relaxed)),
                    Ordering::Relaxed,
                );
            }
            TAG_GAP => {
                let ok = self.acc.command(c);
                // A command that continues a run of them is busy from the last one's end, as
                // in the first pass (a drive reads ahead while the host turns around); the
                // first of a run follows a jump.
                let (off, len, lat) = (c.cmd.offset, c.cmd.len as u64, c.latency_ns());
                match self.run_end {
                    Some((end, done)) if ok && end == off => {
                        let busy = c.done_ns.saturating_sub(done);
                        self.curve.record_apart(off, len, busy, lat, true);
                    }
                    _ if ok => self.curve.record_unpaced(off, len, lat),
                    _ => self.curve.record_apart(off, 0, lat, lat, false),
                }
                self.run_end = ok.then_some((c.cmd.offset + c.cmd.len as u64, c.done_ns));
                self.passes.gap_completed(c, &mut self.acc);
            }
            TAG_PROBE => {
                self.run_end = None;
                self.passes.probed(c, &mut self.acc)
            }
            TAG_RETRY | TAG_AGAIN => {
                self.run_end = None;
                self.acc.gone(c);
                if c.result.is_ok() {
                    self.acc.prober.present();
                }
                if c.cmd.tag == TAG_RETRY {
                    self.passes.sector_completed(c, &mut self.acc);
                } else {
                    self.passes.retry_completed(c, &mut self.acc);
                }
            }
            _ => {}
        }
        if self.acc.lost.is_some() {
            self.passes.clear();
            self.acc.prober.clear();
        }
    }
}
