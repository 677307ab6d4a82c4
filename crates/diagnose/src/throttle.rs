//! The throttle experiment: after the warm-up stream's sustained reads fell by a lasting step, rest, then read
//! the same region again, from the same positions, until the rate falls again (or the time allowed runs out). A
//! device that reads fast again after the rest was throttled by its heat, not slowed for good; how long the rest
//! bought full speed for says how fast it cools.

use crate::experiments::Run;
use crate::stream::StreamSpec;
use drivescope_analysis::diagnose::throttle;
use drivescope_core::engine::{
    self, Completion, Engine, EngineConfig, EngineError, Job, Next, Reap,
};
use drivescope_record::{DiagnoseRecord, Experiment, StreamPoint, ThrottleData};
use std::time::Duration;

/// The rest is this share of the time the device took to throttle (a rest as long as that may cool it fully
/// and leave nothing to measure the cooling by).
const REST_SHARE: f64 = 0.5;
/// The shortest and the longest rest.
const REST: (Duration, Duration) = (Duration::from_secs(1), Duration::from_secs(15));
/// The read after the rest runs at most this many times the time to throttle, plus [`AFTER_FALL`].
const READ_SHARE: f64 = 1.5;
/// How long the read goes on past a second fall, to see that it lasts.
const AFTER_FALL: Duration = Duration::from_secs(1);

/// A job that issues nothing for a while: the device rests.
struct Rest {
    ns: u64,
    rested: bool,
}

impl Job for Rest {
    fn next(&mut self, _now_ns: u64, _in_flight: usize) -> Next {
        if self.rested {
            Next::Done
        } else {
            self.rested = true;
            Next::Pause(self.ns)
        }
    }
    fn complete(&mut self, _c: &Completion) {}
}

impl<E: Engine> Run<'_, '_, E> {
    /// Leave the device idle for `d` (counted on the run's clock).
    fn rest(&self, d: Duration) -> Result<(), EngineError> {
        let kind = engine::resolve(self.o.engine, self.target, 1)?;
        let cfg = EngineConfig {
            kind,
            queue_depth: 1,
            max_len: 4096,
            data: self.o.data,
            reap: Reap::Sleep,
        };
        let mut job = Rest {
            ns: d.as_nanos() as u64,
            rested: false,
        };
        self.dev
            .run(&cfg, 0x5EED, &self.dev.clock(), self.stop, &mut job)
    }

    pub(crate) fn throttle(&mut self, rec: &mut DiagnoseRecord) -> Result<(), EngineError> {
        let Some(w) = rec.warm_up.clone() else {
            Self::skip(
                rec,
                Experiment::Throttle,
                "no sustained reads were measured".into(),
            );
            return Ok(());
        };
        let curve = throttle::fastest_curve(&w);
        // Nothing to confirm: the outcome says there was no fall.
        let Some(fall) = throttle::stream_fall(&w, &curve) else {
            return Ok(());
        };
        let to_throttle = Duration::from_nanos(fall.step_ns);
        let rest = to_throttle.mul_f64(REST_SHARE).clamp(REST.0, REST.1);
        let read = to_throttle.mul_f64(READ_SHARE) + AFTER_FALL;
        if self.budget.left() < rest + read / 2 {
            Self::skip(
                rec,
                Experiment::Throttle,
                format!(
                    "too little budget left to rest {:.0} s and read again",
                    rest.as_secs_f64()
                ),
            );
            return Ok(());
        }
        (self.say)(
            Experiment::Throttle,
            &format!(
                "rest {:.0} s, then sequential reads again for up to {:.0} s",
                rest.as_secs_f64(),
                read.as_secs_f64()
            ),
        );
        self.rest(rest)?;
        let read = read.min(self.budget.left());
        let view = |points: &[StreamPoint], duration_ns| ThrottleData {
            block_size: w.block_size,
            queue_depth: w.queue_depth,
            region: w.region,
            idle_ns: rest.as_nanos() as u64,
            duration_ns,
            points: points.to_vec(),
        };
        // Enough once the rate has fallen again and stayed down a while.
        let mut enough = |points: &[StreamPoint]| {
            let t = points.last().map_or(0, |p| p.t_ns);
            throttle::recovery(&view(points, t), &curve, &fall)
                .and_then(|r| r.fell_after_ns)
                .is_some_and(|again| t >= again + AFTER_FALL.as_nanos() as u64)
        };
        let s = self.stream(
            StreamSpec {
                region: w.region,
                start: 0,
                block_size: w.block_size,
                queue_depth: w.queue_depth,
                write: false,
                stretch: w.region / drivescope_analysis::diagnose::stream::SLOTS,
                max_ns: read.as_nanos() as u64,
                max_bytes: u64::MAX,
            },
            &mut enough,
        )?;
        rec.throttle = Some(view(&s.points, s.duration_ns));
        Ok(())
    }
}
