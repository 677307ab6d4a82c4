//! A steady run's write amplification from SMART, as one line.

use crate::format::bytes;
use drivescope_record::SteadyWriteAmplification;

const HEAD: &str = "write amplification (SMART)";

/// `write amplification (SMART): 2.41 (…)`, `… not read: why`, `… inconclusive: why`; None for
/// runs that have no reading (older versions).
pub fn line(w: Option<&SteadyWriteAmplification>) -> Option<String> {
    let w = w?;
    let unread = std::iter::once(&w.before)
        .chain(w.after.as_ref())
        .find(|r| !r.read);
    if let Some(r) = unread {
        let why = r.note.as_deref().unwrap_or("no reading");
        return Some(format!("{HEAD}: not read: {why}"));
    }
    let Some(i) = &w.interval else {
        return Some(format!("{HEAD}: read as the rounds began, told at the end"));
    };
    let written = |b: Option<u64>| b.map_or("?".into(), |b| bytes(b as f64));
    Some(match i.wa {
        Some(wa) => format!(
            "{HEAD}: {wa:.2} ({} written by the host, {} to the media; {})",
            written(i.host_bytes),
            written(i.media_bytes),
            i.counters
        ),
        None => format!(
            "{HEAD}: inconclusive: {}",
            i.inconclusive.as_deref().unwrap_or("no counters")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_probe::smart_writes::{SmartWrites, WriteInterval};

    #[test]
    fn one_line_for_each_outcome() {
        assert_eq!(line(None), None);
        let unread = SteadyWriteAmplification {
            before: SmartWrites {
                note: Some("x serves no SMART document".into()),
                ..SmartWrites::default()
            },
            ..SteadyWriteAmplification::default()
        };
        assert_eq!(
            line(Some(&unread)).unwrap(),
            "write amplification (SMART): not read: x serves no SMART document"
        );
        let read = SmartWrites {
            read: true,
            ..SmartWrites::default()
        };
        let told = SteadyWriteAmplification {
            before: read.clone(),
            after: Some(read.clone()),
            interval: Some(WriteInterval {
                host_bytes: Some(1 << 30),
                media_bytes: Some(3 << 29),
                wa: Some(1.5),
                counters: "(247 + 248) / 247, NAND page".into(),
                ..WriteInterval::default()
            }),
        };
        let l = line(Some(&told)).unwrap();
        assert!(l.starts_with("write amplification (SMART): 1.50 (1"), "{l}");
        assert!(l.ends_with("(247 + 248) / 247, NAND page)"), "{l}");
        let mut vague = told.clone();
        vague.interval = Some(WriteInterval {
            inconclusive: Some("fewer than 100".into()),
            ..WriteInterval::default()
        });
        assert_eq!(
            line(Some(&vague)).unwrap(),
            "write amplification (SMART): inconclusive: fewer than 100"
        );
    }

    /// A document of a version before the field (none written) reads, and prints no line.
    #[test]
    fn an_older_document_without_it_still_reads() {
        let r = crate::sample::steady(7, &[1000.0, 900.0, 850.0, 840.0, 845.0, 842.0]);
        let v = serde_json::to_value(&r).unwrap();
        assert!(v.get("write_amplification").is_none());
        let back: drivescope_record::SteadyRecord = serde_json::from_value(v).unwrap();
        assert_eq!(back.write_amplification, None);
        assert_eq!(line(back.write_amplification.as_ref()), None);
    }
}
