//! The bad spots a diagnosis met, under its experiment lines: the finding, and what each experiment left out of
//! its measurements because commands failed there.

use drivescope_record::{DiagnoseRecord, FindingCode};
use drivescope_units::format_size;
use std::io::Write;

pub(crate) fn lines(r: &DiagnoseRecord, out: &mut dyn Write) -> std::io::Result<()> {
    for f in r
        .header
        .findings
        .iter()
        .filter(|f| f.code == FindingCode::BadSpots)
    {
        writeln!(
            out,
            "  ✘ {:<12} {}",
            crate::evidence::finding_name(&f.code),
            f.claim
        )?;
    }
    let Some(s) = &r.spots else { return Ok(()) };
    let left: Vec<String> = s
        .experiments
        .iter()
        .filter(|e| e.failed_commands > 0)
        .map(|e| {
            format!(
                "{} {} in {} command{}",
                e.experiment.label(),
                format_size(e.failed_bytes),
                e.failed_commands,
                if e.failed_commands == 1 { "" } else { "s" }
            )
        })
        .collect();
    if !left.is_empty() {
        writeln!(out, "{:17}not measured (failed): {}", "", left.join(", "))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use drivescope_record::{
        BadSpot, BadSpotKind, Confidence, DiagnoseRecord, Experiment, ExperimentSpots, Finding,
        FindingCode, Spots,
    };

    #[test]
    fn the_bad_spots_line_and_what_each_experiment_left_out_follow_the_experiments() {
        let doc = include_str!("../../../drivescope/tests/fixtures/old/92d1a42/diagnose.json");
        let mut r: DiagnoseRecord = serde_json::from_str(doc).expect("a diagnosis");
        r.spots = Some(Spots {
            failed_commands: 3,
            slow_commands: 0,
            slow_ns: 50_000_000,
            places: vec![BadSpot {
                kind: BadSpotKind::Failed,
                offset: 1 << 20,
                length: 1 << 20,
                commands: 3,
                max_latency_ns: 1_000_000,
                errno: Some(5),
                experiments: vec![Experiment::WarmUp],
            }],
            places_more: 0,
            experiments: vec![ExperimentSpots {
                experiment: Experiment::WarmUp,
                failed_commands: 3,
                failed_bytes: 3 << 20,
                slow_commands: 0,
            }],
        });
        r.header.findings.push(Finding::new(
            FindingCode::BadSpots,
            Confidence::High,
            "3 commands failed at 1 place".into(),
            &[],
        ));
        let mut out = Vec::new();
        super::super::print_diagnose(&r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s} in:\n{text}"));
        assert!(at("  ✘ bad spots    3 commands failed at 1 place\n") > at("  – queueing"));
        at("not measured (failed): warm-up 3.0 MiB in 3 commands\n");
    }
}
