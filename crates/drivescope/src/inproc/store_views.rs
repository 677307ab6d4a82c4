//! `runs`, `show`, `compare`, `export`, `report` and `store copy` over a store made here by real
//! runs, in-process.

use super::{drive, Scratch};

/// A store with two scans and a bench in it.
fn three_runs(dir: &Scratch) -> String {
    let store = dir.store();
    drive(&["scan", "null:8M", "--store", &store]).ends(0);
    drive(&["scan", "null:16M", "--points", "16", "--store", &store]).ends(0);
    drive(&[
        "bench",
        "null:64M",
        "--test",
        "RND4K Q1T1",
        "--runs",
        "1",
        "--duration",
        "20ms",
        "--store",
        &store,
    ])
    .ends(0);
    store
}

#[test]
fn runs_lists_newest_first_and_filters_by_kind() {
    let dir = Scratch::new("runs");
    let store = three_runs(&dir);
    let all = drive(&["runs", "--json", "--store", &store]).ends(0).json();
    let kinds: Vec<_> = all
        .as_array()
        .expect("list")
        .iter()
        .map(|r| r["kind"].clone())
        .collect();
    assert_eq!(kinds, ["bench", "scan", "scan"], "{all}");
    let scans = drive(&["runs", "--kind", "scan", "--json", "--store", &store])
        .ends(0)
        .json();
    assert_eq!(scans.as_array().map(|r| r.len()), Some(2), "{scans}");
    let text = drive(&["runs", "--store", &store]).ends(0).stdout.clone();
    assert!(text.contains("null:16M"), "{text}");
}

#[test]
fn runs_limit_keeps_the_newest() {
    let dir = Scratch::new("runs-limit");
    let store = three_runs(&dir);
    let one = drive(&["runs", "--limit", "1", "--json", "--store", &store])
        .ends(0)
        .json();
    assert_eq!(one.as_array().map(|r| r.len()), Some(1));
    assert_eq!(one[0]["kind"], "bench", "{one}");
}

#[test]
fn show_gives_the_stored_document_back() {
    let dir = Scratch::new("show");
    let store = three_runs(&dir);
    let doc = drive(&["show", "2", "--json", "--store", &store])
        .ends(0)
        .json();
    assert_eq!(doc["kind"], "scan");
    assert_eq!(doc["length"], 16 << 20);
    let last = drive(&["show", "last", "--json", "--store", &store])
        .ends(0)
        .json();
    assert_eq!(last["kind"], "bench");
    let text = drive(&["show", "1", "--store", &store])
        .ends(0)
        .stdout
        .clone();
    assert!(text.contains("null:8M"), "{text}");
}

#[test]
fn show_of_a_run_not_there_fails() {
    let dir = Scratch::new("show-none");
    let store = three_runs(&dir);
    let ran = drive(&["show", "9", "--store", &store]);
    assert!(ran.ends(1).error().contains('9'), "{ran:?}");
}

#[test]
fn show_without_a_store_file_fails() {
    let dir = Scratch::new("show-nostore");
    drive(&["show", "last", "--store", &dir.store()]).ends(1);
}

#[test]
fn compare_puts_two_scans_side_by_side() {
    let dir = Scratch::new("compare");
    let store = three_runs(&dir);
    let text = drive(&["compare", "1", "2", "--store", &store])
        .ends(0)
        .stdout
        .clone();
    assert!(
        text.contains("null:8M") && text.contains("null:16M"),
        "{text}"
    );
    let md = drive(&["compare", "1", "2", "--format", "md", "--store", &store])
        .ends(0)
        .stdout
        .clone();
    assert!(md.lines().any(|l| l.starts_with('|')), "{md}");
}

#[test]
fn export_json_is_the_stored_document() {
    let dir = Scratch::new("export-json");
    let store = three_runs(&dir);
    let shown = drive(&["show", "1", "--json", "--store", &store])
        .ends(0)
        .json();
    let exported = drive(&["export", "1", "--format", "json", "--store", &store])
        .ends(0)
        .json();
    assert_eq!(shown, exported);
}

#[test]
fn export_csv_of_a_scan_is_its_curve() {
    let dir = Scratch::new("export-csv");
    let store = three_runs(&dir);
    let csv = drive(&["export", "2", "--format", "csv", "--store", &store])
        .ends(0)
        .stdout
        .clone();
    let rows = csv.lines().count();
    assert!((16..=18).contains(&rows), "{rows} rows:\n{csv}");
}

#[test]
fn export_md_names_the_target() {
    let dir = Scratch::new("export-md");
    let store = three_runs(&dir);
    let md = drive(&["export", "3", "--format", "md", "--store", &store])
        .ends(0)
        .stdout
        .clone();
    assert!(md.contains("null:64M"), "{md}");
}

#[test]
fn export_fio_json_has_a_job_per_test() {
    let dir = Scratch::new("export-fio");
    let store = three_runs(&dir);
    let doc = drive(&["export", "3", "--format", "fio-json", "--store", &store])
        .ends(0)
        .json();
    assert!(!doc["jobs"].as_array().expect("jobs").is_empty(), "{doc}");
}

#[test]
fn export_to_a_file_writes_it_and_prints_nothing() {
    let dir = Scratch::new("export-file");
    let store = three_runs(&dir);
    let out = dir.path("run.json");
    let ran = drive(&[
        "export", "1", "--format", "json", "-o", &out, "--store", &store,
    ]);
    assert!(ran.ends(0).stdout.is_empty());
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("written")).expect("JSON");
    assert_eq!(doc["kind"], "scan");
}

#[test]
fn a_report_is_one_html_file_without_scripts() {
    let dir = Scratch::new("report");
    let store = three_runs(&dir);
    let out = dir.path("report.html");
    drive(&["report", "1", "2", "-o", &out, "--store", &store]).ends(0);
    let html = std::fs::read_to_string(&out).expect("written");
    assert!(html.contains("<svg"), "a chart");
    assert!(!html.contains("<script"), "no scripts");
}

#[test]
fn store_copy_moves_every_run() {
    let dir = Scratch::new("store-copy");
    let from = three_runs(&dir);
    let to = dir.path("copy.db");
    drive(&["store", "copy", &from, &to]).ends(0);
    let runs = drive(&["runs", "--json", "--store", &to]).ends(0).json();
    assert_eq!(runs.as_array().map(|r| r.len()), Some(3), "{runs}");
    let a = drive(&["show", "2", "--json", "--store", &from])
        .ends(0)
        .json();
    let b = drive(&["show", "2", "--json", "--store", &to])
        .ends(0)
        .json();
    assert_eq!(a["length"], b["length"]);
}
