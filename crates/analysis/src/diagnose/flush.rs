//! The flush-honesty experiment of a diagnosis: the rule `drivescope durability` uses
//! ([`crate::flush_honesty`], with the memory rule of [`crate::durability::judged`]) over its pairs and the
//! block layer's flush count, and one outcome line.

use crate::durability::{input_from, judged};
use crate::flush_honesty::{self, FlushVerdict};
use drivescope_record::{DiagnoseFlush, Experiment, Finding, Header, Outcome, Verdict};
use drivescope_units::format_rate;

/// The verdict over what the experiment measured on the target `header` describes, with the flush requests
/// the block layer counted on the device (none counted: early flushes are the layer above's).
pub fn verdict(f: &DiagnoseFlush, header: &Header) -> FlushVerdict {
    judged(
        header,
        &input_from(&f.pairs, f.sustained.as_ref(), &f.cache, f.device_flushes),
    )
}

/// The finding and the experiment's outcome line. As every experiment of a diagnosis, a finding is what the
/// experiment concluded, its claim the line: flushes that return early (found), or a question the samples
/// could not settle (inconclusive). A declared power-loss protection is said in the line alone.
pub fn assess(f: &DiagnoseFlush, header: &Header) -> (Option<Finding>, Outcome) {
    let v = verdict(f, header);
    let line = |verdict, text| Outcome {
        experiment: Experiment::FlushHonesty,
        verdict,
        text,
    };
    match &v {
        FlushVerdict::Early { .. } | FlushVerdict::Inconclusive { .. } => {
            let mut found = flush_honesty::finding(&v);
            let verdict = match v {
                FlushVerdict::Early { .. } => Verdict::Found,
                _ => Verdict::Inconclusive,
            };
            // The evidence of whose the early flushes are: what reached the device (where counted).
            if let (Some(found), Some(n), Verdict::Found) = (found.as_mut(), f.device_flushes, verdict) {
                found
                    .evidence
                    .numbers
                    .insert("device_flushes".into(), n as f64);
            }
            let text = found.as_ref().map(|f| f.claim.clone()).unwrap_or_default();
            (found, line(verdict, text))
        }
        FlushVerdict::Honest { sizes } => (
            None,
            line(
                Verdict::NotFound,
                format!(
                    "none: flushes took at least what the pending data need at {} at {} sizes",
                    format_rate(
                        f.sustained
                            .as_ref()
                            .map_or(0.0, |s| s.bytes_per_s * flush_honesty::RATE_MARGIN / 1e6)
                    ),
                    sizes.len()
                ),
            ),
        ),
        FlushVerdict::NothingPending => (
            None,
            line(
                Verdict::NotFound,
                "none: writes ran at the media rate, so nothing was pending when a flush came".into(),
            ),
        ),
        FlushVerdict::Protected => (
            None,
            line(
                Verdict::NotFound,
                "none claimed: power-loss protection is declared, so a flush that returns early keeps the data"
                    .into(),
            ),
        ),
    }
}
