//! Numbers for people: each quantity through drivescope-units' one formatter for it (design notes, "Units").

/// The unit a metric's value is in, which decides how it is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    MBps,
    Iops,
    Nanos,
    /// How long something took (a run, a pass): `299.3 µs`, `12.40 s`, `3m 12s`.
    Elapsed,
    Bytes,
    Count,
    Ratio,
    Plain,
}

impl Unit {
    pub fn suffix(self) -> &'static str {
        match self {
            Unit::MBps => "MB/s",
            Unit::Iops => "IOPS",
            Unit::Nanos | Unit::Elapsed => "time",
            Unit::Bytes => "bytes",
            Unit::Count => "count",
            Unit::Ratio => "ratio",
            Unit::Plain => "",
        }
    }

    pub fn format(self, v: f64) -> String {
        match self {
            Unit::MBps => drivescope_units::format_rate(v),
            Unit::Iops => drivescope_units::format_iops(v),
            Unit::Nanos => duration(v),
            Unit::Elapsed => drivescope_units::format_elapsed(v.max(0.0).round() as u64),
            Unit::Bytes => bytes(v),
            Unit::Count => thousands(v.round()),
            Unit::Ratio => format!("{v:.2}"),
            Unit::Plain => trim(v),
        }
    }
}

/// `52.0 µs`, `8.41 ms`, `1.20 s` (drivescope-units' latency spelling).
pub fn duration(ns: f64) -> String {
    drivescope_units::format_latency(ns)
}

/// A short duration for an axis tick: `200 µs`, `1 ms`, `2.5 s`.
pub fn duration_tick(ns: f64) -> String {
    let (v, unit) = match ns.abs() {
        a if a < 1e3 => (ns, "ns"),
        a if a < 1e6 => (ns / 1e3, "µs"),
        a if a < 1e9 => (ns / 1e6, "ms"),
        _ => (ns / 1e9, "s"),
    };
    let s = format!("{v:.2}");
    format!("{} {unit}", s.trim_end_matches('0').trim_end_matches('.'))
}

/// IEC sizes: `4.0 TiB`, `64.0 KiB` (drivescope-units' size spelling).
pub fn bytes(b: f64) -> String {
    drivescope_units::format_bytes(b)
}

/// `12 345 678` (drivescope-units' count spelling).
pub fn thousands(v: f64) -> String {
    drivescope_units::format_count(v)
}

fn trim(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(duration(52_000.0), "52.0 µs");
        assert_eq!(duration(8_410_000.0), "8.41 ms");
        assert_eq!(duration_tick(200_000.0), "200 µs");
        assert_eq!(duration_tick(2_500_000_000.0), "2.5 s");
        assert_eq!(bytes(4.0 * (1u64 << 40) as f64), "4.0 TiB");
        assert_eq!(thousands(1234567.0), "1 234 567");
        assert_eq!(Unit::MBps.format(1739.24), "1739.2 MB/s");
        assert_eq!(Unit::MBps.format(494_127.0), "494.1 GB/s");
        assert_eq!(Unit::Iops.format(531_550.0), "531 550 IOPS");
        assert_eq!(Unit::Elapsed.format(21_380_000.0), "21.38 ms");
        assert_eq!(Unit::Elapsed.format(192e9), "3m 12s");
    }
}
