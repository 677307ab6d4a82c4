//! Stores that older drivescope versions wrote, kept as fixtures (made by running those versions:
//! crates/drivescope/tests/fixtures/old/README.md). Each opens, is migrated once to the schema
//! this version writes, and keeps every run: the rows, their columns and their documents, each of
//! which reads back as a typed record.

use drivescope_record::Document;
use drivescope_store::{ListFilter, RunId, Store, SCHEMA_VERSION};
use rusqlite::Connection;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The fixture directories that hold a store.
fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../drivescope/tests/fixtures/old");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("runs.sqlite").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no old stores under {}", root.display());
    dirs
}

/// What a store holds, read with SQL alone (no drivescope code): its schema version, each run's
/// columns that every version has, and each document decoded.
#[derive(Debug, PartialEq)]
struct Snapshot {
    version: i64,
    runs: Vec<Vec<Option<String>>>,
    documents: Vec<(i64, Value)>,
}

const COLUMNS: &str = "id, kind, schema, started_at, ended_at, host, tool_version, target_path, \
                       target_type, target_size, device_model, device_serial, saved_at";

fn snapshot(path: &Path) -> Snapshot {
    let conn = Connection::open(path).unwrap();
    let version = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    let mut stmt = conn
        .prepare(&format!("SELECT {COLUMNS} FROM runs ORDER BY id"))
        .unwrap();
    let n = stmt.column_count();
    let runs = stmt
        .query_map([], |r| {
            (0..n)
                .map(|i| {
                    let v: rusqlite::types::Value = r.get(i)?;
                    Ok(match v {
                        rusqlite::types::Value::Null => None,
                        rusqlite::types::Value::Integer(i) => Some(i.to_string()),
                        rusqlite::types::Value::Text(t) => Some(t),
                        other => Some(format!("{other:?}")),
                    })
                })
                .collect()
        })
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let mut stmt = conn
        .prepare("SELECT run_id, encoding, body FROM run_documents ORDER BY run_id")
        .unwrap();
    let documents = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Vec<u8>>(2)?,
            ))
        })
        .unwrap()
        .map(|row| {
            let (id, encoding, body) = row.unwrap();
            let json = match encoding.as_str() {
                "json" => body,
                "json+deflate" => miniz_oxide::inflate::decompress_to_vec(&body).unwrap(),
                other => panic!("run {id}: encoding {other}"),
            };
            (id, serde_json::from_slice(&json).unwrap())
        })
        .collect();
    Snapshot {
        version,
        runs,
        documents,
    }
}

/// A copy of the fixture's store in a directory of its own (the fixture is never opened for
/// writing).
fn copy_of(fixture: &Path) -> (PathBuf, PathBuf) {
    let name = fixture.file_name().unwrap().to_str().unwrap();
    let dir = std::env::temp_dir().join(format!(
        "drivescope-old-store-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("runs.sqlite");
    std::fs::copy(fixture.join("runs.sqlite"), &path).unwrap();
    (dir, path)
}

#[test]
fn an_old_store_migrates_once_and_loses_nothing() {
    let mut migrated = 0;
    for fixture in fixtures() {
        let (dir, path) = copy_of(&fixture);
        let before = snapshot(&path);
        let name = fixture.display();
        assert!(before.version <= SCHEMA_VERSION, "{name}");
        assert!(
            !before.runs.is_empty(),
            "{name}: an empty store proves nothing"
        );
        assert_eq!(before.runs.len(), before.documents.len(), "{name}");
        if before.version < SCHEMA_VERSION {
            migrated += 1;
        }

        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION, "{name}");
        let count = store.count(&ListFilter::default()).unwrap();
        assert_eq!(count, before.runs.len() as u64, "{name}: runs listed");
        for (id, doc) in &before.documents {
            let id = RunId(*id);
            assert_eq!(&store.get_json(id).unwrap(), doc, "{name}: run {id:?}");
            let typed = store
                .get(id)
                .unwrap_or_else(|e| panic!("{name}: run {id:?} as a typed record: {e}"));
            if let Document::Unknown { why, .. } = &typed {
                panic!("{name}: run {id:?} does not read as its record: {why}");
            }
            assert_eq!(
                typed.kind().as_str(),
                doc["kind"].as_str().unwrap(),
                "{name}: run {id:?}"
            );
        }
        drop(store);

        // The migration kept every row and document as it was, and filled the columns added
        // since from each document (every run's state: which only a readable document gives).
        let after = snapshot(&path);
        assert_eq!(after.version, SCHEMA_VERSION, "{name}");
        assert_eq!(after.runs, before.runs, "{name}: run columns");
        assert_eq!(after.documents, before.documents, "{name}: documents");
        let conn = Connection::open(&path).unwrap();
        let no_state: i64 = conn
            .query_row("SELECT count(*) FROM runs WHERE state IS NULL", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(no_state, 0, "{name}: runs whose state was not copied");
        drop(conn);

        // Once: opening the migrated store again changes nothing.
        drop(Store::open(&path).unwrap());
        assert_eq!(snapshot(&path), after, "{name}: a second open");
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(migrated > 0, "no fixture store is older than this schema");
}
