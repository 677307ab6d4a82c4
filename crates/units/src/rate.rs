//! Throughput: MB/s = 10^6 bytes per second.

/// Bytes over nanoseconds as MB/s (10^6 B/s).
pub fn mb_per_s(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        return 0.0;
    }
    bytes as f64 * 1e3 / ns as f64
}

/// A rate for people: MB/s with one decimal (`1739.2 MB/s`).
pub fn format_rate(mb_per_s: f64) -> String {
    format!("{mb_per_s:.1} MB/s")
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
    }
}
