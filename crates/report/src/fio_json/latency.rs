//! Latency objects as fio json+ writes them (`clat_ns`, `slat_ns`, `lat_ns`): min, max, mean, stddev and `N`,
//! the percentile map, and the per-bucket counts (`bins`).

use super::Ordered;
use drivescope_stats::{Histogram, HistogramOut, LatencySummary};
use serde::Serialize;

/// fio's default completion-latency percentiles: its map key (the percentage with six decimals) and the
/// fraction it stands for.
pub const FIO_PERCENTILES: [(&str, f64); 17] = [
    ("1.000000", 0.01),
    ("5.000000", 0.05),
    ("10.000000", 0.10),
    ("20.000000", 0.20),
    ("30.000000", 0.30),
    ("40.000000", 0.40),
    ("50.000000", 0.50),
    ("60.000000", 0.60),
    ("70.000000", 0.70),
    ("80.000000", 0.80),
    ("90.000000", 0.90),
    ("95.000000", 0.95),
    ("99.000000", 0.99),
    ("99.500000", 0.995),
    ("99.900000", 0.999),
    ("99.950000", 0.9995),
    ("99.990000", 0.9999),
];

/// fio's highest latency bin, ns: its histogram ends at 2^34 ns (about 17.2 s) and keeps larger values in its
/// last bucket, whose value this is; fio's readers take no larger key. Buckets of ours above it are counted
/// here too.
pub const FIO_TOP_BIN_NS: u64 = 17_112_760_320;

/// One latency object. Fields a record does not keep are left out rather than written as zero.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lat {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stddev: Option<f64>,
    #[serde(rename = "N")]
    pub n: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentile: Option<Ordered<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bins: Option<Ordered<u64>>,
}

impl Lat {
    /// A direction with no commands, as fio writes it.
    pub fn zero() -> Lat {
        Lat {
            min: Some(0),
            max: Some(0),
            mean: Some(0.0),
            stddev: Some(0.0),
            n: 0,
            percentile: None,
            bins: None,
        }
    }

    /// min, max, mean, stddev and N of a summary (as fio writes `slat_ns` and `lat_ns` by default).
    pub fn stats(s: &LatencySummary) -> Lat {
        Lat {
            min: Some(s.min_ns),
            max: Some(s.max_ns),
            mean: Some(s.mean_ns as f64),
            stddev: Some(s.stddev_ns as f64),
            n: s.count,
            percentile: None,
            bins: None,
        }
    }

    /// A summary with the percentiles it keeps (no bins: the record has no histogram).
    pub fn summary(s: &LatencySummary) -> Lat {
        let mut pct: Vec<(f64, String, u64)> = s
            .percentiles_ns
            .iter()
            .filter_map(|(k, &v)| Some((k.parse::<f64>().ok()?, fio_key(k)?, v)))
            .collect();
        pct.sort_by(|a, b| a.0.total_cmp(&b.0));
        Lat {
            percentile: Some(Ordered(pct.into_iter().map(|(_, k, v)| (k, v)).collect())),
            ..Lat::stats(s)
        }
    }

    /// A summary with the histogram behind it: fio's full percentile list and the bins (none for an empty
    /// histogram: fio's readers take `bins` to have at least one).
    pub fn with_histogram(s: &LatencySummary, h: &HistogramOut) -> Lat {
        let bins = bins(h);
        Lat {
            percentile: Some(percentiles(s, h)),
            bins: (!bins.0.is_empty()).then_some(bins),
            ..Lat::stats(s)
        }
    }

    /// Only the percentiles a record keeps (a sweep cell's p50 and p99) over `n` commands.
    pub fn percentiles_only(n: u64, p50_ns: u64, p99_ns: u64) -> Lat {
        Lat {
            min: None,
            max: None,
            mean: None,
            stddev: None,
            n,
            percentile: Some(Ordered(vec![
                ("50.000000".into(), p50_ns),
                ("99.000000".into(), p99_ns),
            ])),
            bins: None,
        }
    }
}

/// fio's key for one of our percentile labels ("99.9" -> "99.900000").
fn fio_key(label: &str) -> Option<String> {
    let p: f64 = label.parse().ok()?;
    Some(format!("{p:.6}"))
}

/// fio's percentile list from the histogram, by the same rule as our own percentiles (the midpoint of the
/// bucket holding the value, clamped to the exact min and max); the values the summary keeps are its own.
pub fn percentiles(s: &LatencySummary, h: &HistogramOut) -> Ordered<u64> {
    let hist = Histogram::from_out(h);
    let ours: Vec<(String, u64)> = s
        .percentiles_ns
        .iter()
        .filter_map(|(k, &v)| Some((fio_key(k)?, v)))
        .collect();
    Ordered(
        FIO_PERCENTILES
            .iter()
            .map(|&(key, q)| {
                let v = match ours.iter().find(|(k, _)| k == key) {
                    Some(&(_, v)) => v,
                    None if s.count == 0 => 0,
                    None => hist.quantile(q).clamp(s.min_ns, s.max_ns.max(s.min_ns)),
                };
                (key.to_string(), v)
            })
            .collect(),
    )
}

/// The value a bucket `[low, high)` stands for: its midpoint, as our percentiles report it.
pub fn bin_value(low: u64, high: u64) -> u64 {
    low + high.saturating_sub(low).saturating_sub(1) / 2
}

/// One bin per non-empty bucket, keyed by its midpoint in ns (buckets above fio's top bin go into it), in
/// increasing order. The counts are the histogram's, so they add up to its count.
pub fn bins(h: &HistogramOut) -> Ordered<u64> {
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(h.buckets.len());
    for b in &h.buckets {
        if b.count == 0 {
            continue;
        }
        let at = bin_value(b.low_ns, b.high_ns).min(FIO_TOP_BIN_NS);
        match out.last_mut() {
            Some((last, n)) if *last == at => *n = n.saturating_add(b.count),
            _ => out.push((at, b.count)),
        }
    }
    Ordered(out.into_iter().map(|(k, n)| (k.to_string(), n)).collect())
}
