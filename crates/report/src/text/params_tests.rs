//! Parameters and row labels as people read them, on a document from a real diagnosis run: the
//! stored fields are `budget_ns: 5000000000`, `size: 1073741824`, `writes: false`.

use crate::doc::Run;
use drivescope_record::{Confidence, Document, Finding, FindingCode};

/// A diagnosis as `drivescope diagnose --json` wrote it (see tests/fixtures/old/README.md).
pub(crate) fn diagnosis() -> Run {
    let text = include_str!("../../../drivescope/tests/fixtures/old/92d1a42/diagnose.json");
    let doc = Document::from_value(serde_json::from_str(text).unwrap()).unwrap();
    assert!(matches!(doc, Document::Diagnose(_)));
    Run::new(Some(3), doc)
}

const WORDS: &str = "budget 5s, size 1.0 GiB, writes no";

#[test]
fn show_lists_parameters_in_words_and_units() {
    let t = super::show::show(&diagnosis());
    assert!(t.contains(&format!("\n  params   {WORDS}\n")), "{t}");
    assert!(!t.contains("budget_ns") && !t.contains("1073741824"), "{t}");
}

#[test]
fn markdown_lists_parameters_in_words_and_units() {
    let md =
        crate::exporter::Exporter::to_bytes(&crate::markdown::Markdown::Summary, &[diagnosis()]);
    let md = String::from_utf8(md.unwrap()).unwrap();
    assert!(md.contains(&format!("- **Parameters:** {WORDS}\n")), "{md}");
}

#[test]
fn the_html_report_lists_parameters_in_words_and_units() {
    let (html, _) = crate::html::render(&[diagnosis()], "r").unwrap();
    assert!(html.contains(WORDS), "{html}");
    assert!(!html.contains("budget_ns="), "{html}");
}

#[test]
fn a_scans_parameters_read_as_sizes_and_durations() {
    let scan = crate::sample::scan(2, 256 << 20, 100, 0, 0, drivescope_record::Direction::Read);
    let t = super::show::show(&Run::new(Some(4), scan));
    let line = t.lines().find(|l| l.starts_with("  params")).unwrap();
    assert!(line.contains("block size 64.0 KiB, queue depth "), "{line}");
    assert!(line.contains("length 256.0 MiB"), "{line}");
    assert!(!line.contains('='), "{line}");
}

#[test]
fn finding_numbers_are_rows_in_words() {
    let mut run = diagnosis();
    let Document::Diagnose(d) = &mut run.doc else {
        unreachable!()
    };
    d.header.findings = vec![Finding::new(
        FindingCode::NoQueueing,
        Confidence::High,
        "RND4K Q32 / Q1 = 1.02: commands are served one at a time".into(),
        &[("iops_q1", 9100.0), ("iops_deep", 9300.0)],
    )];
    let labels: Vec<String> = crate::metrics::of(&run)
        .into_iter()
        .filter(|m| m.key.starts_with("diagnose."))
        .map(|m| m.label)
        .collect();
    assert_eq!(
        labels,
        [
            "No queueing: IOPS at the deepest queue",
            "No queueing: IOPS at queue depth 1",
        ]
    );
}
