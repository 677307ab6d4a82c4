//! Where the probe writes, chosen from what the device's commands cost.
//!
//! The wrap round must catch a wrap-around at any modulus `M` (in blocks): some written block
//! `x >= M` whose alias `x - M` is written after it. A run of `k` blocks at the start (baby
//! steps), a single block at every multiple of `k` (giant steps) and the last block do that for
//! every `M < n`: the giant in `[M, M + k)` (or the last block, when `M` lies past the last
//! giant) has its alias in the run, which is written last. The run costs `k` sequential blocks,
//! the giants `n / k` scattered ones; [`Plan::choose`] takes the `k` whose modelled time, over
//! every pass each block takes part in, is least. On a device whose scattered commands cost
//! what `n` sequential blocks do, that is `k = sqrt(n)`; on one whose scattered commands cost
//! milliseconds (a disk, cheap flash with slow random writes) the run grows and the giants
//! thin out.
//!
//! The flushed rounds that follow narrow the interval between the highest good and the lowest
//! failing block: each costs a flush plus its blocks, so [`Plan::refine_points`] picks how many
//! blocks a round checks (or the whole interval as one run) for the least modelled time to the
//! end.

use rustc_hash::FxHashMap;

const MIB: f64 = (1u64 << 20) as f64;

/// What the device's commands cost, measured before the probe writes its rounds (ns).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    /// One probe block written at a place far from the previous command.
    pub scattered_write_ns: f64,
    /// One probe block read at a place far from the previous command.
    pub scattered_read_ns: f64,
    /// One MiB written continuing a sequential stream.
    pub seq_write_mib_ns: f64,
    /// One MiB read continuing a sequential stream.
    pub seq_read_mib_ns: f64,
}

impl Costs {
    /// Costs of a device whose every command is as cheap as its transfer: the square-root grid.
    pub fn uniform(block: u64) -> Costs {
        let per_mib = 1e6;
        let b = per_mib * block as f64 / MIB;
        Costs {
            scattered_write_ns: b,
            scattered_read_ns: b,
            seq_write_mib_ns: per_mib,
            seq_read_mib_ns: per_mib,
        }
    }

    /// Every cost at least 1 ns (a device that answers faster than the clock ticks).
    fn floored(self) -> Costs {
        Costs {
            scattered_write_ns: self.scattered_write_ns.max(1.0),
            scattered_read_ns: self.scattered_read_ns.max(1.0),
            seq_write_mib_ns: self.seq_write_mib_ns.max(1.0),
            seq_read_mib_ns: self.seq_read_mib_ns.max(1.0),
        }
    }
}

/// The probe's layout on a device of `n` blocks and what it is modelled to cost.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Blocks on the device.
    pub n: u64,
    /// Blocks of the run at the start, and the distance between giants.
    pub run: u64,
    /// Blocks the flush writes each flushed round, and reads back.
    pub flush_write: u64,
    pub flush_read: u64,
    costs: Costs,
    block: u64,
    /// Refinement: unknown blocks left -> (modelled ns to the end, blocks to check next).
    memo: FxHashMap<u64, (f64, u64)>,
}

impl Plan {
    /// The layout of least modelled time for a device of `n` blocks of `block` bytes whose
    /// flushed rounds write `flush_write` and read back `flush_read` blocks.
    pub fn choose(n: u64, block: u64, flush_write: u64, flush_read: u64, costs: Costs) -> Plan {
        let mut plan = Plan::with_run(n, block, flush_write, flush_read, costs, 1);
        let mut best = (f64::INFINITY, 1);
        let mut k = 1.0f64;
        while (k as u64) < n.max(2) {
            let run = k as u64;
            plan.run = run;
            let t = plan.modelled_ns();
            if t < best.0 {
                best = (t, run);
            }
            k = (k * 1.05).max(k + 1.0);
        }
        plan.run = best.1;
        plan
    }

    /// The layout with a run (and giant distance) of `run` blocks.
    pub fn with_run(
        n: u64,
        block: u64,
        flush_write: u64,
        flush_read: u64,
        costs: Costs,
        run: u64,
    ) -> Plan {
        Plan {
            n: n.max(1),
            // The last block lies past the run: written before the run, as every giant is.
            run: run.clamp(1, n.saturating_sub(1).max(1)),
            flush_write,
            flush_read,
            costs: costs.floored(),
            block,
            memo: FxHashMap::default(),
        }
    }

    /// The square-root grid: a run of `ceil(sqrt(n))` blocks and as many giants.
    pub fn sqrt_grid(n: u64, block: u64, flush_write: u64, flush_read: u64, costs: Costs) -> Plan {
        let run = ((n as f64).sqrt().ceil() as u64).max(1);
        Plan::with_run(n, block, flush_write, flush_read, costs, run)
    }

    fn seq_read(&self) -> f64 {
        self.costs.seq_read_mib_ns * self.block as f64 / MIB
    }

    fn seq_write(&self) -> f64 {
        self.costs.seq_write_mib_ns * self.block as f64 / MIB
    }

    /// Single blocks the wrap round writes: every multiple of the run and the last block.
    pub fn giants(&self) -> u64 {
        (self.n - 1) / self.run + 1
    }

    /// The wrap round, its re-read after the first flush and its restore: the run and each
    /// giant are read for the backup, written, read back, read again after the flush, written
    /// back and read back once more.
    pub fn wrap_ns(&self) -> f64 {
        let c = &self.costs;
        let point = 4.0 * c.scattered_read_ns + 2.0 * c.scattered_write_ns;
        let run = point + self.run as f64 * (4.0 * self.seq_read() + 2.0 * self.seq_write());
        run + self.giants() as f64 * point
    }

    /// One flushed round's flush: written, read back.
    pub fn flush_ns(&self) -> f64 {
        self.flush_write as f64 * self.seq_write() + self.flush_read as f64 * self.seq_read()
    }

    /// The first flush also saves its region, writes it back and reads it back at the end.
    pub fn first_flush_ns(&self) -> f64 {
        self.flush_ns() + self.flush_read as f64 * (2.0 * self.seq_read() + self.seq_write())
    }

    /// Modelled time of a genuine drive: the wrap round and the first flushed round.
    pub fn genuine_ns(&self) -> f64 {
        self.wrap_ns() + self.first_flush_ns()
    }

    /// Modelled time of the costliest drive: a fake whose real size lies between two giants,
    /// found to the block by the flushed rounds.
    pub fn modelled_ns(&mut self) -> f64 {
        let unknown = self.run.saturating_sub(1);
        self.genuine_ns() + self.refine(unknown).0
    }

    /// How many evenly spread blocks the next flushed round checks of `unknown` blocks (all of
    /// them, as one run, when that is cheapest).
    pub fn refine_points(&mut self, unknown: u64) -> u64 {
        self.refine(unknown).1.clamp(1, unknown.max(1))
    }

    /// Modelled time to find the boundary among `unknown` blocks, and the blocks to check next.
    fn refine(&mut self, unknown: u64) -> (f64, u64) {
        if unknown == 0 {
            return (0.0, 0);
        }
        if let Some(v) = self.memo.get(&unknown) {
            return *v;
        }
        let c = self.costs;
        // Each checked block: saved, written, read back, written back, read back.
        let point = 3.0 * c.scattered_read_ns + 2.0 * c.scattered_write_ns;
        let round = self.flush_ns();
        let whole =
            round + point + unknown as f64 * (3.0 * self.seq_read() + 2.0 * self.seq_write());
        let mut best = (whole, unknown);
        let mut r = 2.0f64;
        while (r as u64) < unknown {
            let k = r as u64;
            let left = unknown.div_ceil(k) - 1;
            let t = round + k as f64 * point + self.refine(left).0;
            if t < best.0 {
                best = (t, k);
            }
            r = (r * 1.25).max(r + 1.0);
        }
        self.memo.insert(unknown, best);
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: u64 = 4096;

    /// A device whose scattered commands cost `scattered_ns` on top of the transfer at `mb_s`.
    fn device(scattered_ns: f64, mb_s: f64) -> Costs {
        let mib = MIB * 1e3 / mb_s;
        let xfer = mib * G as f64 / MIB;
        Costs {
            scattered_write_ns: scattered_ns + xfer,
            scattered_read_ns: scattered_ns + xfer,
            seq_write_mib_ns: mib,
            seq_read_mib_ns: mib,
        }
    }

    fn plan(size: u64, costs: Costs) -> (Plan, Plan) {
        let n = size / G;
        let flush = (64u64 << 20).min(size / 4) / G;
        (
            Plan::choose(n, G, flush, flush, costs),
            Plan::sqrt_grid(n, G, flush, flush, costs),
        )
    }

    #[test]
    fn a_4gib_fake_with_millisecond_scattered_commands_is_modelled_under_30_s() {
        for ms in [5.0, 7.5, 10.0] {
            let (mut p, mut sqrt) = plan(4 << 30, device(ms * 1e6, 50.0));
            let t = p.modelled_ns() / 1e9;
            let old = sqrt.modelled_ns() / 1e9;
            assert!(t < 30.0, "{ms} ms: {t:.1} s (run {})", p.run);
            assert!(old > 30.0, "{ms} ms: the square-root grid takes {old:.1} s");
            assert!(p.run > sqrt.run, "longer run, fewer giants");
        }
    }

    #[test]
    fn a_2tb_fake_at_50_mb_s_is_modelled_under_2_minutes() {
        // Scattered 4 KiB commands at 0.5 ms: a USB stick's command overhead and its host path.
        let (mut p, _) = plan(2_000_000_000_000, device(0.5e6, 50.0));
        let t = p.modelled_ns() / 1e9;
        assert!(t < 120.0, "{t:.1} s (run {})", p.run);
    }

    #[test]
    fn on_uniform_costs_the_grid_is_near_the_square_root() {
        for n in [1u64 << 10, 1 << 20, 1 << 28] {
            let mut p = Plan::choose(n, G, 0, 0, Costs::uniform(G));
            let r = p.run as f64 / (n as f64).sqrt();
            assert!((0.5..=2.0).contains(&r), "n {n}: run {}", p.run);
            assert!(p.modelled_ns().is_finite());
        }
    }

    #[test]
    fn the_chosen_run_is_no_worse_than_any_other() {
        let n = (4u64 << 30) / G;
        let c = device(7.5e6, 50.0);
        let mut best = Plan::choose(n, G, 16384, 16384, c);
        let t = best.modelled_ns();
        for run in [1, 10, 100, 1000, 3000, 10_000, 30_000, 100_000, n] {
            let mut other = Plan::with_run(n, G, 16384, 16384, c, run);
            assert!(other.modelled_ns() >= t * 0.999, "run {run}");
        }
    }

    #[test]
    fn refinement_ends_in_one_run_when_that_is_cheapest() {
        let mut p = Plan::choose(1 << 20, G, 16384, 16384, device(7.5e6, 50.0));
        // A few dozen unknown blocks cost less as one run than as scattered blocks.
        assert_eq!(p.refine_points(40), 40);
        let k = p.refine_points(100_000);
        assert!(k > 1 && k < 100_000, "{k}");
    }
}
