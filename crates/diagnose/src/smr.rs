//! The SMR experiment: random writes over the region until the rate falls and stalls come (or the time given
//! ends), then idle time, then random writes again until they stall: a drive-managed SMR disk's media cache
//! fills, band cleaning stalls it, and idle time drains it.

use crate::experiments::Run;
use drivescope_analysis::diagnose::smr::{self as rules, STALL_MIN_NS};
use drivescope_core::engine::{
    self, Cmd, Completion, Engine, EngineConfig, EngineError, Job, Next, Reap,
};
use drivescope_record::{
    DiagnoseRecord, Experiment, RandomWrites, Skipped, SmrData, Stall, WritePoint, STALL_LIST_CAP,
};
use drivescope_units::{format_size, mb_per_s};
use std::time::Duration;

/// Command size of the random writes.
pub const BLOCK: u64 = 64 << 10;
/// A stretch closes once it holds this many bytes and has lasted [`STRETCH_NS`].
const STRETCH_BYTES: u64 = 1 << 20;
const STRETCH_NS: u64 = 25_000_000;
/// The least time the experiment starts with.
const LEAST: Duration = Duration::from_secs(5);

/// Random writes of [`BLOCK`] at queue depth 1 over `[0, region)` until `max_ns`, a stop, or `enough`.
struct RandomJob<'a> {
    blocks: u64,
    rng: u64,
    max_ns: u64,
    start_ns: Option<u64>,
    out: RandomWrites,
    cur_bytes: u64,
    cur_max: u64,
    last_t: u64,
    next_check_ns: u64,
    enough: &'a mut dyn FnMut(&RandomWrites) -> bool,
    done: bool,
}

impl RandomJob<'_> {
    fn close_stretch(&mut self, t_ns: u64) {
        if self.cur_bytes > 0 {
            let dt = t_ns.saturating_sub(self.last_t).max(1);
            self.out.points.push(WritePoint {
                t_ns,
                bytes: self.cur_bytes,
                mb_per_s: mb_per_s(self.cur_bytes, dt),
                max_latency_ns: self.cur_max,
            });
            self.last_t = t_ns;
        }
        self.cur_bytes = 0;
        self.cur_max = 0;
    }

    fn next_block(&mut self) -> u64 {
        // xorshift64: uniform enough, and no stride that would continue a stream a few commands back.
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng % self.blocks
    }
}

impl Job for RandomJob<'_> {
    fn next(&mut self, now_ns: u64, in_flight: usize) -> Next {
        let start = *self.start_ns.get_or_insert(now_ns);
        if !self.done && now_ns >= self.next_check_ns {
            self.next_check_ns = now_ns + 250_000_000;
            self.done = (self.enough)(&self.out);
        }
        if self.done || now_ns >= start.saturating_add(self.max_ns) {
            return if in_flight > 0 {
                Next::Wait
            } else {
                Next::Done
            };
        }
        Next::Issue(Cmd {
            offset: self.next_block() * BLOCK,
            len: BLOCK as u32,
            tag: 0,
            write: true,
        })
    }

    fn complete(&mut self, c: &Completion) {
        let t = c.done_ns.saturating_sub(self.start_ns.unwrap_or(0));
        // A bad spot is written around; the watch's lost-device rule ends the run.
        let Ok(n) = c.result else { return };
        let latency = c.latency_ns();
        if latency >= STALL_MIN_NS / 2 && self.out.stalls.len() < STALL_LIST_CAP {
            self.out.stalls.push(Stall {
                t_ns: t,
                written: self.out.written,
                latency_ns: latency,
            });
        }
        self.out.written += n as u64;
        self.out.commands += 1;
        self.out.duration_ns = self.out.duration_ns.max(t);
        self.cur_bytes += n as u64;
        self.cur_max = self.cur_max.max(latency);
        if self.cur_bytes >= STRETCH_BYTES && t.saturating_sub(self.last_t) >= STRETCH_NS {
            self.close_stretch(t);
        }
    }
}

/// Nothing for a while: the device idles.
struct Idle(Option<u64>);

impl Job for Idle {
    fn next(&mut self, _now_ns: u64, _in_flight: usize) -> Next {
        match self.0.take() {
            Some(ns) => Next::Pause(ns),
            None => Next::Done,
        }
    }
    fn complete(&mut self, _c: &Completion) {}
}

impl<E: Engine> Run<'_, '_, E> {
    fn config(&self) -> Result<EngineConfig, EngineError> {
        Ok(EngineConfig {
            kind: engine::resolve(self.o.engine, self.target, 1)?,
            queue_depth: 1,
            max_len: BLOCK as usize,
            data: self.o.data,
            reap: Reap::Sleep,
        })
    }

    /// Random writes over `[0, region)` for at most `max`, until `enough`.
    fn random_writes(
        &self,
        region: u64,
        seed: u64,
        max: Duration,
        enough: &mut dyn FnMut(&RandomWrites) -> bool,
    ) -> Result<RandomWrites, EngineError> {
        let cfg = self.config()?;
        let job = RandomJob {
            blocks: region / BLOCK,
            rng: seed | 1,
            max_ns: max.as_nanos() as u64,
            start_ns: None,
            out: RandomWrites::default(),
            cur_bytes: 0,
            cur_max: 0,
            last_t: 0,
            next_check_ns: 0,
            enough,
            done: false,
        };
        let mut watch = self.watch.borrow_mut();
        let mut job = watch.run(self.dev, &cfg, seed, self.stop, false, job)?;
        if let Some(e) = watch.lost_error() {
            return Err(e);
        }
        let end = job.out.duration_ns;
        job.close_stretch(end);
        Ok(job.out)
    }

    pub(crate) fn smr(&mut self, rec: &mut DiagnoseRecord) -> Result<(), EngineError> {
        let skip = |rec: &mut DiagnoseRecord, why: String| {
            rec.skipped.push(Skipped {
                experiment: Experiment::Smr,
                why,
            })
        };
        if !self.o.writes {
            skip(rec, self.o.no_writes_why.clone());
            return Ok(());
        }
        let region = self.o.size / BLOCK * BLOCK;
        let left = self.budget.left();
        if left < LEAST {
            skip(rec, "too little budget left for random writes".into());
            return Ok(());
        }
        let total = self.budget.total();
        let window = (total / 8).max(LEAST).min(left);
        let idle = (total / 30).clamp(Duration::from_secs(3), Duration::from_secs(60));
        (self.say)(
            Experiment::Smr,
            &format!(
                "random {} writes over {} for up to {:.0} s",
                format_size(BLOCK),
                format_size(region),
                window.as_secs_f64()
            ),
        );
        let fill = self.random_writes(region, 0x5EED, window, &mut |w| rules::settled(w, BLOCK))?;
        let mut data = SmrData {
            block_size: BLOCK,
            queue_depth: 1,
            region,
            stall_floor_ns: STALL_MIN_NS / 2,
            fill,
            idle_ns: None,
            again: None,
        };
        let fall = rules::fall(&data.fill, BLOCK).filter(|f| f.stalls());
        let left = self.budget.left();
        if let Some(f) = fall.filter(|_| left >= idle + Duration::from_secs(1)) {
            (self.say)(
                Experiment::Smr,
                &format!(
                    "stalls after {}: idle {:.0} s, then random writes again",
                    format_size(f.absorbed),
                    idle.as_secs_f64()
                ),
            );
            self.dev.run(
                &self.config()?,
                0,
                &self.dev.clock(),
                self.stop,
                &mut Idle(Some(idle.as_nanos() as u64)),
            )?;
            data.idle_ns = Some(idle.as_nanos() as u64);
            let cache = f.absorbed;
            let stall_ns = f.stall_ns;
            let max = window.min(self.budget.left());
            let again = self.random_writes(region, 0xA6A1, max, &mut |w| {
                w.written >= cache + cache / 2 || w.stalls.iter().any(|s| s.latency_ns >= stall_ns)
            })?;
            data.again = Some(again);
        }
        rec.smr = Some(data);
        Ok(())
    }
}
