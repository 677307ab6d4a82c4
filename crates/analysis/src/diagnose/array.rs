//! A diagnosis of an array: the array rule's findings over the member reads, and one line of evidence (the
//! members alone and together, the array by one reader and by several) with what the array's own rates say.
//!
//! The array's rate is read against its fastest member and against the members' sum. One reader at about one
//! member's rate is how the array serves a single stream (a mirror reads each request from one copy; btrfs
//! picks the copy by the reader's process id), not the hardware, when the members read in parallel; several readers that reach well past one
//! member spread over the members. Either is said as measured, never as what arrays usually do.

use crate::array::{assess as assess_members, findings, Together};
use drivescope_record::{ArrayKind, ArrayReads, Experiment, Finding, Outcome, Verdict};
use drivescope_units::format_rate;

/// One reader within this factor of the fastest member alone reads one member at a time.
pub const ONE_MEMBER_WITHIN: f64 = 1.25;
/// Several readers spread over the members when they read at least this factor of one reader.
pub const SPREAD_FROM: f64 = 1.5;
/// The array read past this factor of all its members together was served by a cache in front of them: no
/// member can give more than it reads alone, and a real run's spread is a few per cent.
pub const CACHED_ABOVE: f64 = 1.5;

fn usable(v: f64) -> bool {
    v > 0.0 && v.is_finite()
}

/// What the members' reads together say, in words.
fn together_words(r: &ArrayReads) -> String {
    let n = r.alone_mb_per_s.iter().filter(|a| usable(**a)).count();
    let alone: f64 = r.alone_mb_per_s.iter().filter(|a| usable(**a)).sum();
    let together: f64 = r.together_mb_per_s.iter().filter(|a| usable(**a)).sum();
    let each: Vec<String> = r
        .array
        .members
        .iter()
        .zip(&r.alone_mb_per_s)
        .map(|(m, a)| format!("{} {}", m.name, format_rate(*a)))
        .collect();
    let verdict = match assess_members(r).together {
        Together::Unmeasured => "fewer than two members could be read".to_string(),
        Together::Parallel { ratio } => format!(
            "{} together, {:.0} % of their sum: they read in parallel",
            format_rate(together),
            ratio * 100.0
        ),
        Together::Capped { ratio, .. } => format!(
            "{} together, {:.0} % of their sum",
            format_rate(together),
            ratio * 100.0
        ),
    };
    format!(
        "{n} members alone ({}; {} in all), {verdict}",
        each.join(", "),
        format_rate(alone)
    )
}

/// What the array's own rates say against its members.
fn array_words(r: &ArrayReads) -> Option<String> {
    let one = r.array_mb_per_s.filter(|v| usable(*v))?;
    let fastest = r.alone_mb_per_s.iter().cloned().fold(0.0, f64::max);
    let sum: f64 = r.alone_mb_per_s.iter().filter(|a| usable(**a)).sum();
    if !usable(fastest) {
        return None;
    }
    let mut s = format!(
        "the array read {} with one reader ({:.1}× its fastest member, {:.0} % of the members' sum)",
        format_rate(one),
        one / fastest,
        one / sum * 100.0
    );
    let together: f64 = r.together_mb_per_s.iter().filter(|a| usable(**a)).sum();
    let members_most = sum.max(together);
    if one > CACHED_ABOVE * members_most {
        s.push_str(&format!(
            ": faster than all its members can read together ({}): a cache in front of them served it (a \
             ZFS pool's ARC, the page cache, a controller's cache), so the array's rates here are the cache's, \
             not its members'; a test larger than that cache (--size) reads the members",
            format_rate(members_most)
        ));
        if let Some(many) = r.readers_mb_per_s.filter(|v| usable(*v)) {
            s.push_str(&format!(
                "; {} with {} readers{}",
                format_rate(many),
                r.readers,
                if many > CACHED_ABOVE * members_most {
                    ", from the cache too"
                } else {
                    ""
                }
            ));
        }
        return Some(s);
    }
    let v = assess_members(r);
    let parallel = matches!(v.together, Together::Parallel { .. });
    let level = r.array.level.as_deref();
    let mirror = matches!(level, Some("raid1" | "raid1c3" | "raid1c4") | None);
    let stripe = matches!(level, Some("raid0"));
    let raid10 = level == Some("raid10");
    // A raid10 reader reads one copy of each mirrored pair: half the members in step.
    let half = (r.array.members.len() + r.array.missing.len()) as f64 / 2.0;
    let policy = match r.array.kind {
        ArrayKind::Btrfs => {
            " (btrfs reads a stream from one copy, chosen by the reader's process id)"
        }
        _ => "",
    };
    match &v.slow {
        Some(slow) if raid10 => s.push_str(&format!(
            ": {:.1}× its slowest member ({}): a raid10 reader reads one copy of each mirrored pair in step, at \
             the pace of the slowest copy it reads",
            one / slow.mb_per_s,
            slow.name
        )),
        None if parallel && raid10 && one <= ONE_MEMBER_WITHIN * half * fastest => {
            s.push_str(&format!(
                ": one reader is served about {half:.0} members' rate, one copy of each mirrored pair, by the \
                 array's read policy{policy}, not its hardware"
            ));
        }
        Some(slow) if stripe => s.push_str(&format!(
            ": {:.1}× its slowest member ({}): a stripe moves at its slowest member's pace",
            one / slow.mb_per_s,
            slow.name
        )),
        None if parallel && mirror && one <= ONE_MEMBER_WITHIN * fastest => {
            s.push_str(&format!(
                ": one reader is served about one member's rate, by the array's read policy{policy}, not its \
                 hardware"
            ));
        }
        _ => {}
    }
    if let Some(many) = r.readers_mb_per_s.filter(|v| usable(*v)) {
        s.push_str(&format!(
            "; {} with {} readers ({:.1}× its fastest member)",
            format_rate(many),
            r.readers,
            many / fastest
        ));
        if many >= SPREAD_FROM * one {
            s.push_str(": several readers spread over the members");
        } else {
            s.push_str(": several readers read no faster than one");
        }
    }
    Some(s)
}

/// The findings of an array diagnosis and its outcome line: the evidence (rates, ratios, which members).
pub fn assess(r: &ArrayReads) -> (Vec<Finding>, Outcome) {
    let f = findings(r);
    let mut text = String::new();
    if !r.array.missing.is_empty() {
        text = format!(
            "{} missing: the array is degraded; ",
            r.array.missing.join(", ")
        );
    }
    text.push_str(&together_words(r));
    if let Some(a) = array_words(r) {
        text.push_str("; ");
        text.push_str(&a);
    }
    if let Some(w) = crate::array_writes::words(r) {
        text.push_str("; ");
        text.push_str(&w);
    }
    let verdict = if f.is_empty() {
        Verdict::NotFound
    } else {
        Verdict::Found
    };
    (
        f,
        Outcome {
            experiment: Experiment::Array,
            verdict,
            text,
        },
    )
}
