//! The document's times as fio writes them: Unix seconds and milliseconds, and a ctime-style line.

use std::time::{Duration, UNIX_EPOCH};

/// Milliseconds since the Unix epoch of an RFC 3339 time (None when it does not parse).
pub fn unix_ms(rfc3339: &str) -> Option<u64> {
    let t = humantime::parse_rfc3339_weak(rfc3339).ok()?;
    Some(t.duration_since(UNIX_EPOCH).ok()?.as_millis() as u64)
}

/// `Mon Nov 23 11:09:25 2026` (UTC) for a time in ms since the epoch.
pub fn ctime(ms: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = ms / 1000;
    // "YYYY-MM-DDTHH:MM:SSZ"
    let iso = humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(secs)).to_string();
    let field = |r: std::ops::Range<usize>| iso.get(r).unwrap_or("");
    let month: usize = field(5..7).parse().unwrap_or(1);
    let day: u32 = field(8..10).parse().unwrap_or(1);
    format!(
        "{} {} {:>2} {} {}",
        DAYS[((secs / 86_400) % 7) as usize],
        MONTHS[month.clamp(1, 12) - 1],
        day,
        field(11..19),
        field(0..4)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_as_fio_writes_them() {
        let ms = unix_ms("2026-11-23T11:09:25Z").unwrap();
        assert_eq!(ms, 1_795_432_165_000);
        assert_eq!(ctime(ms), "Mon Nov 23 11:09:25 2026");
        assert_eq!(ctime(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(unix_ms("not a time"), None);
    }
}
