//! A path the drives share: the same sequential read on each drive alone, then on all at once. Independent
//! drives read together about what they read alone; drives behind one link (a host adapter, a USB hub, an
//! expander) share its bandwidth, so their sum together stays at the link's ceiling.

use drivescope_record::{Confidence, Finding, FindingCode, SharedPath};

/// Together under this share of alone is a shared path. Independent drives read together within a few percent
/// of alone (the host's own overhead); two drives that share a link that carries only 1.6 times one of them
/// already fall to 80 %.
pub const SHARED_BELOW: f64 = 0.8;

/// `1.1 GB/s` from 1000 MB/s up, else `412 MB/s`.
fn rate(mb_per_s: f64) -> String {
    if mb_per_s >= 1000.0 {
        format!("{:.1} GB/s", mb_per_s / 1000.0)
    } else {
        format!("{mb_per_s:.0} MB/s")
    }
}

/// The `shared_path` finding of a group of `members` drives: the drives that read both alone and together (at
/// least two) reach less than [`SHARED_BELOW`] of their sum alone when together. Confidence by the margin:
/// under 60 % high, under 70 % medium, else low. Nothing when they read independently.
pub fn shared_path(sp: &SharedPath, members: usize) -> Option<Finding> {
    let n = members
        .min(sp.alone_mb_per_s.len())
        .min(sp.together_mb_per_s.len());
    let both: Vec<(f64, f64)> = (0..n)
        .map(|i| (sp.alone_mb_per_s[i], sp.together_mb_per_s[i]))
        .filter(|(a, t)| *a > 0.0 && *t > 0.0 && a.is_finite() && t.is_finite())
        .collect();
    if both.len() < 2 {
        return None;
    }
    let alone: f64 = both.iter().map(|b| b.0).sum();
    let together: f64 = both.iter().map(|b| b.1).sum();
    let ratio = together / alone;
    if ratio >= SHARED_BELOW {
        return None;
    }
    let confidence = if ratio < 0.6 {
        Confidence::High
    } else if ratio < 0.7 {
        Confidence::Medium
    } else {
        Confidence::Low
    };
    let drives = if both.len() == members {
        format!("{} drives", both.len())
    } else {
        format!("{} of the {members} drives", both.len())
    };
    let meet = sp
        .parent
        .as_ref()
        .map(|p| format!("; they meet at {p}"))
        .unwrap_or_default();
    let claim = format!(
        "{drives} together {}, {:.0} % of the {} alone: a shared path caps them at ~{}{meet}",
        rate(together),
        ratio * 100.0,
        rate(alone),
        rate(together)
    );
    Some(Finding::new(
        FindingCode::SharedPath,
        confidence,
        claim,
        &[
            ("alone_mb_per_s", alone),
            ("together_mb_per_s", together),
            ("ratio", ratio),
            ("ceiling_mb_per_s", together),
            ("drives", both.len() as f64),
        ],
    ))
}
