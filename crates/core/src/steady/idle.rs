//! The PTS host idle recovery test, after the rounds have brought the drive to steady state with
//! random 4 KiB writes: for each wait state, bursts of those writes each followed by an idle time
//! of the wait state × the idle unit, then writes without a pause to bring the drive back to its
//! baseline. A drive whose collector cleans ahead while idle runs its bursts above the steady
//! rate, more so the longer it rested; one that does not, at it.
//!
//! The specification's bursts are 5 s, its idle unit 5 s, its wait states 1, 2, 3, 5 and 10, each
//! 360 bursts long and followed by 1800 s of writes. Here the burst is the cell time ÷ 12 (5 s of
//! the specification's 60 s), the idle unit one burst, and the return to the baseline as long as
//! a wait state's bursts (360 × 5 s = 1800 s): a shorter `--round-time` scales them all.

use crate::bench::{run_once_on, Access, Rw, TestSpec};
use crate::engine::{Completion, Engine, EngineConfig, EngineError, Job, Next};
use crate::target::Target;
use drivescope_record::{IdleBurst, IdleRecovery, IdleSegment, SteadyRecord};
use drivescope_units::format_duration;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The specification's wait states (idle time in idle units).
pub const SPEC_WAIT_STATES: [u32; 5] = [1, 2, 3, 5, 10];
/// The specification's bursts per wait state.
pub const SPEC_CYCLES: u32 = 360;
/// Bursts per cell time (5 s of 60 s).
pub const BURSTS_PER_CELL: u32 = 12;

/// The test's plan for cells of `cell_time` and `cycles` bursts per wait state (no segments run).
pub fn plan(cell_time: Duration, cycles: u32) -> IdleRecovery {
    let burst = (cell_time / BURSTS_PER_CELL).as_nanos() as u64;
    IdleRecovery {
        burst_ns: burst,
        idle_unit_ns: burst,
        cycles: cycles.max(1),
        baseline_ns: burst * cycles.max(1) as u64,
        wait_states: SPEC_WAIT_STATES.to_vec(),
        baseline_iops: 0.0,
        segments: Vec::new(),
    }
}

/// Whether every wait state has run.
pub fn finished(h: &IdleRecovery) -> bool {
    h.segments.len() >= h.wait_states.len()
}

/// Nothing issued for `ns`, then done: the device rests (a virtual clock moves on at once).
struct Rest {
    ns: u64,
    rested: bool,
}

impl Job for Rest {
    fn next(&mut self, _now: u64, _in_flight: usize) -> Next {
        if self.rested {
            Next::Done
        } else {
            self.rested = true;
            Next::Pause(self.ns)
        }
    }

    fn complete(&mut self, _c: &Completion) {}
}

fn rest<E: Engine>(
    dev: &E,
    target: &Target,
    ns: u64,
    stop: &AtomicBool,
) -> Result<(), EngineError> {
    let kind = crate::engine::resolve(crate::engine::EngineKind::Auto, target, 1)?;
    let cfg = EngineConfig {
        kind,
        queue_depth: 1,
        max_len: 4096,
        data: crate::engine::DataPattern::Zero,
        reap: crate::engine::Reap::Sleep,
    };
    let clock = dev.clock();
    dev.run(&cfg, 0, &clock, stop, &mut Rest { ns, rested: false })
}

/// Runs the wait states not yet run of `rec.idle_recovery` (a snapshot through `save` after
/// each); stops between bursts when `stop` is set, leaving the wait state it was in to run again.
pub fn run<E: Engine>(
    dev: &E,
    target: &Target,
    o: &super::SteadyOptions,
    rec: &mut SteadyRecord,
    save: &mut dyn FnMut(&SteadyRecord),
    stop: &AtomicBool,
) -> Result<(), EngineError> {
    let Some(h) = rec.idle_recovery.as_mut() else {
        return Ok(());
    };
    if h.segments.is_empty() {
        h.baseline_iops = rec
            .steady_value
            .unwrap_or_else(|| rec.rounds.last().map_or(0.0, |r| r.tracked));
    }
    let plan = h.clone();
    let spec = TestSpec {
        access: Access::Rnd,
        block_size: super::TRACKED.block_size,
        queue_depth: o.queue_depth,
        threads: o.threads,
    };
    let writes = |dur: u64, seed: u64| {
        let mut opts = o.common.run_options(Duration::from_nanos(dur), None);
        opts.seed = o.common.seed.wrapping_add(seed);
        run_once_on(dev, target, &spec, Rw::Write, &opts, stop)
    };
    let mut elapsed = plan.segments.last().map_or(0, |s| s.end_ns);
    for (k, &ws) in plan
        .wait_states
        .iter()
        .enumerate()
        .skip(plan.segments.len())
    {
        let idle_ns = ws as u64 * plan.idle_unit_ns;
        let mut bursts = Vec::with_capacity(plan.cycles as usize);
        let n = plan.wait_states.len();
        let at = |what: &str| format!("idle recovery WS{ws} ({} of {n}): {what}", k + 1);
        for b in 0..plan.cycles {
            let burst = format!("burst {} of {}", b + 1, plan.cycles);
            super::tell(o, None, at(&burst));
            let r = writes(
                plan.burst_ns,
                (0x1D1E << 32) + ((k as u64) << 20) + b as u64,
            )?;
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            bursts.push(IdleBurst {
                at_ns: elapsed,
                iops: r.iops(),
                bytes_written: r.write_bytes,
            });
            let idle = format!("idle {} after {burst}", format_duration(idle_ns));
            super::tell(o, Some("idle (no commands)"), at(&idle));
            rest(dev, target, idle_ns, stop)?;
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            elapsed += r.duration_ns + idle_ns;
        }
        super::tell(o, None, at("writes back to the baseline"));
        let base = writes(plan.baseline_ns, (0xBA5E << 32) + k as u64)?;
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        elapsed += base.duration_ns;
        let mean = bursts.iter().map(|b| b.iops).sum::<f64>() / bursts.len().max(1) as f64;
        let h = rec.idle_recovery.as_mut().expect("planned");
        let recovery = if h.baseline_iops > 0.0 {
            mean / h.baseline_iops
        } else {
            0.0
        };
        h.segments.push(IdleSegment {
            wait_state: ws,
            idle_ns,
            bursts,
            mean_iops: mean,
            recovery,
            baseline_after_iops: base.iops(),
            end_ns: elapsed,
        });
        save(rec);
    }
    Ok(())
}
