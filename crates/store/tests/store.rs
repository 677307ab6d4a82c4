//! The store end to end, on SQLite and on a real PostgreSQL server: round trip, filters, upgrade of an older
//! store, refusal of a newer one, size of a stored scan.

mod pg;

use drivescope_record::{Checkpoint, Direction, Document, RunState};
use drivescope_report::sample;
use drivescope_store::migrations::{MIGRATIONS, POSTGRES_MIGRATIONS};
use drivescope_store::{ListFilter, Location, RunId, Store, SCHEMA_VERSION};
use pg::Place;
use serde_json::json;

on_both!(
    saves_and_returns_documents_unchanged,
    a_checkpointed_scan_is_one_run_updated_in_place,
    lists_with_filters_newest_first,
    opening_a_version_1_store_upgrades_it,
    refuses_a_store_from_a_newer_drivescope,
    a_read_only_store_reads_and_changes_nothing,
);

fn a_read_only_store_reads_and_changes_nothing(place: Place) {
    // Nothing there yet: refused, and nothing created (a file, or tables in the database).
    let e = Store::open_read_only(&place.location)
        .err()
        .expect("no store yet");
    match &place.location {
        Location::Sqlite(p) => {
            assert!(e.to_string().contains("no store there"), "{e}");
            assert!(!p.exists() && !p.parent().unwrap().exists());
        }
        Location::Postgres(_) => assert!(e.to_string().contains("older"), "{e}"),
    }
    let mut store = Store::open(&place.location).unwrap();
    let id = store.save(&sample::bench(1).into()).unwrap();
    drop(store);
    let mut store = Store::open_read_only(&place.location).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(store.get(id).unwrap().kind().as_str(), "bench");
    assert_eq!(store.count(&ListFilter::default()).unwrap(), 1);
    // The connection itself refuses writes.
    let e = store
        .save(&sample::bench(2).into())
        .expect_err("a read-only store saves nothing");
    assert!(e.to_string().contains("read"), "{e}");
    drop(store);
    assert_eq!(
        Store::open(&place.location)
            .unwrap()
            .count(&ListFilter::default())
            .unwrap(),
        1
    );
}

fn saves_and_returns_documents_unchanged(place: Place) {
    let path = &place.location;
    let mut store = Store::open(path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let future = json!({"schema": "drivescope/1", "kind": "future", "device": null, "x": [1, 2]});
    let docs: Vec<Document> = vec![
        sample::scan(1, 1 << 36, 1000, 50, 2, Direction::Read).into(),
        sample::quick_scan(2, 1 << 36, 256).into(),
        sample::bench(3).into(),
        sample::sweep(4).into(),
        sample::soak(5, 600).into(),
        // A kind a newer version writes: kept as it came.
        Document::from_value(future).unwrap(),
    ];
    let ids: Vec<RunId> = docs.iter().map(|d| store.save(d).unwrap()).collect();
    drop(store);
    let store = Store::open(path).unwrap();
    assert_eq!(store.location(), path);
    for (id, doc) in ids.iter().zip(&docs) {
        assert!(
            store.get_json(*id).unwrap() == doc.to_value(),
            "run {id} differs"
        );
        assert_eq!(store.get(*id).unwrap().kind(), doc.kind());
    }
    let info = store.info(ids[0]).unwrap();
    assert_eq!(info.kind, "scan");
    assert_eq!(info.device_serial.as_deref(), Some("SAMPLE-0001"));
    assert_eq!(info.device_capacity, Some(1 << 36));
    assert_eq!(info.device_transport.as_deref(), Some("sata"));
    assert_eq!(info.device_model.as_deref(), Some("ACME HD4001"));
    assert_eq!(info.device_firmware.as_deref(), Some("01.01A01"));
    assert_eq!(info.device_name.as_deref(), Some("sdx"));
    assert_eq!(info.tool_version.as_deref(), Some("0.1.0"));
    assert!(store.get(RunId(999)).is_err());
    let states: Vec<Option<RunState>> = ids.iter().map(|i| store.info(*i).unwrap().state).collect();
    let f = Some(RunState::Finished);
    assert_eq!(states, vec![f, f, f, f, f, None]);
}

fn a_checkpointed_scan_is_one_run_updated_in_place(place: Place) {
    let mut store = Store::open(&place.location).unwrap();
    let before = store.save(&sample::bench(1).into()).unwrap();
    // Checkpoints: the scan so far, interrupted, naming the process that runs it.
    let mut snap = sample::scan(2, 1 << 30, 100, 3, 1, Direction::Read);
    snap.interrupted = true;
    snap.covered = 1 << 29;
    snap.checkpoint = Some(Checkpoint {
        pid: 4242,
        process_start: 777,
        boot_id: "b".into(),
        every_ns: 60_000_000_000,
    });
    let id = store.save(&snap.clone().into()).unwrap();
    assert_eq!(store.info(id).unwrap().state, Some(RunState::Checkpoint));
    snap.covered = 3 << 28;
    snap.header.ended_at = "2026-11-23T11:00:00Z".into();
    store.replace(id, &snap.clone().into()).unwrap();
    let doc = Document::from(snap.clone()).to_value();
    assert!(store.get_json(id).unwrap() == doc);
    assert_eq!(
        store.info(id).unwrap().ended_at.as_deref(),
        Some("2026-11-23T11:00:00Z")
    );
    // The scan ends: its own document replaces the last checkpoint.
    let mut done = sample::scan(2, 1 << 30, 100, 3, 1, Direction::Read);
    done.header.host = "after".into();
    store.replace(id, &done.clone().into()).unwrap();
    let listed = store.list(&ListFilter::default()).unwrap();
    assert_eq!(listed.len(), 2, "one run for the scan, not one per save");
    let info = store.info(id).unwrap();
    assert_eq!(info.state, Some(RunState::Finished));
    assert_eq!(info.host.as_deref(), Some("after"));
    assert!(store.get_json(id).unwrap() == Document::from(done).to_value());
    // Interrupted and device-lost runs say so.
    snap.checkpoint = None;
    store.replace(id, &snap.clone().into()).unwrap();
    assert_eq!(store.info(id).unwrap().state, Some(RunState::Interrupted));
    snap.device_lost = Some("gone".into());
    store.replace(id, &snap.clone().into()).unwrap();
    assert_eq!(store.info(id).unwrap().state, Some(RunState::DeviceLost));
    // The other run is untouched, and a run that is not there cannot be replaced.
    assert!(store.get_json(before).unwrap() == Document::from(sample::bench(1)).to_value());
    assert!(store.replace(RunId(999), &snap.into()).is_err());
    assert_eq!(store.list(&ListFilter::default()).unwrap().len(), 2);
}

fn lists_with_filters_newest_first(place: Place) {
    let mut store = Store::open(&place.location).unwrap();
    let a = store
        .save(&sample::scan(3, 1 << 30, 10, 0, 0, Direction::Read).into())
        .unwrap(); // 2026-11-04, SAMPLE-0003
    let b = store.save(&sample::bench(10).into()).unwrap(); // 2026-11-11, SAMPLE-0010
    let c = store
        .save(&sample::scan(20, 1 << 30, 10, 0, 0, Direction::Write).into())
        .unwrap(); // 2026-11-21
    let ids = |f: ListFilter| {
        store
            .list(&f)
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(ListFilter::default()), vec![c, b, a]);
    assert_eq!(
        ids(ListFilter {
            kind: Some("scan".into()),
            ..Default::default()
        }),
        vec![c, a]
    );
    assert_eq!(
        ids(ListFilter {
            device: Some("sample-0010".into()),
            ..Default::default()
        }),
        vec![b]
    );
    assert_eq!(
        ids(ListFilter {
            device: Some("/dev/sdx".into()),
            ..Default::default()
        }),
        vec![c, b, a]
    );
    assert_eq!(
        ids(ListFilter {
            since: Some("2026-11-11".into()),
            ..Default::default()
        }),
        vec![c, b]
    );
    assert_eq!(
        ids(ListFilter {
            until: Some("2026-11-11".into()),
            ..Default::default()
        }),
        vec![b, a]
    );
    assert_eq!(
        ids(ListFilter {
            limit: Some(1),
            ..Default::default()
        }),
        vec![c]
    );
}

/// A direct connection to a PostgreSQL store's database, to look inside.
fn client(place: &Place) -> postgres::Client {
    postgres::Client::connect(place.conn(), postgres::NoTls).unwrap()
}

/// A store as the first release wrote it: migration 1 only, the document as JSON text (jsonb on PostgreSQL),
/// and device columns left empty: they were looked for where run documents never had them.
fn write_version_1(place: &Place, doc: &drivescope_record::ScanRecord) {
    let json = serde_json::to_string(doc).unwrap();
    match &place.location {
        Location::Sqlite(path) => {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let conn = rusqlite::Connection::open(path).unwrap();
            conn.execute_batch(MIGRATIONS[0]).unwrap();
            conn.pragma_update(None, "user_version", 1).unwrap();
            conn.execute("INSERT INTO runs (id, kind, schema, started_at) VALUES (1, 'scan', 'drivescope/1', ?1)", [&doc.header.started_at]).unwrap();
            conn.execute(
                "INSERT INTO run_documents (run_id, document) VALUES (1, ?1)",
                [json],
            )
            .unwrap();
        }
        Location::Postgres(_) => {
            let mut c = client(place);
            c.batch_execute(POSTGRES_MIGRATIONS[0]).unwrap();
            c.batch_execute(
                "CREATE TABLE drivescope_schema (version INTEGER NOT NULL);
                 INSERT INTO drivescope_schema VALUES (1)",
            )
            .unwrap();
            c.execute(
                "INSERT INTO runs (kind, schema, started_at) VALUES ('scan', 'drivescope/1', $1)",
                &[&doc.header.started_at],
            )
            .unwrap();
            c.execute(
                "INSERT INTO run_documents (run_id, document) VALUES (1, $1::text::jsonb)",
                &[&json],
            )
            .unwrap();
        }
    }
}

fn opening_a_version_1_store_upgrades_it(place: Place) {
    let path = &place.location;
    let doc = sample::scan(7, 1 << 32, 1000, 10, 1, Direction::Read);
    write_version_1(&place, &doc);
    let doc = Document::from(doc).to_value();
    let mut store = Store::open(path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert!(store.get_json(RunId(1)).unwrap() == doc);
    let listed = store.list(&ListFilter::default()).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].json_bytes as usize, doc.to_string().len());
    // The upgrade copied the device columns from the document.
    assert_eq!(listed[0].device_serial.as_deref(), Some("SAMPLE-0007"));
    assert_eq!(listed[0].device_model.as_deref(), Some("ACME HD4007"));
    assert_eq!(listed[0].device_name.as_deref(), Some("sdx"));
    assert_eq!(listed[0].state, Some(drivescope_record::RunState::Finished));
    let new = store
        .save(&Document::from_value(doc.clone()).unwrap())
        .unwrap();
    assert!(store.get_json(new).unwrap() == doc);
}

fn refuses_a_store_from_a_newer_drivescope(place: Place) {
    let path = &place.location;
    drop(Store::open(path).unwrap());
    match path {
        Location::Sqlite(file) => rusqlite::Connection::open(file)
            .unwrap()
            .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap(),
        Location::Postgres(_) => {
            client(&place)
                .execute(
                    "UPDATE drivescope_schema SET version = $1",
                    &[&(SCHEMA_VERSION as i32 + 1)],
                )
                .unwrap();
        }
    }
    let err = Store::open(path)
        .err()
        .expect("newer store refused")
        .to_string();
    assert!(err.contains("newer"), "{err}");
}

/// The target: a stored full scan adds under 2 MiB whatever the device size. Worst case here: a 4 TiB disk read at
/// ~150 MB/s (one series sample per second, ~8 hours), 1000 curve bins, the slow list full (10 000) and 1000
/// failed commands.
#[test]
fn a_stored_full_scan_of_4_tib_adds_under_2_mib() {
    let place = Place::sqlite("size");
    let path = place.path();
    drop(Store::open(path).unwrap());
    let before = std::fs::metadata(path).unwrap().len();
    let doc = sample::scan(11, 4 << 40, 1000, 10_000, 1000, Direction::Read);
    let json_len = serde_json::to_string(&doc).unwrap().len();
    {
        let mut store = Store::open(path).unwrap();
        store.save(&doc.clone().into()).unwrap();
    } // closing the last connection checkpoints the WAL into the database file
    let added = std::fs::metadata(path).unwrap().len() - before;
    eprintln!("4 TiB scan: document {json_len} bytes of JSON, store grew {added} bytes");
    assert!(
        doc.series.len() > 20_000,
        "the sample is the long worst case"
    );
    assert!(added < 2 << 20, "store grew {added} bytes");
}

/// The same PostgreSQL store named both ways `--store` takes: a libpq keyword/value string and a URI with the
/// socket directory percent-encoded as its host.
#[test]
fn a_postgres_store_opens_by_keywords_and_by_uri() {
    let place = Place::postgres("uri");
    let mut store = Store::open(&place.location).unwrap();
    let id = store.save(&sample::bench(4).into()).unwrap();
    drop(store);
    let field = |key: &str| {
        let conn = place.conn();
        let at = conn.find(&format!("{key}=")).unwrap() + key.len() + 1;
        conn[at..].split(' ').next().unwrap().to_string()
    };
    let socket_dir: String = field("host")
        .bytes()
        .map(|b| match b {
            b'/' => "%2F".to_string(),
            b => (b as char).to_string(),
        })
        .collect();
    let uri = format!(
        "postgresql://{}@{socket_dir}/{}",
        field("user"),
        field("dbname")
    );
    let location = Location::parse(&uri);
    assert_eq!(location, Location::Postgres(uri.clone()));
    let store = Store::open(location).unwrap();
    assert!(store.get_json(id).unwrap() == Document::from(sample::bench(4)).to_value());
    assert_eq!(store.location().to_string(), uri);
    assert_eq!(store.location().path(), None);
}
