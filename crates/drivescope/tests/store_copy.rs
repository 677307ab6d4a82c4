//! End to end: `drivescope store copy` moves runs from a SQLite store into a PostgreSQL one and on into a new
//! SQLite store, copying each run once; the read commands work on the PostgreSQL store named by its
//! connection string.

use drivescope_testkit as common;
#[path = "../../store/tests/pg/mod.rs"]
mod pg;

use common::typed::{document, listed_runs, same, StoreCopied};
use drivescope_record::{Direction, Document};
use drivescope_report::sample;
use drivescope_store::{ListFilter, Store};
use pg::Place;
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_drivescope"));
    c.env("NO_COLOR", "1");
    c
}

fn ok(out: Output) -> String {
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success(),
        "exit {:?}\nstdout:\n{o}\nstderr:\n{e}",
        out.status
    );
    o
}

fn store_copy(from: &str, to: &str) -> String {
    ok(bin().args(["store", "copy", from, to]).output().unwrap())
}

/// Every document of the store at `location`, in list order.
fn documents(location: &drivescope_store::Location) -> Vec<Document> {
    let s = Store::open(location).unwrap();
    let runs = s.list(&ListFilter::default()).unwrap();
    runs.iter().map(|r| s.get(r.id).unwrap()).collect()
}

#[test]
fn store_copy_sqlite_to_postgres_and_back() {
    let first = Place::sqlite("cli-copy-from");
    let on_pg = Place::postgres("cli-copy-pg");
    let back = Place::sqlite("cli-copy-back");
    let docs: Vec<Document> = vec![
        sample::scan(1, 1 << 34, 200, 5, 1, Direction::Read).into(),
        sample::bench(3).into(),
        sample::sweep(4).into(),
    ];
    let mut a = Store::open(&first.location).unwrap();
    for d in &docs {
        a.save(d).unwrap();
    }
    drop(a);
    let from = first.path().to_str().unwrap();
    let to = back.path().to_str().unwrap();
    let pg = on_pg.conn();
    assert_eq!(
        store_copy(from, pg).trim(),
        format!("3 copied, 0 skipped (already in {pg})")
    );
    assert!(store_copy(from, pg).starts_with("0 copied, 3 skipped"));
    assert!(store_copy(pg, to).starts_with("3 copied, 0 skipped"));
    let again: StoreCopied = serde_json::from_str(&ok(bin()
        .args(["store", "copy", pg, to, "--json"])
        .output()
        .unwrap()))
    .unwrap();
    assert_eq!(again.copied, 0);
    assert_eq!(again.skipped, 3);
    assert!(again.unreadable.is_empty(), "{:?}", again.unreadable);
    let want = documents(&first.location);
    assert_eq!(want.len(), 3);
    assert!(
        same(&documents(&on_pg.location), &want),
        "PostgreSQL holds other documents"
    );
    assert!(
        same(&documents(&back.location), &want),
        "the new SQLite store holds other documents"
    );

    // The read commands take the connection string as --store.
    assert_eq!(listed_runs(&["--store", pg]).len(), 3);
    let shown = document(
        ok(bin()
            .args(["export", "last", "--store", pg, "--format", "json"])
            .output()
            .unwrap())
        .as_bytes(),
    );
    assert!(
        want.iter().any(|d| same(d, &shown)),
        "export of the newest run"
    );

    // A source that is not there is refused, and nothing is created for it.
    let missing = back.path().with_file_name("missing.sqlite");
    let out = bin()
        .args(["store", "copy", missing.to_str().unwrap(), pg])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no store at"));
    assert!(!missing.exists());
}
