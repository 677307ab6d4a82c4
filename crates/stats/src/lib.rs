//! drivescope-stats: pure accumulators for timed commands. No I/O.
//!
//! - [`Histogram`]: log-linear latency histogram (64 linear sub-buckets per power of two).
//! - [`AtomicHistogram`]: the same buckets filled on one thread while another reads them.
//! - [`Bands`]: the tester's response-time bands (< 1 ms … ≥ 500 ms, failed).
//! - [`Curve`]: transfer rate per position bin.
//! - [`Series`]: per-interval throughput and latency over time.
//! - [`Capped`]: a list that keeps the first N items and counts the rest.

mod bands;
mod capped;
mod curve;
mod histogram;
mod series;

pub use bands::{BandCount, Bands, BAND_LABELS, BAND_LIMITS_NS};
pub use capped::Capped;
pub use curve::{zone_ratio_of, BinState, Curve, CurveBin, CurvePoint, ZONE_BINS};
pub use histogram::{
    AtomicHistogram, BucketOut, Histogram, HistogramOut, LatencySummary, PERCENTILES,
};
pub use series::{cut_index, merge_pairs, Series, SeriesPoint};
