//! A scan's failed sectors and slow commands grouped by position: failed extents (adjacent
//! failed sectors with the same errno) and slow regions (adjacent slow commands).

use crate::scan::{Event, ScanRecord};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Most extents (and most slow regions) a scan keeps; a list that reaches it is cut (see
/// `ScanRecord::failed_extents_cut`).
pub const EXTENT_LIST_CAP: usize = 10_000;

/// Adjacent failed sectors with the same errno; in a scan whose error handling was bounded, a
/// stretch from one failed sector (or command) to the last, which may hold parts of failed
/// commands whose sectors were not each read (`unscraped`) and parts never read (`untried`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedExtent {
    /// Byte offset of the first sector.
    pub offset: u64,
    /// Bytes.
    pub length: u64,
    pub first_lba: u64,
    pub last_lba: u64,
    pub errno: i32,
    /// Failed sectors in the extent, each read on its own.
    pub count: u64,
    /// Bytes of the extent in failed commands whose sectors were not each read.
    #[serde(skip_serializing_if = "is_zero", default)]
    pub unscraped: u64,
    /// Bytes of the extent never read (between failures; listed in `untried_extents` too).
    #[serde(skip_serializing_if = "is_zero", default)]
    pub untried: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Adjacent slow commands (each starts where the one before ends).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlowRegion {
    pub offset: u64,
    /// Bytes.
    pub length: u64,
    /// Slow commands in the region.
    pub count: u64,
    /// The slowest of them.
    pub max_latency_ns: u64,
}

impl ScanRecord {
    /// The failed extents; for a document written before `failed_extents` existed, those of
    /// its `failed` list (which holds at most 10 000 sectors).
    pub fn failed_extents_or_derived(&self) -> Cow<'_, [FailedExtent]> {
        if !self.failed_extents.is_empty() || self.failed.is_empty() {
            return Cow::Borrowed(&self.failed_extents);
        }
        let sector = (self.header.target.logical_block_size as u64).max(1);
        let mut events: Vec<&Event> = self.failed.iter().collect();
        events.sort_by_key(|e| e.offset);
        let mut out: Vec<FailedExtent> = Vec::new();
        for e in events {
            let errno = e.errno.unwrap_or(0);
            if let Some(last) = out.last_mut() {
                if last.offset + last.length == e.offset && last.errno == errno {
                    last.length += sector;
                    last.last_lba = e.lba;
                    last.count += 1;
                    continue;
                }
            }
            out.push(FailedExtent {
                offset: e.offset,
                length: sector,
                first_lba: e.lba,
                last_lba: e.lba,
                errno,
                count: 1,
                ..FailedExtent::default()
            });
        }
        out.truncate(EXTENT_LIST_CAP);
        Cow::Owned(out)
    }

    /// Runs of sectors that failed on their own, in position order: what a resumed scan's
    /// `--failed-list` starts with. From the resume state's areas when it has them (extents
    /// may hold untried parts and failed commands not read sector by sector), else the
    /// extents (older documents re-read every failed command at once).
    pub fn failed_sector_runs(&self) -> Vec<FailedExtent> {
        let sector = (self.header.target.logical_block_size as u64).max(1);
        match self.resume.as_ref().and_then(|r| r.passes.as_ref()) {
            Some(p) => p
                .areas
                .iter()
                .filter(|a| a.kind == crate::AreaKind::Bad)
                .map(|a| FailedExtent {
                    offset: a.offset,
                    length: a.length,
                    first_lba: a.offset / sector,
                    last_lba: (a.offset + a.length - 1) / sector,
                    errno: a.errno,
                    count: a.length / sector,
                    ..FailedExtent::default()
                })
                .collect(),
            None => self.failed_extents_or_derived().into_owned(),
        }
    }

    /// The slow regions; for a document written before `slow_regions` existed, those of its
    /// `slow` list (which holds at most 10 000 commands).
    pub fn slow_regions_or_derived(&self) -> Cow<'_, [SlowRegion]> {
        if !self.slow_regions.is_empty() || self.slow.is_empty() {
            return Cow::Borrowed(&self.slow_regions);
        }
        let end = self.offset + self.length;
        let mut events: Vec<&Event> = self.slow.iter().collect();
        events.sort_by_key(|e| e.offset);
        let mut out: Vec<SlowRegion> = Vec::new();
        for e in events {
            let len = self.block_size.min(end.saturating_sub(e.offset)).max(1);
            if let Some(last) = out.last_mut() {
                if last.offset + last.length == e.offset {
                    last.length += len;
                    last.count += 1;
                    last.max_latency_ns = last.max_latency_ns.max(e.latency_ns);
                    continue;
                }
            }
            out.push(SlowRegion {
                offset: e.offset,
                length: len,
                count: 1,
                max_latency_ns: e.latency_ns,
            });
        }
        out.truncate(EXTENT_LIST_CAP);
        Cow::Owned(out)
    }

    /// Failed sectors: the extents' sector total, or `failed_total` where the extent list
    /// was cut (or derived from a `failed` list that was).
    pub fn failed_sectors(&self) -> u64 {
        let listed: u64 = self
            .failed_extents_or_derived()
            .iter()
            .map(|e| e.count)
            .sum();
        if self.failed_extents_cut.is_some() {
            listed.max(self.failed_total)
        } else if self.failed_extents.is_empty() {
            // Derived from the `failed` list, or none.
            listed.max(self.failed_total)
        } else {
            listed
        }
    }
}
