//! A histogram a running measurement fills on one thread while another thread reads it: the
//! buckets of [`Histogram`] as relaxed atomics, with the exact min and max. Its writer is the
//! only one (a load and a store per value, no locked add); a reader copies it into a
//! [`Histogram`] whose quantiles are those the writer's own histogram gives for the same values.

use super::{bucket_bounds, bucket_of, Histogram, BUCKETS};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One writer's live histogram.
pub struct AtomicHistogram {
    counts: Box<[AtomicU64]>,
    min: AtomicU64,
    max: AtomicU64,
}

impl Default for AtomicHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for AtomicHistogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicHistogram").finish_non_exhaustive()
    }
}

impl AtomicHistogram {
    pub fn new() -> Self {
        AtomicHistogram {
            counts: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
            min: AtomicU64::new(u64::MAX),
            max: AtomicU64::new(0),
        }
    }

    /// Record one value. Only one thread may record into a histogram.
    #[inline]
    pub fn record(&self, v: u64) {
        let c = &self.counts[bucket_of(v)];
        c.store(c.load(Relaxed).wrapping_add(1), Relaxed);
        if v < self.min.load(Relaxed) {
            self.min.store(v, Relaxed);
        }
        if v > self.max.load(Relaxed) {
            self.max.store(v, Relaxed);
        }
    }

    /// Forget everything (by the writer, or while it records nothing).
    pub fn clear(&self) {
        for c in self.counts.iter() {
            c.store(0, Relaxed);
        }
        self.min.store(u64::MAX, Relaxed);
        self.max.store(0, Relaxed);
    }

    /// Hold what `h` holds (its counts, min and max), as its one writer publishing a copy of
    /// a histogram it keeps itself.
    pub fn set_from(&self, h: &Histogram) {
        for (a, &n) in self.counts.iter().zip(h.counts.iter()) {
            if a.load(Relaxed) != n {
                a.store(n, Relaxed);
            }
        }
        self.min.store(h.min, Relaxed);
        self.max.store(h.max, Relaxed);
    }

    /// Add what was recorded so far to `h`: counts, min and max exactly; the sums (mean,
    /// deviation) from bucket midpoints.
    pub fn add_to(&self, h: &mut Histogram) {
        let mut any = false;
        for (i, c) in self.counts.iter().enumerate() {
            let n = c.load(Relaxed);
            if n == 0 {
                continue;
            }
            any = true;
            let (low, width) = bucket_bounds(i);
            let mid = (low + (width - 1) / 2) as u128;
            h.counts[i] = h.counts[i].saturating_add(n);
            h.count = h.count.saturating_add(n);
            h.sum = h.sum.saturating_add(mid * n as u128);
            h.sum_sq = h
                .sum_sq
                .saturating_add((mid * mid).saturating_mul(n as u128));
        }
        if any {
            // The writer may have counted a value whose min/max store is not yet seen: the
            // bounds are then those of the buckets.
            let (lo, hi) = (self.min.load(Relaxed), self.max.load(Relaxed));
            let first = h.counts.iter().position(|&c| c > 0).unwrap_or(0);
            let last = h.counts.iter().rposition(|&c| c > 0).unwrap_or(0);
            let (flo, _) = bucket_bounds(first);
            let (llo, lw) = bucket_bounds(last);
            h.min = h.min.min(if lo == u64::MAX { flo } else { lo });
            h.max = h.max.max(if hi == 0 { llo + (lw - 1) } else { hi });
        }
    }

    /// A copy as a [`Histogram`].
    pub fn snapshot(&self) -> Histogram {
        let mut h = Histogram::new();
        self.add_to(&mut h);
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_equal_those_of_the_histogram_of_the_same_values() {
        let a = AtomicHistogram::new();
        let mut h = Histogram::new();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = 800 + x % 5_000_000;
            a.record(v);
            h.record(v);
        }
        let s = a.snapshot();
        assert_eq!(s.count(), h.count());
        assert_eq!((s.min(), s.max()), (h.min(), h.max()));
        for q in [0.0, 0.5, 0.9, 0.99, 0.999, 1.0] {
            assert_eq!(s.quantile(q), h.quantile(q), "q {q}");
        }
        assert!((s.mean() - h.mean()).abs() / h.mean() < 0.01);
        a.clear();
        assert_eq!(a.snapshot().count(), 0);
        a.set_from(&h);
        let s = a.snapshot();
        assert_eq!((s.count(), s.min(), s.max()), (h.count(), h.min(), h.max()));
        assert_eq!(s.quantile(0.99), h.quantile(0.99));
    }

    #[test]
    fn several_writers_merge_by_adding() {
        let (a, b) = (AtomicHistogram::new(), AtomicHistogram::new());
        std::thread::scope(|s| {
            s.spawn(|| (0..1000).for_each(|i| a.record(1_000 + i)));
            s.spawn(|| (0..3000).for_each(|i| b.record(9_000_000 + i)));
        });
        let mut h = Histogram::new();
        a.add_to(&mut h);
        b.add_to(&mut h);
        assert_eq!(h.count(), 4000);
        assert_eq!((h.min(), h.max()), (Some(1_000), Some(9_002_999)));
        let (q2, q3) = (h.quantile(0.2), h.quantile(0.3));
        assert!(q2 < 2_000 && q3 > 8_900_000, "{q2} {q3}");
    }
}
