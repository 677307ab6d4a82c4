//! Numbers for people: MB/s with one decimal, latency in µs/ms/s, sizes in IEC units (design notes, "Units").

/// The unit a metric's value is in, which decides how it is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    MBps,
    Iops,
    Nanos,
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
            Unit::Nanos => "time",
            Unit::Bytes => "bytes",
            Unit::Count => "count",
            Unit::Ratio => "ratio",
            Unit::Plain => "",
        }
    }

    pub fn format(self, v: f64) -> String {
        match self {
            Unit::MBps => drivescope_units::format_rate(v),
            Unit::Iops => format!("{} IOPS", thousands(v.round())),
            Unit::Nanos => duration(v),
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

/// `12 345 678` (thin grouping keeps columns readable and is not mistaken for a decimal point).
pub fn thousands(v: f64) -> String {
    let s = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(c);
    }
    if v < 0.0 {
        format!("-{out}")
    } else {
        out
    }
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
    }
}
