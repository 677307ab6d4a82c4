//! The text of `durability --verify`: what the storage kept of the records it acknowledged.

use drivescope_record::power_cut::PowerCutCheck;
use drivescope_units::format_size;
use std::io::Write;

/// Lost records listed in the text (the JSON lists up to 100).
const SHOWN: usize = 10;

pub fn print_power_cut(
    target: &str,
    c: &PowerCutCheck,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "power-cut check of {target} against {}: run {}, {} records of {} round {} slots",
        c.log,
        c.run,
        c.acknowledged,
        format_size(c.record_bytes),
        c.slots
    )?;
    writeln!(
        out,
        "  acknowledged records checked {}: kept {}, lost {}, torn {}",
        c.checked, c.kept, c.lost_count, c.torn_count
    )?;
    writeln!(
        out,
        "  the record after the last acknowledged one: {}",
        if c.unacknowledged_found > 0 {
            "on the target (written, never acknowledged: allowed)"
        } else {
            "not on the target (never acknowledged: allowed)"
        }
    )?;
    for l in c.losses.iter().take(SHOWN) {
        let number = l
            .found_number
            .filter(|n| *n != l.number)
            .map(|n| format!(" {n}"))
            .unwrap_or_default();
        writeln!(
            out,
            "    record {:<8} at byte {:<12} {}{number}",
            l.number,
            l.offset,
            l.found.words()
        )?;
    }
    let more = (c.lost_count + c.torn_count).saturating_sub(SHOWN as u64);
    if more > 0 {
        writeln!(out, "    ... and {more} more")?;
    }
    writeln!(
        out,
        "  verdict: {}",
        if c.broken() {
            "the storage broke its promise: acknowledged records did not survive the cut"
        } else if c.checked == 0 {
            "nothing was acknowledged: nothing to check"
        } else {
            "every acknowledged record survived the cut"
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::power_cut::{FoundInstead, PowerCutLoss};

    #[test]
    fn the_text_names_the_counts_and_what_stood_instead() {
        let mut c = PowerCutCheck {
            log: "/mnt/usb/cut.log".into(),
            run: "00000000000000ab".into(),
            record_bytes: 4096,
            slots: 16384,
            acknowledged: 500,
            checked: 500,
            kept: 480,
            lost_count: 19,
            torn_count: 1,
            unacknowledged_found: 1,
            ..Default::default()
        };
        c.losses = (0..20)
            .map(|i| PowerCutLoss {
                number: 480 + i,
                offset: (480 + i) * 4096,
                found: if i == 0 {
                    FoundInstead::Torn
                } else {
                    FoundInstead::OlderRecord
                },
                found_number: Some(if i == 0 { 480 } else { 7 }),
            })
            .collect();
        let mut out = Vec::new();
        print_power_cut("/dev/sdx", &c, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("kept 480, lost 19, torn 1"), "{text}");
        assert!(
            text.contains("record 481") && text.contains("an older record 7"),
            "{text}"
        );
        assert!(text.contains("... and 10 more"), "{text}");
        assert!(text.contains("broke its promise"), "{text}");
    }
}
