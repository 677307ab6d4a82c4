//! A scan's failed extents, untried stretches and slow regions as text lines: one line per
//! extent or region (offset as the size from the start, length, first-last LBA (exact), and errno and sectors, or commands and
//! the slowest), however many sectors or commands each holds.

use drivescope_record::ScanRecord;
use drivescope_units::{format_ns, format_offset, format_size};

/// The heading and lines of the failed extents, at most `max` of them.
pub fn failed(r: &ScanRecord, max: usize, hint: Hint) -> (String, Vec<String>) {
    let total = r.failed_sectors();
    let list = r.failed_extents_or_derived();
    if total == 0 && list.is_empty() {
        return ("failed: none".into(), Vec::new());
    }
    let mut lines: Vec<String> = list
        .iter()
        .take(max)
        .map(|e| {
            let mut parts = vec![format!("{} sector{}", e.count, plural(e.count))];
            if e.unscraped > 0 {
                parts.push(format!(
                    "{} in failed commands not read sector by sector",
                    format_size(e.unscraped)
                ));
            }
            if e.untried > 0 {
                parts.push(format!("{} untried", format_size(e.untried)));
            }
            format!(
                "offset {:>10}  {:>10}  LBA {}-{}  errno {}  {}",
                format_offset(e.offset),
                format_size(e.length),
                e.first_lba,
                e.last_lba,
                e.errno,
                parts.join(", ")
            )
        })
        .collect();
    more(
        &mut lines,
        list.len(),
        max,
        "extents",
        r.failed_extents_cut,
        hint,
    );
    let unscraped: u64 = list.iter().map(|e| e.unscraped).sum();
    let commands = if unscraped > 0 {
        format!(
            " and {} in failed commands not read sector by sector",
            format_size(unscraped)
        )
    } else {
        String::new()
    };
    (
        format!(
            "failed: {total} sector{}{commands} in {}{} extent{}",
            plural(total),
            if r.failed_extents_cut.is_some() {
                "over "
            } else {
                ""
            },
            list.len(),
            plural(list.len() as u64)
        ),
        lines,
    )
}

/// The heading and lines of the stretches never read (or written), at most `max` of them;
/// no heading when there are none.
pub fn untried(r: &ScanRecord, max: usize, hint: Hint) -> (String, Vec<String>) {
    let list = &r.untried_extents;
    if list.is_empty() {
        return (String::new(), Vec::new());
    }
    let bytes = r.surface.as_ref().map_or_else(
        || list.iter().map(|u| u.length).sum(),
        // The stretches listed lie where the first pass went; what it never reached is not among them.
        |s| s.untried - s.unreached,
    );
    let mut lines: Vec<String> = list
        .iter()
        .take(max)
        .map(|u| {
            format!(
                "offset {:>10}  {:>10}  LBA {}-{}",
                format_offset(u.offset),
                format_size(u.length),
                u.first_lba,
                u.last_lba
            )
        })
        .collect();
    more(
        &mut lines,
        list.len(),
        max,
        "stretches",
        r.untried_extents_cut,
        hint,
    );
    (
        format!(
            "untried (neither good nor failed): {} in {}{} stretch{}",
            format_size(bytes),
            if r.untried_extents_cut.is_some() {
                "over "
            } else {
                ""
            },
            list.len(),
            if list.len() == 1 { "" } else { "es" }
        ),
        lines,
    )
}

/// The heading and lines of the slow regions, at most `max` of them.
pub fn slow(r: &ScanRecord, max: usize, hint: Hint) -> (String, Vec<String>) {
    let head = format!("slow (>= {})", format_ns(r.slow_threshold_ns));
    if r.slow_total == 0 {
        return (format!("{head}: none"), Vec::new());
    }
    let lbs = (r.header.target.logical_block_size as u64).max(1);
    let list = r.slow_regions_or_derived();
    let mut lines: Vec<String> = list
        .iter()
        .take(max)
        .map(|g| {
            format!(
                "offset {:>10}  {:>10}  LBA {}-{}  {} command{}, slowest {}",
                format_offset(g.offset),
                format_size(g.length),
                g.offset / lbs,
                (g.offset + g.length).div_ceil(lbs).saturating_sub(1),
                g.count,
                plural(g.count),
                format_ns(g.max_latency_ns)
            )
        })
        .collect();
    more(
        &mut lines,
        list.len(),
        max,
        "regions",
        r.slow_regions_cut,
        hint,
    );
    (
        format!(
            "{head}: {} command{} in {}{} region{}",
            r.slow_total,
            plural(r.slow_total),
            if r.slow_regions_cut.is_some() {
                "over "
            } else {
                ""
            },
            list.len(),
            plural(list.len() as u64)
        ),
        lines,
    )
}

/// Where the lines left out can be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// The scan's own `--json`.
    Json,
    /// `drivescope export` of the stored run.
    Export,
}

fn more(lines: &mut Vec<String>, len: usize, max: usize, what: &str, cut: Option<u64>, hint: Hint) {
    if len > max {
        let table = match what {
            "extents" => "failed_extents",
            "stretches" => "untried_extents",
            _ => "slow_regions",
        };
        lines.push(match hint {
            Hint::Json => format!("… {} more {what} (all in --json)", len - max),
            Hint::Export => format!(
                "… {} more {what} (drivescope export RUN --format csv --table {table})",
                len - max
            ),
        });
    }
    if let Some(c) = cut {
        lines.push(format!(
            "the list stops at offset {} ({len} {what} kept); what lies beyond is counted only",
            format_offset(c)
        ));
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
