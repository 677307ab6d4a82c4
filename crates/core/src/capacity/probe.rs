//! The probe: which blocks to write, in what order, and what reading them back says.
//!
//! Every probe block is stamped as a verify scan stamps its sectors ([`Pattern`]): its own byte
//! offset and the round's seed in the first 16 bytes, then data keyed by both, so a block read
//! back tells whether it holds its own data, another offset's ([`Class::Misplaced`]), or
//! nothing of this round.
//!
//! 0. **Costs.** A few scattered blocks and sequential MiB are read and written
//!    ([`super::measure`]); the layout of least modelled time follows ([`Plan::choose`]).
//! 1. **Wrap round** (no flush). Of the device's `n` blocks: a run of the first `k` blocks,
//!    every `k`-th block and the last block are written, highest first, then read back. For a
//!    drive that wraps at modulus `M < n` some written block lies in `[M, M + k)` (the last
//!    block when `M` lies past the last multiple of `k`) and its alias in the run, written after
//!    it, so the higher block reads back the lower one's data: `M` is the smallest such
//!    distance, exactly. `k` is `sqrt(n)` where scattered commands cost what sequential blocks
//!    do, longer where they cost more: [`super::plan`].
//! 2. **Flushed rounds.** `flush` bytes are written past the lowest block known to fail (at the
//!    top of the device while none is known), then the wrap round's blocks below them are read
//!    again: a cache in front of a small real area cannot keep data across more writes than it
//!    holds. Each next round writes blocks between the highest good and the lowest failing
//!    block (as many as the plan finds cheapest, or all of them as one run), flushes and reads
//!    them back, until the two are one block apart.
//!
//! What past the real capacity looks like gives the class: another offset's data (wrap), a
//! read error, or no data of the round (dropped; a limbo cache when the same writes were still
//! readable before the flush, or some of the flush itself still is).

use super::device::{BlockDevice, CHUNK};
use super::journal::{Journal, JournalError};
use super::plan::{Costs, Plan};
use crate::scan::verify::{new_seed, Class, Pattern};
use drivescope_record::{CapacityClass, CapacityObservation};
use std::sync::atomic::{AtomicBool, Ordering};

/// How the probe runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeConfig {
    /// Bytes per probe block (a multiple of the logical sector size, at least 4 KiB).
    pub block: u64,
    /// Bytes written between writing and reading back the blocks of a flushed round: more
    /// than the largest cache the probe should see through.
    pub flush: u64,
    /// The run (and giant distance) of the wrap round in blocks; None: chosen from the
    /// measured costs.
    pub run: Option<u64>,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        ProbeConfig {
            block: 4096,
            flush: 64 << 20,
            run: None,
        }
    }
}

/// Why the probe stopped.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("the device ({size} bytes) is smaller than one probe block ({block} bytes)")]
    TooSmall { size: u64, block: u64 },
    #[error("reading what is at byte {offset} before writing there: {source}")]
    Backup {
        offset: u64,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Journal(#[from] JournalError),
}

/// What the probe found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub real: Option<u64>,
    pub class: Option<CapacityClass>,
    pub modulus: Option<u64>,
    pub cache: Option<u64>,
    /// Bytes written between writing and reading back each flushed round.
    pub flush_bytes: u64,
    pub blocks_written: u64,
    pub bytes_written: u64,
    pub bytes_read: u64,
    pub rounds: u32,
    pub evidence: Vec<CapacityObservation>,
    pub interrupted: bool,
    /// What the device's commands cost, as measured before the rounds.
    pub costs: Option<Costs>,
    /// The wrap round's run at the start (and distance between its single blocks), in blocks.
    pub run_blocks: u64,
    /// The wrap round's single blocks.
    pub scattered_blocks: u64,
    /// The plan's modelled time of a genuine drive and of the costliest fake (ns).
    pub modelled_genuine_ns: u64,
    pub modelled_worst_ns: u64,
}

/// What one block read back as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Obs {
    Ok,
    Misplaced(u64),
    Lost,
    Wrong,
    ReadError,
    WriteError,
}

impl Obs {
    fn what(self) -> &'static str {
        match self {
            Obs::Ok => "ok",
            Obs::Misplaced(_) => "misplaced",
            Obs::Lost => "lost",
            Obs::Wrong => "wrong",
            Obs::ReadError => "read_error",
            Obs::WriteError => "write_error",
        }
    }
}

/// What a flushed round found: each probe block read back, the flush blocks that kept the
/// flush's data, and the lowest flush block that did not.
type RoundResult = (Vec<(u64, Obs)>, Vec<u64>, Option<u64>);

/// Most observations kept as evidence.
const EVIDENCE: usize = 32;

pub(super) struct Prober<'a> {
    pub(super) dev: &'a mut dyn BlockDevice,
    journal: Option<&'a mut Journal>,
    /// Byte ranges already saved in the journal (sorted, disjoint).
    backed: Vec<(u64, u64)>,
    pub(super) cfg: ProbeConfig,
    pub(super) size: u64,
    pub(super) out: Outcome,
    /// What each block read back as when last read.
    seen: std::collections::BTreeMap<u64, Obs>,
}

/// Extents (start, end) in bytes from block numbers, merged, highest first.
fn extents(mut blocks: Vec<(u64, u64)>, block: u64) -> Vec<(u64, u64)> {
    blocks.sort();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (s, e) in blocks {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged.reverse();
    merged
        .into_iter()
        .map(|(s, e)| (s * block, e * block))
        .collect()
}

impl Prober<'_> {
    pub(super) fn pattern(&self) -> Pattern {
        Pattern {
            seed: new_seed(),
            unit: self.cfg.block,
        }
    }

    /// Save in the journal what the parts of `ranges` not saved yet hold, and sync it.
    pub(super) fn count_write(&mut self, bytes: u64) {
        self.out.blocks_written += bytes / self.cfg.block;
        self.out.bytes_written += bytes;
    }

    pub(super) fn backup(&mut self, ranges: &[(u64, u64)]) -> Result<(), ProbeError> {
        if self.journal.is_none() {
            return Ok(());
        }
        let mut fresh = Vec::new();
        for &(s, e) in ranges {
            let mut pos = s;
            for &(bs, be) in &self.backed {
                if be <= pos || bs >= e {
                    continue;
                }
                if bs > pos {
                    fresh.push((pos, bs));
                }
                pos = pos.max(be);
            }
            if pos < e {
                fresh.push((pos, e));
            }
        }
        let mut buf = Vec::new();
        let bs = self.cfg.block;
        for &(s, e) in &fresh {
            let mut pos = s;
            while pos < e {
                let n = (e - pos).min(CHUNK as u64);
                buf.resize(n as usize, 0);
                self.out.bytes_read += n;
                let pieces: Vec<(u64, usize)> = if self.dev.read_at(pos, &mut buf).is_ok() {
                    vec![(pos, n as usize)]
                } else {
                    // Save block by block what can be read; what cannot be read cannot be
                    // kept (a drive that fails reads there), and is left alone at the restore.
                    (0..n / bs)
                        .map(|i| (pos + i * bs, bs as usize))
                        .filter(|&(at, len)| {
                            let i = (at - pos) as usize;
                            self.dev.read_at(at, &mut buf[i..i + len]).is_ok()
                        })
                        .collect()
                };
                if let Some(j) = self.journal.as_deref_mut() {
                    for (at, len) in pieces {
                        let i = (at - pos) as usize;
                        j.append(at, &buf[i..i + len])?;
                    }
                }
                pos += n;
            }
        }
        if let Some(j) = self.journal.as_deref_mut() {
            j.commit()?;
        }
        self.backed.extend(fresh);
        self.backed.sort();
        Ok(())
    }

    /// Back up, then write `pattern`'s blocks over each extent, in the order given. Blocks
    /// whose write failed are returned.
    fn write(&mut self, ext: &[(u64, u64)], p: &Pattern) -> Result<Vec<u64>, ProbeError> {
        self.backup(ext)?;
        let mut failed = Vec::new();
        let mut buf = Vec::new();
        for &(s, e) in ext {
            let mut pos = s;
            while pos < e {
                let n = (e - pos).min(CHUNK as u64);
                buf.resize(n as usize, 0);
                p.fill(pos, &mut buf);
                if self.dev.write_at(pos, &buf).is_err() {
                    failed.extend((pos..pos + n).step_by(self.cfg.block as usize));
                }
                self.count_write(n);
                pos += n;
            }
        }
        Ok(failed)
    }

    /// Read every block of `ext` back and say what each holds.
    fn read(&mut self, ext: &[(u64, u64)], p: &Pattern, failed: &[u64]) -> Vec<(u64, Obs)> {
        self.read_blocks(ext, p, failed, false)
    }

    /// [`Prober::read`]; with `coarse`, a 1 MiB command that fails after one already failed
    /// counts all its blocks as read errors without reading them one by one (the flush region
    /// of a drive that fails every read past its real size: only its lowest failing block
    /// matters, and that lies in the first failing command).
    fn read_blocks(
        &mut self,
        ext: &[(u64, u64)],
        p: &Pattern,
        failed: &[u64],
        coarse: bool,
    ) -> Vec<(u64, Obs)> {
        let mut obs = Vec::new();
        let mut failed_before = false;
        let bs = self.cfg.block;
        let mut buf = Vec::new();
        let mut sorted = ext.to_vec();
        sorted.sort();
        for (s, e) in sorted {
            let mut pos = s;
            while pos < e {
                let n = (e - pos).min(CHUNK as u64);
                buf.resize(n as usize, 0);
                let whole = self.dev.read_at(pos, &mut buf).is_ok();
                self.out.bytes_read += n;
                let skip = coarse && !whole && failed_before;
                failed_before |= !whole;
                for (i, b) in buf.chunks_mut(bs as usize).enumerate() {
                    let at = pos + i as u64 * bs;
                    let o = if failed.contains(&at) {
                        Obs::WriteError
                    } else if skip || (!whole && self.dev.read_at(at, b).is_err()) {
                        Obs::ReadError
                    } else {
                        match p.classify(at, b, (0, self.size)) {
                            Class::Ok => Obs::Ok,
                            Class::Misplaced(h) => Obs::Misplaced(h),
                            Class::Lost => Obs::Lost,
                            Class::Wrong => Obs::Wrong,
                        }
                    };
                    obs.push((at, o));
                    self.seen.insert(at, o);
                }
                pos += n;
            }
        }
        obs
    }

    /// Write `total` bytes over `[start, end)`, round after round, each with a new seed; then
    /// read the region back. Returns the region's blocks that hold the last round's data and
    /// the lowest that does not.
    fn flush(&mut self, start: u64, end: u64) -> Result<(Vec<u64>, Option<u64>), ProbeError> {
        let total = self.cfg.flush.max(end - start);
        let mut written = 0;
        let mut p = self.pattern();
        let mut failed = Vec::new();
        while written < total {
            p = self.pattern();
            failed = self.write(&[(start, end)], &p)?;
            written += end - start;
        }
        self.out.flush_bytes = written;
        let obs = self.read_blocks(&[(start, end)], &p, &failed, true);
        let kept = obs
            .iter()
            .filter(|(_, o)| *o == Obs::Ok)
            .map(|(a, _)| *a)
            .collect();
        let lowest_bad = obs.iter().find(|(_, o)| *o != Obs::Ok).map(|(a, _)| *a);
        Ok((kept, lowest_bad))
    }

    /// A flushed round over `blocks` (byte offsets): write them, flush past `bad`, read back.
    fn flushed_round(&mut self, blocks: &[u64], bad: u64) -> Result<RoundResult, ProbeError> {
        let bs = self.cfg.block;
        let ext = extents(blocks.iter().map(|b| (b / bs, b / bs + 1)).collect(), bs);
        let p = self.pattern();
        let failed = self.write(&ext, &p)?;
        self.flush_and_read(&ext, &p, &failed, bad)
    }

    /// A flushed round over blocks already written with `p`: flush past `bad`, read back.
    fn flush_and_read(
        &mut self,
        ext: &[(u64, u64)],
        p: &Pattern,
        failed: &[u64],
        bad: u64,
    ) -> Result<RoundResult, ProbeError> {
        self.out.rounds += 1;
        let region = self.flush_region(bad);
        let (kept, flush_bad) = self.flush(region.0, region.1)?;
        let obs = self.read(ext, p, failed);
        Ok((obs, kept, flush_bad))
    }

    /// Where a flushed round writes its flush: from the lowest failing block up, or the top of
    /// the device while none is known; at most `flush` bytes and a quarter of the device.
    fn flush_region(&self, bad: u64) -> (u64, u64) {
        let bs = self.cfg.block;
        let len = (self.cfg.flush.min(self.size / 4) / bs * bs).max(bs);
        if bad < self.size {
            (bad, (bad + len).min(self.size))
        } else {
            (self.size - len, self.size)
        }
    }

    fn note(&mut self, obs: &[(u64, Obs)]) {
        for &(offset, o) in obs.iter().filter(|(_, o)| *o != Obs::Ok) {
            if self.out.evidence.len() >= EVIDENCE {
                return;
            }
            if self.out.evidence.iter().any(|e| e.offset == offset) {
                continue;
            }
            self.out.evidence.push(CapacityObservation {
                offset,
                what: o.what().into(),
                holds: match o {
                    Obs::Misplaced(h) => Some(h),
                    _ => None,
                },
            });
        }
    }
}

/// Find `dev`'s real capacity. Every block written is first saved in `journal` (when given);
/// the caller restores them. `stop` ends the probe between rounds.
pub fn probe(
    dev: &mut dyn BlockDevice,
    cfg: ProbeConfig,
    journal: Option<&mut Journal>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(String),
) -> Result<Outcome, ProbeError> {
    let size = dev.size() / cfg.block * cfg.block;
    if size < cfg.block {
        return Err(ProbeError::TooSmall {
            size: dev.size(),
            block: cfg.block,
        });
    }
    let mut pr = Prober {
        dev,
        journal,
        backed: Vec::new(),
        cfg,
        size,
        out: Outcome::default(),
        seen: Default::default(),
    };
    let bs = cfg.block;
    let n = size / bs;
    let costs = super::measure::costs(&mut pr)?;
    let region = pr.flush_region(size);
    let flush_read = (region.1 - region.0) / bs;
    let flush_write = cfg.flush.max(region.1 - region.0).div_ceil(bs);
    let mut plan = match cfg.run {
        Some(k) => Plan::with_run(n, bs, flush_write, flush_read, costs, k),
        None => Plan::choose(n, bs, flush_write, flush_read, costs),
    };
    let k = plan.run;
    pr.out.costs = Some(costs);
    pr.out.run_blocks = k;
    pr.out.scattered_blocks = plan.giants();
    pr.out.modelled_genuine_ns = plan.genuine_ns() as u64;
    pr.out.modelled_worst_ns = plan.modelled_ns() as u64;
    let iec = drivescope_units::format_size;
    progress(format!(
        "a scattered {} costs {:.2} ms to write and {:.2} ms to read, a sequential MiB {:.1} ms and {:.1} ms",
        iec(bs),
        costs.scattered_write_ns / 1e6,
        costs.scattered_read_ns / 1e6,
        costs.seq_write_mib_ns / 1e6,
        costs.seq_read_mib_ns / 1e6,
    ));

    // 1. The wrap round: the run, every k-th block, the last block.
    // Written in this order, the giants one by one from the highest, the run last: each
    // giant's alias in the run is written after it (merged into one extent, adjacent giants
    // would be written lowest first).
    let mut giants: Vec<u64> = (k..n).step_by(k as usize).collect();
    giants.push(n - 1);
    giants.sort_unstable_by(|a, b| b.cmp(a));
    giants.dedup();
    let mut ext: Vec<(u64, u64)> = giants.iter().map(|j| (j * bs, (j + 1) * bs)).collect();
    ext.push((0, k * bs));
    progress(format!(
        "round 1: {} at the start and {}, highest first (modelled {:.0} s for a genuine drive)",
        iec(k * bs),
        drivescope_units::count(plan.giants(), "single block"),
        plan.genuine_ns() / 1e9
    ));
    pr.out.rounds = 1;
    let p = pr.pattern();
    let failed = pr.write(&ext, &p)?;
    let first = pr.read(&ext, &p, &failed);
    let modulus = first
        .iter()
        .filter_map(|&(at, o)| match o {
            Obs::Misplaced(h) if h < at => Some(at - h),
            _ => None,
        })
        .min();
    let lowest_bad = |obs: &[(u64, Obs)]| obs.iter().find(|(_, o)| *o != Obs::Ok).map(|(a, _)| *a);
    if let Some(m) = modulus {
        let mut misplaced: Vec<_> = first
            .iter()
            .copied()
            .filter(|(_, o)| matches!(o, Obs::Misplaced(_)))
            .collect();
        misplaced.truncate(EVIDENCE / 2);
        pr.note(&misplaced);
        let real = lowest_bad(&first).map_or(m, |a| a.min(m));
        pr.out.real = Some(real);
        pr.out.class = Some(CapacityClass::Wrap);
        pr.out.modulus = Some(m);
        return Ok(pr.out);
    }
    let mut bad = lowest_bad(&first).unwrap_or(size);
    if stop.load(Ordering::Relaxed) {
        pr.out.interrupted = true;
        return Ok(pr.out);
    }

    // 2. Flushed rounds: the wrap round's blocks below the flush read again, then refining.
    let region = pr.flush_region(bad);
    let below: Vec<(u64, u64)> = ext
        .iter()
        .filter(|(s, _)| *s < region.0)
        .map(|&(s, e)| (s, e.min(region.0)))
        .collect();
    progress(format!(
        "round 2: {} written past them, then the blocks below read again",
        iec(cfg.flush.max(region.1 - region.0))
    ));
    let (obs, mut kept, flush_bad) = pr.flush_and_read(&below, &p, &failed, bad)?;
    bad = [Some(bad), lowest_bad(&obs), flush_bad]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(size);
    let mut lo = obs
        .iter()
        .filter(|(a, o)| *o == Obs::Ok && *a < bad)
        .map(|(a, _)| *a)
        .max();
    let mut last = obs;
    while bad < size && lo.map_or(bad > 0, |l| bad - l > bs) {
        if stop.load(Ordering::Relaxed) {
            pr.out.interrupted = true;
            return Ok(pr.out);
        }
        let from = lo.map_or(0, |l| l + bs);
        let span = (bad - from) / bs;
        let k = plan.refine_points(span);
        let mut probes: Vec<u64> = (0..k).map(|i| from + span * i / k * bs).collect();
        probes.dedup();
        progress(format!(
            "round {}: {} between {} and {}",
            pr.out.rounds + 1,
            drivescope_units::count(probes.len() as u64, "block"),
            iec(from),
            iec(bad)
        ));
        let (obs, k2, _) = pr.flushed_round(&probes, bad)?;
        kept = k2;
        if let Some(a) = lowest_bad(&obs) {
            bad = bad.min(a);
        }
        if let Some(l) = obs
            .iter()
            .filter(|(a, o)| *o == Obs::Ok && *a < bad)
            .map(|(a, _)| *a)
            .max()
        {
            lo = Some(lo.map_or(l, |x| x.max(l)));
        }
        last = obs;
    }
    if bad >= size {
        pr.out.real = Some(size);
        pr.out.class = Some(CapacityClass::Genuine);
        return Ok(pr.out);
    }
    pr.out.real = Some(bad);
    let at_bad = pr.seen.get(&bad).copied();
    let kept_past = kept.iter().filter(|a| **a >= bad).count() as u64 * bs;
    let cached_before_flush = first.iter().any(|(a, o)| *a >= bad && *o == Obs::Ok);
    pr.out.class = Some(match at_bad {
        Some(Obs::ReadError | Obs::WriteError) => CapacityClass::ReadErrors,
        _ if kept_past > 0 || cached_before_flush => CapacityClass::Limbo,
        _ => CapacityClass::Drop,
    });
    if pr.out.class == Some(CapacityClass::Limbo) && kept_past > 0 {
        pr.out.cache = Some(kept_past);
    }
    let mut tell: Vec<_> = last.iter().copied().filter(|(a, _)| *a >= bad).collect();
    tell.extend(first.iter().copied().filter(|(a, _)| *a >= bad));
    pr.note(&tell);
    Ok(pr.out)
}
