//! `drivescope screen`: several drives scanned at the same time, a verdict for each, and the path they share.
//!
//! The group document embeds each drive's scan record as it was measured (so the group reads whole, and a
//! resumed group continues each drive from its own resume state); each scan is also stored as a run of its
//! own (`run`). Verdicts are the analysis rules applied to the scans with the group's [`Criteria`]; they are
//! written into the document, and a reader can compute them again from the same numbers.

use crate::header::Header;
use crate::scan::ScanRecord;
use drivescope_probe::Smart;
use serde::{Deserialize, Serialize};

/// A group screen (`"kind": "screen"`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScreenRecord {
    /// `target` names every drive (paths joined with ", "); its size is their sum; `device` is none (each
    /// member's scan carries its own).
    #[serde(flatten)]
    pub header: Header,
    /// The drives in the order they were given.
    pub members: Vec<Member>,
    /// Each drive alone, then all together: present when measured (two or more drives).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_path: Option<SharedPath>,
    /// The rules the verdicts were given by.
    pub criteria: Criteria,
    /// A write scan (with `verify`: a write, then a read-back of every sector).
    pub write: bool,
    pub verify: bool,
    /// Stopped (SIGINT, or killed after a checkpoint) before every drive was done; drives with resume state
    /// continue with `--resume`.
    pub interrupted: bool,
    pub duration_ns: u64,
    /// The stored group this one continues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<i64>,
    /// Set on a checkpoint: the document a screen saves while it runs (`screen --checkpoint`), each member's
    /// scan as its latest snapshot (or its result, once it has ended). Who saved it tells whether the screen
    /// is still running or was killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<crate::Checkpoint>,
}

/// One drive of a group.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Member {
    /// The target as given.
    pub target: String,
    /// The drive's scan, stored as a run of its own (none with `--no-store`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<i64>,
    /// What the scan measured; none when the drive could not be scanned at all (`error` says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan: Option<Box<ScanRecord>>,
    /// Why the drive's scan ended without a result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Earlier stored scans of the same model (other runs than this group's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<History>,
    /// SMART as `smartctl --json` read it before the drive's scan began (a resumed group keeps the reading
    /// of its first start), or why it could not be read. None in documents of versions that did not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smart_before: Option<Smart>,
    /// SMART read again after the drive's scan ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smart_after: Option<Smart>,
    /// The verdict the criteria give (filled by the analysis).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<DriveVerdict>,
    /// The arrays the drive (or a partition of it) belongs to, as the system shows them (`md0 (md raid1)`,
    /// `btrfs UUID (raid1)`); empty for a drive in none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arrays: Vec<String>,
}

impl Member {
    /// Why the drive's SMART was not read, said once: the reason before the scan, else the one after. None
    /// when both readings succeeded, or when there are none (a target that is not a drive, a document of a
    /// version that did not read SMART).
    pub fn smart_not_read(&self) -> Option<String> {
        let failed = |s: &Option<Smart>| {
            let s = s.as_ref().filter(|s| !s.read)?;
            Some(
                s.note
                    .clone()
                    .unwrap_or_else(|| "smartctl gave no health data".into()),
            )
        };
        let say = |when: &str, why: String| {
            if why.contains("SMART not read") {
                why // the note says it already (smartctl not installed)
            } else {
                format!("SMART not read{when}: {why}")
            }
        };
        match (failed(&self.smart_before), failed(&self.smart_after)) {
            (Some(b), Some(a)) if a == b => Some(say("", b)),
            (Some(b), _) => Some(say(" before the scan", b)),
            (None, Some(a)) => Some(say(" after the scan", a)),
            (None, None) => None,
        }
    }

    /// The latest SMART reading that succeeded: after the scan, else before it.
    pub fn smart_latest(&self) -> Option<&Smart> {
        fn ok(s: &Option<Smart>) -> Option<&Smart> {
            s.as_ref().filter(|s| s.read)
        }
        ok(&self.smart_after).or(ok(&self.smart_before))
    }
}

/// Earlier full scans of drives of the same model, from the results store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct History {
    pub model: String,
    /// Their run ids and mean rates (MB/s), oldest first.
    pub runs: Vec<i64>,
    pub mean_mb_per_s: Vec<f64>,
}

/// The arrays a drive of a group belongs to, as the system shows them (`md0 (md raid1)`, `btrfs UUID (raid0)`):
/// what its drives do together is then what the array's members do.
pub fn group_arrays(members: &[Member]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for m in members {
        for a in &m.arrays {
            match out.iter_mut().find(|(name, _)| name == a) {
                Some((_, drives)) => drives.push(m.target.clone()),
                None => out.push((a.clone(), vec![m.target.clone()])),
            }
        }
    }
    out
}

/// The same sequential read on each drive alone, one after another, then on all at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedPath {
    pub block_size: u64,
    pub queue_depth: u32,
    /// Time each read ran (alone, and together).
    pub duration_ns: u64,
    /// One per member, in member order (MB/s); 0 for a drive that could not be read.
    pub alone_mb_per_s: Vec<f64>,
    pub together_mb_per_s: Vec<f64>,
    /// The device the members' paths meet at (a host adapter, a USB hub), from sysfs, when they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

impl SharedPath {
    pub fn alone_sum(&self) -> f64 {
        self.alone_mb_per_s.iter().sum()
    }

    pub fn together_sum(&self) -> f64 {
        self.together_mb_per_s.iter().sum()
    }
}

/// The rules of the verdicts. Counts are "more than this"; a latency is "at or over this".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Criteria {
    /// Failed (unreadable or unwritable) sectors a drive may have and pass (fail above).
    pub max_failed_sectors: u64,
    /// Sectors that came back wrong, misplaced or lost on verify (fail above).
    pub max_verify_errors: u64,
    /// Commands at or over the scan's slow threshold (warn above).
    pub max_slow_commands: u64,
    /// Any command at or over this latency warns (ns).
    pub max_latency_ns: u64,
    /// Warn when the rate is this many percent below the median of the drive's siblings…
    pub below_siblings_pct: f64,
    /// …over a stretch of at least this many percent of the positions.
    pub below_stretch_pct: f64,
    /// Warn when the mean rate is this many percent below the median of stored scans of the same model.
    pub below_history_pct: f64,
}

impl Default for Criteria {
    fn default() -> Criteria {
        Criteria {
            max_failed_sectors: 0,
            max_verify_errors: 0,
            max_slow_commands: 10,
            max_latency_ns: 500_000_000,
            below_siblings_pct: 30.0,
            below_stretch_pct: 2.0,
            below_history_pct: 20.0,
        }
    }
}

/// The verdict on one drive, from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grade {
    Pass,
    Warn,
    /// The scan did not cover the drive (interrupted): no pass yet (a failure found so far still fails).
    Incomplete,
    Fail,
}

impl Grade {
    pub fn as_str(self) -> &'static str {
        match self {
            Grade::Pass => "pass",
            Grade::Warn => "warn",
            Grade::Fail => "fail",
            Grade::Incomplete => "incomplete",
        }
    }
}

impl std::fmt::Display for Grade {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// The rule behind a verdict.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    FailedSectors,
    VerifyErrors,
    /// The drive failed or went away during the scan.
    DeviceLost,
    /// The drive could not be scanned at all.
    Error,
    SlowCommands,
    MaxLatency,
    BelowSiblings,
    BelowHistory,
    Incomplete,
    /// A SMART count of damaged sectors (reallocated, pending, offline uncorrectable, NVMe media errors)
    /// grew during the scan.
    SmartGrew,
    /// SMART reports sectors pending reallocation.
    SmartPending,
    /// The link's CRC error count grew during the scan: a cable or connector.
    SmartCrc,
    /// An NVMe critical warning is set.
    SmartCriticalWarning,
    /// The drive's own overall-health self-assessment failed.
    SmartFailed,
    /// A write scan's read-back shows the drive keeps less than it reports (wrap-around, dropped writes).
    CounterfeitCapacity,
    /// A rule this version does not know.
    #[serde(untagged)]
    Other(String),
}

/// One rule that decided (or weighed on) a verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reason {
    pub rule: Rule,
    pub grade: Grade,
    /// One sentence with the numbers.
    pub text: String,
}

/// A drive's verdict: the worst grade of its reasons (pass when there are none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriveVerdict {
    pub grade: Grade,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<Reason>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criteria_left_out_are_the_defaults_and_unknown_ones_are_refused() {
        let c: Criteria = serde_json::from_str(r#"{"max_slow_commands": 3}"#).unwrap();
        assert_eq!(c.max_slow_commands, 3);
        assert_eq!(c.max_latency_ns, Criteria::default().max_latency_ns);
        assert!(serde_json::from_str::<Criteria>(r#"{"max_slow": 3}"#).is_err());
    }

    #[test]
    fn grades_order_from_best_to_worst() {
        assert!(Grade::Pass < Grade::Warn && Grade::Warn < Grade::Incomplete);
        assert!(Grade::Incomplete < Grade::Fail);
        let r: Rule = serde_json::from_str("\"newer_rule\"").unwrap();
        assert_eq!(r, Rule::Other("newer_rule".into()));
    }
}
