//! The verdicts of a group screen: each drive's scan judged by the group's [`Criteria`] (pass, warn, fail,
//! or incomplete, with the rules that decided it), and whether the drives share a path that caps them.
//!
//! A verdict is the worst grade of its reasons; each reason is one sentence with the numbers. The rules read
//! the scan record alone (and, for the comparisons, the other drives' scans and the stored history; for
//! SMART, the drive's readings before and after its scan), so a stored group is judged again the same way.

mod latency;
mod shared;
mod siblings;
mod smart;
mod surface;

pub use shared::{shared_path, SHARED_BELOW};
pub use siblings::model;

use drivescope_record::{
    Criteria, DriveVerdict, Finding, Grade, Member, Reason, Rule, ScanRecord, ScreenRecord,
};
use drivescope_units::format_size;

/// The verdict on drive `m` of a group: `siblings` are the group's other drives (those of another model, or
/// whose scan did not finish, are left out of the comparison here).
pub fn verdict(m: &Member, siblings: &[&Member], c: &Criteria) -> DriveVerdict {
    let mut reasons = Vec::new();
    if let Some(e) = &m.error {
        reasons.push(reason(
            Rule::Error,
            Grade::Fail,
            format!("could not be scanned: {e}"),
        ));
    }
    match m.scan.as_deref() {
        Some(s) => {
            reasons.extend(device_lost(s));
            // The sentence a buyer needs comes before the sector counts that show it.
            reasons.extend(
                crate::capacity::of_scan(s)
                    .map(|f| reason(Rule::CounterfeitCapacity, Grade::Fail, f.claim)),
            );
            reasons.extend(surface::failed_sectors(s, c));
            reasons.extend(surface::verify_errors(s, c));
            reasons.extend(latency::slow_commands(s, c));
            reasons.extend(latency::max_latency(s, c));
            reasons.extend(siblings::below_siblings(m, s, siblings, c));
            if let Some(h) = &m.history {
                reasons.extend(siblings::below_history(s, h, c));
            }
            reasons.extend(incomplete(s));
        }
        None if m.error.is_none() => reasons.push(reason(
            Rule::Incomplete,
            Grade::Incomplete,
            "not scanned: the group stopped before this drive's scan began".into(),
        )),
        None => {}
    }
    reasons.extend(smart::smart(m));
    // Worst first: the first reason is the one that decided the grade.
    reasons.sort_by_key(|r| std::cmp::Reverse(r.grade));
    DriveVerdict {
        grade: reasons.iter().map(|r| r.grade).max().unwrap_or(Grade::Pass),
        reasons,
    }
}

/// Fills each member's verdict and the group's findings (replacing any it had).
pub fn judge(rec: &mut ScreenRecord) {
    let verdicts: Vec<DriveVerdict> = (0..rec.members.len())
        .map(|i| {
            let siblings: Vec<&Member> = rec
                .members
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, m)| m)
                .collect();
            verdict(&rec.members[i], &siblings, &rec.criteria)
        })
        .collect();
    for (m, v) in rec.members.iter_mut().zip(verdicts) {
        m.verdict = Some(v);
    }
    rec.header.findings = findings(rec);
}

/// The group's findings: a path the drives share that caps them.
pub fn findings(rec: &ScreenRecord) -> Vec<Finding> {
    rec.shared_path
        .as_ref()
        .and_then(|sp| shared_path(sp, rec.members.len()))
        .into_iter()
        .collect()
}

fn reason(rule: Rule, grade: Grade, text: String) -> Reason {
    Reason { rule, grade, text }
}

/// The share of the range a scan covered, in percent.
fn covered_pct(s: &ScanRecord) -> f64 {
    if s.length == 0 {
        return 0.0;
    }
    s.covered as f64 * 100.0 / s.length as f64
}

fn device_lost(s: &ScanRecord) -> Option<Reason> {
    let why = s.device_lost.as_ref()?;
    Some(reason(
        Rule::DeviceLost,
        Grade::Fail,
        format!(
            "the drive went away after {} of {} ({:.1} %): {why}",
            format_size(s.covered),
            format_size(s.length),
            covered_pct(s)
        ),
    ))
}

/// An interrupted scan (not a lost drive) or a read-back that stopped early: no pass yet.
fn incomplete(s: &ScanRecord) -> Option<Reason> {
    if s.device_lost.is_some() {
        return None;
    }
    let text = if s.interrupted {
        format!(
            "the scan stopped after {} of {} ({:.1} %){}",
            format_size(s.covered),
            format_size(s.length),
            covered_pct(s),
            if s.resume.is_some() {
                "; it can be resumed"
            } else {
                ""
            }
        )
    } else {
        let v = s.verify.as_ref().filter(|v| !v.complete)?;
        let total = s.length / v.unit.max(1);
        format!(
            "the read-back stopped after {} of {total} sectors ({:.1} %)",
            v.blocks,
            v.blocks as f64 * 100.0 / total.max(1) as f64
        )
    };
    Some(reason(Rule::Incomplete, Grade::Incomplete, text))
}
