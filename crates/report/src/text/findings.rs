//! Findings as a person reads them: a mark for how sure, the code in words, the claim.

use drivescope_record::{Confidence, Finding};
use std::io::Write;

/// The mark of a finding, the same in every output: ✔ found (a low confidence says so after the claim),
/// ? inconclusive. (Diagnose's other lines add · ruled out and – skipped.)
pub(crate) fn mark(c: Confidence) -> &'static str {
    match c {
        Confidence::High | Confidence::Medium | Confidence::Low => "✔",
        Confidence::Inconclusive => "?",
    }
}

/// `findings:` and one line per finding; nothing when there are none.
pub fn print_findings(findings: &[Finding], out: &mut dyn Write) -> std::io::Result<()> {
    if findings.is_empty() {
        return Ok(());
    }
    writeln!(out, "findings:")?;
    for f in findings {
        let what = f.code.as_str().replace('_', " ");
        let sure = match f.confidence {
            Confidence::Low => " (low confidence)",
            Confidence::Inconclusive => " (inconclusive)",
            _ => "",
        };
        writeln!(out, "  {} {what:<12} {}{sure}", mark(f.confidence), f.claim)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::FindingCode;

    #[test]
    fn one_line_per_finding_with_its_mark() {
        let f = [
            Finding::new(
                FindingCode::NoQueueing,
                Confidence::High,
                "RND4K Q32 / Q1 = 1.02: commands are served one at a time".into(),
                &[("gain", 1.02)],
            ),
            Finding::new(
                FindingCode::WriteBurst,
                Confidence::Low,
                "burst 480 MB/s for ~64.0 MiB".into(),
                &[],
            ),
        ];
        let mut out = Vec::new();
        print_findings(&f, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "findings:\n  ✔ no queueing  RND4K Q32 / Q1 = 1.02: commands are served one at a time\n  \
             ✔ write burst  burst 480 MB/s for ~64.0 MiB (low confidence)\n"
        );
        let mut none = Vec::new();
        print_findings(&[], &mut none).unwrap();
        assert!(none.is_empty());
    }
}
