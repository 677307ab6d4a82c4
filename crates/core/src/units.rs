//! Size, duration and rate units as drivescope writes and reads them.
//!
//! Sizes are binary (IEC): `64K`, `64KiB`, `1M`, `1G` all mean powers of 1024.
//! Throughput is MB/s = 10^6 bytes per second, as CrystalDiskMark and datasheets use.

use std::time::Duration;

/// The formatters live with the stats, so the report prints numbers as the commands do.
pub use drivescope_stats::units::{format_ns, format_size};

/// Error for a size or duration that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnitError(pub String);

const SUFFIXES: &[(&str, u32)] = &[
    ("", 0),
    ("b", 0),
    ("k", 1),
    ("kb", 1),
    ("kib", 1),
    ("m", 2),
    ("mb", 2),
    ("mib", 2),
    ("g", 3),
    ("gb", 3),
    ("gib", 3),
    ("t", 4),
    ("tb", 4),
    ("tib", 4),
    ("p", 5),
    ("pb", 5),
    ("pib", 5),
];

/// Parse a byte size: a non-negative integer with an optional binary suffix
/// (`K`, `KiB`, `M`, `MiB`, `G`, `GiB`, `T`, `TiB`, `P`, `PiB`; case-insensitive).
pub fn parse_size(text: &str) -> Result<u64, UnitError> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '_')
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let num: String = num.chars().filter(|c| *c != '_').collect();
    if num.is_empty() {
        return Err(UnitError(format!(
            "'{text}' is not a size: expected a number such as 4096, 64K, 1M or 2GiB"
        )));
    }
    let value: u64 = num
        .parse()
        .map_err(|_| UnitError(format!("'{text}' is too large a size")))?;
    let lower = suffix.trim().to_ascii_lowercase();
    let power = SUFFIXES
        .iter()
        .find(|(s, _)| *s == lower)
        .map(|(_, p)| *p)
        .ok_or_else(|| {
            UnitError(format!(
                "'{text}': unknown size suffix '{suffix}' (use K, M, G, T, P or KiB, MiB, GiB, TiB, PiB; all binary)"
            ))
        })?;
    value
        .checked_mul(1u64 << (10 * power))
        .ok_or_else(|| UnitError(format!("'{text}' is too large a size")))
}

/// A size or a percentage of a whole (for `--offset 50%`, `--length 10%`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeOrPercent {
    Bytes(u64),
    Percent(f64),
}

impl SizeOrPercent {
    /// Resolve against `whole` bytes.
    pub fn resolve(self, whole: u64) -> u64 {
        match self {
            SizeOrPercent::Bytes(b) => b,
            SizeOrPercent::Percent(p) => ((whole as f64) * p / 100.0).round() as u64,
        }
    }
}

/// Parse `64M`, `1GiB` or `25%`.
pub fn parse_size_or_percent(text: &str) -> Result<SizeOrPercent, UnitError> {
    let t = text.trim();
    if let Some(p) = t.strip_suffix('%') {
        let v: f64 = p
            .trim()
            .parse()
            .map_err(|_| UnitError(format!("'{text}' is not a percentage")))?;
        if !(0.0..=100.0).contains(&v) || !v.is_finite() {
            return Err(UnitError(format!(
                "'{text}': a percentage must lie between 0% and 100%"
            )));
        }
        return Ok(SizeOrPercent::Percent(v));
    }
    parse_size(t).map(SizeOrPercent::Bytes)
}

/// Parse a duration: `3s`, `500ms`, `250us`, `10m`, `1h`, or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, UnitError> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| {
        UnitError(format!(
            "'{text}' is not a duration: expected e.g. 3s, 500ms, 10m"
        ))
    })?;
    let scale = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        other => {
            return Err(UnitError(format!(
                "'{text}': unknown duration unit '{other}' (use ns, us, ms, s, m or h)"
            )))
        }
    };
    let secs = value * scale;
    if !secs.is_finite() || !(0.0..=1e9).contains(&secs) {
        return Err(UnitError(format!("'{text}' is out of range")));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Bytes over nanoseconds as MB/s (10^6 B/s).
pub fn mb_per_s(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        return 0.0;
    }
    bytes as f64 * 1e3 / ns as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_binary() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("64K").unwrap(), 65536);
        assert_eq!(parse_size("64KiB").unwrap(), 65536);
        assert_eq!(parse_size("64kb").unwrap(), 65536);
        assert_eq!(parse_size("1M").unwrap(), 1 << 20);
        assert_eq!(parse_size("2GiB").unwrap(), 2 << 30);
        assert_eq!(parse_size("4T").unwrap(), 4u64 << 40);
    }

    #[test]
    fn bad_sizes_are_refused() {
        for bad in ["", "K", "-1", "1.5G", "12X", "1Q", "99999999999P"] {
            assert!(parse_size(bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn percent_resolves() {
        let p = parse_size_or_percent("25%").unwrap();
        assert_eq!(p.resolve(1000), 250);
        assert!(parse_size_or_percent("101%").is_err());
        assert_eq!(
            parse_size_or_percent("1M").unwrap(),
            SizeOrPercent::Bytes(1 << 20)
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("3s").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_duration("3").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("10m").unwrap(), Duration::from_secs(600));
        assert!(parse_duration("3x").is_err());
        assert!(parse_duration("").is_err());
    }

    #[test]
    fn rates_and_formats() {
        assert_eq!(mb_per_s(1_000_000, 1_000_000_000), 1.0);
        assert_eq!(format_size(65536), "64 KiB");
        assert_eq!(format_ns(1500), "1.5 µs");
    }
}
