//! End to end on a real PostgreSQL server: a scan saves into the store named by `--store CONNINFO` and the read
//! commands find it there; a PostgreSQL store that cannot be written costs nothing measured (the run prints in
//! full, exits 0, and one stderr line says why it was not saved and where).

#[path = "../../store/tests/pg/mod.rs"]
mod pg;

use drivescope_record::Document;
use drivescope_store::{ListFilter, Store};
use pg::Place;
use std::process::{Command, Output};

fn scan(store: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_drivescope"))
        .args([
            "scan", "null:1G", "--json", "--quiet", "--points", "200", "--store", store,
        ])
        .output()
        .unwrap()
}

/// Exit 0, one scan document on stdout, and the lines of drivescope's own on stderr.
fn scanned(out: &Output) -> (Document, Vec<String>) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr:\n{stderr}");
    let doc = Document::from_value(serde_json::from_str(&stdout).unwrap()).unwrap();
    let lines = stderr
        .lines()
        .filter(|l| l.starts_with("drivescope:") || l.contains("saved"))
        .map(String::from)
        .collect();
    (doc, lines)
}

#[test]
fn a_scan_saves_into_postgres_or_says_why_not() {
    let place = Place::postgres("cli-scan");
    let conn = place.conn();
    let (doc, lines) = scanned(&scan(conn));
    // --json --quiet: saved without a word; only a failure to save is said.
    assert!(lines.is_empty(), "{lines:?}");
    let store = Store::open(&place.location).unwrap();
    let listed = store.list(&ListFilter::default()).unwrap();
    assert_eq!(listed.len(), 1);
    assert!(store.get_json(listed[0].id).unwrap() == doc.to_value());
    drop(store);

    // A database that refuses writes: the server's own words.
    place.psql(&format!(
        "ALTER DATABASE {} SET default_transaction_read_only = on",
        conn.rsplit("dbname=").next().unwrap()
    ));
    let (_, lines) = scanned(&scan(conn));
    assert_eq!(
        lines,
        [format!(
            "drivescope: the run was not saved in {conn}: db error: ERROR: cannot execute INSERT in a \
             read-only transaction"
        )]
    );
    // No server at all.
    let nowhere = "host=/nonexistent-drivescope-socket-dir dbname=runs user=drivescope";
    let (_, lines) = scanned(&scan(nowhere));
    assert_eq!(
        lines,
        [format!(
            "drivescope: the run was not saved in {nowhere}: error connecting to server: No such file or \
             directory (os error 2)"
        )]
    );
    let store = Store::open(&place.location).unwrap();
    assert_eq!(store.list(&ListFilter::default()).unwrap().len(), 1);
}
