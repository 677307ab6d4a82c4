//! The surface rules: failed (unreadable or unwritable) sectors and sectors the read-back of a write scan
//! found wrong, misplaced or lost.

use super::reason;
use drivescope_record::{Criteria, Grade, Reason, Rule, ScanRecord};

/// A scan's failed sectors: those that failed read one by one, the sectors of failed commands that were not
/// read one by one (at least what the surface counts as failed), and for a write scan with a read-back the
/// sectors that could not be read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FailedSectors {
    /// Sectors that failed on their own.
    pub single: u64,
    /// Sectors in failed commands not read one by one.
    pub unscraped: u64,
    /// Sectors the read-back of a write scan could not read.
    pub unreadable: u64,
    /// Byte offset of the first of them.
    pub first: Option<u64>,
}

impl FailedSectors {
    pub fn of(s: &ScanRecord) -> FailedSectors {
        let lbs = (s.header.target.logical_block_size as u64).max(1);
        let extents = s.failed_extents_or_derived();
        let single = s.failed_sectors();
        let unscraped_bytes = s.surface.as_ref().map_or_else(
            || extents.iter().map(|e| e.unscraped).sum(),
            |f| f.unscraped.max(f.failed.saturating_sub(single * lbs)),
        );
        let mut first = extents.first().map(|e| e.offset);
        first = min(first, s.failed.iter().map(|e| e.offset).min());
        let mut unreadable = 0;
        if let Some(v) = &s.verify {
            unreadable = v.totals.unreadable * v.unit.max(1) / lbs;
            first = min(first, v.unreadable.first().map(|e| e.offset));
        }
        FailedSectors {
            single,
            unscraped: unscraped_bytes.div_ceil(lbs),
            unreadable,
            first,
        }
    }

    pub fn total(&self) -> u64 {
        self.single + self.unscraped + self.unreadable
    }
}

fn min(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Fail above `max_failed_sectors`.
pub(super) fn failed_sectors(s: &ScanRecord, c: &Criteria) -> Option<Reason> {
    let f = FailedSectors::of(s);
    let n = f.total();
    if n <= c.max_failed_sectors {
        return None;
    }
    let lbs = (s.header.target.logical_block_size as u64).max(1);
    let what = if s.write { "unwritable" } else { "unreadable" };
    let mut parts = Vec::new();
    if f.unscraped > 0 {
        parts.push(format!(
            "{} in failed commands not read sector by sector",
            f.unscraped
        ));
    }
    if f.unreadable > 0 && f.unreadable < n {
        parts.push(format!("{} unreadable on read-back", f.unreadable));
    }
    let parts = if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    };
    let at = f
        .first
        .map(|o| format!(", the first at offset {o} (LBA {})", o / lbs))
        .unwrap_or_default();
    Some(reason(
        Rule::FailedSectors,
        Grade::Fail,
        format!(
            "{}{parts}{at}: more than the {} allowed",
            plural(n, &format!("{what} sector"), &format!("{what} sectors")),
            c.max_failed_sectors
        ),
    ))
}

/// Fail above `max_verify_errors` sectors wrong, misplaced or lost on read-back.
pub(super) fn verify_errors(s: &ScanRecord, c: &Criteria) -> Option<Reason> {
    let v = s.verify.as_ref()?;
    let lbs = (s.header.target.logical_block_size as u64).max(1);
    let per = v.unit.max(1) / lbs;
    let t = &v.totals;
    let n = (t.wrong + t.misplaced + t.lost) * per.max(1);
    if n <= c.max_verify_errors {
        return None;
    }
    let first = [&v.wrong, &v.misplaced, &v.lost]
        .iter()
        .filter_map(|l| l.first().map(|e| e.offset))
        .min()
        .map(|o| format!(", the first at offset {o} (LBA {})", o / lbs))
        .unwrap_or_default();
    Some(reason(
        Rule::VerifyErrors,
        Grade::Fail,
        format!(
            "the read-back found {} wrong, {} misplaced and {} lost{first}: more than the {} allowed",
            plural(t.wrong * per.max(1), "sector", "sectors"),
            t.misplaced * per.max(1),
            t.lost * per.max(1),
            c.max_verify_errors
        ),
    ))
}
