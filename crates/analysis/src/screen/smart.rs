//! The SMART rules: what the drive counted itself, read by `smartctl --json` before the scan and again after
//! it (`Member::smart_before`, `smart_after`).
//!
//! - A count of damaged places that grew while the scan read the drive fails it: reallocated sectors
//!   (attribute 5), pending sectors (197), offline uncorrectable sectors (198), NVMe media errors.
//! - Sectors pending reallocation warn: the drive could not read them, and only a write remaps or clears them.
//! - A link CRC count (199) that grew warns, naming the cable or connector: the drive is not at fault.
//! - An NVMe critical warning fails (spare below threshold, reliability degraded, read only, backup memory
//!   failed); the temperature warning alone warns (it speaks of the cooling).
//! - The drive's overall-health self-assessment failing fails.
//!
//! A reading that did not succeed gives no reason (the verdict stays what the scan gave; the side-by-side
//! table says SMART was not read, and why); growth needs both readings.

use super::reason;
use drivescope_probe::Smart;
use drivescope_record::{Grade, Member, Reason, Rule};

/// The counts whose growth fails a drive: what it is, where smartctl has it, and the field.
/// A count of a SMART reading.
type Count = fn(&Smart) -> Option<u64>;

const DAMAGE: [(&str, &str, Count); 4] = [
    ("reallocated sectors", "attribute 5", |s| {
        s.reallocated_sectors
    }),
    ("pending sectors", "attribute 197", |s| s.pending_sectors),
    ("offline uncorrectable sectors", "attribute 198", |s| {
        s.offline_uncorrectable
    }),
    ("media errors", "NVMe health log", |s| s.media_errors),
];

/// NVMe `critical_warning` bits, in the order of the NVMe base specification.
const WARNINGS: [&str; 6] = [
    "available spare below threshold",
    "temperature out of range",
    "reliability degraded",
    "read only",
    "volatile memory backup failed",
    "persistent memory read only",
];

/// The temperature bit: a warning about the cooling, not the medium.
const TEMPERATURE: u64 = 1 << 1;

/// The SMART reasons of a drive's verdict.
pub(super) fn smart(m: &Member) -> Vec<Reason> {
    let ok = |s: &Option<Smart>| s.clone().filter(|s| s.read);
    let (before, after) = (ok(&m.smart_before), ok(&m.smart_after));
    let Some(latest) = after.as_ref().or(before.as_ref()) else {
        return Vec::new();
    };
    let mut reasons = Vec::new();
    let mut pending_grew = false;
    if let (Some(b), Some(a)) = (&before, &after) {
        for (what, key, field) in DAMAGE {
            if let (Some(x), Some(y)) = (field(b), field(a)) {
                if y > x {
                    pending_grew |= key == "attribute 197";
                    reasons.push(reason(
                        Rule::SmartGrew,
                        Grade::Fail,
                        format!("SMART {what} ({key}) grew from {x} to {y} during the scan"),
                    ));
                }
            }
        }
        if let (Some(x), Some(y)) = (b.crc_errors, a.crc_errors) {
            if y > x {
                reasons.push(reason(
                    Rule::SmartCrc,
                    Grade::Warn,
                    format!(
                        "the link's CRC error count (attribute 199) grew from {x} to {y} during the scan: \
                         a cable or connector, not the drive"
                    ),
                ));
            }
        }
    }
    if let Some(n) = latest.pending_sectors.filter(|&n| n > 0 && !pending_grew) {
        reasons.push(reason(
            Rule::SmartPending,
            Grade::Warn,
            format!(
                "SMART reports {n} pending sector{} (attribute 197): the drive could not read {}; a write \
                 remaps or clears {}",
                if n == 1 { "" } else { "s" },
                if n == 1 { "it" } else { "them" },
                if n == 1 { "it" } else { "them" },
            ),
        ));
    }
    if let Some(w) = latest.critical_warning.filter(|&w| w != 0) {
        let raised = before
            .as_ref()
            .and_then(|b| b.critical_warning)
            .is_some_and(|was| w & !was != 0);
        let names: Vec<&str> = (0..WARNINGS.len())
            .filter(|i| w & (1 << i) != 0)
            .map(|i| WARNINGS[i])
            .collect();
        let names = if names.is_empty() {
            "a bit this version does not name".to_string()
        } else {
            names.join(", ")
        };
        reasons.push(reason(
            Rule::SmartCriticalWarning,
            if w & !TEMPERATURE != 0 {
                Grade::Fail
            } else {
                Grade::Warn
            },
            format!(
                "NVMe critical warning {w:#04x} ({names}){}",
                if raised {
                    ", raised during the scan"
                } else {
                    ""
                }
            ),
        ));
    }
    if latest.passed == Some(false) {
        reasons.push(reason(
            Rule::SmartFailed,
            Grade::Fail,
            "the drive's SMART overall-health self-assessment failed".into(),
        ));
    }
    reasons
}
