//! A served flash drive: the `flash` section of a model puts [`crate::flash`]'s translation layer
//! under the disk's writes, so a lab disk runs fast when fresh, falls as its spare blocks are used
//! up, and settles where garbage collection and write amplification hold it.
//!
//! `flash = { page = "4K", block = "256K", spare = 0.07, idle_after = "100ms" }`:
//!
//! * a write programs every page it touches (a write smaller than a page still programs one);
//!   each page the host writes, and each valid page the collector copies out of a victim block
//!   while that write waits, takes a page's transfer time at the media's write rate (the zone's
//!   rate × `write_rate_factor`, warm-up and throttle as for any disk). Fresh, a write costs its own
//!   pages; in the steady state `WA` times as many;
//! * reads cost what they cost on any disk of the model (no garbage collection);
//! * discard (TRIM; `fallocate` punching a hole, which a loop device sends for `blkdiscard`) unmaps
//!   the whole pages it covers, so the collector need not copy them: a whole-device discard makes
//!   the drive fresh again;
//! * after `idle_after` without a command the collector cleans in the background, a page copy per
//!   page time, until the spare blocks are free again or the next command arrives.
//!
//! [`truth`] states the write amplification and the random-write IOPS, fresh and steady; [`rounds`]
//! runs the SNIA PTS procedure on the model's virtual clock (precondition, then rounds of random
//! writes) and gives each round's IOPS, the values a correct instrument must measure.

use crate::flash::{Counters, Flash, FlashConfig};
use crate::model::Model;
use crate::timing::{xfer_ns, Op, Timeline};
use crate::units::{de_duration_ns, de_size};
use drivescope_record::FlashTruth;
use serde::{Deserialize, Serialize};

/// The `flash` section of a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlashSpec {
    /// The mapping and program unit.
    #[serde(deserialize_with = "de_size", default = "default_page")]
    pub page: u64,
    /// The erase block (a whole number of pages; the size a whole number of blocks).
    #[serde(deserialize_with = "de_size", default = "default_block")]
    pub block: u64,
    /// Spare blocks as a fraction of the user blocks (over-provisioning), 0.01 to 2.
    pub spare: f64,
    /// Time without a command after which the collector cleans in the background.
    #[serde(
        deserialize_with = "de_duration_ns",
        rename = "idle_after",
        default = "default_idle_after"
    )]
    pub idle_after_ns: u64,
    /// Slows every page program by this fraction per second of the disk's clock, compounded
    /// (0, the default: never): a drive that keeps slowing and never settles.
    #[serde(default)]
    pub drift: f64,
}

fn default_page() -> u64 {
    4096
}
fn default_block() -> u64 {
    256 << 10
}
fn default_idle_after() -> u64 {
    100_000_000
}

impl FlashSpec {
    /// Why the section does not describe a drive of `size` bytes, if it does not.
    pub fn check(&self, size: u64) -> Result<(), String> {
        if self.page < 512 || !self.page.is_multiple_of(512) {
            return Err("flash.page must be a whole number of 512-byte sectors".into());
        }
        if self.block < self.page || !self.block.is_multiple_of(self.page) {
            return Err("flash.block must be a whole number of pages".into());
        }
        if !size.is_multiple_of(self.block) || size / self.block < 4 {
            return Err("the size must be a whole number of flash blocks, at least 4".into());
        }
        if !(self.spare.is_finite() && (0.01..=2.0).contains(&self.spare)) {
            return Err("flash.spare must lie in 0.01..=2 (1 % to 200 % over-provisioning)".into());
        }
        if !(self.drift.is_finite() && (0.0..=10.0).contains(&self.drift)) {
            return Err("flash.drift must lie in 0..=10 (a fraction per second)".into());
        }
        if (size / self.page) * ((1.0 + self.spare) as u64 + 1) >= u32::MAX as u64 {
            return Err("too many flash pages; give a larger page".into());
        }
        Ok(())
    }

    /// The simulation's geometry for a drive of `size` bytes.
    pub fn config(&self, size: u64) -> FlashConfig {
        FlashConfig {
            pages_per_block: (self.block / self.page) as usize,
            user_blocks: (size / self.block) as usize,
            over_provisioning: self.spare,
        }
    }
}

/// The translation layer under a served disk.
#[derive(Debug, Clone)]
pub struct FlashDrive {
    flash: Flash,
    page: u64,
    idle_after_ns: u64,
    drift: f64,
}

impl FlashDrive {
    /// A fresh-out-of-box drive of `size` bytes.
    pub fn new(spec: &FlashSpec, size: u64, seed: u64) -> FlashDrive {
        FlashDrive {
            flash: Flash::new(spec.config(size), seed),
            page: spec.page,
            idle_after_ns: spec.idle_after_ns,
            drift: spec.drift,
        }
    }

    /// How much longer a page program takes `elapsed_ns` after the disk's first command
    /// (`drift`, compounded per second; 1 without).
    pub fn slowdown(&self, elapsed_ns: u64) -> f64 {
        if self.drift == 0.0 {
            1.0
        } else {
            (1.0 + self.drift).powf(elapsed_ns as f64 / 1e9)
        }
    }

    pub fn page(&self) -> u64 {
        self.page
    }

    /// Page counters since the drive was made.
    pub fn counters(&self) -> Counters {
        self.flash.counters()
    }

    /// The host writes `[offset, offset + len)`: the pages programmed while it waits (its own
    /// and the copies it forced).
    pub fn write(&mut self, offset: u64, len: u64) -> u64 {
        let before = self.flash.counters().foreground_media_pages;
        let user = self.flash.config().user_pages() as u64;
        let first = offset / self.page;
        let end = (offset + len.max(1)).div_ceil(self.page).min(user);
        for lpn in first..end {
            self.flash.write(lpn as usize);
        }
        self.flash.counters().foreground_media_pages - before
    }

    /// Discard the whole pages inside `[offset, offset + len)`.
    pub fn discard(&mut self, offset: u64, len: u64) {
        let first = offset.div_ceil(self.page);
        let end = (offset + len) / self.page;
        if end > first {
            self.flash.discard(first as usize, (end - first) as usize);
        }
    }

    /// The drive was idle for `idle_ns`: past `idle_after` the collector copies a page per
    /// `page_ns` until the spare blocks are free. Returns the pages copied.
    pub fn idle(&mut self, idle_ns: u64, page_ns: f64) -> u64 {
        if idle_ns <= self.idle_after_ns || page_ns <= 0.0 {
            return 0;
        }
        let budget = ((idle_ns - self.idle_after_ns) as f64 / page_ns) as u64;
        let target = self.flash.config().spare_blocks();
        self.flash.idle(target, budget)
    }
}

/// Blocks the truth's simulation keeps at most (more change its write amplification little).
const TRUTH_MAX_BLOCKS: usize = 1024;

/// Steady write amplification of uniform random page writes on `cfg` after a sequential
/// precondition of twice the capacity, by simulation (`seed` draws the pages).
pub fn simulated_wa(cfg: FlashConfig, seed: u64) -> f64 {
    let cfg = FlashConfig {
        user_blocks: cfg.user_blocks.min(TRUTH_MAX_BLOCKS),
        ..cfg
    };
    let mut f = Flash::new(cfg, seed);
    let user = cfg.user_pages() as u64;
    f.write_sequential(0, 2 * user);
    // Settle (the valid fractions forget the sequential order), then measure.
    f.write_random(6 * user);
    let before = f.counters();
    f.write_random(4 * user);
    f.counters().since(&before).write_amplification()
}

/// Time (ns) one page takes to program at `offset` on `model` (warm, cool).
pub fn page_program_ns(model: &Model, page: u64, offset: u64) -> f64 {
    xfer_ns(page, model.media_mb_s(offset) * model.write_rate_factor)
}

/// Random writes of `len` bytes per second the drive takes with its queue kept full, when each
/// page written costs `wa` programs.
pub fn write_iops(model: &Model, spec: &FlashSpec, len: u64, wa: f64) -> f64 {
    let pages = len.div_ceil(spec.page) as f64;
    let media = pages * wa * page_program_ns(model, spec.page, 0);
    let depth = match model.queue.mode {
        crate::model::QueueMode::Serial => 1.0,
        crate::model::QueueMode::Parallel => model.queue.depth as f64,
    };
    // Overhead overlaps between a parallel device's slots; the media is one.
    let mut per = media.max((model.overhead_ns as f64 + media) / depth);
    if let Some(cap) = model.interface_mb_s {
        per = per.max(xfer_ns(len, cap));
    }
    1e9 / per
}

/// The `flash` section's truth on `model`.
pub fn truth(model: &Model, spec: &FlashSpec) -> FlashTruth {
    let cfg = spec.config(model.size);
    let wa = simulated_wa(cfg, model.seed);
    FlashTruth {
        page: spec.page,
        block: spec.block,
        spare: spec.spare,
        alpha: cfg.alpha(),
        wa_analytic: crate::flash::wa_truth(cfg.alpha()),
        wa_random: wa,
        page_program_ns: page_program_ns(model, spec.page, 0) as u64,
        rnd4k_fresh_write_iops: write_iops(model, spec, 4096, 1.0),
        rnd4k_steady_write_iops: write_iops(model, spec, 4096, wa),
        idle_after_ns: spec.idle_after_ns,
        drift: spec.drift,
    }
}

/// What [`rounds`] runs.
#[derive(Debug, Clone, Copy)]
pub struct Procedure {
    /// Sequential 128 KiB writes over the whole drive, this many times, before the rounds.
    pub precondition_passes: u32,
    /// Random write size.
    pub block: u64,
    /// Commands the host keeps in flight.
    pub queue_depth: u32,
    pub round_ns: u64,
    pub rounds: usize,
    pub seed: u64,
}

/// One round of [`rounds`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Round {
    pub iops: f64,
    /// Media programs per host page during the round.
    pub wa: f64,
}

/// The PTS procedure on `model`'s virtual clock, from a fresh drive: preconditioning, then
/// `rounds` rounds of uniform random writes, a host that adds no time of its own keeping
/// `queue_depth` commands in flight. Each round's IOPS and write amplification.
pub fn rounds(model: &Model, p: &Procedure) -> Vec<Round> {
    let mut t = Timeline::new(model);
    let qd = p.queue_depth.max(1) as usize;
    let mut ring = vec![0u64; qd];
    let mut i = 0usize;
    let mut issue = |t: &mut Timeline, offset: u64, len: u64| -> u64 {
        let arrival = ring[i % qd];
        let done = t.schedule(Op::Write, offset, len, arrival).done_ns;
        ring[i % qd] = done;
        i += 1;
        done
    };
    let chunk = 128u64 << 10;
    let mut last = 0;
    for _ in 0..p.precondition_passes {
        let mut off = 0;
        while off < model.size {
            let len = chunk.min(model.size - off);
            last = issue(&mut t, off, len);
            off += len;
        }
    }
    let blocks = (model.size / p.block).max(1);
    let mut rng = drivescope_core::rng::Rng::new(p.seed);
    let mut done_in = vec![0u64; p.rounds];
    let mut was = vec![t.flash_counters().unwrap_or_default()];
    let start = last;
    let end = start + p.round_ns * p.rounds as u64;
    loop {
        let off = rng.below(blocks) * p.block;
        let done = issue(&mut t, off, p.block);
        if done >= end {
            break;
        }
        let r = ((done - start) / p.round_ns) as usize;
        done_in[r] += 1;
        // Counters as each round begins (a command that completes in a new round opens it).
        while was.len() <= r {
            was.push(t.flash_counters().unwrap_or_default());
        }
    }
    while was.len() <= p.rounds {
        was.push(t.flash_counters().unwrap_or_default());
    }
    (0..p.rounds)
        .map(|r| Round {
            iops: done_in[r] as f64 * 1e9 / p.round_ns as f64,
            wa: was[r + 1].since(&was[r]).write_amplification(),
        })
        .collect()
}

#[cfg(test)]
#[path = "flash_served_tests.rs"]
mod tests;
