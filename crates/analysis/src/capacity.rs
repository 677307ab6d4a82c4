//! Counterfeit capacity: a drive that reports more than it keeps, from a capacity probe or from the
//! read-back of a full write scan (`scan --write --verify`).

use drivescope_record::{
    CapacityClass, CapacityRecord, Confidence, Extent, Finding, FindingCode, ScanRecord,
};
use drivescope_units::format_size;

/// The finding of a capacity probe that found less than the nominal capacity.
pub fn findings(r: &CapacityRecord) -> Vec<Finding> {
    let (Some(class), Some(real)) = (r.class, r.real_capacity) else {
        return Vec::new();
    };
    if class == CapacityClass::Genuine {
        return Vec::new();
    }
    let mut numbers = vec![
        ("real_bytes", real as f64),
        ("nominal_bytes", r.nominal as f64),
    ];
    numbers.extend(r.modulus.map(|m| ("modulus_bytes", m as f64)));
    numbers.extend(r.cache.map(|c| ("cache_bytes", c as f64)));
    vec![Finding::new(
        FindingCode::CounterfeitCapacity,
        Confidence::High,
        r.verdict(),
        &numbers,
    )]
}

/// What a write scan's read-back says about the capacity: a wrap-around when sectors hold
/// other sectors' data (the smallest distance between a sector and the data it holds is the
/// period), or writes dropped (or unreadable) from one offset to the end of the range.
pub fn of_scan(s: &ScanRecord) -> Option<Finding> {
    let v = s.verify.as_ref()?;
    let end = s.offset + s.length;
    let nominal = s.header.target.size;
    let claim = |real: u64, rest: String| {
        format!(
            "counterfeit capacity: real {} of {}, {rest}",
            format_size(real),
            format_size(nominal)
        )
    };
    let modulus = v
        .misplaced
        .iter()
        .filter_map(|e| e.holds_offset.map(|h| h.abs_diff(e.offset)))
        .filter(|d| *d > 0)
        .min();
    if let Some(m) = modulus {
        if s.offset == 0 {
            return Some(Finding::new(
                FindingCode::CounterfeitCapacity,
                Confidence::High,
                claim(m, format!("wraps every {}", format_size(m))),
                &[
                    ("real_bytes", m as f64),
                    ("nominal_bytes", nominal as f64),
                    ("modulus_bytes", m as f64),
                    ("misplaced_sectors", v.totals.misplaced as f64),
                ],
            ));
        }
    }
    // Everything from one offset to the end lost, or unreadable: nothing kept past it.
    let tail = |list: &[Extent], count: u64| -> Option<u64> {
        let first = list.first()?.offset;
        let last = list.last()?;
        (last.offset + last.length == end && count * v.unit == end - first && end - first >= v.unit)
            .then_some(first)
    };
    let (real, rest) = if let Some(r) = tail(&v.lost, v.totals.lost) {
        (r, "writes past it are silently dropped".to_string())
    } else if let Some(r) = tail(&v.unreadable, v.totals.unreadable) {
        (r, "reads past it fail".to_string())
    } else {
        return limbo(s);
    };
    // A few lost sectors at the very end are a bad drive, not a fake: at least 1 % of it.
    if (end - real) * 100 < nominal {
        return None;
    }
    Some(Finding::new(
        FindingCode::CounterfeitCapacity,
        Confidence::High,
        claim(real, rest),
        &[
            ("real_bytes", real as f64),
            ("nominal_bytes", nominal as f64),
        ],
    ))
}

/// A cache in front of a small real area ("limbo"): the scan wrote from start to end, so the
/// writes past the real size that the cache still held were the last ones. The read-back shows one
/// span of lost sectors from the real size, and the sectors after it, written last, kept: the cache's
/// size. Nothing misplaced or unreadable, and the span at least 1 % of the drive.
fn limbo(s: &ScanRecord) -> Option<Finding> {
    let v = s.verify.as_ref()?;
    let end = s.offset + s.length;
    let nominal = s.header.target.size;
    if !v.misplaced.is_empty() || v.totals.unreadable > 0 || v.totals.wrong > 0 {
        return None;
    }
    let first = v.lost.first()?.offset;
    let last = v.lost.last()?;
    let stop = last.offset + last.length;
    let span = stop - first;
    if v.totals.lost * v.unit != span || stop >= end || span * 100 < nominal {
        return None;
    }
    let cache = end - stop;
    Some(Finding::new(
        FindingCode::CounterfeitCapacity,
        Confidence::High,
        format!(
            "counterfeit capacity: real {} of {}, a cache keeps only the last {} written past it",
            format_size(first),
            format_size(nominal),
            format_size(cache)
        ),
        &[
            ("real_bytes", first as f64),
            ("nominal_bytes", nominal as f64),
            ("cache_bytes", cache as f64),
        ],
    ))
}
