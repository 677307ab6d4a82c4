//! The timed I/O job of a bench test: sequential or random commands over a region, reads,
//! writes or a mix, until a deadline. One per worker thread.

use super::pattern::{Access, Rw};
use crate::engine::{Cmd, Completion, Job, Next};
use crate::rng::Rng;
use drivescope_stats::{Histogram, Series};

/// What one worker accumulated.
pub struct WorkerStats {
    pub hist: Histogram,
    pub submit_hist: Histogram,
    /// Completion latency alone (fio's clat): `hist` holds the whole command time.
    pub clat_hist: Histogram,
    pub bytes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub commands: u64,
    pub errors: u64,
    pub first_errno: Option<i32>,
    /// When the worker issued its first command (its run starts there).
    pub first_issue_ns: Option<u64>,
    pub last_done_ns: u64,
    pub series: Option<Series>,
    pub cpu_ns: u64,
    /// Where a sequential stream stood at the end, in blocks from the slice's start.
    pub next_block: u64,
}

/// What a worker's job does: `access` over `[lo, lo + len)` (len a multiple of `block_size`)
/// for `duration_ns` from its first command, its random offsets drawn from `seed`, a time
/// series at `series_interval_ns` when asked.
#[derive(Debug, Clone, Copy)]
pub struct JobSpec {
    pub access: Access,
    pub rw: Rw,
    pub block_size: u64,
    pub lo: u64,
    pub len: u64,
    pub duration_ns: u64,
    pub seed: u64,
    pub series_interval_ns: Option<u64>,
}

/// A worker's job.
pub struct IoJob<'c> {
    access: Access,
    rw: Rw,
    block_size: u64,
    lo: u64,
    blocks: u64,
    next_block: u64,
    duration_ns: u64,
    deadline_ns: u64,
    series_interval_ns: Option<u64>,
    rng: Rng,
    pub stats: WorkerStats,
    /// This worker's live counters, when a view watches the run.
    pub lane: Option<super::watch::LaneWriter>,
    /// This worker's part in a soak's checkpoints, when it takes them.
    pub(crate) cut: Option<super::cut::CutHandle<'c>>,
}

impl IoJob<'_> {
    /// The job `spec` describes. A sequential job starts at the region's start and wraps around.
    pub fn new(spec: JobSpec) -> Self {
        let JobSpec {
            access,
            rw,
            block_size,
            lo,
            len,
            duration_ns,
            seed,
            series_interval_ns,
        } = spec;
        IoJob {
            access,
            rw,
            block_size,
            lo,
            blocks: (len / block_size).max(1),
            next_block: 0,
            duration_ns,
            deadline_ns: u64::MAX,
            series_interval_ns,
            rng: Rng::new(seed),
            lane: None,
            cut: None,
            stats: WorkerStats {
                hist: Histogram::new(),
                submit_hist: Histogram::new(),
                clat_hist: Histogram::new(),
                bytes: 0,
                read_bytes: 0,
                write_bytes: 0,
                commands: 0,
                errors: 0,
                first_errno: None,
                first_issue_ns: None,
                last_done_ns: 0,
                series: None,
                cpu_ns: 0,
                next_block: 0,
            },
        }
    }
}

impl Job for IoJob<'_> {
    #[inline]
    fn next(&mut self, now_ns: u64, in_flight: usize) -> Next {
        if self.stats.first_issue_ns.is_none() {
            self.stats.first_issue_ns = Some(now_ns);
            self.deadline_ns = now_ns.saturating_add(self.duration_ns);
            self.stats.series = self
                .series_interval_ns
                .map(|i| Series::starting_at(now_ns, i).with_cap(super::soak::SERIES_MAX_POINTS));
        }
        if now_ns >= self.deadline_ns {
            return if in_flight > 0 {
                Next::Wait
            } else {
                Next::Done
            };
        }
        let block = match self.access {
            Access::Seq => {
                let b = self.next_block;
                self.next_block = if b + 1 >= self.blocks { 0 } else { b + 1 };
                b
            }
            Access::Rnd => self.rng.below(self.blocks),
        };
        let write = match self.rw {
            Rw::Read => false,
            Rw::Write => true,
            Rw::Mix(read_pct) => self.rng.below(100) >= read_pct as u64,
        };
        Next::Issue(Cmd {
            offset: self.lo + block * self.block_size,
            len: self.block_size as u32,
            tag: 0,
            write,
        })
    }

    #[inline]
    fn complete(&mut self, c: &Completion) {
        if let Some(cut) = self.cut.as_mut() {
            cut.before(&mut self.stats, self.next_block, c.done_ns);
        }
        let s = &mut self.stats;
        s.commands += 1;
        s.last_done_ns = s.last_done_ns.max(c.done_ns);
        s.submit_hist.record(c.submit_latency_ns());
        s.clat_hist.record(c.completion_latency_ns());
        match c.result {
            Ok(n) => {
                let lat = c.latency_ns();
                s.bytes += n as u64;
                if c.cmd.write {
                    s.write_bytes += n as u64;
                } else {
                    s.read_bytes += n as u64;
                }
                s.hist.record(lat);
                if let Some(series) = s.series.as_mut() {
                    series.record(c.done_ns, n as u64, lat);
                }
                if let Some(l) = &mut self.lane {
                    l.command(true, lat);
                }
            }
            Err(e) => {
                s.errors += 1;
                s.first_errno.get_or_insert(e);
                if let Some(l) = &mut self.lane {
                    l.command(false, c.latency_ns());
                }
            }
        }
        if self.lane.as_mut().is_some_and(|l| l.due(c.done_ns)) {
            self.publish();
        }
    }
}

impl IoJob<'_> {
    /// A sequential job continues its stream at `block` (blocks from its slice's start).
    pub fn start_at_block(&mut self, block: u64) {
        self.next_block = block % self.blocks;
    }

    /// Where a sequential job's stream stands, in blocks from its slice's start.
    pub fn next_block(&self) -> u64 {
        self.next_block
    }

    /// Publish the run's counts so far to the live view's lane, if one watches.
    pub fn publish(&self) {
        if let Some(l) = &self.lane {
            let s = &self.stats;
            l.publish(s.bytes, s.commands, s.errors, &s.hist);
        }
    }
}

/// CPU time of the calling thread, nanoseconds.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes one timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
