//! The order of a full scan's commands when some of them fail, after the phases of a rescue
//! tool such as GNU ddrescue, tuned to map a surface fast:
//!
//! 1. **First pass**: the whole range in order, in the scan's commands. After a failure the
//!    pass skips ahead (one command after the first failure, doubling while failures go on, at
//!    most [`max_skip`]; a command that reads fine ends the skipping) and the skipped stretch is
//!    *untried*. The first pass reaches the end of the range before any time is spent inside
//!    failed areas.
//! 2. **Trimming** (always): an untried stretch next to a good one is read in commands from
//!    that side: forward from a good start; from a good end in runs that double in length and
//!    are each read forward (so a hard disk streams them), until a command fails. A failed
//!    command next to a good stretch is then read sector by sector from that side inward, to
//!    the first sector that fails. So every failed area's edges are exact to the sector, at the
//!    cost of a few failing commands per edge.
//! 3. **Scraping**, within the error budget: untried stretches between failures are read in
//!    commands, then failed commands sector by sector.
//! 4. **Retries**, within the error budget: `retries` passes over the failed sectors.
//!
//! Each failing command costs a drive its internal retries once, whatever its size, so the
//! passes issue as few failing commands as they can. After the first pass, one command is in
//! flight at a time. After every failure, a sector far from every failure that read fine
//! before is read again (a probe), and no new command is issued until it answers; the rule
//! that then ends a scan as lost is in `lost`.

use super::accum::{Accum, TAG_AGAIN, TAG_GAP, TAG_MAIN, TAG_RETRY};
use super::surface::{State, SurfaceMap};
use crate::engine::{Cmd, Completion};
use drivescope_record::{AreaKind, ErrorBudget, Event, Pass, PassState, Surface, EXTENT_LIST_CAP};
use std::collections::VecDeque;

/// Most map entries the first pass creates: past that it reads on without skipping and
/// failures are only counted (the extent lists are cut there).
pub const FIRST_PASS_CAP: usize = EXTENT_LIST_CAP;
/// Most map entries at all: scraping and retries, which split entries, stop there.
pub const MAP_CAP: usize = 2 * EXTENT_LIST_CAP;

/// The longest skip of the first pass: a thousandth of the range (one curve bin at the default
/// 1000 points), at least 1 MiB, in whole commands (at least one).
pub fn max_skip(length: u64, block_size: u64) -> u64 {
    ((length / 1000).max(1 << 20) / block_size * block_size).max(block_size)
}

/// What the passes work on.
#[derive(Debug, Clone, Copy)]
pub struct PassParams {
    pub start: u64,
    pub end: u64,
    pub block_size: u64,
    pub sector: u64,
    pub write: bool,
    pub budget: ErrorBudget,
    pub retries: u32,
}

/// A failure waiting for its probe's answer.
#[derive(Debug, Clone)]
struct Awaiting {
    offset: u64,
    len: u64,
    what: Failure,
}

#[derive(Debug, Clone)]
enum Failure {
    /// A command over the range: in the map as failed; untried again if the device is gone.
    Command,
    /// A sector read alone: marked bad and listed once the probe reads fine.
    Sector(Event),
    /// A failed sector read again: it stays bad.
    Again,
}

/// The passes' state.
#[derive(Debug)]
pub struct Passes {
    p: PassParams,
    pub map: SurfaceMap,
    pub pass: Pass,
    /// Where the first pass issues its next command.
    pub next_off: u64,
    skip: u64,
    skip_from: u64,
    max_skip: u64,
    /// Where the first pass went on after its last skip.
    pub jumped_to: Option<u64>,
    cut: Option<u64>,
    cut_failed: u64,
    /// The failures waiting for a probe's answer (the probes are `Accum::prober`'s).
    awaiting: VecDeque<Awaiting>,
    /// A run of commands being read forward: (next offset, end).
    run: Option<(u64, u64)>,
    /// Where the next run from a good end starts its doubling: (that end, run length).
    gallop: Option<(u64, u64)>,
    trim_cursor: u64,
    interior_cursor: u64,
    scrape_cursor: u64,
    retry_cursor: u64,
    retry: u32,
    /// Times on this run's clock, and what earlier parts of the scan spent.
    started_in_first: bool,
    first_end_ns: Option<u64>,
    budget_ns: Option<u64>,
    budget_start_ns: Option<u64>,
    budget_end_ns: Option<u64>,
    budget_ran_out: bool,
    prior_first_ns: u64,
    prior_error_ns: u64,
    prior_budget_ns: u64,
}

impl Passes {
    pub fn new(p: PassParams) -> Passes {
        Passes {
            map: SurfaceMap::new(),
            pass: Pass::First,
            next_off: p.start,
            skip: 0,
            skip_from: p.start,
            jumped_to: None,
            max_skip: max_skip(p.end - p.start, p.block_size),
            cut: None,
            cut_failed: 0,
            awaiting: VecDeque::new(),
            run: None,
            gallop: None,
            trim_cursor: p.start,
            interior_cursor: p.start,
            scrape_cursor: p.start,
            retry_cursor: p.start,
            retry: 0,
            started_in_first: true,
            first_end_ns: None,
            budget_ns: None,
            budget_start_ns: None,
            budget_end_ns: None,
            budget_ran_out: false,
            prior_first_ns: 0,
            prior_error_ns: 0,
            prior_budget_ns: 0,
            p,
        }
    }

    /// Continue from an interrupted scan's state: the first pass at `next_off`, and the
    /// passes where `state` says (none: an older document, whose first pass re-read every
    /// failure at once, so its failed sectors are exact and `failed` gives them).
    pub fn resume(&mut self, next_off: u64, state: Option<&PassState>, bad: &[(u64, u64, i32)]) {
        self.next_off = next_off;
        self.skip_from = next_off;
        let Some(s) = state else {
            // Stored numbers are clamped to the range: a document no scan wrote must not overflow.
            for &(off, len, errno) in bad {
                let (lo, hi) = (
                    off.max(self.p.start),
                    off.saturating_add(len).min(self.p.end),
                );
                if lo < hi {
                    self.map.set(lo, hi, Some(State::bad(errno)));
                }
            }
            return;
        };
        self.map = SurfaceMap::from_areas(&s.areas);
        self.pass = s.pass;
        self.retry = s.retry;
        self.skip = s.skip;
        self.skip_from = s.skip_from.max(self.p.start);
        self.cut = s.cut;
        self.cut_failed = s.cut_failed;
        self.started_in_first = s.pass == Pass::First;
        self.budget_ns = s.budget_ns;
        self.prior_first_ns = s.first_pass_ns;
        self.prior_error_ns = s.error_handling_ns;
        self.prior_budget_ns = s.budget_used_ns;
        if matches!(s.pass, Pass::Scrape | Pass::Retry) {
            self.budget_start_ns = Some(0);
        }
    }

    /// Whether failures are waiting for their probes.
    pub fn awaiting(&self) -> bool {
        !self.awaiting.is_empty()
    }

    /// The device is gone: the commands whose failures waited for a probe are untried (the
    /// device may have been gone when they failed), the sectors are not listed.
    pub fn clear(&mut self) {
        for a in std::mem::take(&mut self.awaiting) {
            if let Failure::Command = a.what {
                self.map
                    .set(a.offset, a.offset + a.len, Some(State::untried()));
            }
        }
    }

    /// The first pass's next command, if it has one left.
    pub fn first(&mut self) -> Option<Cmd> {
        if self.next_off >= self.p.end {
            return None;
        }
        let len = (self.p.end - self.next_off).min(self.p.block_size);
        let c = self.cmd(self.next_off, len, TAG_MAIN);
        self.next_off += len;
        Some(c)
    }

    /// The first pass is over (nothing in flight): on to trimming.
    pub fn first_done(&mut self, now_ns: u64) {
        if self.pass == Pass::First {
            self.pass = Pass::Trim;
            self.first_end_ns = Some(now_ns);
            self.budget_ns = self.p.budget.resolve(self.first_pass_ns(now_ns));
        }
    }

    fn cmd(&self, offset: u64, len: u64, tag: u32) -> Cmd {
        Cmd {
            offset,
            len: len as u32,
            tag,
            write: self.p.write,
        }
    }

    fn sector_cmd(&self, offset: u64, tag: u32) -> Cmd {
        self.cmd(offset, self.p.sector, tag)
    }

    /// A failure: it waits for a probe, or stands at once (see `lost`).
    fn after_failure(&mut self, a: Awaiting, acc: &mut Accum) {
        if acc.failure(a.offset, a.len) {
            self.awaiting.push_back(a);
        } else if acc.lost.is_none() {
            self.stands(a, acc);
        } else {
            self.awaiting.push_back(a);
        }
    }

    /// A failure whose probe read fine (or that had none): a sector is marked bad and listed.
    fn stands(&mut self, a: Awaiting, acc: &mut Accum) {
        if let Failure::Sector(e) = a.what {
            let errno = e.errno.unwrap_or(0);
            self.map
                .set(a.offset, a.offset + a.len, Some(State::bad(errno)));
            self.touched(a.offset);
            acc.failed_sector(e);
        }
    }

    /// A probe answered: the failure it was for stands, waits for a second probe, or the
    /// device is gone (`acc` says so).
    pub fn probed(&mut self, c: &Completion, acc: &mut Accum) {
        let Some(a) = self.awaiting.pop_front() else {
            // The scan's last check (see `lost`).
            if c.result.is_ok() {
                acc.prober.read_fine();
            }
            return;
        };
        if c.result.is_ok() {
            acc.prober.read_fine();
            self.stands(a, acc);
        } else if acc.probe_failed(c, a.offset) || acc.lost.is_some() {
            self.awaiting.push_front(a);
        } else {
            // No far place left to probe: the failure stands without a verdict.
            self.stands(a, acc);
        }
    }

    /// Lower the later passes' cursors to the entry before `offset`, which just changed.
    fn touched(&mut self, offset: u64) {
        let at = offset.saturating_sub(1).max(self.p.start);
        self.trim_cursor = self.trim_cursor.min(at);
        self.interior_cursor = self.interior_cursor.min(at);
        self.scrape_cursor = self.scrape_cursor.min(at);
    }

    /// A first-pass command completed (`ok`: it read fine).
    pub fn first_completed(&mut self, c: &Completion, acc: &mut Accum) {
        let (off, len) = (c.cmd.offset, c.cmd.len as u64);
        let Err(errno) = c.result else {
            if off >= self.skip_from {
                self.skip = 0;
            }
            return;
        };
        if acc.lost.is_some() {
            // Failed while the device was going: not known bad.
            self.map.set(off, off + len, Some(State::untried()));
            return;
        }
        if self.cut.is_some_and(|cut| off >= cut) {
            self.cut_failed += len;
        } else if self.map.len() >= FIRST_PASS_CAP && self.cut.is_none() {
            self.cut = Some(off);
            self.cut_failed += len;
        } else {
            self.map.set(
                off,
                off + len,
                Some(State::failed(errno, c.latency_ns(), off)),
            );
            // Skip ahead, from where the pass has got to, unless this command was issued
            // before the last skip (the queue was ahead of it).
            if off >= self.skip_from && self.cut.is_none() {
                self.skip = if self.skip == 0 {
                    self.p.block_size
                } else {
                    (self.skip * 2).min(self.max_skip)
                };
                let to = (self.next_off + self.skip).min(self.p.end);
                if to > self.next_off {
                    self.map.set(self.next_off, to, Some(State::untried()));
                }
                self.next_off = to;
                self.skip_from = to;
                self.jumped_to = Some(to);
            }
        }
        let what = Failure::Command;
        self.after_failure(
            Awaiting {
                offset: off,
                len,
                what,
            },
            acc,
        );
    }

    /// The next command of the passes after the first (one at a time), or `None` when they
    /// are done. `now_ns` is this run's clock.
    pub fn later(&mut self, now_ns: u64) -> Option<Cmd> {
        loop {
            match self.pass {
                Pass::First => return None,
                Pass::Trim => {
                    if let Some(c) = self.trim_work() {
                        return Some(c);
                    }
                    self.pass = Pass::Scrape;
                    self.budget_start_ns = Some(now_ns);
                }
                Pass::Scrape | Pass::Retry => {
                    if let Some(c) = self.trim_work() {
                        return Some(c);
                    }
                    let out = self
                        .budget_ns
                        .is_some_and(|b| self.budget_used(now_ns) >= b)
                        || self.map.len() >= MAP_CAP;
                    let work = if self.pass == Pass::Scrape {
                        self.interior_work().or_else(|| self.scrape_work())
                    } else {
                        self.retry_work()
                    };
                    match work {
                        Some(c) if !out => return Some(c),
                        Some(_) => {
                            self.budget_ran_out = true;
                            self.finish(now_ns);
                        }
                        None if self.pass == Pass::Scrape && self.p.retries > 0 => {
                            self.pass = Pass::Retry;
                            self.retry_cursor = self.p.start;
                        }
                        None if self.pass == Pass::Retry && self.retry + 1 < self.p.retries => {
                            self.retry += 1;
                            self.retry_cursor = self.p.start;
                        }
                        None => self.finish(now_ns),
                    }
                }
                Pass::Done => return None,
            }
        }
    }

    fn finish(&mut self, now_ns: u64) {
        self.pass = Pass::Done;
        if self.budget_start_ns.is_some() && self.budget_end_ns.is_none() {
            self.budget_end_ns = Some(now_ns);
        }
    }

    fn budget_used(&self, now_ns: u64) -> u64 {
        let this = match self.budget_start_ns {
            Some(s) => self.budget_end_ns.unwrap_or(now_ns).saturating_sub(s),
            None => 0,
        };
        self.prior_budget_ns + this
    }

    /// Trimming work: a run in progress, else the first entry with a good side.
    fn trim_work(&mut self) -> Option<Cmd> {
        let bs = self.p.block_size;
        if let Some((x, end)) = self.run {
            if x < end {
                return Some(self.cmd(x, (end - x).min(bs), TAG_GAP));
            }
            self.run = None;
        }
        loop {
            let p = self.map.from(self.trim_cursor)?;
            let left_good = p.start == self.p.start || self.map.ending_at(p.start).is_none();
            let right_good = p.end == self.p.end || self.map.starting_at(p.end).is_none();
            match p.kind() {
                AreaKind::Untried if left_good => {
                    return Some(self.cmd(p.start, p.len().min(bs), TAG_GAP));
                }
                AreaKind::Untried if right_good => {
                    // A run ending at the good end, twice as long as the last one from there.
                    let step = match self.gallop {
                        Some((end, step)) if end == p.end => step,
                        _ => bs,
                    };
                    let from = p.end.saturating_sub(step).max(p.start);
                    let from = (self.p.start + (from - self.p.start) / bs * bs).max(p.start);
                    self.gallop = Some((from, step.saturating_mul(2)));
                    self.run = Some((from, p.end));
                    return Some(self.cmd(from, (p.end - from).min(bs), TAG_GAP));
                }
                AreaKind::Failed if left_good => {
                    return Some(self.sector_cmd(p.start, TAG_RETRY));
                }
                AreaKind::Failed if right_good => {
                    return Some(self.sector_cmd(p.end - self.p.sector, TAG_RETRY));
                }
                _ => self.trim_cursor = p.end,
            }
        }
    }

    /// Scraping, first part: an untried stretch between failures, in commands.
    fn interior_work(&mut self) -> Option<Cmd> {
        loop {
            let p = self.map.from(self.interior_cursor)?;
            if p.kind() == AreaKind::Untried {
                return Some(self.cmd(p.start, p.len().min(self.p.block_size), TAG_GAP));
            }
            self.interior_cursor = p.end;
        }
    }

    /// Scraping, second part: a failed stretch, sector by sector.
    fn scrape_work(&mut self) -> Option<Cmd> {
        loop {
            let p = self.map.from(self.scrape_cursor)?;
            if p.kind() == AreaKind::Failed {
                return Some(self.sector_cmd(p.start, TAG_RETRY));
            }
            self.scrape_cursor = p.end;
        }
    }

    /// A retry pass: the next failed sector not yet read again in this pass.
    fn retry_work(&mut self) -> Option<Cmd> {
        loop {
            let p = self.map.from(self.retry_cursor)?;
            if p.kind() == AreaKind::Bad {
                let at = self.retry_cursor.max(p.start);
                return Some(self.sector_cmd(at, TAG_AGAIN));
            }
            self.retry_cursor = p.end;
        }
    }

    /// A command of the later passes completed (already counted in `acc`'s statistics).
    pub fn gap_completed(&mut self, c: &Completion, acc: &mut Accum) {
        let (off, len) = (c.cmd.offset, c.cmd.len as u64);
        match c.result {
            Ok(_) => {
                self.map.set(off, off + len, None);
                if let Some((x, end)) = self.run {
                    if x == off {
                        self.run = Some((off + len, end));
                    }
                }
                self.touched(off);
            }
            Err(errno) => {
                self.run = None;
                self.gallop = None;
                if acc.lost.is_none() {
                    self.map.set(
                        off,
                        off + len,
                        Some(State::failed(errno, c.latency_ns(), off)),
                    );
                    self.touched(off);
                    let what = Failure::Command;
                    self.after_failure(
                        Awaiting {
                            offset: off,
                            len,
                            what,
                        },
                        acc,
                    );
                }
            }
        }
    }

    /// A sector of trimming or scraping completed: a failure is listed in `acc`.
    pub fn sector_completed(&mut self, c: &Completion, acc: &mut Accum) {
        let off = c.cmd.offset;
        let s = self.p.sector;
        match c.result {
            Ok(_) => {
                let was = self.map.at(off);
                self.map.set(off, off + s, None);
                self.touched(off);
                // A failed stretch whose every sector read fine, with no failed sector beside
                // it: the command failed once and not again; it is listed at its start.
                if let Some(p) = was
                    .filter(|p| p.kind() == AreaKind::Failed && p.start == off && p.end == off + s)
                {
                    let bad = |q: Option<super::surface::Piece>| {
                        q.is_some_and(|q| q.kind() == AreaKind::Bad)
                    };
                    if !bad(self.map.ending_at(off)) && !bad(self.map.starting_at(off + s)) {
                        let at = p.state.origin;
                        self.map.set(at, at + s, Some(State::bad(p.state.errno)));
                        acc.failed_sector(Event {
                            offset: at,
                            lba: at / s,
                            latency_ns: p.state.latency_ns,
                            errno: Some(p.state.errno),
                        });
                    }
                }
            }
            Err(errno) => {
                if acc.lost.is_some() {
                    return;
                }
                let e = Event {
                    offset: off,
                    lba: off / s,
                    latency_ns: c.latency_ns(),
                    errno: Some(errno),
                };
                let what = Failure::Sector(e);
                self.after_failure(
                    Awaiting {
                        offset: off,
                        len: s,
                        what,
                    },
                    acc,
                );
            }
        }
    }

    /// A retry of a failed sector completed.
    pub fn retry_completed(&mut self, c: &Completion, acc: &mut Accum) {
        let off = c.cmd.offset;
        self.retry_cursor = off + self.p.sector;
        match c.result {
            Ok(_) => {
                self.map.set(off, off + self.p.sector, None);
                self.touched(off);
            }
            Err(_) if acc.lost.is_none() => {
                let what = Failure::Again;
                let s = self.p.sector;
                self.after_failure(
                    Awaiting {
                        offset: off,
                        len: s,
                        what,
                    },
                    acc,
                );
            }
            Err(_) => {}
        }
    }

    /// Whether every pass is done.
    pub fn finished(&self) -> bool {
        self.pass == Pass::Done
    }

    fn first_pass_ns(&self, now_ns: u64) -> u64 {
        let this = if self.started_in_first {
            self.first_end_ns.unwrap_or(now_ns)
        } else {
            0
        };
        self.prior_first_ns + this
    }

    fn error_ns(&self, now_ns: u64) -> u64 {
        let this = match (self.started_in_first, self.first_end_ns) {
            (false, _) => now_ns,
            (true, Some(e)) => now_ns.saturating_sub(e),
            (true, None) => 0,
        };
        self.prior_error_ns + this
    }

    /// What an interrupted scan keeps for `--resume`, at `now_ns` of this run's clock.
    pub fn state(&self, now_ns: u64) -> PassState {
        PassState {
            pass: self.pass,
            retry: self.retry,
            skip: self.skip,
            skip_from: self.skip_from,
            areas: self.map.areas(),
            cut: self.cut,
            cut_failed: self.cut_failed,
            first_pass_ns: self.first_pass_ns(now_ns),
            error_handling_ns: self.error_ns(now_ns),
            budget_ns: self.budget_ns,
            budget_used_ns: self.budget_used(now_ns),
        }
    }

    /// Good, failed and untried bytes of the part of the range the first pass got over, and
    /// the times, at `now_ns` of this run's clock.
    pub fn surface(&self, now_ns: u64) -> Surface {
        let t = self.map.totals();
        let covered = self.next_off - self.p.start;
        let failed = t.failed + t.bad + self.cut_failed;
        // What the first pass never got to (a stop, a device gone) was never read either.
        let unreached = self.p.end.saturating_sub(self.next_off);
        Surface {
            good: covered.saturating_sub(failed + t.untried),
            failed,
            unscraped: t.failed + self.cut_failed,
            untried: t.untried + unreached,
            unreached,
            first_pass_ns: self.first_pass_ns(now_ns),
            error_handling_ns: self.error_ns(now_ns),
            budget_ns: self.budget_ns,
            budget_ran_out: self.budget_ran_out,
        }
    }

    /// Where the extent lists stop because the map stopped growing (the first pass's cap).
    pub fn cut(&self) -> Option<u64> {
        self.cut
    }
}
