//! The response-time bands a hardware tester shows: < 1 ms, < 3 ms, < 10 ms, < 20 ms,
//! < 50 ms, < 150 ms, < 500 ms, ≥ 500 ms, and failed. Counted exactly (not from the histogram).

use serde::{Deserialize, Serialize};

/// Upper limits (exclusive) of the timed bands, in nanoseconds.
pub const BAND_LIMITS_NS: [u64; 7] = [
    1_000_000,
    3_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    150_000_000,
    500_000_000,
];

/// Names of the bands, the timed ones then failed.
pub const BAND_LABELS: [&str; 9] = [
    "<1ms", "<3ms", "<10ms", "<20ms", "<50ms", "<150ms", "<500ms", ">=500ms", "failed",
];

/// Exact counts per band.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bands {
    counts: [u64; 8],
    failed: u64,
}

/// One band as it appears in JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BandCount {
    pub label: String,
    /// Exclusive upper limit; `None` for `>=500ms` and `failed`.
    pub upper_ns: Option<u64>,
    pub count: u64,
}

impl Bands {
    #[inline]
    pub fn record(&mut self, latency_ns: u64) {
        self.record_n(latency_ns, 1);
    }

    /// Count `n` commands of one latency.
    #[inline]
    pub fn record_n(&mut self, latency_ns: u64, n: u64) {
        let i = BAND_LIMITS_NS
            .iter()
            .position(|&l| latency_ns < l)
            .unwrap_or(BAND_LIMITS_NS.len());
        self.counts[i] = self.counts[i].saturating_add(n);
    }

    #[inline]
    pub fn record_failed(&mut self) {
        self.record_failed_n(1);
    }

    /// Count `n` failed commands.
    #[inline]
    pub fn record_failed_n(&mut self, n: u64) {
        self.failed = self.failed.saturating_add(n);
    }

    pub fn merge(&mut self, other: &Bands) {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a = a.saturating_add(b);
        }
        self.failed = self.failed.saturating_add(other.failed);
    }

    /// The counts of the timed bands in order, then failed.
    pub fn counts(&self) -> [u64; 9] {
        let mut c = [0; 9];
        c[..8].copy_from_slice(&self.counts);
        c[8] = self.failed;
        c
    }

    pub fn failed(&self) -> u64 {
        self.failed
    }

    pub fn total(&self) -> u64 {
        self.counts
            .iter()
            .fold(self.failed, |sum, &c| sum.saturating_add(c))
    }

    /// Rebuild from the serialized form (as [`Bands::to_out`] wrote it; unknown labels are
    /// ignored, and counts beyond `u64` saturate).
    pub fn from_out(out: &[BandCount]) -> Bands {
        let mut b = Bands::default();
        for c in out {
            let slot = match BAND_LABELS.iter().position(|l| *l == c.label) {
                Some(8) => &mut b.failed,
                Some(i) => &mut b.counts[i],
                None => continue,
            };
            *slot = slot.saturating_add(c.count);
        }
        b
    }

    /// All nine bands in order, ending with `failed`.
    pub fn to_out(&self) -> Vec<BandCount> {
        BAND_LABELS
            .iter()
            .enumerate()
            .map(|(i, label)| BandCount {
                label: label.to_string(),
                upper_ns: BAND_LIMITS_NS.get(i).copied(),
                count: if i < 8 { self.counts[i] } else { self.failed },
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_fall_into_the_upper_band() {
        let mut b = Bands::default();
        b.record(999_999);
        b.record(1_000_000);
        b.record(499_999_999);
        b.record(500_000_000);
        b.record(u64::MAX);
        b.record_failed();
        let out = b.to_out();
        assert_eq!(out.len(), 9);
        assert_eq!(out[0].count, 1);
        assert_eq!(out[1].count, 1);
        assert_eq!(out[6].count, 1);
        assert_eq!(out[7].count, 2);
        assert_eq!(out[7].upper_ns, None);
        assert_eq!(out[8].label, "failed");
        assert_eq!(out[8].count, 1);
        assert_eq!(b.total(), 6);
        assert_eq!(Bands::from_out(&out), b);
    }

    #[test]
    fn counts_no_run_writes_saturate() {
        let band = |label: &str, count| BandCount {
            label: label.into(),
            upper_ns: None,
            count,
        };
        let b = Bands::from_out(&[
            band("<1ms", u64::MAX),
            band("<1ms", 1),
            band("failed", u64::MAX),
            band("no such band", 5),
        ]);
        assert_eq!(b.to_out()[0].count, u64::MAX);
        assert_eq!(b.failed(), u64::MAX);
        assert_eq!(b.total(), u64::MAX);
        let mut twice = b.clone();
        twice.merge(&b);
        twice.record(1);
        twice.record_failed();
        assert_eq!(twice, b);
    }
}
