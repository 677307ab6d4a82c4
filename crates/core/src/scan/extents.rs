//! Failed sectors and slow commands grouped by position as the scan runs: each arrival joins
//! the span that ends where it starts and the one that starts where it ends (same key), so
//! the result is exact whatever the order of completions (queue depth > 1, a resumed scan),
//! and memory grows with the number of spans, never with the device: a dead area of any
//! size is one span. At most `cap` spans are kept: when a new one would pass the cap, the
//! span furthest along goes, and everything from its start on is only counted (the list is
//! then exact up to that offset, which the record names).

use drivescope_record::{FailedExtent, SlowRegion};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span<K> {
    end: u64,
    key: K,
    count: u64,
    max_ns: u64,
}

/// Spans `[start, end)` keyed by their start.
#[derive(Debug, Clone)]
pub struct Spans<K> {
    map: BTreeMap<u64, Span<K>>,
    cap: usize,
    /// Nothing at or past this offset is kept.
    cut: Option<u64>,
    /// Most spans held at once.
    peak: usize,
}

impl<K: Copy + Eq> Spans<K> {
    pub fn new(cap: usize) -> Self {
        Spans {
            map: BTreeMap::new(),
            cap: cap.max(1),
            cut: None,
            peak: 0,
        }
    }

    /// Add `count` items over `[offset, offset + len)` with `key`, the slowest `max_ns`.
    pub fn add(&mut self, offset: u64, len: u64, key: K, count: u64, max_ns: u64) {
        if self.cut.is_some_and(|c| offset >= c) || len == 0 {
            return;
        }
        // past the end of any device: only a damaged stored list holds such a span
        let Some(end) = offset.checked_add(len) else {
            return;
        };
        let before = self
            .map
            .range(..=offset)
            .next_back()
            .map(|(&s, sp)| (s, *sp));
        if let Some((_, sp)) = before {
            if sp.end > offset {
                return; // already held (the same sector reported twice)
            }
        }
        let join_before = before.filter(|(_, sp)| sp.end == offset && sp.key == key);
        let join_after = self.map.get(&end).copied().filter(|sp| sp.key == key);
        if join_after.is_some() {
            self.map.remove(&end);
        }
        let mut span = Span {
            end,
            key,
            count,
            max_ns,
        };
        let mut start = offset;
        if let Some((s, b)) = join_before {
            start = s;
            span.count = span.count.saturating_add(b.count);
            span.max_ns = span.max_ns.max(b.max_ns);
        }
        if let Some(a) = join_after {
            span.end = a.end;
            span.count = span.count.saturating_add(a.count);
            span.max_ns = span.max_ns.max(a.max_ns);
        }
        if join_before.is_none() && join_after.is_none() && self.map.len() >= self.cap {
            let (&last, _) = self.map.last_key_value().expect("cap >= 1");
            if last < start {
                self.cut = Some(self.cut.map_or(start, |c| c.min(start)));
                return;
            }
            self.map.remove(&last);
            self.cut = Some(self.cut.map_or(last, |c| c.min(last)));
        }
        self.map.insert(start, span);
        self.peak = self.peak.max(self.map.len());
    }

    /// Where the list stops when it reached its cap.
    pub fn cut(&self) -> Option<u64> {
        self.cut
    }

    /// Continue a list cut at `cut` (a resumed scan).
    pub fn set_cut(&mut self, cut: Option<u64>) {
        if let Some(c) = cut {
            self.cut = Some(self.cut.map_or(c, |d| d.min(c)));
            self.map.retain(|&s, _| s < c);
        }
    }

    /// Spans held now.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Most spans held at once.
    pub fn peak(&self) -> usize {
        self.peak
    }

    fn iter(&self) -> impl Iterator<Item = (u64, &Span<K>)> {
        self.map.iter().map(|(&s, sp)| (s, sp))
    }
}

/// Failed extents: spans of sectors keyed by errno.
pub type FailedSpans = Spans<i32>;
/// Slow regions: spans of commands.
pub type SlowSpans = Spans<()>;

impl FailedSpans {
    /// A failed sector (`sector` bytes at `offset`).
    pub fn sector(&mut self, offset: u64, sector: u64, errno: i32) {
        self.add(offset, sector, errno, 1, 0);
    }

    /// Continue with the extents of an earlier part of the scan.
    pub fn absorb(&mut self, prior: &[FailedExtent]) {
        for e in prior {
            self.add(e.offset, e.length, e.errno, e.count, 0);
        }
    }

    pub fn extents(&self, sector: u64) -> Vec<FailedExtent> {
        let sector = sector.max(1);
        self.iter()
            .map(|(s, sp)| FailedExtent {
                offset: s,
                length: sp.end - s,
                first_lba: s / sector,
                last_lba: (sp.end - 1) / sector,
                errno: sp.key,
                count: sp.count,
                ..FailedExtent::default()
            })
            .collect()
    }
}

impl SlowSpans {
    /// A slow command.
    pub fn command(&mut self, offset: u64, len: u64, latency_ns: u64) {
        self.add(offset, len, (), 1, latency_ns);
    }

    /// Continue with the regions of an earlier part of the scan.
    pub fn absorb(&mut self, prior: &[SlowRegion]) {
        for r in prior {
            self.add(r.offset, r.length, (), r.count, r.max_latency_ns);
        }
    }

    pub fn regions(&self) -> Vec<SlowRegion> {
        self.iter()
            .map(|(s, sp)| SlowRegion {
                offset: s,
                length: sp.end - s,
                count: sp.count,
                max_latency_ns: sp.max_ns,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(s: &FailedSpans) -> Vec<(u64, u64, i32, u64)> {
        s.extents(512)
            .iter()
            .map(|e| (e.offset, e.length, e.errno, e.count))
            .collect()
    }

    #[test]
    fn sectors_in_any_order_join_into_one_extent() {
        let mut s = FailedSpans::new(10);
        for i in [3u64, 1, 0, 2, 5, 4] {
            s.sector(i * 512, 512, 5);
        }
        assert_eq!(spans(&s), vec![(0, 6 * 512, 5, 6)]);
        let e = &s.extents(512)[0];
        assert_eq!((e.first_lba, e.last_lba), (0, 5));
    }

    #[test]
    fn an_errno_change_starts_a_new_extent_and_a_gap_too() {
        let mut s = FailedSpans::new(10);
        for i in 0..4u64 {
            s.sector(i * 512, 512, if i < 2 { 5 } else { 61 });
        }
        s.sector(10 * 512, 512, 5);
        assert_eq!(
            spans(&s),
            vec![(0, 1024, 5, 2), (1024, 1024, 61, 2), (5120, 512, 5, 1)]
        );
    }

    #[test]
    fn the_cap_keeps_the_first_extents_by_position_and_names_the_cut() {
        let mut s = FailedSpans::new(3);
        // Every other sector bad, arriving from the far end first.
        for i in (0..10u64).rev() {
            s.sector(i * 1024, 512, 5);
        }
        assert_eq!(
            spans(&s),
            vec![(0, 512, 5, 1), (1024, 512, 5, 1), (2048, 512, 5, 1)]
        );
        assert_eq!(s.cut(), Some(3072));
        // A sector joining a kept extent still joins; one past the cut is only counted.
        s.sector(512, 512, 5);
        s.sector(9 * 1024 + 512, 512, 5);
        assert_eq!(spans(&s), vec![(0, 1536, 5, 3), (2048, 512, 5, 1)]);
        assert!(s.peak() <= 3);
    }

    #[test]
    fn slow_regions_keep_the_slowest_latency() {
        let mut s = SlowSpans::new(10);
        s.command(65536, 65536, 7);
        s.command(0, 65536, 9);
        s.command(4 * 65536, 65536, 3);
        let r = s.regions();
        assert_eq!(r.len(), 2);
        assert_eq!(
            (r[0].offset, r[0].length, r[0].count, r[0].max_latency_ns),
            (0, 131072, 2, 9)
        );
        assert_eq!((r[1].offset, r[1].count), (4 * 65536, 1));
    }
}
