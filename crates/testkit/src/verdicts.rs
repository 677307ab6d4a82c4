//! Screen verdicts of healthy drives on a busy host. A lab disk is served by the test process (FUSE and
//! the kernel's loop worker), and a tmpfs loop device by the loop worker: when other processes keep the
//! CPUs busy, their commands are late and the screen's timing rules (slow commands, the slowest command,
//! a rate below the siblings' or the drive's history) can rightly warn about what the host did. Such a
//! warning proves nothing about the drive either way; any other reason, or any warning on a host that
//! kept up, still fails the test.

use crate::busy::{Pressure, BUSY};
use drivescope_record::{DriveVerdict, Grade, Rule};

/// Whether every reason of `v` is a timing rule.
fn timing_only(v: &DriveVerdict) -> bool {
    !v.reasons.is_empty()
        && v.reasons.iter().all(|r| {
            matches!(
                r.rule,
                Rule::SlowCommands | Rule::MaxLatency | Rule::BelowSiblings | Rule::BelowHistory
            )
        })
}

/// Asserts that `v` (of drive `what`) passed, or, where the CPUs were under pressure for at least
/// [`BUSY`] of the time since `since` was taken, warned on timing rules alone (said on stderr).
pub fn assert_pass(v: &DriveVerdict, since: &Option<Pressure>, what: &str) {
    if v.grade == Grade::Pass {
        return;
    }
    let share = since.as_ref().and_then(|p| p.share());
    match share {
        Some(s) if s >= BUSY && v.grade == Grade::Warn && timing_only(v) => eprintln!(
            "inconclusive: {what} warned on timing rules with the CPUs {:.0} % under pressure: {:?}",
            s * 100.0,
            v.reasons
        ),
        _ => panic!("{what}: {v:?} (CPU pressure {share:?})"),
    }
}
