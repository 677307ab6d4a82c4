//! A diagnosis as `drivescope diagnose` prints it: one line per experiment, the findings first-class.

use super::findings::mark;
use drivescope_record::{Confidence, DiagnoseRecord, Experiment, FindingCode, Verdict};
use drivescope_units::format_size;
use std::io::Write;

/// The experiment a finding comes from.
fn experiment_of(code: &FindingCode) -> Option<Experiment> {
    Some(match code {
        FindingCode::ReadCache => Experiment::ReadCache,
        FindingCode::WriteBurst => Experiment::WriteCache,
        FindingCode::NoQueueing => Experiment::Queueing,
        FindingCode::LinkCap => Experiment::Link,
        FindingCode::Zones => Experiment::Zones,
        FindingCode::WarmUp => Experiment::WarmUp,
        FindingCode::ThermalThrottle => Experiment::Throttle,
        FindingCode::Smr => Experiment::Smr,
        FindingCode::Other(c) if c == "flush_honesty" => Experiment::FlushHonesty,
        // In a diagnosis these come from its array's members only.
        FindingCode::SharedPath
        | FindingCode::SlowMember
        | FindingCode::Degraded
        | FindingCode::ArrayWrites => Experiment::Array,
        FindingCode::StorageBound
        | FindingCode::CpuBound
        | FindingCode::MixedBound
        | FindingCode::LatencyBound
        | FindingCode::ThroughputBound
        | FindingCode::SlowRank
        | FindingCode::CounterfeitCapacity
        | FindingCode::BadSpots
        | FindingCode::Other(_) => return None,
    })
}

/// What reached the device during the flush experiment, as `durability` says it (where the block layer
/// counts flush requests).
fn flush_count(r: &DiagnoseRecord, out: &mut dyn Write) -> std::io::Result<()> {
    match r.flush_honesty.as_ref().and_then(|f| f.device_flushes) {
        Some(d) => writeln!(
            out,
            "    (the block layer counted {d} flush requests on the device during the experiment)"
        ),
        None => Ok(()),
    }
}

pub fn print_diagnose(r: &DiagnoseRecord, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "diagnosis of {} ({} used, {:.0} s of a {:.0} s budget{})",
        r.header.target.path,
        format_size(r.workload.size),
        r.elapsed_ns as f64 / 1e9,
        r.budget_ns as f64 / 1e9,
        if r.writes {
            ", with writes"
        } else {
            ", read-only"
        }
    )?;
    if let Some(n) = r.header.memory_note() {
        writeln!(out, "  note: {n}")?;
    }
    // The array's reads ran first; their rates are the evidence of its findings and are always shown.
    for e in std::iter::once(Experiment::Array).chain(Experiment::ALL) {
        let findings: Vec<_> = r
            .header
            .findings
            .iter()
            .filter(|f| experiment_of(&f.code) == Some(e))
            .collect();
        for f in &findings {
            let sure = match f.confidence {
                Confidence::Low => " (low confidence)",
                Confidence::Inconclusive => " (inconclusive)",
                _ => "",
            };
            writeln!(
                out,
                "  {} {:<12} {}{sure}",
                mark(f.confidence),
                crate::evidence::finding_name(&f.code),
                f.claim
            )?;
        }
        // An array's rates are shown beside its findings; another experiment's finding is its line.
        if findings.is_empty() || e == Experiment::Array {
            if let Some(o) = r.outcomes.iter().find(|o| o.experiment == e) {
                let (m, prefix) = match o.verdict {
                    Verdict::Found => ("✔", ""),
                    Verdict::NotFound => ("·", ""),
                    Verdict::Inconclusive => ("?", "inconclusive: "),
                    Verdict::Skipped => ("–", "skipped: "),
                };
                writeln!(out, "  {m} {:<12} {prefix}{}", e.label(), o.text)?;
            }
        }
        if e == Experiment::FlushHonesty {
            flush_count(r, out)?;
        }
    }
    super::diagnose_spots::lines(r, out)?;
    if let Some(t) = super::temperature::line(r.temperature.as_ref()) {
        writeln!(out, "  {t}")?;
    }
    if let Some(err) = &r.device_error {
        writeln!(
            out,
            "  ✘ device error: {err}; the findings above are from before it"
        )?;
    }
    if let Some(why) = &r.lost_inconclusive {
        writeln!(out, "  device lost? inconclusive: {why}")?;
    }
    if r.workload.interrupted {
        writeln!(out, "  (interrupted: the findings above are from what ran)")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use drivescope_record::{
        Confidence, DiagnoseRecord, Experiment, Finding, FindingCode, Outcome, Verdict,
    };

    #[test]
    fn an_arrays_findings_and_its_rates_come_first() {
        let doc = include_str!("../../../drivescope/tests/fixtures/old/92d1a42/diagnose.json");
        let mut r: DiagnoseRecord = serde_json::from_str(doc).expect("a diagnosis");
        r.header.findings.push(Finding::new(
            FindingCode::SharedPath,
            Confidence::High,
            "the members of md0 (sdb, sdc) read 41 MB/s together".into(),
            &[("ratio", 0.5)],
        ));
        r.outcomes.insert(
            0,
            Outcome {
                experiment: Experiment::Array,
                verdict: Verdict::Found,
                text: "2 members alone (sdb 40.0 MB/s, sdc 40.0 MB/s; 80.0 MB/s in all)".into(),
            },
        );
        let mut out = Vec::new();
        super::print_diagnose(&r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s} in:\n{text}"));
        let finding = at("shared path  the members of md0 (sdb, sdc) read 41 MB/s together\n");
        // The rates are shown beside the finding, not instead of it.
        let rates = at("  ✔ array        2 members alone (sdb 40.0 MB/s");
        assert!(finding < rates, "{text}");
        assert_eq!(text.matches("shared path").count(), 1, "{text}");
    }

    #[test]
    fn the_flush_count_follows_the_flush_experiment_s_line_where_counted() {
        use drivescope_record::DiagnoseFlush;
        let doc = include_str!("../../../drivescope/tests/fixtures/old/92d1a42/diagnose.json");
        let mut r: DiagnoseRecord = serde_json::from_str(doc).expect("a diagnosis");
        let claim = "Flushes return before the data can have reached the media (the device was sent none: …)";
        r.header.findings.push(Finding::new(
            FindingCode::Other("flush_honesty".into()),
            Confidence::High,
            claim.into(),
            &[("device_flushes", 0.0)],
        ));
        r.flush_honesty = Some(DiagnoseFlush {
            region: 1 << 26,
            direct: true,
            cache: Default::default(),
            sustained: None,
            pairs: Vec::new(),
            bytes_written: 0,
            flushes: 14,
            device_flushes: Some(0),
            rest_ns: 0,
            budget_ns: 1,
            duration_ns: 1,
        });
        let text = |r: &DiagnoseRecord| {
            let mut out = Vec::new();
            super::print_diagnose(r, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let t = text(&r);
        let line = "\n    (the block layer counted 0 flush requests on the device during the experiment)\n";
        assert!(t.contains(&format!("{claim}{line}")), "{t}");
        // Not counted: no line.
        r.flush_honesty.as_mut().unwrap().device_flushes = None;
        assert!(!text(&r).contains("block layer counted"));
    }
}
