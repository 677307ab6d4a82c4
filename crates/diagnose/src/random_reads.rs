//! The queueing experiment's timed random reads: commands of one size at uniformly drawn offsets over the region, at
//! one queue depth, for a time from the first command (as a bench test's `RND4K QnT1` reads), run under the
//! diagnosis's watch so that a bad spot is read around and counted, and only the lost-device rule ends them.

use crate::experiments::Run;
use drivescope_core::bench::watch::LaneWriter;
use drivescope_core::bench::{Access, Rw, TestSpec};
use drivescope_core::engine::{
    self, Cmd, Completion, Engine, EngineConfig, EngineError, Job, Next,
};
use drivescope_core::rng::Rng;
use drivescope_stats::Histogram;

/// What the reads did.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Timed {
    pub commands: u64,
    pub errors: u64,
    /// From the first command's issue to the last completion.
    pub duration_ns: u64,
}

impl Timed {
    /// Commands that read fine, per second.
    pub fn iops(&self) -> f64 {
        if self.duration_ns == 0 {
            0.0
        } else {
            (self.commands - self.errors) as f64 * 1e9 / self.duration_ns as f64
        }
    }
}

struct RandomReads {
    block_size: u64,
    blocks: u64,
    rng: Rng,
    duration_ns: u64,
    first_ns: Option<u64>,
    last_done_ns: u64,
    out: Timed,
    hist: Histogram,
    bytes: u64,
    lane: Option<LaneWriter>,
}

impl RandomReads {
    fn publish(&self) {
        if let Some(l) = &self.lane {
            l.publish(self.bytes, self.out.commands, self.out.errors, &self.hist);
        }
    }
}

impl Job for RandomReads {
    fn next(&mut self, now_ns: u64, in_flight: usize) -> Next {
        let first = *self.first_ns.get_or_insert(now_ns);
        if now_ns >= first.saturating_add(self.duration_ns) {
            return if in_flight > 0 {
                Next::Wait
            } else {
                Next::Done
            };
        }
        Next::Issue(Cmd {
            offset: self.rng.below(self.blocks) * self.block_size,
            len: self.block_size as u32,
            tag: 0,
            write: false,
        })
    }

    fn complete(&mut self, c: &Completion) {
        self.out.commands += 1;
        self.last_done_ns = self.last_done_ns.max(c.done_ns);
        let lat = c.latency_ns();
        match c.result {
            Ok(n) => {
                self.bytes += u64::from(n);
                self.hist.record(lat);
            }
            Err(_) => self.out.errors += 1,
        }
        if let Some(l) = &mut self.lane {
            l.command(c.result.is_ok(), lat);
        }
        if self.lane.as_mut().is_some_and(|l| l.due(c.done_ns)) {
            self.publish();
        }
    }
}

impl<E: Engine> Run<'_, '_, E> {
    /// Random reads of `block_size` over `[0, region)` at `queue_depth` for `duration_ns`, offsets drawn from
    /// `seed`. Only a read at queue depth 1 is judged slow or not: deeper, its time is mostly the queue's.
    pub(crate) fn random_reads(
        &self,
        block_size: u64,
        queue_depth: u32,
        region: u64,
        duration_ns: u64,
        seed: u64,
    ) -> Result<Timed, EngineError> {
        let kind = engine::resolve(self.o.engine, self.target, queue_depth as usize)?;
        let cfg = EngineConfig {
            kind,
            queue_depth: queue_depth as usize,
            max_len: block_size as usize,
            data: self.o.data,
            reap: engine::resolve_reap(engine::Reap::Auto, kind, queue_depth as usize, 1),
        };
        if let Some(w) = self.o.watch {
            let spec = TestSpec {
                access: Access::Rnd,
                block_size,
                queue_depth,
                threads: 1,
            };
            w.begin(format!("{} {}", spec.name(), Rw::Read.label()));
        }
        let job = RandomReads {
            block_size,
            blocks: (region / block_size).max(1),
            rng: Rng::new(seed),
            duration_ns,
            first_ns: None,
            last_done_ns: 0,
            out: Timed::default(),
            hist: Histogram::new(),
            bytes: 0,
            lane: self.o.watch.map(|w| LaneWriter::new(w.lane(0))),
        };
        let mut watch = self.watch.borrow_mut();
        let job = watch.run(self.dev, &cfg, seed, self.stop, queue_depth == 1, job)?;
        job.publish();
        if let Some(e) = watch.lost_error() {
            return Err(e);
        }
        let mut out = job.out;
        out.duration_ns = job
            .first_ns
            .map_or(0, |f| job.last_done_ns.saturating_sub(f));
        Ok(out)
    }
}
