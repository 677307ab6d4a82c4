//! An array explained by its members: the same sequential read on each member alone, then on all members at
//! once. Members that work in parallel read together about the sum of what they read alone; members behind a
//! shared path (one link, one controller, a driver that serves them in turn) stay at its cap, and members that
//! take turns reach no more together than one member alone. A member that reads well below the others alone
//! holds a stripe back and leaves a mirror's reads uneven: it is named.

use crate::middle::middle;
use crate::screen::SHARED_BELOW;
use drivescope_record::{ArrayReads, Confidence, Finding, FindingCode};

/// Together within this factor of the fastest member alone: the members take turns rather than share a cap
/// that is wider than one of them.
pub const SERIAL_WITHIN: f64 = 1.25;

/// A member under this share of the median of the other members (alone) is slow. Members of one model read
/// within a few tens of percent of each other (their zones, their firmware); a failing or mismatched member
/// reads at a fraction.
pub const SLOW_BELOW: f64 = 0.6;

/// How the members read together.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Together {
    /// Fewer than two members read both alone and together.
    Unmeasured,
    /// Together about the sum of alone (at least [`SHARED_BELOW`] of it).
    Parallel { ratio: f64 },
    /// Together under [`SHARED_BELOW`] of the sum alone: a shared path caps them at `cap_mb_per_s`;
    /// `serialized` when that is no more than [`SERIAL_WITHIN`] times the fastest member alone.
    Capped {
        ratio: f64,
        cap_mb_per_s: f64,
        serialized: bool,
    },
}

/// The member that reads well below the others.
#[derive(Debug, Clone, PartialEq)]
pub struct Slow {
    /// Its index in the record's member order.
    pub index: usize,
    pub name: String,
    pub mb_per_s: f64,
    /// The median of the other members alone.
    pub others_mb_per_s: f64,
    pub share: f64,
}

/// What the rates say, before it is put in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub together: Together,
    pub slow: Option<Slow>,
}

fn usable(v: f64) -> bool {
    v > 0.0 && v.is_finite()
}

/// The verdict over the members that were read (a member read as 0 failed and is left out).
pub fn assess(r: &ArrayReads) -> Verdict {
    let n = r
        .array
        .members
        .len()
        .min(r.alone_mb_per_s.len())
        .min(r.together_mb_per_s.len());
    let both: Vec<(f64, f64)> = (0..n)
        .map(|i| (r.alone_mb_per_s[i], r.together_mb_per_s[i]))
        .filter(|(a, t)| usable(*a) && usable(*t))
        .collect();
    let together = if both.len() < 2 {
        Together::Unmeasured
    } else {
        let alone: f64 = both.iter().map(|b| b.0).sum();
        let sum: f64 = both.iter().map(|b| b.1).sum();
        let fastest = both.iter().map(|b| b.0).fold(0.0, f64::max);
        let ratio = sum / alone;
        if ratio >= SHARED_BELOW {
            Together::Parallel { ratio }
        } else {
            Together::Capped {
                ratio,
                cap_mb_per_s: sum,
                serialized: sum <= SERIAL_WITHIN * fastest,
            }
        }
    };
    let alone: Vec<(usize, f64)> = (0..n.min(r.alone_mb_per_s.len()))
        .map(|i| (i, r.alone_mb_per_s[i]))
        .filter(|(_, a)| usable(*a))
        .collect();
    let slow = (alone.len() >= 2)
        .then(|| {
            let &(index, mb) = alone.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
            let others: Vec<f64> = alone
                .iter()
                .filter(|(i, _)| *i != index)
                .map(|(_, a)| *a)
                .collect();
            let others = middle(&others);
            let share = mb / others;
            (share < SLOW_BELOW).then(|| Slow {
                index,
                name: r.array.members[index].name.clone(),
                mb_per_s: mb,
                others_mb_per_s: others,
                share,
            })
        })
        .flatten();
    Verdict { together, slow }
}

/// `1.1 GB/s` from 1000 MB/s up, else `412 MB/s`.
fn rate(mb_per_s: f64) -> String {
    if mb_per_s >= 1000.0 {
        format!("{:.1} GB/s", mb_per_s / 1000.0)
    } else {
        format!("{mb_per_s:.0} MB/s")
    }
}

/// The findings: a `degraded` when the array counts members it cannot find ([`crate::array_degraded`]), a
/// `shared_path` when the members are capped together, a `slow_member` when one reads well below the others,
/// an `array_writes` when one writer writes well below what its layout promises ([`crate::array_writes`]);
/// nothing for a whole array whose members read in parallel at like rates and write as its layout promises.
pub fn findings(r: &ArrayReads) -> Vec<Finding> {
    let v = assess(r);
    let mut out: Vec<Finding> = crate::array_degraded::finding(r).into_iter().collect();
    let name = if r.array.name.is_empty() {
        "the array".to_string()
    } else {
        r.array.name.clone()
    };
    if let Together::Capped {
        ratio,
        cap_mb_per_s,
        serialized,
    } = v.together
    {
        let alone = cap_mb_per_s / ratio;
        let meet = r
            .array
            .paths_meet
            .as_ref()
            .map_or(String::new(), |p| format!(" (their paths meet at {p})"));
        let how = if serialized {
            format!("no more than one member alone: they take turns on a path they share{meet}")
        } else {
            format!("a shared path{meet} caps them at ~{}", rate(cap_mb_per_s))
        };
        let confidence = if ratio < 0.6 {
            Confidence::High
        } else if ratio < 0.7 {
            Confidence::Medium
        } else {
            Confidence::Low
        };
        let members: Vec<&str> = r.array.members.iter().map(|m| m.name.as_str()).collect();
        out.push(Finding::new(
            FindingCode::SharedPath,
            confidence,
            format!(
                "the members of {name} ({}) read {} together, {:.0} % of the {} they read alone: {how}",
                members.join(", "),
                rate(cap_mb_per_s),
                ratio * 100.0,
                rate(alone)
            ),
            &[
                ("alone_mb_per_s", alone),
                ("together_mb_per_s", cap_mb_per_s),
                ("ratio", ratio),
                ("ceiling_mb_per_s", cap_mb_per_s),
                ("serialized", f64::from(u8::from(serialized))),
            ],
        ));
    }
    if let Some(s) = v.slow {
        let confidence = if s.share < 0.35 {
            Confidence::High
        } else if s.share < 0.5 {
            Confidence::Medium
        } else {
            Confidence::Low
        };
        out.push(Finding::new(
            FindingCode::SlowMember,
            confidence,
            format!(
                "member {} of {name} reads {} alone, {:.0} % of the other members' {}: it holds the array back",
                s.name,
                rate(s.mb_per_s),
                s.share * 100.0,
                rate(s.others_mb_per_s)
            ),
            &[
                ("member", s.index as f64),
                ("mb_per_s", s.mb_per_s),
                ("others_mb_per_s", s.others_mb_per_s),
                ("share", s.share),
            ],
        ));
    }
    out.extend(crate::array_writes::finding(r));
    out
}

#[cfg(test)]
#[path = "array_tests.rs"]
mod tests;
