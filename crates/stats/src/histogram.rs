//! Log-linear latency histogram.
//!
//! Values below 64 ns have their own bucket each. Above, every power of two `[2^k, 2^(k+1))`
//! is split into 64 equal sub-buckets, so a bucket is at most 1/64 of its lower bound wide and
//! reporting its midpoint errs by at most 1/128 (0.78 %). The whole `u64` range is covered
//! (1 ns to ~584 years) in 3776 buckets; histograms merge by bucket-wise sum.

use serde::{Deserialize, Serialize};

mod atomic;
pub use atomic::AtomicHistogram;

const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS; // 64
/// Number of buckets covering all of `u64`.
pub const BUCKETS: usize = ((64 - SUB_BITS as usize) * SUB as usize) + SUB as usize; // 3776

/// Percentiles drivescope reports, as (label, fraction).
pub const PERCENTILES: [(&str, f64); 5] = [
    ("50", 0.50),
    ("90", 0.90),
    ("99", 0.99),
    ("99.9", 0.999),
    ("99.99", 0.9999),
];

/// A log-linear histogram of nanosecond values with exact count, sum, min and max.
#[derive(Clone)]
pub struct Histogram {
    counts: Box<[u64; BUCKETS]>,
    count: u64,
    sum: u128,
    sum_sq: u128,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Histogram")
            .field("count", &self.count)
            .field("min", &self.min)
            .field("max", &self.max)
            .finish()
    }
}

/// Bucket index of a value.
#[inline]
pub fn bucket_of(v: u64) -> usize {
    if v < SUB {
        v as usize
    } else {
        let k = 63 - v.leading_zeros(); // msb position, >= 6
        let shift = k - SUB_BITS;
        let group = (k - SUB_BITS + 1) as u64;
        (group * SUB + ((v >> shift) & (SUB - 1))) as usize
    }
}

/// Lowest value of a bucket and its width.
#[inline]
pub fn bucket_bounds(idx: usize) -> (u64, u64) {
    let idx = idx as u64;
    if idx < SUB {
        (idx, 1)
    } else {
        let group = idx / SUB;
        let sub = idx % SUB;
        let shift = group - 1;
        ((SUB + sub) << shift, 1u64 << shift)
    }
}

impl Histogram {
    pub fn new() -> Self {
        Histogram {
            counts: Box::new([0; BUCKETS]),
            count: 0,
            sum: 0,
            sum_sq: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    /// Record one value (nanoseconds). Counts saturate: a histogram continued from a stored
    /// one (a resumed scan) may start from any numbers.
    #[inline]
    pub fn record(&mut self, v: u64) {
        let c = &mut self.counts[bucket_of(v)];
        *c = c.saturating_add(1);
        self.count = self.count.saturating_add(1);
        self.sum = self.sum.saturating_add(v as u128);
        self.sum_sq = self.sum_sq.saturating_add((v as u128) * (v as u128));
        if v < self.min {
            self.min = v;
        }
        if v > self.max {
            self.max = v;
        }
    }

    /// Record `n` occurrences of one value.
    pub fn record_n(&mut self, v: u64, n: u64) {
        if n == 0 {
            return;
        }
        let c = &mut self.counts[bucket_of(v)];
        *c = c.saturating_add(n);
        self.count = self.count.saturating_add(n);
        self.sum = self.sum.saturating_add(v as u128 * n as u128);
        self.sum_sq = self
            .sum_sq
            .saturating_add(((v as u128) * (v as u128)).saturating_mul(n as u128));
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Add another histogram's counts to this one.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a = a.saturating_add(*b);
        }
        self.count = self.count.saturating_add(other.count);
        self.sum = self.sum.saturating_add(other.sum);
        self.sum_sq = self.sum_sq.saturating_add(other.sum_sq);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.counts.fill(0);
        self.count = 0;
        self.sum = 0;
        self.sum_sq = 0;
        self.min = u64::MAX;
        self.max = 0;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn min(&self) -> Option<u64> {
        (self.count > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// Population standard deviation.
    pub fn stddev(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let n = self.count as f64;
        let mean = self.sum as f64 / n;
        let var = self.sum_sq as f64 / n - mean * mean;
        var.max(0.0).sqrt()
    }

    /// The value at quantile `q` (0..=1): the midpoint of the bucket holding the
    /// `ceil(q * count)`-th smallest value, clamped to the exact min and max.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (idx, &c) in self.counts.iter().enumerate() {
            seen = seen.saturating_add(c);
            if seen >= rank {
                let (low, width) = bucket_bounds(idx);
                let mid = low + (width - 1) / 2;
                return mid.clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// Non-empty buckets as `(low, high_exclusive, count)`, in increasing order.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| {
                let (low, width) = bucket_bounds(i);
                (low, low.saturating_add(width), *c)
            })
    }

    /// Summary for reports.
    pub fn summary(&self) -> LatencySummary {
        LatencySummary {
            count: self.count,
            mean_ns: self.mean().round() as u64,
            stddev_ns: self.stddev().round() as u64,
            min_ns: self.min().unwrap_or(0),
            max_ns: self.max().unwrap_or(0),
            percentiles_ns: PERCENTILES
                .iter()
                .map(|(l, q)| (l.to_string(), self.quantile(*q)))
                .collect(),
        }
    }

    /// Serializable form (non-empty buckets only).
    pub fn to_out(&self) -> HistogramOut {
        HistogramOut {
            unit: "ns".into(),
            sub_buckets: SUB as u32,
            buckets: self
                .buckets()
                .map(|(low_ns, high_ns, count)| BucketOut {
                    low_ns,
                    high_ns,
                    count,
                })
                .collect(),
        }
    }

    /// Rebuild from the serialized form (counts only: mean and stddev from bucket midpoints).
    /// A form that no histogram writes (a bucket ending before it starts, counts beyond `u64`)
    /// still gives a histogram: such a bucket is taken as its lower bound, and sums saturate.
    pub fn from_out(out: &HistogramOut) -> Histogram {
        let mut h = Histogram::new();
        for b in out.buckets.iter().filter(|b| b.count > 0) {
            let idx = bucket_of(b.low_ns);
            let last = b.high_ns.saturating_sub(1).max(b.low_ns);
            let mid = b.low_ns + (last - b.low_ns) / 2;
            let n = b.count as u128;
            h.counts[idx] = h.counts[idx].saturating_add(b.count);
            h.count = h.count.saturating_add(b.count);
            h.sum = h.sum.saturating_add(mid as u128 * n);
            h.sum_sq = h
                .sum_sq
                .saturating_add((mid as u128 * mid as u128).saturating_mul(n));
            h.min = h.min.min(b.low_ns);
            h.max = h.max.max(last);
        }
        h
    }
}

/// Latency summary as it appears in every JSON document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    pub count: u64,
    pub mean_ns: u64,
    pub stddev_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    /// Keys "50", "90", "99", "99.9", "99.99".
    pub percentiles_ns: std::collections::BTreeMap<String, u64>,
}

/// One serialized bucket: values in `[low_ns, high_ns)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BucketOut {
    pub low_ns: u64,
    pub high_ns: u64,
    pub count: u64,
}

/// Serialized histogram.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistogramOut {
    pub unit: String,
    pub sub_buckets: u32,
    pub buckets: Vec<BucketOut>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn buckets_are_contiguous_and_cover_u64() {
        let mut next = 0u64;
        for i in 0..BUCKETS {
            let (low, width) = bucket_bounds(i);
            assert_eq!(low, next, "bucket {i}");
            assert_eq!(bucket_of(low), i);
            assert_eq!(bucket_of(low + (width - 1)), i);
            next = low.wrapping_add(width);
        }
        assert_eq!(next, 0, "last bucket ends at 2^64");
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn exact_small_values_and_stats() {
        let mut h = Histogram::new();
        for v in 1..=10 {
            h.record(v);
        }
        assert_eq!(h.count(), 10);
        assert_eq!(h.quantile(0.5), 5);
        assert_eq!(h.quantile(1.0), 10);
        assert_eq!(h.mean(), 5.5);
        assert!((h.stddev() - 2.8722813).abs() < 1e-6);
        assert_eq!(h.min(), Some(1));
        assert_eq!(h.max(), Some(10));
    }

    #[test]
    fn record_n_equals_n_records() {
        let (mut a, mut b) = (Histogram::new(), Histogram::new());
        a.record_n(12_345, 7);
        a.record_n(99, 0);
        for _ in 0..7 {
            b.record(12_345);
        }
        assert_eq!(a.to_out(), b.to_out());
        assert_eq!(a.summary(), b.summary());
    }

    #[test]
    fn empty_histogram() {
        let h = Histogram::new();
        assert_eq!(h.quantile(0.99), 0);
        assert_eq!(h.summary().count, 0);
    }

    #[test]
    fn serialized_roundtrip_keeps_counts() {
        let mut h = Histogram::new();
        for v in [5, 100, 1000, 1_000_000, 60_000_000_000] {
            h.record(v);
        }
        let out = h.to_out();
        let back = Histogram::from_out(&out);
        assert_eq!(back.count(), 5);
        assert_eq!(back.to_out(), out);
        let json = serde_json::to_string(&out).unwrap();
        assert_eq!(out.buckets.len(), 5);
        assert!(json.contains("\"low_ns\":1000,"));
    }

    #[test]
    fn a_form_no_histogram_writes_still_reads() {
        let b = |low_ns, high_ns, count| BucketOut {
            low_ns,
            high_ns,
            count,
        };
        let out = HistogramOut {
            unit: "ns".into(),
            sub_buckets: 64,
            buckets: vec![
                b(1000, 10, 3),
                b(u64::MAX, 0, u64::MAX),
                b(5, 5, u64::MAX),
                b(0, 0, 0),
            ],
        };
        let h = Histogram::from_out(&out);
        assert_eq!(h.count(), u64::MAX);
        assert_eq!((h.min(), h.max()), (Some(5), Some(u64::MAX)));
        let s = h.summary();
        assert!(s
            .percentiles_ns
            .values()
            .all(|&p| (5..=u64::MAX).contains(&p)));
        let mut twice = h.clone();
        twice.merge(&h);
        assert_eq!(twice.count(), u64::MAX);
        // a scan continued from it records on
        twice.record(5);
        twice.record_n(u64::MAX, u64::MAX);
        assert_eq!(twice.count(), u64::MAX);
    }

    proptest! {
        #[test]
        fn quantile_error_within_0_8_percent(values in proptest::collection::vec(1u64..100_000_000_000, 1..400), q in 0.0f64..1.0) {
            let mut h = Histogram::new();
            for &v in &values { h.record(v); }
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let rank = ((q * sorted.len() as f64).ceil() as usize).max(1);
            let exact = sorted[rank - 1] as f64;
            let got = h.quantile(q) as f64;
            prop_assert!((got - exact).abs() <= exact * 0.008 + 0.5, "q={} exact={} got={}", q, exact, got);
        }

        #[test]
        fn merge_equals_recording_all(a in proptest::collection::vec(0u64..1 << 50, 0..100), b in proptest::collection::vec(0u64..1_000_000, 0..100)) {
            let mut ha = Histogram::new();
            let mut hb = Histogram::new();
            let mut hall = Histogram::new();
            for &v in &a { ha.record(v); hall.record(v); }
            for &v in &b { hb.record(v); hall.record(v); }
            ha.merge(&hb);
            prop_assert_eq!(ha.to_out(), hall.to_out());
            prop_assert_eq!(ha.count(), (a.len() + b.len()) as u64);
            prop_assert_eq!(ha.min(), hall.min());
            prop_assert_eq!(ha.max(), hall.max());
        }

        /// Any serialized form (a stored document's) reads back without a panic, and its
        /// percentiles lie between its minimum and maximum.
        #[test]
        fn any_serialized_form_reads(buckets in proptest::collection::vec(
            (any::<u64>(), any::<u64>(), prop_oneof![0u64..1000, any::<u64>()]), 0..6)) {
            let out = HistogramOut {
                unit: "ns".into(),
                sub_buckets: 64,
                buckets: buckets.into_iter()
                    .map(|(low_ns, high_ns, count)| BucketOut { low_ns, high_ns, count })
                    .collect(),
            };
            let h = Histogram::from_out(&out);
            let s = h.summary();
            if let (Some(min), Some(max)) = (h.min(), h.max()) {
                prop_assert!(s.percentiles_ns.values().all(|p| (min..=max).contains(p)));
            }
            let mut twice = h.clone();
            twice.merge(&h);
            prop_assert_eq!(twice.count(), h.count().saturating_mul(2));
        }
    }
}
