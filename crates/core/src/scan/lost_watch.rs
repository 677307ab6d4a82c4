//! The lost-device rule of [`super::lost`] for workloads that are not scans (a diagnosis's
//! experiments): the same [`Prober`], the same verdicts, driven from any job's completions.
//!
//! A job run under a watch hands it every completion ([`LostWatch::command`], or
//! [`LostWatch::probe`] for the watch's own probes, tagged [`TAG_WATCH_PROBE`]) and asks it
//! first what to issue ([`LostWatch::next`]). A failed command is a bad spot unless the rule
//! says the device is gone: an errno that means gone, the kernel's word, or [`LOST_PROBES`]
//! places far from every failure failing in a row. While a failure waits for its probe's
//! answer the job issues nothing new, as a scan does; once the device is lost it issues
//! nothing at all. A failure in a stretch (a thousandth of the range, at least 1 MiB) where a
//! failure was already found to be a bad spot says nothing new, and stands without a probe: a
//! workload that reads a bad spot again and again (random reads, passes over a region) is not
//! held up by it. One watch may serve several runs over the same range in turn: what it
//! learnt of good and failed places carries over.
//!
//! [`LOST_PROBES`]: super::lost::LOST_PROBES

use super::lost::{is_gone, AfterFailure, AfterProbe, Ask, GoneCheck, Prober};
use crate::engine::{Completion, Next};
use std::collections::{BTreeSet, VecDeque};

/// The tag of a watch's probes; a job run under a watch uses other tags for its commands.
pub const TAG_WATCH_PROBE: u32 = u32::MAX;

/// The lost-device rule over the range `[0, length)`.
#[derive(Debug)]
pub struct LostWatch {
    prober: Prober,
    sector: u64,
    lost: Option<String>,
    /// Offsets of the failures waiting for a probe's answer, oldest first.
    awaiting: VecDeque<u64>,
    /// The stretches where a failure stood as a bad spot.
    width: u64,
    bad: BTreeSet<u64>,
}

impl LostWatch {
    /// A watch over `[0, length)` of a device of `sector`-byte sectors, asking `kernel` when a
    /// probe fails.
    pub fn new(length: u64, sector: u64, kernel: GoneCheck) -> LostWatch {
        let sector = sector.max(1);
        let mut prober = Prober::new(0, length.max(sector), sector, 1000);
        prober.set_kernel(kernel);
        LostWatch {
            prober,
            sector,
            lost: None,
            awaiting: VecDeque::new(),
            width: (length / 1000).max(1 << 20).max(sector),
            bad: BTreeSet::new(),
        }
    }

    /// Why the device is taken as gone, once it is.
    pub fn lost(&self) -> Option<&str> {
        self.lost.as_deref()
    }

    /// Take the device as gone for `why` (another rule-keeper, such as a scan run inside the
    /// workload, found it so).
    pub fn set_lost(&mut self, why: String) {
        self.lost.get_or_insert(why);
        self.prober.clear();
        self.awaiting.clear();
    }

    /// Why a failure stood without a verdict, while nothing has read fine since.
    pub fn inconclusive(&self) -> Option<&str> {
        self.prober.inconclusive()
    }

    /// Whether failures wait for a probe's answer.
    pub fn deciding(&self) -> bool {
        !self.awaiting.is_empty()
    }

    /// A command of the job completed (not a probe).
    pub fn command(&mut self, c: &Completion) {
        if self.lost.is_some() || c.cmd.tag == TAG_WATCH_PROBE {
            return;
        }
        match c.result {
            // A write that went through says the device is there, not that the place reads.
            Ok(_) if c.cmd.write => self.prober.present(),
            Ok(_) => self.prober.good(c.cmd.offset),
            Err(errno) if is_gone(errno) => self.set_lost(format!(
                "the device is gone ({} at LBA {})",
                std::io::Error::from_raw_os_error(errno),
                c.cmd.offset / self.sector
            )),
            Err(_) if self.known_bad(c.cmd.offset, u64::from(c.cmd.len)) => {}
            Err(_) => match self.prober.failure(c.cmd.offset, u64::from(c.cmd.len)) {
                AfterFailure::Probe => self.awaiting.push_back(c.cmd.offset),
                AfterFailure::Stands => self.stands(c.cmd.offset),
                AfterFailure::Lost(why) => self.set_lost(why),
            },
        }
    }

    /// Whether `[offset, offset + len)` touches a stretch where a failure stood as a bad spot.
    fn known_bad(&self, offset: u64, len: u64) -> bool {
        let last = offset + len.max(1) - 1;
        self.bad
            .range(offset / self.width..=last / self.width)
            .next()
            .is_some()
    }

    /// The failure at `offset` stands: a bad spot.
    fn stands(&mut self, offset: u64) {
        // Bounded: a thousand stretches and a few more.
        self.bad.insert(offset / self.width);
    }

    /// One of the watch's probes completed.
    pub fn probe(&mut self, c: &Completion) {
        if self.lost.is_some() {
            return;
        }
        let Some(&failed_at) = self.awaiting.front() else {
            return;
        };
        if c.result.is_ok() {
            self.prober.read_fine();
            self.awaiting.pop_front();
            self.stands(failed_at);
            return;
        }
        match self.prober.failed(c, failed_at) {
            AfterProbe::Again => {}
            AfterProbe::Stands => {
                self.awaiting.pop_front();
                self.stands(failed_at);
            }
            AfterProbe::Lost(why) => self.set_lost(why),
        }
    }

    /// What the job must do before anything of its own, if anything: nothing more once the
    /// device is lost (a wait for what is in flight, then done); a probe that is due, or the
    /// pause before it; a wait while a failure waits for its probe's answer.
    pub fn next(&mut self, now_ns: u64, in_flight: usize) -> Option<Next> {
        if self.lost.is_some() {
            return Some(if in_flight > 0 {
                Next::Wait
            } else {
                Next::Done
            });
        }
        match self.prober.next(now_ns) {
            Ask::Issue(mut c) => {
                c.tag = TAG_WATCH_PROBE;
                Some(Next::Issue(c))
            }
            Ask::Later(ns) if in_flight == 0 => Some(Next::Pause(ns)),
            Ask::Later(_) => Some(Next::Wait),
            Ask::Nothing if self.awaiting.is_empty() => None,
            // The probe is in flight: its answer decides.
            Ask::Nothing if in_flight > 0 => Some(Next::Wait),
            // A probe that never came back (a run stopped while it was in flight): the
            // failures it was to decide stand.
            Ask::Nothing => {
                self.awaiting.clear();
                self.prober.read_fine();
                None
            }
        }
    }
}
