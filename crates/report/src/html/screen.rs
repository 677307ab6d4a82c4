//! A screen's section of the report page: the side-by-side table, the reasons of each verdict other than
//! pass, and the shared path (rendered by `templates/screen.html`).

use crate::doc::Run;
use serde::Serialize;

/// (target, grade, [(grade, reason)]) of a drive that did not pass.
#[derive(Serialize)]
pub(super) struct Verdict(String, String, Vec<(String, String)>);

/// A screen's section of the page: its side-by-side table, the reasons of each verdict other than pass, and
/// the shared path.
#[derive(Serialize)]
pub(super) struct ScreenView {
    label: String,
    what: String,
    sheet: crate::screen::Sheet,
    verdicts: Vec<Verdict>,
    shared_what: String,
    /// (target, alone, together) of each drive, then the sums.
    shared: Vec<(String, String, String)>,
}

pub(super) fn view(run: &Run) -> Option<ScreenView> {
    let drivescope_record::Document::Screen(r) = &run.doc else {
        return None;
    };
    let verdicts = r
        .members
        .iter()
        .filter_map(|m| {
            let v = m
                .verdict
                .as_ref()
                .filter(|v| v.grade != drivescope_record::Grade::Pass)?;
            let reasons = v
                .reasons
                .iter()
                .map(|x| (x.grade.as_str().to_string(), x.text.clone()))
                .collect();
            Some(Verdict(
                m.target.clone(),
                v.grade.as_str().to_string(),
                reasons,
            ))
        })
        .collect();
    let mb = |v: Option<&f64>| v.map_or("—".to_string(), |v| format!("{v:.1}"));
    let (shared_what, shared) = match &r.shared_path {
        None => (String::new(), Vec::new()),
        Some(sp) => {
            let mut rows: Vec<(String, String, String)> = r
                .members
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let (a, t) = (sp.alone_mb_per_s.get(i), sp.together_mb_per_s.get(i));
                    (m.target.clone(), mb(a), mb(t))
                })
                .collect();
            rows.push((
                "sum".into(),
                mb(Some(&sp.alone_sum())),
                mb(Some(&sp.together_sum())),
            ));
            let what = format!(
                "{} reads at QD{}, {:.1} s on each drive alone, then on all together{}.",
                drivescope_units::format_size(sp.block_size),
                sp.queue_depth,
                sp.duration_ns as f64 / 1e9,
                sp.parent
                    .as_ref()
                    .map(|p| format!("; they meet at {p}"))
                    .unwrap_or_default()
            );
            (what, rows)
        }
    };
    let what = format!(
        "{} drives, {}, {}{}",
        r.members.len(),
        match (r.write, r.verify) {
            (false, _) => "read scan",
            (true, false) => "write scan",
            (true, true) => "write scan with read-back",
        },
        crate::screen::duration(r.duration_ns),
        if r.interrupted {
            "; stopped before every drive was done"
        } else {
            ""
        }
    );
    Some(ScreenView {
        label: run.label(),
        what,
        sheet: crate::screen::Sheet::new(r),
        verdicts,
        shared_what,
        shared,
    })
}
