//! An array's writes against its members: one writer through the array (the diagnosis's test file on it, or
//! the array device, where writes are allowed) read against what its layout promises from the members' own
//! rates (read alone and together; a member's writes are never measured on it, as it belongs to the array):
//! - a stripe (`raid0`) writes every member in step: `n ×` its slowest member;
//! - a mirror writes each block to every copy (`raid1` two, `raid1c3` three, `raid1c4` four) and waits for the
//!   slower: its slowest member's rate at least;
//! - a `raid10` writes both copies of every pair: half its members at the slowest's pace;
//!
//! each capped by what the members read together over the copies (a shared path carries every copy). An array
//! that writes under [`WRITES_BELOW`] of that is an `array_writes` finding: its members write slower than they
//! read, or something on the array's write path holds them back. Members of an unsaid layout are only
//! described.

use drivescope_record::{ArrayReads, Confidence, Finding, FindingCode};

/// Writes under this share of what the layout promises are a finding.
pub const WRITES_BELOW: f64 = 0.7;
/// The members' rate together over the copies caps the promise, in words, under this share of the members'.
const PATH_BELOW: f64 = 0.9;

fn usable(v: f64) -> bool {
    v > 0.0 && v.is_finite()
}

/// What the array's writes are measured against.
#[derive(Debug, Clone, PartialEq)]
pub struct Promise {
    pub write_mb_per_s: f64,
    /// What the layout promises from the members' rates.
    pub expected_mb_per_s: f64,
    pub slowest_mb_per_s: f64,
    /// Copies of each block (1 for a stripe).
    pub copies: usize,
    /// Members that write in step for one block: all of a stripe, half of a raid10, one of a mirror.
    pub in_step: usize,
    /// The members' rate together over the copies caps the promise.
    pub path_bound: bool,
    pub ratio: f64,
}

/// The promise for the array's layout; `None` when it was not written or its layout is not said.
pub fn promise(r: &ArrayReads) -> Option<Promise> {
    let write = r.write_mb_per_s.filter(|v| usable(*v))?;
    let alone: Vec<f64> = r
        .alone_mb_per_s
        .iter()
        .cloned()
        .filter(|v| usable(*v))
        .collect();
    let n = alone.len();
    if n == 0 {
        return None;
    }
    let slowest = alone.iter().cloned().fold(f64::INFINITY, f64::min);
    let together: f64 = r.together_mb_per_s.iter().filter(|v| usable(**v)).sum();
    let (copies, in_step) = match r.array.level.as_deref()? {
        "raid0" => (1, n),
        "raid10" => (2.min(n), (n / 2).max(1)),
        "raid1" => (2.min(n), 1),
        "raid1c3" => (3.min(n), 1),
        "raid1c4" => (4.min(n), 1),
        _ => return None,
    };
    let members = in_step as f64 * slowest;
    let path = if usable(together) {
        together / copies as f64
    } else {
        f64::INFINITY
    };
    let expected = members.min(path);
    Some(Promise {
        write_mb_per_s: write,
        expected_mb_per_s: expected,
        slowest_mb_per_s: slowest,
        copies,
        in_step,
        // Held by the path only where it is clearly below the members (a mirror of two reads together just
        // twice one member: its copies fill it, no path holds them).
        path_bound: path < PATH_BELOW * members,
        ratio: write / expected,
    })
}

/// `1.1 GB/s` from 1000 MB/s up, else `412 MB/s`.
fn rate(mb_per_s: f64) -> String {
    if mb_per_s >= 1000.0 {
        format!("{:.1} GB/s", mb_per_s / 1000.0)
    } else {
        format!("{mb_per_s:.0} MB/s")
    }
}

/// What the layout promises, in words.
fn layout_words(p: &Promise) -> String {
    let how = match (p.copies, p.in_step) {
        (1, n) => format!("a stripe of {n} writes every member in step, {n}× its slowest member"),
        (c, 1) => {
            format!("a mirror writes each block to its {c} copies, at its slowest member's pace")
        }
        (_, h) => format!("a raid10 writes both copies of every pair, {h} members in step"),
    };
    if p.path_bound {
        format!(
            "{how}, held to the {} the members read together over the {} copies their shared path carries",
            rate(p.expected_mb_per_s * p.copies as f64),
            p.copies
        )
    } else {
        how
    }
}

/// The outcome's words for the array's writes: the rate, against its slowest member and the layout's promise.
pub fn words(r: &ArrayReads) -> Option<String> {
    let p = promise(r)?;
    Some(format!(
        "one writer wrote {} ({:.1}× its slowest member, {:.0} % of the {} its layout promises: {})",
        rate(p.write_mb_per_s),
        p.write_mb_per_s / p.slowest_mb_per_s,
        p.ratio * 100.0,
        rate(p.expected_mb_per_s),
        layout_words(&p)
    ))
}

/// The `array_writes` finding: the array writes under [`WRITES_BELOW`] of what its layout promises.
pub fn finding(r: &ArrayReads) -> Option<Finding> {
    let p = promise(r)?;
    if p.ratio >= WRITES_BELOW {
        return None;
    }
    let name = if r.array.name.is_empty() {
        "the array".to_string()
    } else {
        r.array.name.clone()
    };
    let confidence = if p.ratio < 0.4 {
        Confidence::High
    } else if p.ratio < 0.55 {
        Confidence::Medium
    } else {
        Confidence::Low
    };
    Some(Finding::new(
        FindingCode::ArrayWrites,
        confidence,
        format!(
            "{name} writes {} with one writer, {:.0} % of the {} its members promise ({}): they write slower \
             than they read, or its write path holds them back",
            rate(p.write_mb_per_s),
            p.ratio * 100.0,
            rate(p.expected_mb_per_s),
            layout_words(&p)
        ),
        &[
            ("write_mb_per_s", p.write_mb_per_s),
            ("expected_mb_per_s", p.expected_mb_per_s),
            ("slowest_mb_per_s", p.slowest_mb_per_s),
            ("ratio", p.ratio),
            ("copies", p.copies as f64),
        ],
    ))
}
