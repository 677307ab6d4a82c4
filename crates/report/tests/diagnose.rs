//! A diagnosis saved by a real run on the lab's RAID-cache preset, read back: its charts carry what each
//! experiment showed, its text lists one line per experiment, and its tables export.

use drivescope_record::Document;
use drivescope_report::{charts, text::Text, Exporter, Run};

fn saved() -> Run {
    let path = format!(
        "{}/../analysis/tests/fixtures/diagnose-raid-cache.json",
        env!("CARGO_MANIFEST_DIR")
    );
    // As the run saved it: its measurements, findings and outcomes.
    let doc: Document = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    Run::new(Some(7), doc)
}

#[test]
fn each_experiment_has_its_chart_captioned_with_what_it_showed() {
    let run = saved();
    let all = charts::build(std::slice::from_ref(&run));
    let ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "warmup-run7",
            "zones-run7",
            "workingset-run7",
            "queueing-run7",
            "write-run7"
        ]
    );
    let by = |id: &str| all.iter().find(|c| c.id == id).unwrap();
    assert!(
        by("workingset-run7").caption.contains("in front of"),
        "{}",
        by("workingset-run7").caption
    );
    assert!(
        by("write-run7").caption.contains("burst"),
        "{}",
        by("write-run7").caption
    );
    assert!(by("zones-run7").caption.contains("typical of a hard disk"));
    let Document::Diagnose(d) = &run.doc else {
        unreachable!()
    };
    assert_eq!(
        by("workingset-run7").marks,
        d.read_cache.as_ref().unwrap().points.len()
    );
    assert_eq!(by("zones-run7").marks, 64);
    for c in &all {
        assert!(c.svg.starts_with("<svg"), "{}", c.id);
    }
}

#[test]
fn the_text_lists_one_line_per_experiment_with_its_mark() {
    let run = saved();
    let text = String::from_utf8(Text::Summary.to_bytes(&[run]).unwrap()).unwrap();
    for line in [
        "✔ zones",
        "· link cap",
        "· queueing",
        "✔ read cache",
        "✔ write cache",
        "· warm-up",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
}

#[test]
fn its_tables_export_as_csv() {
    let run = saved();
    let tables = drivescope_report::csv::tables(&run.doc);
    assert!(tables.contains(&"working_sets"));
    let csv = drivescope_report::csv::Csv {
        table: Some("working_sets".into()),
    }
    .to_bytes(&[run])
    .unwrap();
    let csv = String::from_utf8(csv).unwrap();
    assert!(
        csv.lines().next().unwrap().contains("again_mb_per_s"),
        "{csv}"
    );
}

/// A diagnosis of a btrfs raid1 of three lab disks with its third disk gone, mounted degraded (a real run):
/// the array's chart comes first, a bar for each member alone and together, both sums, and the array by one
/// reader, by two and by one writer, captioned with the array's outcome.
#[test]
fn an_array_diagnosis_charts_its_members_and_the_array_first() {
    let path = format!(
        "{}/../analysis/tests/fixtures/diagnose-degraded-mirror.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let doc: Document = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let run = Run::new(Some(9), doc);
    let all = charts::build(std::slice::from_ref(&run));
    let first = &all[0];
    assert_eq!(first.id, "array-run9");
    let Document::Diagnose(d) = &run.doc else {
        unreachable!()
    };
    let a = d.array.as_ref().expect("the array's reads");
    assert_eq!(a.array.missing, ["devid 3"]);
    assert_eq!(a.array.members.len(), 2);
    // 2 members × (alone, together), the two sums, the array by 1 reader, 2 readers and 1 writer.
    assert_eq!(first.marks, 9);
    assert!(first
        .caption
        .starts_with("Array: devid 3 missing: the array is degraded"));
    assert!(first.svg.contains("array 1 writer: "), "{}", first.svg);
}
