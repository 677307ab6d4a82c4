//! Durations: parsed with `humantime` (a bare number is seconds), latencies written in ns, µs,
//! ms or s.

use crate::UnitError;
use std::time::Duration;

/// The longest duration accepted, in seconds (about 31 years).
const MAX_SECS: f64 = 1e9;

/// Parse a duration: `3s`, `500ms`, `250us`, `10m`, `1h 30m`, `2days`, or a bare number of
/// seconds (`3`, `0.5`). Unit names are matched without regard to case (`10M` is ten
/// minutes, as `10m`).
pub fn parse_duration(text: &str) -> Result<Duration, UnitError> {
    let t = text.trim();
    let hint = "expected e.g. 3s, 500ms, 10m or 1h 30m";
    let is_number = !t.is_empty()
        && t.chars().all(|c| c.is_ascii_digit() || c == '.')
        && t.chars().filter(|c| *c == '.').count() <= 1
        && t != ".";
    let d = if is_number {
        let secs: f64 = t
            .parse()
            .map_err(|_| UnitError(format!("'{text}' is not a duration: {hint}")))?;
        if !(0.0..=MAX_SECS).contains(&secs) {
            return Err(UnitError(format!("'{text}' is out of range")));
        }
        Duration::from_secs_f64(secs)
    } else {
        let lower = t.to_lowercase();
        let lower = match lower.strip_prefix('.') {
            Some(rest) => format!("0.{rest}"),
            None => lower,
        };
        humantime::parse_duration(&lower).map_err(|e| {
            // Say what is wrong in words: humantime's own text names byte positions.
            let why = match e {
                humantime::DurationError::UnknownUnit { unit, .. } => {
                    format!(" (unknown unit '{unit}')")
                }
                humantime::DurationError::NumberOverflow => " (too long)".into(),
                _ => String::new(),
            };
            UnitError(format!("'{text}' is not a duration{why}: {hint}"))
        })?
    };
    if d.as_secs_f64() > MAX_SECS {
        return Err(UnitError(format!("'{text}' is out of range")));
    }
    Ok(d)
}

/// A latency for people from nanoseconds (`850 ns`, `85.2 µs`, `12.40 ms`, `1.20 s`).
pub fn format_ns(ns: u64) -> String {
    format_latency(ns as f64)
}

/// [`format_ns`] for a value that may be fractional or negative (means, differences).
pub fn format_latency(ns: f64) -> String {
    let a = ns.abs();
    if a < 1e3 {
        format!("{ns:.0} ns")
    } else if a < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if a < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// A measured duration (how long a run or a pass took) for people, the same in every output:
/// below a minute as [`format_latency`] writes it (`850 ns`, `299.3 µs`, `21.38 ms`,
/// `12.40 s`), from a minute on in whole seconds as [`format_duration`] writes them (`3m 12s`,
/// `1h 2m 5s`). A short run is never `0.0 s`.
pub fn format_elapsed(ns: u64) -> String {
    if ns < 60_000_000_000 {
        format_latency(ns as f64)
    } else {
        format_duration((ns + 500_000_000) / 1_000_000_000 * 1_000_000_000)
    }
}

/// A set duration for people, in the words [`parse_duration`] reads back: its whole hours,
/// minutes, seconds, milliseconds, microseconds and nanoseconds, largest first, zero parts left
/// out (`3m`, `1m 30s`, `1s 500ms`, `250µs`, `0s`).
pub fn format_duration(ns: u64) -> String {
    if ns == 0 {
        return "0s".to_string();
    }
    const PARTS: [(u64, &str); 6] = [
        (3_600_000_000_000, "h"),
        (60_000_000_000, "m"),
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "µs"),
        (1, "ns"),
    ];
    let mut left = ns;
    let mut words = Vec::new();
    for (size, unit) in PARTS {
        if left >= size {
            words.push(format!("{}{unit}", left / size));
            left %= size;
        }
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let ms = Duration::from_millis;
        assert_eq!(parse_duration("3s").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_duration("3").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_duration(" 3 s ").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_duration("0.5").unwrap(), ms(500));
        assert_eq!(parse_duration("500ms").unwrap(), ms(500));
        assert_eq!(parse_duration("0.5s").unwrap(), ms(500));
        assert_eq!(parse_duration(".5s").unwrap(), ms(500));
        assert_eq!(parse_duration("250us").unwrap(), Duration::from_micros(250));
        assert_eq!(parse_duration("250µs").unwrap(), Duration::from_micros(250));
        assert_eq!(parse_duration("100ns").unwrap(), Duration::from_nanos(100));
        assert_eq!(parse_duration("10m").unwrap(), Duration::from_secs(600));
        assert_eq!(parse_duration("10M").unwrap(), Duration::from_secs(600));
        assert_eq!(parse_duration("10min").unwrap(), Duration::from_secs(600));
        assert_eq!(parse_duration("1.5m").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("1h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_duration("1h 30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("3sec").unwrap(), Duration::from_secs(3));
    }

    #[test]
    fn bad_durations() {
        for bad in [
            "",
            "3x",
            "s",
            "-1s",
            "5 parsecs",
            ".",
            "1e3",
            "inf",
            "nan",
            "1..2s",
            "99999999999h",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn set_durations_read_as_written() {
        assert_eq!(format_duration(180_000_000_000), "3m");
        assert_eq!(format_duration(90_000_000_000), "1m 30s");
        assert_eq!(format_duration(5_400_000_000_000), "1h 30m");
        assert_eq!(format_duration(1_500_000_000), "1s 500ms");
        assert_eq!(format_duration(500_000_000), "500ms");
        assert_eq!(format_duration(250_000), "250µs");
        assert_eq!(format_duration(100), "100ns");
        assert_eq!(format_duration(0), "0s");
        assert_eq!(format_duration(86_400_000_000_000), "24h");
        for ns in [
            1,
            999,
            1_000_001,
            61_000_000_000,
            3_723_004_005_006,
            2_592_000_123_456_789,
        ] {
            let back = parse_duration(&format_duration(ns)).unwrap();
            assert_eq!(back.as_nanos(), ns as u128, "{}", format_duration(ns));
        }
    }

    #[test]
    fn bad_durations_say_why_in_words() {
        let e = parse_duration("abc").unwrap_err().0;
        assert_eq!(
            e,
            "'abc' is not a duration: expected e.g. 3s, 500ms, 10m or 1h 30m"
        );
        let e = parse_duration("3x").unwrap_err().0;
        assert!(
            e.starts_with("'3x' is not a duration (unknown unit 'x'): "),
            "{e}"
        );
        for bad in ["abc", "3x", "s", "1..2s", "5 parsecs", ""] {
            let e = parse_duration(bad).unwrap_err().0;
            assert!(!e.contains(" at "), "{bad:?}: {e}");
        }
    }

    #[test]
    fn elapsed_times() {
        assert_eq!(format_elapsed(0), "0 ns");
        assert_eq!(format_elapsed(299_300), "299.3 µs");
        assert_eq!(format_elapsed(21_380_000), "21.38 ms");
        assert_eq!(format_elapsed(12_400_000_000), "12.40 s");
        assert_eq!(format_elapsed(59_990_000_000), "59.99 s");
        assert_eq!(format_elapsed(60_000_000_000), "1m");
        assert_eq!(format_elapsed(192_400_000_000), "3m 12s");
        assert_eq!(format_elapsed(3_725_000_000_000), "1h 2m 5s");
    }

    #[test]
    fn latencies() {
        assert_eq!(format_ns(850), "850 ns");
        assert_eq!(format_ns(1500), "1.5 µs");
        assert_eq!(format_ns(85_200), "85.2 µs");
        assert_eq!(format_ns(12_400_000), "12.40 ms");
        assert_eq!(format_ns(1_200_000_000), "1.20 s");
        assert_eq!(format_latency(52_000.0), "52.0 µs");
        assert_eq!(format_latency(-8_410_000.0), "-8.41 ms");
    }
}
