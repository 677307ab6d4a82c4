//! Replies the host sees late (`late_replies` in a model): every `every`-th command's reply
//! reaches the host `by` after the disk completed it, as when a bridge or the host's own
//! completion path holds it (interrupt moderation, a stalled loop worker). The disk itself goes
//! on: a disk with read-ahead keeps reading, so the commands after a late reply find their data
//! read already and complete at once, a burst. Rates over stretches longer than `by` keep the
//! media's; a command's own time does not.

use crate::units::de_duration_ns;
use serde::{Deserialize, Serialize};

/// Which replies come late, and by how much.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LateReplies {
    /// Every this many commands, one reply is late (the `every`-th, `2 × every`-th, …).
    pub every: u64,
    /// How much later than the disk completed it the host sees that reply.
    #[serde(deserialize_with = "de_duration_ns", rename = "by")]
    pub by_ns: u64,
}

impl LateReplies {
    /// Why the section is invalid, if it is.
    pub fn check(&self) -> Result<(), String> {
        if self.every == 0 {
            return Err("late_replies.every must be at least 1".into());
        }
        if self.by_ns == 0 || self.by_ns > 10_000_000_000 {
            return Err("late_replies.by must lie between 0 and 10 s".into());
        }
        Ok(())
    }

    /// How late the reply of the `n`-th command the disk completed (from 1) reaches the host, ns.
    pub fn delay_ns(&self, n: u64) -> u64 {
        if n > 0 && n.is_multiple_of(self.every) {
            self.by_ns
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nth_reply_is_late_by_its_delay() {
        let l = LateReplies {
            every: 3,
            by_ns: 5_000_000,
        };
        let late: Vec<u64> = (1..=9).map(|n| l.delay_ns(n)).collect();
        assert_eq!(late, [0, 0, 5_000_000, 0, 0, 5_000_000, 0, 0, 5_000_000]);
        assert!(l.check().is_ok());
        assert!(LateReplies {
            every: 0,
            ..l.clone()
        }
        .check()
        .is_err());
        assert!(LateReplies { by_ns: 0, ..l }.check().is_err());
    }
}
