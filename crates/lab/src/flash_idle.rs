//! The host idle recovery procedure on a lab flash drive's virtual clock: what a correct
//! instrument must measure. After the PTS preconditioning and rounds of random writes, for each
//! wait state, bursts of random writes each followed by an idle time (during which the drive's
//! collector cleans ahead once `idle_after` has passed), then continuous writes back to the
//! baseline. A host that adds no time of its own keeps the queue full during each burst.

use crate::flash_served::Procedure;
use crate::model::Model;
use crate::timing::{Op, Timeline};

/// The bursts' plan (the record's `IdleRecovery` without its results).
#[derive(Debug, Clone)]
pub struct IdlePlan {
    pub burst_ns: u64,
    pub idle_unit_ns: u64,
    pub cycles: u32,
    pub baseline_ns: u64,
    pub wait_states: Vec<u32>,
}

/// What the procedure gives.
#[derive(Debug, Clone, PartialEq)]
pub struct IdleTruth {
    /// Each round's IOPS before the bursts.
    pub rounds: Vec<f64>,
    /// Each wait state's mean burst IOPS, in order.
    pub burst_iops: Vec<f64>,
}

/// A host keeping `qd` random writes of `block` in flight.
struct Host<'a> {
    t: Timeline,
    ring: Vec<u64>,
    i: usize,
    rng: drivescope_core::rng::Rng,
    blocks: u64,
    block: u64,
    model: &'a Model,
}

impl Host<'_> {
    fn issue(&mut self, offset: u64, len: u64, not_before: u64) -> u64 {
        let k = self.i % self.ring.len();
        let done = self
            .t
            .schedule(Op::Write, offset, len, self.ring[k].max(not_before))
            .done_ns;
        self.ring[k] = done;
        self.i += 1;
        done
    }

    /// When the last command in flight is done.
    fn drained(&self) -> u64 {
        self.ring.iter().copied().max().unwrap_or(0)
    }

    /// Random writes from `begin` for `ns`: the commands completed within it.
    fn writes(&mut self, begin: u64, ns: u64) -> u64 {
        let end = begin + ns;
        let mut done_in = 0;
        loop {
            let off = self.rng.below(self.blocks) * self.block;
            if self.issue(off, self.block, begin) >= end {
                return done_in;
            }
            done_in += 1;
        }
    }
}

/// The procedure of the module docs on `model`, from a fresh drive: `p`'s preconditioning and
/// rounds, then `plan`'s wait states.
pub fn idle_recovery(model: &Model, p: &Procedure, plan: &IdlePlan) -> IdleTruth {
    let mut h = Host {
        t: Timeline::new(model),
        ring: vec![0; p.queue_depth.max(1) as usize],
        i: 0,
        rng: drivescope_core::rng::Rng::new(p.seed),
        blocks: (model.size / p.block).max(1),
        block: p.block,
        model,
    };
    let chunk = 128u64 << 10;
    for _ in 0..p.precondition_passes {
        let mut off = 0;
        while off < h.model.size {
            let len = chunk.min(h.model.size - off);
            h.issue(off, len, 0);
            off += len;
        }
    }
    let mut now = h.drained();
    let mut rounds = Vec::with_capacity(p.rounds);
    for _ in 0..p.rounds {
        let n = h.writes(now, p.round_ns);
        rounds.push(n as f64 * 1e9 / p.round_ns as f64);
        now += p.round_ns;
    }
    now = h.drained();
    let mut burst_iops = Vec::with_capacity(plan.wait_states.len());
    for &ws in &plan.wait_states {
        let mut sum = 0.0;
        for _ in 0..plan.cycles {
            let n = h.writes(now, plan.burst_ns);
            sum += n as f64 * 1e9 / plan.burst_ns as f64;
            now = h.drained() + ws as u64 * plan.idle_unit_ns;
        }
        burst_iops.push(sum / plan.cycles.max(1) as f64);
        h.writes(now, plan.baseline_ns);
        now = h.drained();
    }
    IdleTruth { rounds, burst_iops }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(idle_after: &str) -> Model {
        let text = format!(
            "name='f'\nsize='32M'\nzones={{rates_mb_s=[20]}}\noverhead='20us'\n\
             flash={{page='4K',block='256K',spare=0.25,idle_after='{idle_after}'}}\n"
        );
        Model::from_toml_str(&text, "test").unwrap()
    }

    fn run(m: &Model) -> IdleTruth {
        let p = Procedure {
            precondition_passes: 2,
            block: 4096,
            queue_depth: 32,
            round_ns: 1_000_000_000,
            rounds: 12,
            seed: 5,
        };
        let plan = IdlePlan {
            burst_ns: 100_000_000,
            idle_unit_ns: 100_000_000,
            cycles: 3,
            baseline_ns: 300_000_000,
            wait_states: vec![1, 2, 3, 5, 10],
        };
        idle_recovery(m, &p, &plan)
    }

    /// Bursts after idle times past `idle_after` run above the steady rate, more so the longer
    /// the rest, up to the fresh rate; a drive whose collector waits an hour runs every burst alike.
    #[test]
    fn idle_time_past_idle_after_lifts_the_bursts_and_none_without_it() {
        let cleans = run(&model("100ms"));
        let steady = cleans.rounds[cleans.rounds.len() - 5..].iter().sum::<f64>() / 5.0;
        let r: Vec<f64> = cleans.burst_iops.iter().map(|b| b / steady).collect();
        // WS1 rests no longer than `idle_after`; from WS3 on the rest frees more than a burst
        // uses, and the bursts run at the fresh rate.
        assert!(r[0] < 1.2, "{r:?}");
        assert!(r[1] > r[0] * 1.2 && r[2] > r[1] * 1.2, "{r:?}");
        assert!(r[4] > 1.5, "{r:?}");
        let never = run(&model("1h"));
        let steady = never.rounds[never.rounds.len() - 5..].iter().sum::<f64>() / 5.0;
        let r: Vec<f64> = never.burst_iops.iter().map(|b| b / steady).collect();
        // Bursts from a drained queue run a little above the rounds' rate, the same after every rest.
        assert!(r.iter().all(|x| (x - 1.0).abs() < 0.15), "{r:?}");
        let (lo, hi) = r
            .iter()
            .fold((f64::MAX, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
        assert!(hi / lo < 1.1, "{r:?}");
    }
}
