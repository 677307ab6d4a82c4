//! The two caches a model can put in front of its media: an LRU read cache and a write-back
//! cache that drains at media speed. Pure bookkeeping in virtual time; no I/O.

use std::collections::{BTreeMap, HashMap};

/// Read-cache granule: a read caches whole 64 KiB pieces (as a drive's segment would).
pub const GRANULE: u64 = 64 * 1024;

/// Least-recently-used set of 64 KiB granules.
#[derive(Debug, Clone)]
pub struct ReadLru {
    capacity: usize,
    stamp_of: HashMap<u64, u64>,
    by_stamp: BTreeMap<u64, u64>,
    clock: u64,
}

impl ReadLru {
    /// A cache of `size` bytes (rounded down to granules, at least one).
    pub fn new(size: u64) -> Self {
        ReadLru {
            capacity: (size / GRANULE).max(1) as usize,
            stamp_of: HashMap::new(),
            by_stamp: BTreeMap::new(),
            clock: 0,
        }
    }

    fn granules(offset: u64, len: u64) -> std::ops::Range<u64> {
        let first = offset / GRANULE;
        let last = (offset + len.max(1) - 1) / GRANULE;
        first..last + 1
    }

    /// Whether every byte of the range is cached (does not change the LRU order).
    pub fn contains(&self, offset: u64, len: u64) -> bool {
        Self::granules(offset, len).all(|g| self.stamp_of.contains_key(&g))
    }

    /// Mark the range as most recently used, evicting the oldest granules beyond capacity.
    pub fn insert(&mut self, offset: u64, len: u64) {
        for g in Self::granules(offset, len) {
            self.clock += 1;
            if let Some(old) = self.stamp_of.insert(g, self.clock) {
                self.by_stamp.remove(&old);
            }
            self.by_stamp.insert(self.clock, g);
        }
        while self.stamp_of.len() > self.capacity {
            let (_, g) = self.by_stamp.pop_first().expect("non-empty");
            self.stamp_of.remove(&g);
        }
    }

    /// Cached bytes.
    pub fn len_bytes(&self) -> u64 {
        self.stamp_of.len() as u64 * GRANULE
    }
}

/// A write-back cache's fill level in virtual time.
#[derive(Debug, Clone)]
pub struct WriteBack {
    size: f64,
    dirty: f64,
    at_ns: u64,
}

impl WriteBack {
    pub fn new(size: u64) -> Self {
        WriteBack {
            size: size as f64,
            dirty: 0.0,
            at_ns: 0,
        }
    }

    /// Let the cache drain at `bytes_per_ns` until `now_ns`.
    fn drain_to(&mut self, now_ns: u64, bytes_per_ns: f64) {
        if now_ns > self.at_ns {
            self.dirty = (self.dirty - (now_ns - self.at_ns) as f64 * bytes_per_ns).max(0.0);
            self.at_ns = now_ns;
        }
    }

    /// Take a write of `len` bytes arriving at `now_ns`. Returns how long it must wait for
    /// room (0 while the cache has room; once full, the drain sets the pace).
    pub fn accept(&mut self, now_ns: u64, len: u64, bytes_per_ns: f64) -> u64 {
        self.drain_to(now_ns, bytes_per_ns);
        let len = (len as f64).min(self.size);
        let excess = self.dirty + len - self.size;
        let wait = if excess > 0.0 {
            (excess / bytes_per_ns).ceil() as u64
        } else {
            0
        };
        self.drain_to(now_ns + wait, bytes_per_ns);
        self.dirty = (self.dirty + len).min(self.size);
        wait
    }

    /// How long a flush arriving at `now_ns` waits for all dirty data to reach the media.
    pub fn flush(&mut self, now_ns: u64, bytes_per_ns: f64) -> u64 {
        self.drain_to(now_ns, bytes_per_ns);
        let wait = (self.dirty / bytes_per_ns).ceil() as u64;
        self.drain_to(now_ns + wait, bytes_per_ns);
        wait
    }

    /// How long a flush arriving at `now_ns` waits while `share` (0..=1) of the dirty data
    /// reaches the media; the rest stays dirty and drains on.
    pub fn flush_share(&mut self, now_ns: u64, bytes_per_ns: f64, share: f64) -> u64 {
        self.drain_to(now_ns, bytes_per_ns);
        let wait = (self.dirty * share.clamp(0.0, 1.0) / bytes_per_ns).ceil() as u64;
        self.drain_to(now_ns + wait, bytes_per_ns);
        wait
    }

    /// Bring the fill level up to `now_ns` (the drain goes on while nothing arrives).
    pub fn settle(&mut self, now_ns: u64, bytes_per_ns: f64) {
        self.drain_to(now_ns, bytes_per_ns);
    }

    /// Dirty bytes as of the last update.
    pub fn dirty(&self) -> u64 {
        self.dirty as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_the_oldest() {
        let mut c = ReadLru::new(2 * GRANULE);
        c.insert(0, 4096);
        c.insert(GRANULE, 4096);
        assert!(c.contains(0, GRANULE));
        assert!(c.contains(0, 2 * GRANULE));
        c.insert(0, 1); // 0 is now the most recent
        c.insert(2 * GRANULE, 10);
        assert!(c.contains(0, 1));
        assert!(
            !c.contains(GRANULE, 1),
            "granule 1 was the least recently used"
        );
        assert!(c.contains(2 * GRANULE, GRANULE));
        assert_eq!(c.len_bytes(), 2 * GRANULE);
    }

    #[test]
    fn range_spanning_granules_needs_all() {
        let mut c = ReadLru::new(16 * GRANULE);
        c.insert(0, GRANULE);
        assert!(!c.contains(GRANULE - 512, 1024));
        c.insert(GRANULE, 1);
        assert!(c.contains(GRANULE - 512, 1024));
    }

    #[test]
    fn write_back_fills_then_paces_at_the_drain_rate() {
        // 1 MB cache, drain 0.1 B/ns = 100 MB/s.
        let mut w = WriteBack::new(1_000_000);
        let rate = 0.1;
        let mut t = 0;
        let mut waits = vec![];
        for _ in 0..20 {
            let wait = w.accept(t, 100_000, rate);
            waits.push(wait);
            t += wait;
        }
        // The first ten fit (ten 100 kB writes, no time passes), then each waits 1 ms.
        assert!(waits[..10].iter().all(|w| *w == 0), "{waits:?}");
        assert!(waits[10..].iter().all(|w| *w == 1_000_000), "{waits:?}");
        // Idle time drains it.
        assert_eq!(w.accept(t + 10_000_000, 100_000, rate), 0);
        assert_eq!(w.flush(t + 10_000_000, rate), 1_000_000);
        assert_eq!(w.dirty(), 0);
    }

    #[test]
    fn a_partial_flush_waits_for_its_share_and_leaves_the_rest_draining() {
        let rate = 0.1; // 100 MB/s
        let mut w = WriteBack::new(10_000_000);
        assert_eq!(w.accept(0, 4_000_000, rate), 0);
        // A tenth of 4 MB at 100 MB/s: 4 ms; 3.6 MB stay dirty.
        assert_eq!(w.flush_share(0, rate, 0.1), 4_000_000);
        assert_eq!(w.dirty(), 3_600_000);
        // Nothing arrives for 10 ms: 1 MB more drains.
        w.settle(14_000_000, rate);
        assert_eq!(w.dirty(), 2_600_000);
        // A whole share is a full flush, none is an ignored one.
        assert_eq!(w.flush_share(14_000_000, rate, 0.0), 0);
        assert_eq!(w.flush_share(14_000_000, rate, 1.0), 26_000_000);
        assert_eq!(w.dirty(), 0);
    }
}
