//! Sizes: binary (IEC) units, parsed from arguments and written for people.

use crate::UnitError;

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

const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/// The power of 1024 a size suffix stands for (case-insensitive; all binary).
fn suffix_power(suffix: &str) -> Option<u32> {
    let lower = suffix.trim().to_ascii_lowercase();
    SUFFIXES.iter().find(|(s, _)| *s == lower).map(|(_, p)| *p)
}

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
    let power = suffix_power(suffix).ok_or_else(|| {
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

/// A size for people: bytes below 1 KiB (`512 B`), else one decimal in the largest IEC unit
/// that keeps the number at or above 1 (`64.0 KiB`, `1.0 GiB`, `3.6 TiB`).
pub fn format_size(bytes: u64) -> String {
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    format_bytes(bytes as f64)
}

/// An offset for people: the size from the start, as [`format_size`] writes it (`0 B`,
/// `57.0 MiB`); where the exact position matters the LBA is written beside it.
pub fn format_offset(bytes: u64) -> String {
    format_size(bytes)
}

/// [`format_size`] for a value that may be fractional or negative (means, differences).
pub fn format_bytes(bytes: f64) -> String {
    if !bytes.is_finite() {
        return format!("{bytes} B");
    }
    let sign = if bytes < 0.0 { "-" } else { "" };
    let mut v = bytes.abs();
    if v.round() < 1024.0 {
        return format!("{sign}{v:.0} B");
    }
    let mut i = 0;
    while i + 1 < UNITS.len() && (v * 10.0).round() / 10.0 >= 1024.0 {
        v /= 1024.0;
        i += 1;
    }
    format!("{sign}{v:.1} {}", UNITS[i])
}

/// A size as test names and size arguments spell it: `4K`, `128K`, `1M`, `2G`, or bytes
/// (`1536B`) when it is no whole number of KiB.
pub fn short_size(bytes: u64) -> String {
    const K: u64 = 1024;
    if bytes == 0 {
        "0B".to_string()
    } else if bytes.is_multiple_of(K * K * K) {
        format!("{}G", bytes / (K * K * K))
    } else if bytes.is_multiple_of(K * K) {
        format!("{}M", bytes / (K * K))
    } else if bytes.is_multiple_of(K) {
        format!("{}K", bytes / K)
    } else {
        format!("{bytes}B")
    }
}

/// A size as a person writes one down from what drivescope showed: a decimal number and a
/// binary unit (`1.0 GiB`, `1 GiB`, `1.00 GiB`, `1GiB`, `1 gib`, `1024 MiB`, `1G`, or bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShownSize {
    /// The number without its decimal point (`1.00` → 100).
    digits: u128,
    /// Digits after the point (`1.00` → 2).
    decimals: u32,
    /// Bytes in the unit.
    unit: u64,
}

impl ShownSize {
    /// Parse a size written as people write it; refuses anything else.
    pub fn parse(text: &str) -> Result<ShownSize, UnitError> {
        let bad = || {
            UnitError(format!(
                "'{text}' is not a size as drivescope shows one (such as 1.0 GiB)"
            ))
        };
        let t = text.trim();
        let end = t
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(t.len());
        let (num, suffix) = t.split_at(end);
        let (int, frac) = num.split_once('.').unwrap_or((num, ""));
        let point = num.contains('.');
        if int.is_empty() || (point && frac.is_empty()) || int.len() + frac.len() > 20 {
            return Err(bad());
        }
        let digits: u128 = format!("{int}{frac}").parse().map_err(|_| bad())?;
        let power = suffix_power(suffix).ok_or_else(bad)?;
        Ok(ShownSize {
            digits,
            decimals: frac.len() as u32,
            unit: 1u64 << (10 * power),
        })
    }

    /// Whether this names a size of `bytes`: equal at the precision it was written in (half a
    /// step of its last digit), and shown as the same text by [`format_size`]. So `1 GiB`,
    /// `1.0 GiB` and `1.00 GiB` name 1 GiB; `2 GiB` does not name 1.5 GiB (`1.5 GiB` is shown),
    /// and `1.00 GiB` does not name 1.04 GiB (its second decimal is wrong).
    pub fn names(&self, bytes: u64) -> bool {
        let scale = 10u128.pow(self.decimals);
        let unit = self.unit as u128;
        let Some(written) = self.digits.checked_mul(unit) else {
            return false;
        };
        let Some(exact) = (bytes as u128).checked_mul(scale) else {
            return false;
        };
        if exact.abs_diff(written) > unit / 2 {
            return false;
        }
        let rounded = (written + scale / 2) / scale;
        u64::try_from(rounded).is_ok_and(|r| format_size(r) == format_size(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GIB: u64 = 1 << 30;

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
    fn one_spelling_for_people() {
        assert_eq!(format_size(0), "0 B");
        assert_eq!(format_size(512), "512 B");
        assert_eq!(format_size(1023), "1023 B");
        assert_eq!(format_size(1024), "1.0 KiB");
        assert_eq!(format_size(65536), "64.0 KiB");
        assert_eq!(format_size(GIB), "1.0 GiB");
        assert_eq!(format_size(3 * GIB / 2), "1.5 GiB");
        assert_eq!(format_size(256 * GIB), "256.0 GiB");
        assert_eq!(format_size(4_000_787_030_016), "3.6 TiB");
        // a number that would round to 1024.0 moves up a unit
        assert_eq!(format_size(GIB - 1), "1.0 GiB");
        assert_eq!(format_size((1024 << 20) - (1 << 10)), "1.0 GiB");
        assert_eq!(format_size(u64::MAX), "16384.0 PiB");
        assert_eq!(format_bytes(-1.5 * GIB as f64), "-1.5 GiB");
        assert_eq!(format_bytes(4.0 * (1u64 << 40) as f64), "4.0 TiB");
        assert_eq!(format_bytes(100.4), "100 B");
    }

    #[test]
    fn short_sizes() {
        assert_eq!(short_size(4096), "4K");
        assert_eq!(short_size(128 << 10), "128K");
        assert_eq!(short_size(1 << 20), "1M");
        assert_eq!(short_size(2 * GIB), "2G");
        assert_eq!(short_size(1536), "1536B");
        assert_eq!(short_size(0), "0B");
    }

    fn names(text: &str, bytes: u64) -> bool {
        ShownSize::parse(text).is_ok_and(|s| s.names(bytes))
    }

    #[test]
    fn shown_sizes_name_the_same_size() {
        for ok in [
            "1 GiB",
            "1.0 GiB",
            "1.00 GiB",
            "1GiB",
            "1.0GiB",
            "1 gib",
            "1.0 GIB",
            "1G",
            "1 GB",
            "1024 MiB",
            "1048576K",
            "1073741824",
            "1073741824 B",
        ] {
            assert!(names(ok, GIB), "{ok:?} should name 1 GiB");
        }
        // 1.5 GiB is shown `1.5 GiB`
        for ok in ["1.5 GiB", "1.50 GiB", "1536 MiB"] {
            assert!(names(ok, 3 * GIB / 2), "{ok:?} should name 1.5 GiB");
        }
        // 1.04 GiB is shown `1.0 GiB`: `1 GiB` and `1.0 GiB` name it, `1.00 GiB` does not
        let s = GIB + GIB / 25;
        assert_eq!(format_size(s), "1.0 GiB");
        assert!(names("1 GiB", s) && names("1.0 GiB", s) && names("1.04 GiB", s));
        assert!(!names("1.00 GiB", s));
    }

    #[test]
    fn shown_sizes_never_name_another_size() {
        for (bad, bytes) in [
            ("2 GiB", GIB),
            ("1 MiB", GIB),
            ("1.1 GiB", GIB),
            ("0.9 GiB", GIB),
            ("1.01 GiB", GIB),
            ("1073741823", GIB),
            ("2 GiB", 3 * GIB / 2), // rounds up from 1.5, but 1.5 GiB is shown
            ("1 GiB", 3 * GIB / 2),
            ("1 TiB", GIB),
            ("0 GiB", GIB),
        ] {
            assert!(!names(bad, bytes), "{bad:?} should not name {bytes}");
        }
        // the smallest step written, against the largest sizes: decided, not overflowed
        let tiny = ShownSize::parse("0.0000000000000000001 B").unwrap();
        assert!(!tiny.names(u64::MAX) && !tiny.names(1 << 63));
        for junk in [
            "",
            "GiB",
            "1.",
            ".5 GiB",
            "1,0 GiB",
            "1.0 GiB x",
            "-1 GiB",
            "1e3",
        ] {
            assert!(ShownSize::parse(junk).is_err(), "{junk:?} is no size");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        /// What drivescope shows for a size always names that size again.
        #[test]
        fn the_shown_text_names_its_size(bytes in 1u64..(1 << 60)) {
            let shown = format_size(bytes);
            prop_assert!(names(&shown, bytes), "{} does not name {}", shown, bytes);
        }

        /// A size shown differently is never named by the other's text.
        #[test]
        fn another_shown_size_is_refused(a in 1u64..(1 << 50), b in 1u64..(1 << 50)) {
            if format_size(a) != format_size(b) {
                prop_assert!(!names(&format_size(a), b));
            }
        }
    }
}
