//! Write-and-verify: every sector is written with a pattern that names it, then read back.
//!
//! Sector layout (one logical sector, `unit` bytes): bytes 0..8 its own byte offset, 8..16
//! the run's seed (both little-endian), then a SplitMix64 stream keyed by (seed, offset).
//! The data are incompressible and no two sectors of a run, or of two runs, are alike, so a
//! sector read back tells where it came from:
//!
//! * **ok**: exactly the content written for its own offset;
//! * **misplaced**: exactly the content written for *another* offset of this run
//!   (`holds_offset`): the device stored it at the wrong place, as fake-capacity flash does
//!   when its addresses wrap;
//! * **lost**: it does not carry this run's seed: zeros, or what the sector held before the
//!   run. The write never reached the medium;
//! * **wrong**: it carries this run's seed but matches neither its own offset's content nor
//!   that of the offset its header names: corrupted data;
//! * **unreadable**: the read back failed (also after a sector re-read);
//! * **unchecked**: never read back (the read-back's own error handling left it untried, or in
//!   a failed command whose sectors were not each read).

use super::accum::{TAG_GAP, TAG_MAIN, TAG_RETRY};
use super::sequential::SequentialScan;
use crate::engine::{Cmd, Completion, Job, Next};
pub use drivescope_record::{Extent, VerifyReport, VerifyTotals};

/// Most extents kept in each list; the rest are counted.
pub const EXTENT_CAP: usize = 10_000;

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A fresh seed for a verify run (time, process and address mixed).
pub fn new_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let local = 0u8;
    mix(t ^ mix(std::process::id() as u64) ^ (&local as *const u8 as u64)).max(1)
}

/// The pattern of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    pub seed: u64,
    /// Bytes per stamped unit (the logical sector size).
    pub unit: u64,
}

/// What a sector held when read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Ok,
    Wrong,
    Misplaced(u64),
    Lost,
}

impl Pattern {
    /// The stream's key of the unit at `offset` (mixed once per unit, not once per word).
    #[inline]
    fn key(&self, offset: u64) -> u64 {
        self.seed ^ mix(offset.wrapping_add(GOLDEN))
    }

    /// Word `i` of a unit (from the third on) whose key is `key`.
    #[inline]
    fn word(key: u64, i: usize) -> u64 {
        mix(key ^ (i as u64).wrapping_mul(GOLDEN))
    }

    /// Fill `buf` (a whole number of units) with the content for `offset`.
    pub fn fill(&self, offset: u64, buf: &mut [u8]) {
        for (k, unit) in buf.chunks_exact_mut(self.unit as usize).enumerate() {
            let off = offset + k as u64 * self.unit;
            let key = self.key(off);
            let (head, stream) = unit.split_at_mut(16);
            head[..8].copy_from_slice(&off.to_le_bytes());
            head[8..].copy_from_slice(&self.seed.to_le_bytes());
            for (i, w) in stream.chunks_exact_mut(8).enumerate() {
                w.copy_from_slice(&Self::word(key, i + 2).to_le_bytes());
            }
        }
    }

    fn matches(&self, offset: u64, unit: &[u8]) -> bool {
        let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("8 bytes"));
        if word(&unit[..8]) != offset || word(&unit[8..16]) != self.seed {
            return false;
        }
        let key = self.key(offset);
        unit[16..]
            .chunks_exact(8)
            .enumerate()
            .all(|(i, w)| word(w) == Self::word(key, i + 2))
    }

    /// Classify one unit read back from `offset`; `range` is where this run wrote.
    pub fn classify(&self, offset: u64, unit: &[u8], range: (u64, u64)) -> Class {
        if self.matches(offset, unit) {
            return Class::Ok;
        }
        let word = |i: usize| u64::from_le_bytes(unit[i * 8..i * 8 + 8].try_into().expect("8"));
        if word(1) != self.seed {
            return Class::Lost;
        }
        let holds = word(0);
        if holds != offset
            && holds >= range.0
            && holds < range.1
            && (holds - range.0).is_multiple_of(self.unit)
            && self.matches(holds, unit)
        {
            Class::Misplaced(holds)
        } else {
            Class::Wrong
        }
    }
}

/// Consecutive sectors joined into extents; at most [`EXTENT_CAP`] kept.
#[derive(Debug, Clone, Default)]
struct Extents {
    items: Vec<Extent>,
    sectors: u64,
}

impl Extents {
    fn push(&mut self, offset: u64, unit: u64, holds: Option<u64>) {
        self.sectors += 1;
        if let Some(last) = self.items.last_mut() {
            let follows = last.offset + last.length == offset
                && match (last.holds_offset, holds) {
                    (Some(a), Some(b)) => a + last.length == b,
                    (None, None) => true,
                    _ => false,
                };
            if follows {
                last.length += unit;
                return;
            }
        }
        if self.items.len() < EXTENT_CAP * 2 {
            self.items.push(Extent {
                offset,
                lba: offset / unit,
                length: unit,
                holds_offset: holds,
            });
        }
    }

    /// Sorted and joined (completions at QD > 1 arrive out of order).
    fn finish(mut self, unit: u64) -> Vec<Extent> {
        self.items.sort_by_key(|e| e.offset);
        let mut out: Vec<Extent> = Vec::with_capacity(self.items.len());
        for e in self.items {
            if let Some(last) = out.last_mut() {
                let follows = last.offset + last.length == e.offset
                    && match (last.holds_offset, e.holds_offset) {
                        (Some(a), Some(b)) => a + last.length == b,
                        (None, None) => true,
                        _ => false,
                    };
                if follows {
                    last.length += e.length;
                    continue;
                }
            }
            out.push(e);
        }
        let _ = unit;
        out.truncate(EXTENT_CAP);
        out
    }
}

/// The write pass: a sequential write scan whose buffers get the pattern just before each
/// command is submitted.
pub struct WritePass {
    pub scan: SequentialScan,
    pub pattern: Pattern,
}

impl Job for WritePass {
    #[inline]
    fn next(&mut self, now_ns: u64, in_flight: usize) -> Next {
        self.scan.next(now_ns, in_flight)
    }
    #[inline]
    fn complete(&mut self, c: &Completion) {
        self.scan.complete(c)
    }
    const HOOKS: bool = true;
    fn fill(&mut self, cmd: &Cmd, buf: &mut [u8]) {
        self.pattern.fill(cmd.offset, buf);
    }
}

/// The read-back pass: a sequential read scan that checks every sector it gets.
pub struct ReadPass {
    pub scan: SequentialScan,
    pub pattern: Pattern,
    range: (u64, u64),
    blocks: u64,
    totals: VerifyTotals,
    wrong: Extents,
    misplaced: Extents,
    lost: Extents,
    unreadable: Extents,
}

impl ReadPass {
    pub fn new(scan: SequentialScan, pattern: Pattern) -> Self {
        let range = (scan.params.start, scan.params.start + scan.params.length);
        ReadPass {
            scan,
            pattern,
            range,
            blocks: 0,
            totals: VerifyTotals::default(),
            wrong: Extents::default(),
            misplaced: Extents::default(),
            lost: Extents::default(),
            unreadable: Extents::default(),
        }
    }

    /// The report; `complete` when the pass reached the end of the range.
    pub fn report(self, duration_ns: u64) -> VerifyReport {
        let u = self.pattern.unit;
        let complete = self.scan.finished();
        let mut totals = self.totals;
        totals.unchecked = ((self.range.1 - self.range.0) / u).saturating_sub(self.blocks);
        VerifyReport {
            seed: self.pattern.seed,
            unit: u,
            complete,
            blocks: self.blocks,
            totals,
            wrong: self.wrong.finish(u),
            misplaced: self.misplaced.finish(u),
            lost: self.lost.finish(u),
            unreadable: self.unreadable.finish(u),
            read_duration_ns: duration_ns,
            read_mb_per_s: crate::units::mb_per_s(self.scan.acc.bytes, duration_ns),
        }
    }
}

impl Job for ReadPass {
    #[inline]
    fn next(&mut self, now_ns: u64, in_flight: usize) -> Next {
        self.scan.next(now_ns, in_flight)
    }

    fn complete(&mut self, c: &Completion) {
        if c.cmd.tag == TAG_RETRY && c.result.is_err() {
            self.blocks += 1;
            self.totals.unreadable += 1;
            self.unreadable.push(c.cmd.offset, self.pattern.unit, None);
        }
        self.scan.complete(c)
    }

    const HOOKS: bool = true;
    fn check(&mut self, c: &Completion, buf: &[u8]) {
        if c.cmd.tag != TAG_MAIN && c.cmd.tag != TAG_GAP && c.cmd.tag != TAG_RETRY {
            return; // a probe: not part of the range's check
        }
        let u = self.pattern.unit;
        for (k, unit) in buf.chunks_exact(u as usize).enumerate() {
            let off = c.cmd.offset + k as u64 * u;
            self.blocks += 1;
            match self.pattern.classify(off, unit, self.range) {
                Class::Ok => self.totals.ok += 1,
                Class::Wrong => {
                    self.totals.wrong += 1;
                    self.wrong.push(off, u, None);
                }
                Class::Lost => {
                    self.totals.lost += 1;
                    self.lost.push(off, u, None);
                }
                Class::Misplaced(h) => {
                    self.totals.misplaced += 1;
                    self.misplaced.push(off, u, Some(h));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_each_fault() {
        let p = Pattern {
            seed: 42,
            unit: 512,
        };
        let range = (0, 1 << 20);
        let mut a = vec![0u8; 512];
        let mut b = vec![0u8; 512];
        p.fill(4096, &mut a);
        p.fill(8192, &mut b);
        assert_eq!(p.classify(4096, &a, range), Class::Ok);
        assert_eq!(p.classify(8192, &a, range), Class::Misplaced(4096));
        assert_eq!(p.classify(4096, &[0u8; 512], range), Class::Lost);
        let other = Pattern {
            seed: 43,
            unit: 512,
        };
        let mut c = vec![0u8; 512];
        other.fill(4096, &mut c);
        assert_eq!(p.classify(4096, &c, range), Class::Lost);
        a[300] ^= 1;
        assert_eq!(p.classify(4096, &a, range), Class::Wrong);
        // no two sectors alike, and not compressible to a repeat
        assert_ne!(a[16..], b[16..]);
    }

    /// The layout the module's note states, word by word: a write scan resumed by another build
    /// checks what the first one wrote, so the content of (seed, offset) never changes.
    #[test]
    fn a_unit_holds_its_offset_the_seed_and_the_stream_of_both() {
        let p = Pattern {
            seed: 0x1234_5678_9abc_def1,
            unit: 4096,
        };
        for offset in [0u64, 4096, 1 << 40, u64::MAX - 4095] {
            let mut unit = vec![0u8; 4096];
            p.fill(offset, &mut unit);
            for (i, w) in unit.chunks_exact(8).enumerate() {
                let want = match i {
                    0 => offset,
                    1 => p.seed,
                    _ => mix(p.seed
                        ^ mix(offset.wrapping_add(GOLDEN))
                        ^ (i as u64).wrapping_mul(GOLDEN)),
                };
                assert_eq!(
                    u64::from_le_bytes(w.try_into().unwrap()),
                    want,
                    "{offset} word {i}"
                );
            }
            assert_eq!(p.classify(offset, &unit, (0, u64::MAX)), Class::Ok);
        }
        // One value pinned, so that a change of `mix` or GOLDEN shows too.
        let mut unit = vec![0u8; 512];
        Pattern { seed: 1, unit: 512 }.fill(512, &mut unit);
        const PINNED: u64 = 0x75d2_c028_1892_b154;
        assert_eq!(u64::from_le_bytes(unit[16..24].try_into().unwrap()), PINNED);
    }

    #[test]
    fn extents_join_and_sort() {
        let mut e = Extents::default();
        for off in [1024u64, 512, 2048, 1536] {
            e.push(off, 512, None);
        }
        let out = e.finish(512);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].offset, 512);
        assert_eq!(out[0].length, 2048);
        assert_eq!(out[0].lba, 1);
    }
}
