//! Sizes and latencies as drivescope prints them for people: IEC sizes (`64 KiB`, `1.50 GiB`) and
//! latencies in ns, µs, ms or s. Shared by the engine's messages and the report's summaries, so a number
//! reads the same wherever it appears.

/// Human size in IEC units (`1.5 GiB`).
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{bytes} B")
    } else if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[i])
    } else {
        format!("{v:.2} {}", UNITS[i])
    }
}

/// Human latency from nanoseconds (`85.2 µs`, `12.4 ms`, `1.20 s`).
pub fn format_ns(ns: u64) -> String {
    let n = ns as f64;
    if ns < 1_000 {
        format!("{ns} ns")
    } else if ns < 1_000_000 {
        format!("{:.1} µs", n / 1e3)
    } else if ns < 1_000_000_000 {
        format!("{:.2} ms", n / 1e6)
    } else {
        format!("{:.2} s", n / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(format_size(65536), "64 KiB");
        assert_eq!(format_size(1536 << 20), "1.50 GiB");
        assert_eq!(format_size(512), "512 B");
        assert_eq!(format_ns(842), "842 ns");
        assert_eq!(format_ns(1500), "1.5 µs");
        assert_eq!(format_ns(50_000_000), "50.00 ms");
        assert_eq!(format_ns(1_200_000_000), "1.20 s");
    }
}
