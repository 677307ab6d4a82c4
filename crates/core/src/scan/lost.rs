//! Deciding that a device is gone, not just bad in places.
//!
//! A failed command is a bad spot, or the device has gone away (unplugged, detached, its
//! server dead). A scan tells them apart as follows, and only then ends as lost:
//!
//! 1. An error that means *gone* (`ENODEV`, `ENXIO`, `ENOMEDIUM`, `ESHUTDOWN`, `ENOTCONN`) on
//!    any command or probe: lost at once.
//! 2. After any other failure the scan reads one sector (a *probe*) at a place that read fine
//!    and lies far from every known failure: the nearest *anchor* (the first and the last
//!    sector read fine in each thousandth of the range) at least [`Prober::gap`] away from
//!    every failure (a curve bin, at least 1 MiB). Never a sector next to damage: marginal
//!    sectors around a bad area that read once and fail later are normal on a failing drive,
//!    and a probe there would only widen the damage. With no such place yet (damage at the
//!    range's start), the failure stands without a probe unless the kernel says the device is
//!    gone (3).
//! 3. A probe that reads fine: the failure stands (a bad spot). A probe that fails: the
//!    kernel is asked ([`GoneCheck`]: the block device gone from sysfs, its size 0, its
//!    `device/state` offline or dead); when it says gone, lost. Otherwise the scan pauses
//!    ([`PROBE_PAUSE_NS`]) and probes again at the next anchor (the same one when there is no
//!    other); only a second failure ends the scan as lost.
//!
//! A pulled disk is so found lost about one pause after its first failure; a failing disk
//! whose damage grows while it is read is mapped, however its bad area spreads, as long as a
//! place a stretch away from it still reads.

use crate::engine::{Cmd, Completion};
use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;

/// The pause between a probe that failed and the second one.
pub const PROBE_PAUSE_NS: u64 = 1_000_000_000;

/// Errors that mean the device itself is gone, not a bad spot.
pub fn is_gone(errno: i32) -> bool {
    matches!(
        errno,
        libc::ENODEV | libc::ENXIO | libc::ENOMEDIUM | libc::ESHUTDOWN | libc::ENOTCONN
    )
}

/// The kernel's own word on whether a block device is still there, read from sysfs.
#[derive(Debug, Clone, Default)]
pub struct GoneCheck {
    /// The device's sysfs directory (`/sys/dev/block/MAJ:MIN`); none for files and `null:`.
    pub sysfs: Option<PathBuf>,
}

impl GoneCheck {
    /// Why the kernel says the device is gone, or `None` while it says nothing of the kind.
    pub fn says_gone(&self) -> Option<String> {
        let dir = self.sysfs.as_ref()?;
        if !dir.exists() {
            return Some("the kernel removed the block device".into());
        }
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
        if read("size").is_some_and(|s| s.trim() == "0") {
            return Some("the kernel reports a size of 0 (no medium)".into());
        }
        // SCSI disks say `offline`, NVMe controllers `dead` or `deleting`; a partition's
        // device is its disk's.
        let state = read("device/state").or_else(|| {
            dir.join("partition")
                .exists()
                .then(|| std::fs::read_to_string(dir.join("../device/state")).ok())
                .flatten()
        })?;
        let state = state.trim();
        matches!(
            state,
            "offline" | "dead" | "deleting" | "deleting (no IO)" | "transport-offline"
        )
        .then(|| format!("the kernel reports the device {state}"))
    }
}

/// A failure, and what follows.
#[derive(Debug, PartialEq, Eq)]
pub enum AfterFailure {
    /// It waits for a probe.
    Probe,
    /// It stands: a bad spot.
    Stands,
    /// The device is gone: why, in one line.
    Lost(String),
}

/// A probe that failed, and what follows.
#[derive(Debug, PartialEq, Eq)]
pub enum AfterProbe {
    /// A second probe is queued after the pause.
    Again,
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
    width: u64,
    gap: u64,
    sector: u64,
    /// The stretch the last good sector fell in, `[lo, hi)`, and the first and last good
    /// sectors seen in it since it became current (a fast path per command).
    cur: (u64, u64),
    cur_good: (u64, u64),
    /// Stretch → the first and the last sector found good in it.
    good: BTreeMap<u64, (u64, u64)>,
    /// Stretch → the lowest and the highest failed byte in it, `[lo, hi)`.
    failed: BTreeMap<u64, (u64, u64)>,
    queue: VecDeque<Cmd>,
    /// When the queue's front probe is due (this run's clock).
    due_ns: u64,
    /// A probe is in flight: the next waits for its answer, so answers pair with failures in
    /// order.
    in_flight: bool,
    kernel: GoneCheck,
}

impl Prober {
    /// Probes for a scan of `[start, start + length)` in `points` curve bins.
    pub fn new(start: u64, length: u64, sector: u64, points: usize) -> Self {
        let width = (length / 1000).max(1 << 20).max(sector);
        Prober {
            start,
            width,
            gap: (length / points.max(1) as u64).max(1 << 20),
            sector,
            cur: (1, 0),
            cur_good: (0, 0),
            good: BTreeMap::new(),
            failed: BTreeMap::new(),
            queue: VecDeque::new(),
            due_ns: 0,
            in_flight: false,
            kernel: GoneCheck::default(),
        }
    }

    /// How far a probe lies at least from every failure: a curve bin, at least 1 MiB.
    pub fn gap(&self) -> u64 {
        self.gap
    }

    /// Ask `kernel` when a probe fails.
    pub fn set_kernel(&mut self, kernel: GoneCheck) {
        self.kernel = kernel;
    }

    fn stretch(&self, offset: u64) -> u64 {
        offset.saturating_sub(self.start) / self.width
    }

    /// A sector at `offset` read fine.
    #[inline]
    pub fn good(&mut self, offset: u64) {
        if offset >= self.cur.0 && offset < self.cur.1 {
            self.cur_good.0 = self.cur_good.0.min(offset);
            self.cur_good.1 = self.cur_good.1.max(offset);
            return;
        }
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

    /// Whether `at` lies at least the gap from every failure.
    fn far(&self, at: u64) -> bool {
        let s = self.stretch(at);
        let k = self.gap / self.width + 1;
        self.failed
            .range(s.saturating_sub(k)..=s.saturating_add(k))
            .all(|(_, &(lo, hi))| at + self.gap <= lo || at >= hi + self.gap - 1)
    }

    /// The anchor nearest `offset` that lies far from every failure.
    fn anchor(&mut self, offset: u64) -> Option<u64> {
        self.keep_current();
        self.good
            .values()
            .flat_map(|&(a, b)| [a, b])
            .filter(|&a| self.far(a))
            .min_by_key(|&a| a.abs_diff(offset))
    }

    fn push(&mut self, offset: u64) {
        self.queue.push_back(Cmd {
            offset,
            len: self.sector as u32,
            tag: super::accum::TAG_PROBE,
            write: false,
        });
    }

    /// A failure over `[offset, offset + len)` (not one that means gone): a probe is queued,
    /// or it stands at once (no place far from every failure, and the kernel says nothing),
    /// or the kernel says the device is gone.
    pub fn failure(&mut self, offset: u64, len: u64) -> AfterFailure {
        self.mark_failed(offset, len);
        if let Some(p) = self.anchor(offset) {
            self.push(p);
            return AfterFailure::Probe;
        }
        match self.kernel.says_gone() {
            Some(why) => AfterFailure::Lost(format!(
                "the device stopped responding: {why} after a command failed at LBA {} \
                 (offset {offset})",
                offset / self.sector
            )),
            None => AfterFailure::Stands,
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

    /// A probe read fine.
    pub fn read_fine(&mut self) {
        self.in_flight = false;
    }

    /// Whether a probe is queued or in flight.
    pub fn busy(&self) -> bool {
        !self.queue.is_empty() || self.in_flight
    }

    /// Forget the queued probes (the device is gone).
    pub fn clear(&mut self) {
        self.queue.clear();
    }

    /// The probe `c` failed, for the failure at `failed_at`; `retried`: it was already the
    /// second probe for it.
    pub fn failed(&mut self, c: &Completion, failed_at: u64, retried: bool) -> AfterProbe {
        let lba = |o: u64| o / self.sector;
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
        if retried {
            return AfterProbe::Lost(format!(
                "the device stopped responding: a command failed at LBA {} (offset {failed_at}) \
                 and places far from it that read fine before failed twice, {} s apart (the \
                 last at LBA {}); it is gone or has failed",
                lba(failed_at),
                PROBE_PAUSE_NS / 1_000_000_000,
                lba(c.cmd.offset)
            ));
        }
        // The probe's place is suspect from now on: the next anchor, the same when alone.
        self.mark_failed(c.cmd.offset, self.sector);
        let next = self.anchor(failed_at).unwrap_or(c.cmd.offset);
        // The second probe goes first: its failure is the one being decided.
        self.queue.push_front(Cmd {
            offset: next,
            len: self.sector as u32,
            tag: super::accum::TAG_PROBE,
            write: false,
        });
        self.due_ns = c.done_ns.saturating_add(PROBE_PAUSE_NS);
        AfterProbe::Again
    }
}
