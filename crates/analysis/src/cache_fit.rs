//! A bench whose test region fits in a read cache that a diagnosis of the same device found: its read results
//! are the cache's, not the media's.

use drivescope_record::{BenchRecord, Confidence, DiagnoseRecord, Direction, Finding, FindingCode};
use drivescope_units::{format_rate, format_size};

/// The bench's read results come from the read cache `diag` (stored as run `diag_run`) found, when its test
/// region fits in that cache.
pub fn of_bench(b: &BenchRecord, diag: &DiagnoseRecord, diag_run: Option<i64>) -> Option<Finding> {
    if !b.tests.iter().any(|t| t.rw == Direction::Read) {
        return None;
    }
    let cache = crate::diagnose::assess(diag)
        .0
        .into_iter()
        .find(|f| f.code == FindingCode::ReadCache && f.confidence >= Confidence::Medium)?;
    let cache_bytes = cache.number("cache_bytes")?;
    let test = b.workload.size as f64;
    if test > cache_bytes {
        return None;
    }
    let cache_rate = cache.number("cache_mb_per_s").unwrap_or(0.0);
    let media = cache.number("media_mb_per_s").unwrap_or(0.0);
    let run = diag_run.map_or(String::new(), |id| format!(" (diagnose run {id})"));
    let mut f = Finding::new(
        FindingCode::ReadCache,
        Confidence::High,
        format!(
            "the {} test fits in the ~{} read cache found on this device{run}: read results are the cache's \
             (~{}), not the media's (~{}); test with a size well above the cache",
            format_size(b.workload.size),
            format_size(cache_bytes as u64),
            format_rate(cache_rate),
            format_rate(media)
        ),
        &[
            ("test_bytes", test),
            ("cache_bytes", cache_bytes),
            ("cache_mb_per_s", cache_rate),
            ("media_mb_per_s", media),
        ],
    );
    f.evidence.runs.extend(diag_run);
    Some(f)
}
