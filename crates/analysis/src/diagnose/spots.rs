//! The bad spots a diagnosis met: where its commands failed, and where reads were slow on more than one read. A
//! diagnosis is not a surface scan: it reads its region in its own patterns and names the places it happened to
//! meet, and points to `drivescope scan` for the whole map.

use drivescope_record::{BadSpot, BadSpotKind, Confidence, DiagnoseRecord, Finding, FindingCode};
use drivescope_units::{format_latency, format_size};

/// Places named in the claim; the rest are counted.
const NAMED: usize = 3;

fn place(p: &BadSpot, sector: u64) -> String {
    let at = format!(
        "LBA {} (offset {})",
        p.offset / sector,
        format_size(p.offset)
    );
    let over = if p.length > sector {
        format!(" over {}", format_size(p.length))
    } else {
        String::new()
    };
    match p.kind {
        BadSpotKind::Failed => format!(
            "{at}{over}, {} failed command{}",
            p.commands,
            if p.commands == 1 { "" } else { "s" }
        ),
        BadSpotKind::Slow => format!(
            "{at}{over}, {} slow reads up to {}",
            p.commands,
            format_latency(p.max_latency_ns as f64)
        ),
    }
}

fn places(of: &[&BadSpot], sector: u64) -> String {
    if let [one] = of {
        // The count is the whole's.
        let at = format!(
            "LBA {} (offset {})",
            one.offset / sector,
            format_size(one.offset)
        );
        return match (one.kind, one.length > sector) {
            (BadSpotKind::Failed, true) => format!("{at} over {}", format_size(one.length)),
            (BadSpotKind::Failed, false) => at,
            (BadSpotKind::Slow, _) => place(one, sector),
        };
    }
    let mut s: Vec<String> = of.iter().take(NAMED).map(|p| place(p, sector)).collect();
    if of.len() > NAMED {
        s.push(format!("{} more", of.len() - NAMED));
    }
    s.join("; ")
}

/// The finding, when commands failed or a place was slow on more than one read.
pub fn assess(d: &DiagnoseRecord) -> Option<Finding> {
    let s = d.spots.as_ref()?;
    let sector = u64::from(d.header.target.logical_block_size).max(1);
    let failed: Vec<&BadSpot> = s
        .places
        .iter()
        .filter(|p| p.kind == BadSpotKind::Failed)
        .collect();
    let slow: Vec<&BadSpot> = s
        .places
        .iter()
        .filter(|p| p.kind == BadSpotKind::Slow)
        .collect();
    if s.failed_commands == 0 && slow.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    if s.failed_commands > 0 {
        parts.push(format!(
            "{} command{} failed at {} place{}: {}",
            s.failed_commands,
            if s.failed_commands == 1 { "" } else { "s" },
            failed.len(),
            if failed.len() == 1 { "" } else { "s" },
            places(&failed, sector)
        ));
    }
    if !slow.is_empty() {
        parts.push(format!(
            "reads were slow on more than one read at {} place{}: {}",
            slow.len(),
            if slow.len() == 1 { "" } else { "s" },
            places(&slow, sector)
        ));
    }
    let more = if s.places_more > 0 {
        format!(" ({} more places not listed)", s.places_more)
    } else {
        String::new()
    };
    let claim = format!(
        "{}{more}; the experiments read around them and their rates leave out what failed; `drivescope scan` \
         maps the whole surface",
        parts.join("; ")
    );
    let mut numbers = vec![
        ("failed_commands", s.failed_commands as f64),
        ("failed_places", failed.len() as f64),
        ("slow_places", slow.len() as f64),
        ("slow_commands", s.slow_commands as f64),
    ];
    if let Some(p) = failed.first() {
        numbers.push(("first_failed_offset", p.offset as f64));
    }
    if let Some(p) = slow.first() {
        numbers.push(("first_slow_offset", p.offset as f64));
    }
    let confidence = if s.failed_commands > 0 {
        Confidence::High
    } else {
        Confidence::Medium
    };
    Some(Finding::new(
        FindingCode::BadSpots,
        confidence,
        claim,
        &numbers,
    ))
}
