//! A flash translation layer with greedy garbage collection, as a pure simulation with known truth.
//!
//! Flash is programmed a page at a time and erased a block at a time, so an overwritten page leaves
//! its old copy invalid in place until the garbage collector picks a victim block, copies the
//! victim's still-valid pages forward and erases it. Those copies are the write amplification (WA):
//! media page writes per host page write. The model keeps a logical-to-physical map, one write
//! frontier, a free pool and a greedy collector (victim = the closed block with the fewest valid
//! pages); discard (TRIM) unmaps pages so the collector need not copy them; idle time may pre-clean.
//!
//! Truth ([`wa_truth`]): for uniform random writes over the whole user space, in the limit of large
//! blocks, a block's valid fraction decays as `exp(-writes / user_pages)`, and the collector always
//! takes the block written longest ago. Between a block's write and its collection the frontier
//! cycles the whole physical space, `T` pages of which `T (1 - u)` are host writes, so the victim's
//! valid fraction `u` solves `u = exp(-α (1 - u))` with `α = physical / user pages`, and
//! `WA = 1 / (1 - u)`. Greedy with finite blocks does slightly better; the simulation lands within
//! 10 % of this across over-provisioning 7 %–50 % (see the tests).

use drivescope_core::rng::Rng;

const NONE: u32 = u32::MAX;

/// Blocks kept free for the collector's own copies: when the pool drops to this, it collects.
pub const GC_LOW_WATER: usize = 2;

/// The geometry of a simulated drive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlashConfig {
    /// Pages per erase block.
    pub pages_per_block: usize,
    /// Blocks visible to the host (user capacity = this × pages per block).
    pub user_blocks: usize,
    /// Over-provisioning: spare blocks as a fraction of user blocks (0.07 = 7 %).
    pub over_provisioning: f64,
}

impl FlashConfig {
    /// Spare blocks (at least enough for the collector to make progress).
    pub fn spare_blocks(&self) -> usize {
        ((self.user_blocks as f64 * self.over_provisioning).round() as usize).max(GC_LOW_WATER + 2)
    }

    pub fn physical_blocks(&self) -> usize {
        self.user_blocks + self.spare_blocks()
    }

    pub fn user_pages(&self) -> usize {
        self.user_blocks * self.pages_per_block
    }

    /// Physical over user pages (the `α` of the truth).
    pub fn alpha(&self) -> f64 {
        self.physical_blocks() as f64 / self.user_blocks as f64
    }
}

/// Steady-state WA of uniform random writes with greedy collection, large-block limit (module docs).
pub fn wa_truth(alpha: f64) -> f64 {
    if alpha <= 1.0 {
        return f64::INFINITY;
    }
    // g(u) = u - exp(-α (1 - u)) is negative at 0 and positive just below 1: bisect for its root.
    let g = |u: f64| u - (-alpha * (1.0 - u)).exp();
    let (mut lo, mut hi) = (0.0f64, 1.0 - 1e-9);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    1.0 / (1.0 - 0.5 * (lo + hi))
}

/// The common textbook approximation `(1 + ρ) / (2ρ)`, ρ = over-provisioning (for comparison).
pub fn wa_approximation(over_provisioning: f64) -> f64 {
    (1.0 + over_provisioning) / (2.0 * over_provisioning)
}

/// Page counters since the drive was made; subtract two readings for an interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Pages the host wrote.
    pub host_pages: u64,
    /// Pages programmed while host writes waited (host pages and the copies they forced).
    pub foreground_media_pages: u64,
    /// Pages the collector copied during idle time.
    pub idle_media_pages: u64,
    /// Blocks erased.
    pub erases: u64,
}

impl Counters {
    /// Counters from `earlier` to `self`.
    pub fn since(&self, earlier: &Counters) -> Counters {
        Counters {
            host_pages: self.host_pages - earlier.host_pages,
            foreground_media_pages: self.foreground_media_pages - earlier.foreground_media_pages,
            idle_media_pages: self.idle_media_pages - earlier.idle_media_pages,
            erases: self.erases - earlier.erases,
        }
    }

    /// All media programs per host page (1 when nothing was written).
    pub fn write_amplification(&self) -> f64 {
        if self.host_pages == 0 {
            return 1.0;
        }
        (self.foreground_media_pages + self.idle_media_pages) as f64 / self.host_pages as f64
    }

    /// Host pages per second the drive sustains over the interval when the media programs
    /// `media_pages_per_s`: the host waits only for foreground programs.
    pub fn host_pages_per_s(&self, media_pages_per_s: f64) -> f64 {
        if self.foreground_media_pages == 0 {
            return media_pages_per_s;
        }
        media_pages_per_s * self.host_pages as f64 / self.foreground_media_pages as f64
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Free,
    Open,
    Closed,
}

/// The simulated drive.
#[derive(Debug, Clone)]
pub struct Flash {
    cfg: FlashConfig,
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    valid: Vec<u32>,
    state: Vec<State>,
    free: Vec<u32>,
    /// Closed blocks by valid count, and each block's position in its bucket.
    buckets: Vec<Vec<u32>>,
    pos: Vec<u32>,
    open: u32,
    fill: usize,
    counters: Counters,
    rng: Rng,
}

impl Flash {
    /// A fresh-out-of-box drive: every block erased, nothing mapped.
    pub fn new(cfg: FlashConfig, seed: u64) -> Flash {
        assert!(cfg.pages_per_block > 0 && cfg.user_blocks > 0);
        let blocks = cfg.physical_blocks();
        let pages = blocks * cfg.pages_per_block;
        assert!(pages < NONE as usize, "too many pages for the map");
        let mut free: Vec<u32> = (0..blocks as u32).rev().collect();
        let open = free.pop().expect("at least one block");
        let mut state = vec![State::Free; blocks];
        state[open as usize] = State::Open;
        Flash {
            cfg,
            l2p: vec![NONE; cfg.user_pages()],
            p2l: vec![NONE; pages],
            valid: vec![0; blocks],
            state,
            free,
            buckets: vec![Vec::new(); cfg.pages_per_block + 1],
            pos: vec![0; blocks],
            open,
            fill: 0,
            counters: Counters::default(),
            rng: Rng::new(seed),
        }
    }

    pub fn config(&self) -> &FlashConfig {
        &self.cfg
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Blocks in the free pool (erased, not open).
    pub fn free_blocks(&self) -> usize {
        self.free.len()
    }

    /// Logical pages currently mapped.
    pub fn mapped_pages(&self) -> usize {
        self.valid.iter().map(|&v| v as usize).sum()
    }

    /// The host writes one logical page.
    pub fn write(&mut self, lpn: usize) {
        self.counters.host_pages += 1;
        self.unmap(lpn);
        self.program(lpn as u32, true, false);
    }

    /// `n` host writes of uniformly random pages over the whole user space.
    pub fn write_random(&mut self, n: u64) {
        let user = self.cfg.user_pages() as u64;
        for _ in 0..n {
            let lpn = self.rng.below(user) as usize;
            self.write(lpn);
        }
    }

    /// `n` host writes of consecutive pages from `start`, wrapping at the end of the user space.
    pub fn write_sequential(&mut self, start: usize, n: u64) {
        let user = self.cfg.user_pages();
        for i in 0..n as usize {
            self.write((start + i) % user);
        }
    }

    /// Discard (TRIM) `n` pages from `start`: they no longer need copying.
    pub fn discard(&mut self, start: usize, n: usize) {
        let end = (start + n).min(self.cfg.user_pages());
        for lpn in start..end {
            self.unmap(lpn);
        }
    }

    /// Idle time: the collector pre-cleans until `target_free` blocks are free or it has copied
    /// `max_copies` pages. Returns the pages copied.
    pub fn idle(&mut self, target_free: usize, max_copies: u64) -> u64 {
        let mut copied = 0;
        while self.free.len() < target_free && copied < max_copies {
            match self.collect(true) {
                Some(c) => copied += c,
                None => break,
            }
        }
        copied
    }

    fn unmap(&mut self, lpn: usize) {
        let ppn = self.l2p[lpn];
        if ppn == NONE {
            return;
        }
        self.l2p[lpn] = NONE;
        self.p2l[ppn as usize] = NONE;
        let b = ppn as usize / self.cfg.pages_per_block;
        let closed = self.state[b] == State::Closed;
        if closed {
            self.bucket_remove(b);
        }
        self.valid[b] -= 1;
        if closed {
            self.bucket_insert(b);
        }
    }

    /// Programs one page at the frontier. A host write that finds the frontier full first lets the
    /// collector refill the free pool; a copy only opens the next free block.
    fn program(&mut self, lpn: u32, host: bool, idle: bool) {
        if self.fill == self.cfg.pages_per_block && host {
            while self.free.len() <= GC_LOW_WATER {
                if self.collect(false).is_none() {
                    break;
                }
            }
        }
        if self.fill == self.cfg.pages_per_block {
            let b = self.open as usize;
            self.state[b] = State::Closed;
            self.bucket_insert(b);
            self.open = self
                .free
                .pop()
                .expect("the low-water mark keeps a block for copies");
            self.state[self.open as usize] = State::Open;
            self.fill = 0;
        }
        let ppn = self.open as usize * self.cfg.pages_per_block + self.fill;
        self.fill += 1;
        self.p2l[ppn] = lpn;
        self.l2p[lpn as usize] = ppn as u32;
        self.valid[self.open as usize] += 1;
        if idle {
            self.counters.idle_media_pages += 1;
        } else {
            self.counters.foreground_media_pages += 1;
        }
    }

    /// Collects the closed block with the fewest valid pages; the pages copied, or None when no
    /// block would free anything.
    fn collect(&mut self, idle: bool) -> Option<u64> {
        let ppb = self.cfg.pages_per_block;
        let v = (0..ppb).find(|&v| !self.buckets[v].is_empty())?;
        let victim = *self.buckets[v].last().expect("non-empty bucket") as usize;
        self.bucket_remove(victim);
        // Out of the candidates while its pages move, so the frontier never collects it twice.
        self.state[victim] = State::Free;
        let mut copied = 0;
        for ppn in victim * ppb..(victim + 1) * ppb {
            let lpn = self.p2l[ppn];
            if lpn == NONE {
                continue;
            }
            self.p2l[ppn] = NONE;
            self.valid[victim] -= 1;
            self.program(lpn, false, idle);
            copied += 1;
        }
        debug_assert_eq!(self.valid[victim], 0);
        self.free.push(victim as u32);
        self.counters.erases += 1;
        Some(copied)
    }

    fn bucket_insert(&mut self, b: usize) {
        let v = self.valid[b] as usize;
        self.pos[b] = self.buckets[v].len() as u32;
        self.buckets[v].push(b as u32);
    }

    fn bucket_remove(&mut self, b: usize) {
        let v = self.valid[b] as usize;
        let i = self.pos[b] as usize;
        let last = self.buckets[v].pop().expect("block in its bucket");
        if last as usize != b {
            self.buckets[v][i] = last;
            self.pos[last as usize] = i as u32;
        }
    }
}

#[cfg(test)]
#[path = "flash_tests.rs"]
mod tests;
