//! The steady-state IOPS of a served flash drive for any random cell of the PTS IOPS test (a
//! read share × a block size), and the PTS rounds of a whole matrix of cells on the model's
//! virtual clock.
//!
//! How the served disk times a command ([`crate::timing`]): a read costs the overhead plus its
//! bytes at the media's rate (no garbage collection); a write costs the overhead plus every page
//! it touches, each programmed `WA` times over (its own program and the collector's copies) at
//! the media's write rate; neither completes before its bytes crossed the interface cap. A
//! serial device serves one command at a time; a parallel one overlaps the overhead between its
//! slots, while the media and the interface stay one each.
//!
//! [`cell_iops`] is that arithmetic in closed form for a queue the host keeps full: exact on a
//! serial device (each command's time is its own: `overhead + max(media, interface)`, averaged
//! over the mix), and on a parallel one the throughput of its tightest resource (the media, the
//! interface, or the slots turning over their overhead), which the virtual clock matches within
//! a few percent where two resources come close (see the tests). It is analytic, not simulated,
//! because the served disk adds nothing a formula misses once `WA` is known: the collector's
//! work is the only state, and `WA` summarizes it.
//!
//! `WA` is the part a formula does not give. Uniform random writes of `n` whole pages aligned to
//! `n` pages invalidate pages `n` at a time, so the collector's victims are emptier than under
//! single-page writes: 64 KiB writes settle at a markedly lower write amplification than 4 KiB
//! ones on the same drive (a 32 MiB drive with 10 % spare and 256 KiB blocks: about 3.3 against
//! 6.2). [`steady_iops`] is a cell run alone until steady: [`simulated_wa_of`] for its block
//! size. In a matrix whose rounds interleave block sizes the collector works on what all of the
//! round's writes left, so each cell sees a blend: [`matrix_rounds`] runs that procedure on the
//! virtual clock, giving each round's IOPS and write amplification per cell, the values a
//! correct instrument must measure. It runs devices that decide commands in arrival order (every
//! flash model: the virtual clock's queue reordering needs a seek, which flash has not).
//! Neither holds a drive that warms up, throttles or drifts to one rate; the formula assumes
//! none of them.

use crate::flash::{Flash, FlashConfig};
use crate::flash_served::{simulated_wa, FlashSpec, Procedure};
use crate::model::{Model, QueueMode};
use crate::timing::{media_ns, xfer_ns, Op, Timeline};

/// One cell: percent of its commands that read, and its block size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    pub read_pct: u8,
    pub block: u64,
}

/// Blocks [`simulated_wa_of`] keeps at most (as the truth's write amplification does).
const MAX_BLOCKS: usize = 1024;

/// Pages a write of `len` bytes at a multiple of `len` programs: one for a part of a page.
pub fn pages_of(spec: &FlashSpec, len: u64) -> u64 {
    len.div_ceil(spec.page).max(1)
}

/// Steady write amplification of uniform random writes of `len` bytes, each at a multiple of
/// `len`, on `cfg`, by simulation as [`simulated_wa`] (which it is for writes of a page or less).
pub fn simulated_wa_of(cfg: FlashConfig, spec: &FlashSpec, len: u64, seed: u64) -> f64 {
    let chunk = pages_of(spec, len) as usize;
    if chunk <= 1 || !len.is_multiple_of(spec.page) {
        return simulated_wa(cfg, seed);
    }
    let cfg = FlashConfig {
        user_blocks: cfg.user_blocks.min(MAX_BLOCKS),
        ..cfg
    };
    let mut f = Flash::new(cfg, seed);
    let user = cfg.user_pages();
    f.write_sequential(0, 2 * user as u64);
    let chunks = (user / chunk).max(1) as u64;
    let mut rng = drivescope_core::rng::Rng::new(seed ^ 0x5EED);
    let mut write = |f: &mut Flash, pages: usize| {
        for _ in 0..pages.div_ceil(chunk) {
            let first = rng.below(chunks) as usize * chunk;
            for lpn in first..(first + chunk).min(user) {
                f.write(lpn);
            }
        }
    };
    write(&mut f, 6 * user);
    let before = f.counters();
    write(&mut f, 4 * user);
    f.counters().since(&before).write_amplification()
}

/// Mean media time (ns) per byte over the whole disk: what a byte at a uniformly random offset
/// costs on average across the zones.
fn mean_byte_ns(model: &Model) -> f64 {
    let layout = model.zone_layout().expect("validated model");
    media_ns(model, &layout, 0, model.size) / model.size as f64
}

/// Random commands of `cell` per second that a drive with a `flash` section takes when the host
/// keeps `queue_depth` commands in flight, each page written costing `wa` programs (module docs).
pub fn cell_iops(model: &Model, cell: Cell, queue_depth: u32, wa: f64) -> f64 {
    let spec = model.flash.as_ref().expect("a flash model");
    let byte = mean_byte_ns(model);
    let read = cell.block as f64 * byte;
    let write =
        (pages_of(spec, cell.block) * spec.page) as f64 * byte / model.write_rate_factor * wa;
    let cap = model.interface_mb_s.map_or(0.0, |c| xfer_ns(cell.block, c));
    let r = cell.read_pct.min(100) as f64 / 100.0;
    let overhead = model.overhead_ns as f64;
    // Each command's own time once it has started: media, or the interface when slower.
    let own = overhead + r * read.max(cap) + (1.0 - r) * write.max(cap);
    let per = match model.queue.mode {
        QueueMode::Serial => own,
        QueueMode::Parallel => {
            let slots = model.queue.depth.min(queue_depth.max(1)) as f64;
            let media = r * read + (1.0 - r) * write;
            media.max(cap).max(own / slots)
        }
    };
    1e9 / per
}

/// The steady-state IOPS of `cell` run alone (the drive settled under that cell's own writes),
/// the host keeping `queue_depth` commands in flight.
pub fn steady_iops(model: &Model, cell: Cell, queue_depth: u32) -> f64 {
    let spec = model.flash.as_ref().expect("a flash model");
    let wa = if cell.read_pct >= 100 {
        1.0
    } else {
        simulated_wa_of(spec.config(model.size), spec, cell.block, model.seed)
    };
    cell_iops(model, cell, queue_depth, wa)
}

/// One cell of one round of [`matrix_rounds`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellRound {
    pub iops: f64,
    /// Media programs per host page written during the cell (1 when it wrote nothing).
    pub wa: f64,
}

/// The PTS IOPS test on `model`'s virtual clock from a fresh drive: `p.precondition_passes`
/// sequential passes, then `p.rounds` rounds, each running every cell of `cells` in turn for
/// `p.round_ns` (the time per cell, as `steady --round-time` gives it; `p.block` is not used),
/// by a host that adds no time of its own and keeps `p.queue_depth` commands in flight: random
/// commands at multiples of the block size, each a read with the cell's read share. A cell ends
/// when its time is up and its commands in flight have completed, and its IOPS are its commands
/// over that span, as `steady` counts them. Each round's cells, in `cells`' order.
pub fn matrix_rounds(model: &Model, p: &Procedure, cells: &[Cell]) -> Vec<Vec<CellRound>> {
    let mut t = Timeline::new(model);
    let qd = p.queue_depth.max(1) as usize;
    let mut now = 0u64;
    let chunk = 128u64 << 10;
    for _ in 0..p.precondition_passes {
        let mut ring = vec![now; qd];
        let mut off = 0;
        let mut i = 0;
        while off < model.size {
            let len = chunk.min(model.size - off);
            let done = t.schedule(Op::Write, off, len, ring[i % qd]).done_ns;
            ring[i % qd] = done;
            now = now.max(done);
            off += len;
            i += 1;
        }
    }
    let mut rng = drivescope_core::rng::Rng::new(p.seed);
    let mut out = Vec::with_capacity(p.rounds);
    for _ in 0..p.rounds {
        let mut round = Vec::with_capacity(cells.len());
        for c in cells {
            let blocks = (model.size / c.block).max(1);
            let start = now;
            let deadline = start + p.round_ns;
            let before = t.flash_counters().unwrap_or_default();
            let mut ring = vec![start; qd];
            let mut commands = 0u64;
            let mut end = start;
            // The slot whose command completes first issues the next, until the time is up.
            loop {
                let (k, at) = ring
                    .iter()
                    .copied()
                    .enumerate()
                    .min_by_key(|x| x.1)
                    .expect("a slot");
                if at >= deadline {
                    break;
                }
                let op = if rng.below(100) < c.read_pct as u64 {
                    Op::Read
                } else {
                    Op::Write
                };
                let off = rng.below(blocks) * c.block;
                let done = t.schedule(op, off, c.block, at).done_ns;
                ring[k] = done;
                end = end.max(done);
                commands += 1;
            }
            let wa = t
                .flash_counters()
                .unwrap_or_default()
                .since(&before)
                .write_amplification();
            round.push(CellRound {
                iops: commands as f64 * 1e9 / (end - start).max(1) as f64,
                wa,
            });
            now = end;
        }
        out.push(round);
    }
    out
}

#[cfg(test)]
#[path = "flash_cells_tests.rs"]
mod tests;
