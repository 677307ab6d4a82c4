//! A degraded array: one that counts members the system cannot find (a btrfs mounted `-o degraded` without a
//! device, an md array with an empty slot). The system says so, so the finding is sure; what it costs is read
//! from the members left: their sum together is all the array can read, where every member would give about
//! that sum and the missing ones at the median of those left (when the members left read in parallel), and a mirror's blocks whose other copy lay on a missing member have one copy left, read from it alone
//! and kept by no other.

use crate::middle::middle;
use crate::screen::SHARED_BELOW;
use drivescope_record::{ArrayReads, Confidence, Finding, FindingCode};

fn usable(v: f64) -> bool {
    v > 0.0 && v.is_finite()
}

/// `1.1 GB/s` from 1000 MB/s up, else `412 MB/s`.
fn rate(mb_per_s: f64) -> String {
    if mb_per_s >= 1000.0 {
        format!("{:.1} GB/s", mb_per_s / 1000.0)
    } else {
        format!("{mb_per_s:.0} MB/s")
    }
}

/// The `degraded` finding when the array counts members it cannot find; `None` for a whole array.
pub fn finding(r: &ArrayReads) -> Option<Finding> {
    let a = &r.array;
    if a.missing.is_empty() {
        return None;
    }
    let left = a.members.len();
    let counted = left + a.missing.len();
    let name = if a.name.is_empty() {
        "the array".to_string()
    } else {
        a.name.clone()
    };
    let names: Vec<&str> = a.members.iter().map(|m| m.name.as_str()).collect();
    let alone: Vec<f64> = r
        .alone_mb_per_s
        .iter()
        .cloned()
        .filter(|v| usable(*v))
        .collect();
    let together: f64 = r.together_mb_per_s.iter().filter(|v| usable(**v)).sum();
    let mirror = matches!(
        a.level.as_deref(),
        Some("raid1" | "raid1c3" | "raid1c4" | "raid10")
    );
    let mut claim = format!(
        "{name} is degraded: {} of its {counted} members missing ({}); its reads come from the {left} left ({})",
        a.missing.len(),
        a.missing.join(", "),
        names.join(", ")
    );
    let mut numbers = vec![
        ("members_left", left as f64),
        ("members_counted", counted as f64),
    ];
    let sum: f64 = alone.iter().sum();
    if usable(together) && !alone.is_empty() {
        claim.push_str(&format!(", {} together", rate(together)));
        numbers.push(("together_mb_per_s", together));
        // Only members that read in parallel add up: behind a shared path the missing ones would add nothing.
        if together >= SHARED_BELOW * sum {
            let whole = together + middle(&alone) * a.missing.len() as f64;
            claim.push_str(&format!(
                " where all {counted} would read about {}",
                rate(whole)
            ));
            numbers.push(("whole_mb_per_s", whole));
        }
    }
    if mirror {
        claim.push_str(
            "; the blocks whose other copy lay on the missing member have one copy left: read from it alone, \
             and lost with it",
        );
    }
    if let Some(many) = r.readers_mb_per_s.filter(|v| usable(*v)) {
        numbers.push(("readers_mb_per_s", many));
    }
    Some(Finding::new(
        FindingCode::Degraded,
        Confidence::High,
        claim,
        &numbers,
    ))
}
