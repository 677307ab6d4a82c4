//! A write cache in front of a media, for the flush-honesty experiment on virtual time: `cache` bytes taken
//! at `fill` MB/s while the media drains them at `media` MB/s all the time (a write that does not fit waits for
//! the drain); a flush waits for the drain, returns at once, or returns at once behind a declared protection.
//! Without a cache every write goes at the media's rate. What it was asked is counted, and the block layer's
//! flush count is what [`Counted`] says.

use crate::FlushOpener;
use drivescope_core::durability::flush::FlushDevice;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What a flush does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flush {
    /// Waits until the cache has drained to the media.
    Honoured,
    /// Returns at once, whatever the cache holds.
    Ignored,
}

/// What the block layer counts of the flushes the experiment asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// No count (a kernel before 5.5, no device known under the target).
    Not,
    /// Every flush asked for reaches the device, beside those `others` sends between two readings.
    Sent { others: u64 },
    /// None reaches the device: a file system above it mounted without barriers.
    NotSent,
}

/// The cache, as the module docs describe it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cached {
    pub media: f64,
    /// `(bytes, fill MB/s)`; none: writes go through.
    pub cache: Option<(u64, f64)>,
    pub flush: Flush,
}

impl Cached {
    /// A cache that returns flushes at once, drawn over decades: media 50 MB/s to 1 GB/s, a size of 50 to
    /// 500 ms of the media's writes, a fill rate 3 to 10 times the media's.
    pub fn drawn_lying(r: &mut super::space::rng::Rng) -> Cached {
        let media = r.log(50.0, 1000.0);
        let size = (media * 1e6 * r.range(0.05, 0.5)) as u64 / 4096 * 4096;
        let fill = media * r.range(3.0, 10.0);
        Cached {
            media,
            cache: Some((size, fill)),
            flush: Flush::Ignored,
        }
    }
}

/// What the device was asked, shared with the test.
#[derive(Debug, Default)]
pub struct Asked {
    pub opened: AtomicU64,
    pub written: AtomicU64,
    pub flushes: AtomicU64,
}

struct Toy {
    m: Cached,
    room: u64,
    dirty: f64,
    now: f64,
    asked: Arc<Asked>,
}

impl Toy {
    /// Let `ns` pass: the media drains what it can.
    fn pass(&mut self, ns: f64) {
        self.dirty = (self.dirty - ns * self.m.media * 1e-3).max(0.0);
        self.now += ns;
    }
}

impl FlushDevice for Toy {
    fn room(&self) -> u64 {
        self.room
    }
    fn write(&mut self, offset: u64, len: usize) -> std::io::Result<()> {
        assert!(offset + len as u64 <= self.room, "a write past the region");
        let len = len as f64;
        let drain = self.m.media * 1e-3;
        match self.m.cache {
            None => self.pass(len / drain),
            Some((size, fill)) => {
                let excess = self.dirty + len - size as f64;
                if excess > 0.0 {
                    self.pass(excess / drain);
                }
                self.pass(len / (fill * 1e-3));
                self.dirty += len;
            }
        }
        self.asked.written.fetch_add(len as u64, Ordering::Relaxed);
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.asked.flushes.fetch_add(1, Ordering::Relaxed);
        // A flush command's own time.
        self.pass(20_000.0);
        if self.m.flush == Flush::Honoured {
            self.pass(self.dirty / (self.m.media * 1e-3));
        }
        Ok(())
    }
    fn now_ns(&self) -> u64 {
        self.now as u64
    }
    fn idle(&mut self, ns: u64) {
        self.pass(ns as f64);
    }
}

impl Cached {
    /// The experiment's opener for this device, its flushes not counted, and what it will be asked.
    pub fn opener(self) -> (FlushOpener, Arc<Asked>) {
        self.opener_counted(Counted::Not)
    }

    /// The experiment's opener for this device, its flushes counted as `counted` says, and what it will be
    /// asked.
    pub fn opener_counted(self, counted: Counted) -> (FlushOpener, Arc<Asked>) {
        let asked = Arc::new(Asked::default());
        let seen = asked.clone();
        let open = move |region: u64, _chunk: usize| {
            seen.opened.fetch_add(1, Ordering::Relaxed);
            let toy = Toy {
                m: self,
                room: region,
                dirty: 0.0,
                now: 0.0,
                asked: seen.clone(),
            };
            Ok((Box::new(toy) as Box<dyn FlushDevice>, true))
        };
        let sent = asked.clone();
        let mut readings = 0;
        let count = move || {
            readings += 1;
            match counted {
                Counted::Not => None,
                Counted::Sent { others } => {
                    Some(sent.flushes.load(Ordering::Relaxed) + readings * others)
                }
                Counted::NotSent => Some(0),
            }
        };
        (
            FlushOpener {
                open: Box::new(open),
                count: Box::new(count),
            },
            asked,
        )
    }
}

/// The flush experiment's finding code.
pub fn code() -> drivescope_record::FindingCode {
    drivescope_record::FindingCode::Other("flush_honesty".into())
}

/// `rec` changed by `edit` and judged again: its flush finding and its flush experiment's outcome.
pub fn rejudged(
    rec: &drivescope_record::DiagnoseRecord,
    edit: &dyn Fn(&mut drivescope_record::DiagnoseRecord),
) -> (
    Option<drivescope_record::Finding>,
    drivescope_record::Outcome,
    drivescope_record::DiagnoseRecord,
) {
    let mut rec = rec.clone();
    edit(&mut rec);
    crate::assess(&mut rec);
    let f = rec
        .header
        .findings
        .iter()
        .find(|f| f.code == code())
        .cloned();
    let o = rec
        .outcomes
        .iter()
        .find(|o| o.experiment == drivescope_record::Experiment::FlushHonesty)
        .cloned()
        .unwrap();
    (f, o, rec)
}
