//! Documents and stores that older drivescope versions saved, kept as fixtures made by running
//! those versions (tests/fixtures/old/README.md), read by this one: every document reads as its
//! typed record and is the one the old store holds, and `show`, `compare`, `export`, `report`
//! and `serve` read every run of the old store. No root needed: null targets only.

use drivescope_testkit as common;

use common::serve::{get, serve};
use drivescope_record::Document;
use drivescope_store::{ListFilter, RunId, Store};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/old");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("runs.sqlite").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no fixtures under {}", root.display());
    dirs
}

/// The fixture's documents by file name (scan, bench, …).
fn documents(fixture: &Path) -> BTreeMap<String, Value> {
    let docs: BTreeMap<String, Value> = std::fs::read_dir(fixture)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_str().unwrap().to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            let doc =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (name, doc)
        })
        .collect();
    assert!(
        docs.len() >= 4,
        "{}: scan, bench, sweep and soak at least",
        fixture.display()
    );
    docs
}

/// The kind a fixture's file name says: `bench.json` a bench, `multi-bench.json` the multi
/// document of a bench under an MPI launcher.
fn kind_of(name: &str) -> &str {
    name.split('-').next().unwrap()
}

/// A copy of the fixture's store in a directory of its own, removed when dropped.
struct Copy {
    dir: PathBuf,
    store: String,
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn copy_of(fixture: &Path, what: &str) -> Copy {
    let name = fixture.file_name().unwrap().to_str().unwrap();
    let dir = std::env::temp_dir().join(format!(
        "drivescope-old-docs-{}-{name}-{what}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = dir.join("runs.sqlite");
    std::fs::copy(fixture.join("runs.sqlite"), &store).unwrap();
    Copy {
        dir,
        store: store.to_str().unwrap().to_string(),
    }
}

/// The documents the store holds, as saved, in run order (opening the copy migrates it).
fn stored(store: &str) -> Vec<Value> {
    let st = Store::open(Path::new(store)).unwrap();
    let n = st.count(&ListFilter::default()).unwrap() as i64;
    (1..=n).map(|id| st.get_json(RunId(id)).unwrap()).collect()
}

/// `drivescope ARGS`: its stdout, after asserting it succeeded.
fn ds(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_drivescope"))
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "drivescope {args:?}: exit {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Every field the old document has and the typed record still writes holds the same value:
/// reading an old document drops what this version no longer keeps and defaults what it added,
/// and changes nothing else.
fn same_where_both_have(old: &Value, now: &Value, at: &str) {
    match (old, now) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                if let Some(w) = b.get(k) {
                    same_where_both_have(v, w, &format!("{at}.{k}"));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{at}: length");
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                same_where_both_have(v, w, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(old, now, "{at}"),
    }
}

#[test]
fn every_old_document_reads_as_its_record_and_is_the_stored_one() {
    for fixture in fixtures() {
        let f = fixture.display();
        let docs = documents(&fixture);
        let copy = copy_of(&fixture, "read");
        let stored = stored(&copy.store);
        // a screen saves each drive's scan as a run of its own too
        assert!(stored.len() >= docs.len(), "{f}: a stored run per document");
        for (name, doc) in &docs {
            let kind = kind_of(name);
            assert_eq!(doc["kind"], kind, "{f}: {name}.json");
            assert!(
                stored.contains(doc),
                "{f}: {name}.json is not among the stored documents"
            );
            let typed = Document::from_value(doc.clone()).unwrap();
            if let Document::Unknown { why, .. } = &typed {
                panic!("{f}: {name}.json does not read as a {kind} record: {why}");
            }
            assert_eq!(typed.kind().as_str(), kind, "{f}");
            same_where_both_have(doc, &typed.to_value(), &format!("{f}: {name}"));
        }
    }
}

#[test]
fn show_compare_export_and_report_read_every_old_run() {
    for fixture in fixtures() {
        let f = fixture.display();
        let docs = documents(&fixture);
        let copy = copy_of(&fixture, "cli");
        let s = copy.store.as_str();
        let listed = ds(&["runs", "--store", s]);
        let raw = stored(s);
        let ids: Vec<String> = (1..=raw.len()).map(|i| i.to_string()).collect();
        for id in &ids {
            let doc = &raw[id.parse::<usize>().unwrap() - 1];
            let shown: Value =
                serde_json::from_str(&ds(&["show", id, "--json", "--store", s])).unwrap();
            same_where_both_have(doc, &shown, &format!("{f}: show {id} --json"));
            let kind = doc["kind"].as_str().unwrap();
            assert!(
                listed.contains(kind),
                "{f}: runs lists no {kind}:\n{listed}"
            );
            let text = ds(&["show", id, "--store", s]);
            assert!(
                text.lines().count() >= 3,
                "{f}: show {id} ({kind}):\n{text}"
            );
            let json: Value =
                serde_json::from_str(&ds(&["export", id, "--format", "json", "--store", s]))
                    .unwrap();
            assert!(
                json == shown,
                "{f}: export {id} --format json is not show --json"
            );
            let md = ds(&["export", id, "--format", "md", "--store", s]);
            assert!(
                md.contains('|') || md.contains('#'),
                "{f}: export {id} md:\n{md}"
            );
            if matches!(kind, "scan" | "bench" | "sweep" | "soak") {
                let csv = ds(&["export", id, "--format", "csv", "--store", s]);
                assert!(csv.lines().count() >= 2, "{f}: export {id} csv:\n{csv}");
                let fio: Value = serde_json::from_str(&ds(&[
                    "export", id, "--format", "fio-json", "--store", s,
                ]))
                .unwrap();
                assert!(
                    !fio["jobs"].as_array().unwrap().is_empty(),
                    "{f}: export {id} fio-json: {fio}"
                );
            }
            // the old run beside itself: compare reads two of a kind
            let cmp = ds(&["compare", id, id, "--store", s]);
            assert!(cmp.lines().count() >= 3, "{f}: compare {id} {id}:\n{cmp}");
        }
        // scans side by side: the old one and one made now
        ds(&[
            "scan",
            "null:256M",
            "--points",
            "200",
            "--quiet",
            "--store",
            s,
        ]);
        let new_id = (ids.len() + 1).to_string();
        let old_scan = (raw.iter().position(|d| *d == docs["scan"]).unwrap() + 1).to_string();
        let cmp = ds(&[
            "compare", &old_scan, &new_id, "--format", "md", "--store", s,
        ]);
        // both columns, the old one with the old document's mean rate in it
        let header = cmp.lines().next().unwrap_or_default();
        assert!(
            header.contains(&format!("| run {old_scan}<br>"))
                && header.contains(&format!("| run {new_id}<br>")),
            "{f}: compare {old_scan} {new_id}:\n{cmp}"
        );
        let Ok(Document::Scan(old)) = Document::from_value(docs["scan"].clone()) else {
            panic!("{f}: scan.json reads as a scan record");
        };
        let mean = old.mb_per_s.mean;
        let rate = cmp
            .lines()
            .find(|l| l.starts_with("| Rate read mean"))
            .unwrap_or_else(|| panic!("{f}: no mean rate row:\n{cmp}"));
        assert!(
            rate.contains(&drivescope_units::format_rate(mean)),
            "{f}: {rate}"
        );
        // one report of every run
        let html = copy.dir.join("report.html");
        let mut args = vec!["report"];
        args.extend(ids.iter().map(String::as_str));
        args.extend(["-o", html.to_str().unwrap(), "--store", s]);
        ds(&args);
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(page.contains("<svg"), "{f}: the report draws charts");
        for kind in docs.keys().map(|n| kind_of(n)) {
            assert!(page.contains(kind), "{f}: the report names no {kind}");
        }
    }
}

#[test]
fn serve_shows_every_old_run() {
    for fixture in fixtures() {
        let f = fixture.display();
        let docs = documents(&fixture);
        let copy = copy_of(&fixture, "serve");
        // serve only reads: a store older than this version is refused, with the way to
        // upgrade it, and served once it is opened for writing
        let conn = rusqlite::Connection::open(&copy.store).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        drop(conn);
        if version < drivescope_store::SCHEMA_VERSION {
            let out = Command::new(env!("CARGO_BIN_EXE_drivescope"))
                .args(["serve", "--store", &copy.store, "--listen", "127.0.0.1:0"])
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success(),
                "{f}: serve of a store at version {version}"
            );
            assert!(
                err.contains(&format!("has schema version {version}, older"))
                    && err.contains("opening it once for writing"),
                "{f}: {err}"
            );
            ds(&["runs", "--store", &copy.store]);
        }
        let raw = stored(&copy.store);
        let s = serve(&["--store", &copy.store, "--listen", "127.0.0.1:0"]);
        let a = s.addr.as_str();
        let list = get(a, "/", "");
        assert_eq!(list.status, 200, "{f}");
        let text = list.text();
        assert!(raw.len() >= docs.len(), "{f}");
        for id in 1..=raw.len() {
            assert!(
                text.contains(&format!("/runs/{id}\"")),
                "{f}: run {id} not listed"
            );
            let page = get(a, &format!("/runs/{id}"), "");
            assert_eq!(page.status, 200, "{f}: /runs/{id}");
            assert!(
                page.text().contains(&format!("drivescope run {id}")),
                "{f}: /runs/{id}"
            );
            let json = get(a, &format!("/runs/{id}/json"), "");
            assert_eq!(json.status, 200, "{f}: /runs/{id}/json");
            let doc: Value = serde_json::from_slice(&json.body).unwrap();
            same_where_both_have(&raw[id - 1], &doc, &format!("{f}: /runs/{id}/json"));
        }
    }
}
