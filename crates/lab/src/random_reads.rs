//! Expected random-read rates (IOPS) of a model at a queue depth, for the ground truth.
//!
//! A queueing disk that reorders its queue by position has no closed form at depth > 1, so the
//! expectation is a deterministic simulation on the same [`Timeline`] the emulator serves with:
//! `qd` commands always outstanding (a new one is submitted the moment one completes, no host
//! round trip), `block`-sized reads at offsets drawn uniformly from the whole disk in `block`
//! steps (SplitMix64, fixed seed), warm-up removed, the first [`WARM_COMMANDS`] completions
//! discarded (caches fill, the queue settles), then [`MEASURED_COMMANDS`] timed.
//!
//! At QD1 the same number follows in closed form (see [`random_qd1_iops`]); a unit test holds the
//! simulation to it.

use crate::model::Model;
use crate::timing::{media_ns, xfer_ns, Op, Timeline};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Completions discarded before timing.
pub const WARM_COMMANDS: u64 = 2_000;
/// Completions timed.
pub const MEASURED_COMMANDS: u64 = 20_000;
/// Seed of the simulated offsets.
const OFFSET_SEED: u64 = 0x5EED_4B1D;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Expected IOPS of uniformly random `block` reads over the whole disk with `qd` commands
/// always outstanding (the simulation described above).
pub fn random_read_iops(model: &Model, block: u64, qd: u32) -> f64 {
    let mut model = model.clone();
    model.warmup = None;
    let blocks = (model.size / block).max(1);
    let mut rng = OFFSET_SEED;
    let mut next_offset = move || (splitmix(&mut rng) % blocks) * block;
    let mut tl = Timeline::new(&model);
    let mut inflight: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
    let mut now = 0u64;
    for _ in 0..qd.max(1) {
        tl.submit(Op::Read, next_offset(), block, now);
    }
    let (mut completed, mut begin) = (0u64, 0u64);
    loop {
        for d in tl.advance(now) {
            inflight.push(Reverse(d.outcome.done_ns.max(now)));
        }
        let done = inflight.peek().map(|r| r.0);
        let next = match (done, tl.next_decision()) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).expect("commands are outstanding"),
        };
        now = next.max(now);
        while inflight.peek().is_some_and(|r| r.0 <= now) {
            inflight.pop();
            completed += 1;
            if completed == WARM_COMMANDS {
                begin = now;
            }
            if completed == WARM_COMMANDS + MEASURED_COMMANDS {
                return MEASURED_COMMANDS as f64 * 1e9 / (now - begin).max(1) as f64;
            }
            tl.submit(Op::Read, next_offset(), block, now);
        }
    }
}

/// Closed form of the QD1 rate of uniformly random `block` reads on a model without caches or
/// spots: one command takes `overhead + E[seek] + E[rotation] + E[max(media, bytes / cap)]`,
/// with `E[seek] = min + (max - min) · 8/15` (the mean of `sqrt(|x - y|)` for `x`, `y` uniform
/// on `[0, 1]`), `E[rotation]` half a revolution, and the transfer averaged over positions.
pub fn random_qd1_iops(model: &Model, block: u64) -> f64 {
    let layout = model.zone_layout().expect("validated model");
    let seek = model.seek.as_ref().map_or(0.0, |s| {
        s.min_ns as f64 + (s.max_ns - s.min_ns) as f64 * 8.0 / 15.0
    });
    let rotation = model.rotation.as_ref().map_or(0.0, |r| 30e9 / r.rpm);
    let samples = 4096u64;
    let blocks = (model.size / block).max(1);
    let xfer = (0..samples)
        .map(|i| {
            let o = (i * blocks / samples) * block;
            let media = media_ns(model, &layout, o, block);
            model
                .interface_mb_s
                .map_or(media, |cap| media.max(xfer_ns(block, cap)))
        })
        .sum::<f64>()
        / samples as f64;
    1e9 / (model.overhead_ns as f64 + seek + rotation + xfer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk(queue: &str) -> Model {
        Model::from_toml_str(
            &format!(
                "name='d'\nsize='256M'\nzones={{count=8,outer_mb_s=200,inner_mb_s=100}}\n\
                 overhead='15us'\nseek={{min='0.8ms',max='16ms'}}\nrotation={{rpm=7200}}\n\
                 queue={queue}\n"
            ),
            "test",
        )
        .unwrap()
    }

    #[test]
    fn the_qd1_simulation_agrees_with_the_closed_form() {
        for q in ["{mode='serial'}", "{mode='parallel',depth=32}"] {
            let m = disk(q);
            let sim = random_read_iops(&m, 4096, 1);
            let formula = random_qd1_iops(&m, 4096);
            assert!(
                (sim / formula - 1.0).abs() < 0.02,
                "{q}: {sim} vs {formula}"
            );
        }
    }

    #[test]
    fn a_reordering_disk_gains_from_depth_a_serial_one_does_not() {
        let serial = disk("{mode='serial'}");
        let g = random_read_iops(&serial, 4096, 32) / random_read_iops(&serial, 4096, 1);
        assert!((g - 1.0).abs() < 0.01, "serial gain {g}");
        let ncq = disk("{mode='parallel',depth=32}");
        let g = random_read_iops(&ncq, 4096, 32) / random_read_iops(&ncq, 4096, 1);
        assert!((1.5..=2.5).contains(&g), "queueing disk gain {g}");
        // A shallower queue offers fewer choices: less gain.
        let g4 = random_read_iops(&ncq, 4096, 4) / random_read_iops(&ncq, 4096, 1);
        assert!(g4 > 1.1 && g4 < g, "QD4 gain {g4}, QD32 {g}");
    }

    #[test]
    fn a_flash_model_overlaps_up_to_its_depth() {
        let m = Model::from_toml_str(
            "name='f'\nsize='64M'\nzones={rates_mb_s=[400]}\noverhead='100us'\n\
             queue={mode='parallel',depth=32}\n",
            "test",
        )
        .unwrap();
        let qd1 = random_read_iops(&m, 4096, 1);
        let per = 100_000.0 + xfer_ns(4096, 400.0);
        // (Within 0.5 %: a random offset that happens to continue an earlier command's slot
        // is bridged like a stream and hides its overhead.)
        assert!((qd1 / (1e9 / per) - 1.0).abs() < 5e-3, "{qd1}");
        // QD32: the media (10.24 µs per command) bounds it, not the overhead.
        let qd32 = random_read_iops(&m, 4096, 32);
        assert!(
            (qd32 / (1e9 / xfer_ns(4096, 400.0)) - 1.0).abs() < 0.01,
            "{qd32}"
        );
    }
}
