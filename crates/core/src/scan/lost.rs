//! Deciding that a device is gone, not just bad in places.
//!
//! A failed command is a bad spot, or the device has gone away (unplugged, detached, its
//! server dead). Damage comes in every size, from one sector to gigabytes, and on a failing
//! drive it grows while it is read: sectors around a bad area read once and fail after, over
//! a margin of anything from a few KiB to hundreds of MiB. So a place near damage says
//! nothing about the device, and a scan ends as lost only as follows:
//!
//! 1. An error that means *gone* (`ENODEV`, `ENXIO`, `ENOMEDIUM`, `ESHUTDOWN`, `ENOTCONN`) on
//!    any command or probe: lost at once.
//! 2. The kernel says the device is gone ([`GoneCheck`]: the block device gone from sysfs, its
//!    size 0, its `device/state` offline or dead), asked after a failure with no place to
//!    probe and after every probe that fails: lost.
//! 3. After any other failure the scan reads one sector (a *probe*) at a place **far** from
//!    every failure: at least [`Prober::far`] away, the larger of 64 MiB and 1 % of the range.
//!    The places are spread over the range: its first and last sectors and the points at each
//!    eighth of it, and the first and last sector read fine in each thousandth of it; of those
//!    far from every failure, the one farthest from them is read. A probe that reads fine: the
//!    failure stands (a bad spot). A probe that fails is a failure too (later probes keep far
//!    from it); after a pause ([`PROBE_PAUSE_NS`]) the next far place is read. Only when
//!    [`LOST_PROBES`] far places, each far from the others, fail in a row is the device lost.
//!
//! Where no far place is left (a range under about twice [`Prober::far`], or failures spread
//! all over it), the failure stands and the verdict is *inconclusive*: the scan goes on, and
//! when nothing reads fine after that failure it says so with the reason
//! ([`Prober::inconclusive`]) instead of guessing that the device is lost. Any command that
//! reads fine later shows the device is there and clears it; so does, at the end of the scan,
//! one read of the place read fine before that lies farthest from every failure.
//!
//! A pulled disk is so found lost within a few commands and two pauses after it goes; a
//! failing disk whose damage grows while it is read is mapped within the scan's error budget,
//! however wide its damage, as long as places far from it still read.

use crate::engine::{Cmd, Completion};
use std::collections::{BTreeMap, VecDeque};

/// The pause between a probe that failed and the next one.
pub const PROBE_PAUSE_NS: u64 = 1_000_000_000;

/// How many far places must fail in a row for the device to be taken as lost.
pub const LOST_PROBES: u32 = 3;

/// The least distance from every failure a probe keeps (1 % of the range when that is more).
pub const FAR_MIN: u64 = 64 << 20;

/// Errors that mean the device itself is gone, not a bad spot.
pub fn is_gone(errno: i32) -> bool {
    matches!(
        errno,
        libc::ENODEV | libc::ENXIO | libc::ENOMEDIUM | libc::ESHUTDOWN | libc::ENOTCONN
    )
}

pub use crate::gone::GoneCheck;

/// A failure, and what follows.
#[derive(Debug, PartialEq, Eq)]
pub enum AfterFailure {
    /// It waits for a probe.
    Probe,
    /// It stands: a bad spot (or, with no far place to probe, no verdict).
    Stands,
    /// The device is gone: why, in one line.
    Lost(String),
}

/// A probe that failed, and what follows.
#[derive(Debug, PartialEq, Eq)]
pub enum AfterProbe {
    /// Another probe is queued after the pause.
    Again,
    /// No far place is left to probe: the failure stands without a verdict.
    Stands,
    /// The device is gone: why, in one line.
    Lost(String),
}

/// What the scan asks next of its probes.
#[derive(Debug, PartialEq, Eq)]
pub enum Ask {
    Issue(Cmd),
    /// A probe is due in this many nanoseconds.
    Later(u64),
    Nothing,
}

/// Good places to probe and where the range failed, kept per stretch (a thousandth of the
/// range, at least 1 MiB), so memory stays flat whatever the device's size.
#[derive(Debug)]
pub struct Prober {
    start: u64,
    length: u64,
    width: u64,
    far: u64,
    sector: u64,
    /// The stretch the last good sector fell in, `[lo, hi)`, and the first and last good
    /// sectors seen in it since it became current (a fast path per command).
    cur: (u64, u64),
    cur_good: (u64, u64),
    /// Stretch → the first and the last sector found good in it.
    good: BTreeMap<u64, (u64, u64)>,
    /// Stretch → the lowest and the highest failed byte in it, `[lo, hi)`.
    failed: BTreeMap<u64, (u64, u64)>,
    /// The place the last probe was chosen at, while it stays far from every failure.
    chosen: Option<u64>,
    /// Counts the changes to what read fine (the places a probe may read).
    good_changes: u64,
    /// `good_changes` when no place was found far from every failure: failures only come nearer,
    /// so none is found again until something more reads fine (a dead area re-read sector by
    /// sector asks after each of its million failures).
    none_far_at: Option<u64>,
    queue: VecDeque<Cmd>,
    /// When the queue's front probe is due (this run's clock).
    due_ns: u64,
    /// A probe is in flight: the next waits for its answer, so answers pair with failures in
    /// order.
    in_flight: bool,
    /// Far places that failed in a row, for the failure being decided.
    failed_in_row: u32,
    /// Why the last failure got no verdict, while nothing has read fine since.
    unsure: Option<String>,
    /// The scan's last read, at its end, was asked for ([`Prober::last_check`]).
    checked: bool,
    kernel: GoneCheck,
}

/// How far `at` lies from the failed bytes `[lo, hi)`.
fn distance(at: u64, (lo, hi): (u64, u64)) -> u64 {
    if at < lo {
        lo - at
    } else if at >= hi {
        at + 1 - hi
    } else {
        0
    }
}

impl Prober {
    /// Probes for a scan of `[start, start + length)` (`points`: its curve bins; the stretches
    /// are a thousandth of the range whatever they are).
    pub fn new(start: u64, length: u64, sector: u64, points: usize) -> Self {
        let _ = points;
        let width = (length / 1000).max(1 << 20).max(sector);
        let far = (length / 100).max(FAR_MIN).div_ceil(sector) * sector;
        Prober {
            start,
            length,
            width,
            far,
            sector,
            cur: (1, 0),
            cur_good: (0, 0),
            good: BTreeMap::new(),
            failed: BTreeMap::new(),
            chosen: None,
            good_changes: 0,
            none_far_at: None,
            queue: VecDeque::new(),
            due_ns: 0,
            in_flight: false,
            failed_in_row: 0,
            unsure: None,
            checked: false,
            kernel: GoneCheck::default(),
        }
    }

    /// How far a probe lies at least from every failure: 64 MiB, or 1 % of the range when
    /// that is more.
    pub fn far(&self) -> u64 {
        self.far
    }

    /// Ask `kernel` when a probe fails.
    pub fn set_kernel(&mut self, kernel: GoneCheck) {
        self.kernel = kernel;
    }

    /// Why the lost verdict could not be reached, when a failure stood without one and nothing
    /// read fine after it.
    pub fn inconclusive(&self) -> Option<&str> {
        self.unsure.as_deref()
    }

    fn stretch(&self, offset: u64) -> u64 {
        offset.saturating_sub(self.start) / self.width
    }

    /// A sector at `offset` read fine.
    #[inline]
    pub fn good(&mut self, offset: u64) {
        if self.unsure.is_some() {
            self.unsure = None;
        }
        if offset >= self.cur.0 && offset < self.cur.1 {
            if offset < self.cur_good.0 || offset > self.cur_good.1 {
                self.cur_good.0 = self.cur_good.0.min(offset);
                self.cur_good.1 = self.cur_good.1.max(offset);
                self.good_changes += 1;
            }
            return;
        }
        self.good_changes += 1;
        self.keep_current();
        let lo = self.start + self.stretch(offset) * self.width;
        self.cur = (lo, lo.saturating_add(self.width));
        self.cur_good = (offset, offset);
    }

    /// Fold the current stretch's good sectors into the map.
    fn keep_current(&mut self) {
        if self.cur.0 >= self.cur.1 {
            return;
        }
        let (a, b) = self.cur_good;
        let e = self.good.entry(self.stretch(self.cur.0)).or_insert((a, b));
        *e = (e.0.min(a), e.1.max(b));
    }

    /// Mark `[offset, offset + len)` failed.
    fn mark_failed(&mut self, offset: u64, len: u64) {
        let end = offset + len.max(1);
        for s in self.stretch(offset)..=self.stretch(end - 1) {
            let lo = self.start + s * self.width;
            let (a, b) = (offset.max(lo), end.min(lo.saturating_add(self.width)));
            let e = self.failed.entry(s).or_insert((a, b));
            *e = (e.0.min(a), e.1.max(b));
        }
    }

    /// How far `at` lies from the nearest failure (`u64::MAX` with none).
    fn clearance(&self, at: u64) -> u64 {
        let s = self.stretch(at);
        let here = self.failed.get(&s);
        let below = self.failed.range(..s).next_back().map(|(_, &f)| f);
        let above = self
            .failed
            .range(s.saturating_add(1)..)
            .next()
            .map(|(_, &f)| f);
        [here.copied(), below, above]
            .into_iter()
            .flatten()
            .map(|f| distance(at, f))
            .min()
            .unwrap_or(u64::MAX)
    }

    /// The places a probe may read: the range's first and last sectors and each eighth of it,
    /// and the first and last good sector of every stretch.
    fn places(&self) -> impl Iterator<Item = u64> + '_ {
        let last = self.start + (self.length - 1) / self.sector * self.sector;
        let spread = (0..=8u64).map(move |i| {
            let at = self.start + (self.length as u128 * i as u128 / 8) as u64;
            (at / self.sector * self.sector).min(last)
        });
        spread.chain(self.good.values().flat_map(|&(a, b)| [a, b]))
    }

    /// The place to probe: the last one chosen while it stays far from every failure, else
    /// of the places far from every failure the one farthest from them.
    fn place(&mut self) -> Option<u64> {
        if let Some(p) = self.chosen.filter(|&p| self.clearance(p) >= self.far) {
            return Some(p);
        }
        if self.none_far_at == Some(self.good_changes) {
            self.chosen = None;
            return None;
        }
        self.keep_current();
        let best = self
            .places()
            .map(|p| (self.clearance(p), p))
            .filter(|&(c, _)| c >= self.far)
            .max_by_key(|&(c, p)| (c, std::cmp::Reverse(p)))
            .map(|(_, p)| p);
        self.chosen = best;
        self.none_far_at = best.is_none().then_some(self.good_changes);
        best
    }

    fn probe(&self, offset: u64) -> Cmd {
        Cmd {
            offset,
            len: self.sector as u32,
            tag: super::accum::TAG_PROBE,
            write: false,
        }
    }

    /// No verdict for the failure at `offset`: say why, until something reads fine.
    fn unsure(&mut self, offset: u64, why: &str) {
        self.unsure = Some(format!(
            "a command failed at LBA {} (offset {offset}) and nothing read fine after it, but \
             whether the device went away could not be told: {why}",
            offset / self.sector
        ));
    }

    /// A failure over `[offset, offset + len)` (not one that means gone): a probe is queued,
    /// or it stands at once (no place far from every failure, and the kernel says nothing),
    /// or the kernel says the device is gone.
    pub fn failure(&mut self, offset: u64, len: u64) -> AfterFailure {
        self.mark_failed(offset, len);
        if let Some(p) = self.place() {
            let c = self.probe(p);
            self.queue.push_back(c);
            return AfterFailure::Probe;
        }
        match self.kernel.says_gone() {
            Some(why) => AfterFailure::Lost(format!(
                "the device stopped responding: {why} after a command failed at LBA {} \
                 (offset {offset})",
                offset / self.sector
            )),
            None => {
                let why = format!(
                    "no place in the range lies {} from every failure",
                    crate::units::format_size(self.far)
                );
                self.unsure(offset, &why);
                AfterFailure::Stands
            }
        }
    }

    /// The next probe, at `now_ns` of this run's clock.
    pub fn next(&mut self, now_ns: u64) -> Ask {
        if self.queue.is_empty() || self.in_flight {
            return Ask::Nothing;
        }
        if now_ns < self.due_ns {
            return Ask::Later(self.due_ns - now_ns);
        }
        self.in_flight = true;
        self.due_ns = 0;
        Ask::Issue(self.queue.pop_front().expect("a queued probe"))
    }

    /// At the end of a scan whose last failure got no verdict: one read of the place read
    /// fine before that lies farthest from every failure (however near), once. When it reads
    /// fine ([`Prober::read_fine`]) the device is there.
    pub fn last_check(&mut self) -> Option<Cmd> {
        if self.unsure.is_none() || self.checked {
            return None;
        }
        self.checked = true;
        self.keep_current();
        let p = self
            .good
            .values()
            .flat_map(|&(a, b)| [a, b])
            .max_by_key(|&p| self.clearance(p))?;
        Some(self.probe(p))
    }

    /// A sector re-read (not a command over the range, not a probe) read fine: the device
    /// is there.
    pub fn present(&mut self) {
        self.unsure = None;
    }

    /// A probe read fine.
    pub fn read_fine(&mut self) {
        self.in_flight = false;
        self.failed_in_row = 0;
        self.unsure = None;
    }

    /// Whether a probe is queued or in flight.
    pub fn busy(&self) -> bool {
        !self.queue.is_empty() || self.in_flight
    }

    /// Forget the queued probes (the device is gone).
    pub fn clear(&mut self) {
        self.queue.clear();
    }

    /// The probe `c` failed, for the failure at `failed_at`.
    pub fn failed(&mut self, c: &Completion, failed_at: u64) -> AfterProbe {
        let sector = self.sector;
        let lba = |o: u64| o / sector;
        self.in_flight = false;
        if let Err(errno) = c.result {
            if is_gone(errno) {
                return AfterProbe::Lost(format!(
                    "the device is gone ({} at LBA {})",
                    std::io::Error::from_raw_os_error(errno),
                    lba(c.cmd.offset)
                ));
            }
        }
        if let Some(why) = self.kernel.says_gone() {
            return AfterProbe::Lost(format!(
                "the device stopped responding: {why} after a command failed at LBA {} \
                 (offset {failed_at})",
                lba(failed_at)
            ));
        }
        self.failed_in_row += 1;
        // The probe's place failed: later probes keep far from it too.
        self.mark_failed(c.cmd.offset, self.sector);
        if self.failed_in_row >= LOST_PROBES {
            self.failed_in_row = 0;
            return AfterProbe::Lost(format!(
                "the device stopped responding: a command failed at LBA {} (offset \
                 {failed_at}) and {LOST_PROBES} places at least {} from it and from each other \
                 failed, {} s apart (the last at LBA {}); it is gone or has failed",
                lba(failed_at),
                crate::units::format_size(self.far),
                PROBE_PAUSE_NS / 1_000_000_000,
                lba(c.cmd.offset)
            ));
        }
        let Some(next) = self.place() else {
            let why = format!(
                "{} places far from it failed and no other lies {} from every failure",
                self.failed_in_row,
                crate::units::format_size(self.far)
            );
            self.failed_in_row = 0;
            self.unsure(failed_at, &why);
            return AfterProbe::Stands;
        };
        // The next probe goes first: its failure is the one being decided.
        let c2 = self.probe(next);
        self.queue.push_front(c2);
        self.due_ns = c.done_ns.saturating_add(PROBE_PAUSE_NS);
        AfterProbe::Again
    }
}
