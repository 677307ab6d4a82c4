//! The power-cut test's finding: acknowledged records that did not survive the cut.

use drivescope_record::power_cut::PowerCutCheck;
use drivescope_record::{Confidence, Finding, FindingCode};

/// The finding when the storage lost or tore records it had acknowledged (none when it kept
/// them all: records after the last acknowledgement may go either way).
pub fn finding(c: &PowerCutCheck) -> Option<Finding> {
    if !c.broken() {
        return None;
    }
    let first = c
        .losses
        .first()
        .map(|l| {
            format!(
                " (the first, record {} at byte {}: {})",
                l.number,
                l.offset,
                l.found.words()
            )
        })
        .unwrap_or_default();
    Some(Finding::new(
        FindingCode::Other("power_cut_loss".into()),
        Confidence::High,
        format!(
            "The storage lost what it acknowledged: after the power cut, {} of {} acknowledged \
             records are missing and {} torn{first}. Its flushes returned before the data were \
             safe.",
            c.lost_count, c.checked, c.torn_count
        ),
        &[
            ("acknowledged", c.acknowledged as f64),
            ("checked", c.checked as f64),
            ("kept", c.kept as f64),
            ("lost", c.lost_count as f64),
            ("torn", c.torn_count as f64),
        ],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::power_cut::{FoundInstead, PowerCutLoss};

    #[test]
    fn lost_records_are_a_finding_and_a_clean_check_is_silent() {
        let mut c = PowerCutCheck {
            acknowledged: 10,
            checked: 10,
            kept: 10,
            ..Default::default()
        };
        assert!(finding(&c).is_none());
        c.kept = 8;
        c.lost_count = 1;
        c.torn_count = 1;
        c.losses.push(PowerCutLoss {
            number: 8,
            offset: 32768,
            found: FoundInstead::Zeros,
            found_number: None,
        });
        let f = finding(&c).unwrap();
        assert!(
            f.claim.contains("1 of 10") && f.claim.contains("record 8"),
            "{}",
            f.claim
        );
        assert_eq!(f.evidence.numbers["lost"], 1.0);
    }
}
