//! Where and when a run happens, as its header records it: the host name and times in RFC 3339 (UTC,
//! seconds). Every command stamps its header through these, so the format is written in one place.

use crate::{Header, Kind, TargetInfo};
use std::time::SystemTime;

/// `t` as records write times (RFC 3339, UTC, seconds).
pub fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

/// Now as records write times.
pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

/// The host name, as the kernel has it (empty when it cannot be read).
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

impl Header {
    /// The header of a run of `kind` on `target` starting now on this host.
    pub fn now(kind: Kind, target: TargetInfo) -> Header {
        Header::new(kind, target, hostname(), now_rfc3339())
    }

    /// Mark the run as ended now.
    pub fn end_now(&mut self) {
        self.ended_at = now_rfc3339();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn times_are_utc_seconds() {
        let t = UNIX_EPOCH + Duration::from_millis(1_764_000_000_500);
        assert_eq!(rfc3339(t), "2025-11-24T16:00:00Z");
    }

    #[test]
    fn a_new_header_starts_and_ends_now_on_this_host() {
        let target = TargetInfo {
            path: "null:1M".into(),
            kind: crate::TargetType::Null,
            size: 1 << 20,
            logical_block_size: 512,
        };
        let h = Header::now(Kind::Scan, target);
        assert_eq!(h.started_at, h.ended_at);
        assert_eq!(h.host, hostname());
        assert!(h.started_at.ends_with('Z'), "{}", h.started_at);
    }
}
