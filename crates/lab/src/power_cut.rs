//! A power cut on command, with truth: what a write cache loses when the power goes.
//!
//! Every write that enters a volatile write cache is kept here as an undo entry (where it landed
//! and what the image held there before), oldest first. The cache drains its oldest data first
//! ([`crate::cache::WriteBack`] counts the bytes still dirty), so at any moment the data not yet
//! on the media are the newest `dirty` bytes written; entries older than that are dropped as the
//! cache drains. A cut restores the image under those newest bytes to what it held before them
//! (whole 512-byte sectors: a sector half-written when the power went is not on the media),
//! newest first, and the disk goes dark: every command fails with EIO until the power comes
//! back. A cache that declares power-loss protection loses nothing; a disk without a cache has
//! nothing volatile. The truth of each cut is the byte ranges it restored.

use serde::Serialize;
use std::collections::VecDeque;

/// The sector a cut tears at: a partly written sector is lost whole.
pub const SECTOR: u64 = 512;

/// One write still (perhaps) in the cache: where it landed and what it replaced.
#[derive(Debug, Clone)]
struct Undo {
    offset: u64,
    old: Vec<u8>,
}

/// What one power cut dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CutTruth {
    /// Dirty bytes the cache held when the power went (before sector rounding).
    pub dirty_bytes: u64,
    /// The cache declared power-loss protection: nothing was lost.
    pub protected: bool,
    /// Byte ranges `(offset, length)` restored to what they held before, newest write first.
    pub lost: Vec<(u64, u64)>,
}

impl CutTruth {
    /// Bytes the cut restored.
    pub fn lost_bytes(&self) -> u64 {
        self.lost.iter().map(|r| r.1).sum()
    }

    /// Whether any byte of `offset..offset + len` was restored.
    pub fn touches(&self, offset: u64, len: u64) -> bool {
        self.lost
            .iter()
            .any(|&(o, l)| o < offset + len && offset < o + l)
    }

    /// Whether every byte of `offset..offset + len` was restored.
    pub fn covers(&self, offset: u64, len: u64) -> bool {
        let mut ranges: Vec<_> = self
            .lost
            .iter()
            .filter(|&&(o, l)| o < offset + len && offset < o + l)
            .copied()
            .collect();
        ranges.sort();
        let mut at = offset;
        for (o, l) in ranges {
            if o > at {
                return false;
            }
            at = at.max(o + l);
        }
        at >= offset + len
    }
}

/// The volatile side of a disk: the undo entries of what its cache may still hold, and whether
/// the power is on.
#[derive(Debug, Default)]
pub struct Volatile {
    undo: VecDeque<Undo>,
    undo_bytes: u64,
    dark: bool,
    cuts: Vec<CutTruth>,
}

impl Volatile {
    /// The power is off: every command fails.
    pub fn dark(&self) -> bool {
        self.dark
    }

    /// A write of `old.len()` bytes at `offset` entered the cache, replacing `old`; the cache now
    /// holds `dirty` bytes not on the media.
    pub fn wrote(&mut self, offset: u64, old: Vec<u8>, dirty: u64) {
        self.undo_bytes += old.len() as u64;
        self.undo.push_back(Undo { offset, old });
        self.drained_to(dirty);
    }

    /// The cache drained to `dirty` bytes: forget the entries wholly older than those.
    pub fn drained_to(&mut self, dirty: u64) {
        while let Some(front) = self.undo.front() {
            let len = front.old.len() as u64;
            if self.undo_bytes - len < dirty {
                break;
            }
            self.undo_bytes -= len;
            self.undo.pop_front();
        }
    }

    /// The power goes with `dirty` bytes in the cache: the restores to make, newest first
    /// (`(offset, bytes)`), and the truth. The undo entries are gone after it and the disk is dark.
    pub fn cut(&mut self, dirty: u64, protected: bool) -> (Vec<(u64, Vec<u8>)>, CutTruth) {
        self.dark = true;
        let mut truth = CutTruth {
            dirty_bytes: dirty,
            protected,
            lost: Vec::new(),
        };
        let mut restores = Vec::new();
        let mut left = if protected {
            0
        } else {
            dirty.min(self.undo_bytes)
        };
        while left > 0 {
            let Some(u) = self.undo.pop_back() else {
                break;
            };
            let len = u.old.len() as u64;
            // The newest `left` bytes of this write are not on the media; the sector the drain
            // was inside is lost whole.
            let from = if left >= len {
                0
            } else {
                (len - left) / SECTOR * SECTOR
            };
            left = left.saturating_sub(len);
            if from < len {
                truth.lost.push((u.offset + from, len - from));
                restores.push((u.offset + from, u.old[from as usize..].to_vec()));
            }
        }
        self.undo.clear();
        self.undo_bytes = 0;
        self.cuts.push(truth.clone());
        (restores, truth)
    }

    /// The power is back: commands are served again, from what survived.
    pub fn power_on(&mut self) {
        self.dark = false;
    }

    /// Every cut so far, oldest first.
    pub fn cuts(&self) -> &[CutTruth] {
        &self.cuts
    }

    /// The state as the lab's `power` file shows it.
    pub fn text(&self) -> String {
        let last = self.cuts.last();
        format!(
            "{}\ncuts {}\nlast_cut_lost_bytes {}\nlast_cut_lost_ranges {}\n",
            if self.dark { "off" } else { "on" },
            self.cuts.len(),
            last.map_or(0, |c| c.lost_bytes()),
            last.map_or(0, |c| c.lost.len()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_restores_the_newest_dirty_bytes_newest_first() {
        let mut v = Volatile::default();
        // Three 4 KiB writes; the cache still holds 6000 bytes: the last write whole and the
        // end of the second, from the sector the drain was in.
        v.wrote(0, vec![1; 4096], 4096);
        v.wrote(4096, vec![2; 4096], 8192);
        v.wrote(8192, vec![3; 4096], 6000);
        let (restores, truth) = v.cut(6000, false);
        assert!(v.dark());
        assert_eq!(truth.lost, vec![(8192, 4096), (4096 + 2048, 2048)]);
        assert_eq!(truth.lost_bytes(), 6144);
        assert_eq!(restores[0], (8192, vec![3; 4096]));
        assert_eq!(restores[1], (6144, vec![2; 2048]));
        assert!(truth.covers(8192, 4096) && !truth.covers(4096, 4096));
        assert!(truth.touches(4096, 4096) && !truth.touches(0, 4096));
        v.power_on();
        assert!(!v.dark());
        assert_eq!(v.cuts().len(), 1);
    }

    #[test]
    fn drained_entries_are_forgotten_and_an_empty_cache_loses_nothing() {
        let mut v = Volatile::default();
        for i in 0..100u64 {
            v.wrote(i * 4096, vec![0; 4096], 8192);
        }
        assert_eq!(v.undo.len(), 2, "only what the cache can still hold");
        v.drained_to(0);
        assert!(v.undo.is_empty());
        let (restores, truth) = v.cut(0, false);
        assert!(restores.is_empty() && truth.lost.is_empty());
    }

    #[test]
    fn a_protected_cache_loses_nothing() {
        let mut v = Volatile::default();
        v.wrote(0, vec![0; 4096], 4096);
        let (restores, truth) = v.cut(4096, true);
        assert!(restores.is_empty() && truth.lost.is_empty() && truth.protected);
        assert_eq!(truth.dirty_bytes, 4096);
    }
}
