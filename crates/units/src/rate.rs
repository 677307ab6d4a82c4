//! Throughput: MB/s = 10^6 bytes per second.

/// Bytes over nanoseconds as MB/s (10^6 B/s).
pub fn mb_per_s(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        return 0.0;
    }
    bytes as f64 * 1e3 / ns as f64
}

/// Rates at or above this many MB/s are written in GB/s: no drive reaches it, but memory, a
/// cache or the null target do, and `494127.0 MB/s` is no number a person reads.
const GB_FROM_MB: f64 = 100_000.0;

/// A rate for people: MB/s with one decimal (`1739.2 MB/s`), as drive datasheets write it; from
/// 100 000 MB/s on (memory, caches, the null target) GB/s (`494.1 GB/s`), and TB/s beyond that.
pub fn format_rate(mb_per_s: f64) -> String {
    let a = mb_per_s.abs();
    if !a.is_finite() || a < GB_FROM_MB {
        format!("{mb_per_s:.1} MB/s")
    } else if a < GB_FROM_MB * 1e3 {
        format!("{:.1} GB/s", mb_per_s / 1e3)
    } else {
        format!("{:.1} TB/s", mb_per_s / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_decimal_megabytes() {
        assert_eq!(mb_per_s(1_000_000, 1_000_000_000), 1.0);
        assert_eq!(mb_per_s(1 << 20, 1_000_000_000), 1.048576);
        assert_eq!(mb_per_s(5, 0), 0.0);
        assert_eq!(format_rate(1739.24), "1739.2 MB/s");
        assert_eq!(format_rate(0.0), "0.0 MB/s");
        assert_eq!(format_rate(14_000.0), "14000.0 MB/s");
        assert_eq!(format_rate(99_999.9), "99999.9 MB/s");
    }

    #[test]
    fn rates_no_drive_reaches_are_in_larger_units() {
        assert_eq!(format_rate(100_000.0), "100.0 GB/s");
        assert_eq!(format_rate(494_127.0), "494.1 GB/s");
        assert_eq!(format_rate(3_276_800.0), "3276.8 GB/s");
        assert_eq!(format_rate(250_000_000.0), "250.0 TB/s");
        assert_eq!(format_rate(-494_127.0), "-494.1 GB/s");
    }
}
