//! The typed reads of the store, on SQLite and on a real PostgreSQL server: a run named by number
//! or `last`, the runs of one kind read as that kind's record, the newest of them, saving in place
//! of a checkpoint run, and how a run stands now.

mod pg;

use drivescope_record::{
    BenchRecord, Checkpoint, DiagnoseRecord, Direction, Document, Kind, RunStatus, ScanRecord,
};
use drivescope_report::sample;
use drivescope_store::{Error, ListFilter, RunId, Store};
use pg::Place;

on_both!(
    last_is_the_newest_run_of_the_kind_asked_and_numbers_are_themselves,
    runs_of_a_kind_read_as_its_record_newest_first,
    save_or_replace_updates_the_checkpoint_run_or_saves_a_new_one,
    a_checkpoint_is_running_while_its_writer_runs_and_interrupted_after,
);

/// A scan whose header says it started on day `seed` of the month (so later seeds are newer).
fn scan(seed: u64) -> ScanRecord {
    sample::scan(seed, 1 << 30, 20, 0, 0, Direction::Read)
}

fn last_is_the_newest_run_of_the_kind_asked_and_numbers_are_themselves(place: Place) {
    let mut store = Store::open(&place.location).unwrap();
    let said = |e: Error| format!("{e}");
    assert_eq!(
        said(store.resolve("last", None).unwrap_err()),
        "the store holds no runs yet"
    );
    store.save(&scan(1).into()).unwrap();
    store.save(&sample::bench(2).into()).unwrap();
    store.save(&scan(3).into()).unwrap();
    assert_eq!(store.resolve("last", None).unwrap(), RunId(3));
    assert_eq!(store.resolve("last", Some(Kind::Bench)).unwrap(), RunId(2));
    assert_eq!(store.resolve("last", Some(Kind::Scan)).unwrap(), RunId(3));
    assert_eq!(
        said(store.resolve("last", Some(Kind::Sweep)).unwrap_err()),
        "the store holds no sweep runs yet"
    );
    // A number is that run, whatever its kind; anything else says what a run's name is.
    assert_eq!(store.resolve("2", Some(Kind::Scan)).unwrap(), RunId(2));
    let e = store.resolve("lats", None).unwrap_err();
    assert_eq!(
        said(e),
        "\"lats\" is not a run number (see `drivescope runs`) or `last`"
    );
    let e = store.resolve("1.5", None).unwrap_err();
    let cause = std::error::Error::source(&e).expect("the number's own error");
    assert_eq!(cause.to_string(), "invalid digit found in string");
}

fn runs_of_a_kind_read_as_its_record_newest_first(place: Place) {
    let mut store = Store::open(&place.location).unwrap();
    let none: Option<(RunId, ScanRecord)> = store.latest(&ListFilter::default()).unwrap();
    assert!(none.is_none());
    let first = store.save(&scan(1).into()).unwrap();
    let bench = store.save(&sample::bench(2).into()).unwrap();
    let second = store.save(&scan(3).into()).unwrap();
    let quick = store
        .save(&sample::quick_scan(4, 1 << 30, 16).into())
        .unwrap();
    // The kind comes from the record asked for: scans, not the quick scan (another kind).
    let scans: Vec<(RunId, ScanRecord)> = store
        .runs_of(&ListFilter::default())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let ids: Vec<RunId> = scans.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, vec![second, first]);
    assert!(scans[0].1.header.started_at.starts_with("2026-11-04"));
    let (id, newest) = store
        .latest::<ScanRecord>(&ListFilter::default())
        .unwrap()
        .unwrap();
    assert_eq!(id, second);
    assert!(Document::from(newest).to_value() == Document::from(scan(3)).to_value());
    // A quick scan is asked for by name, and reads as a scan's record.
    let asked = ListFilter {
        kind: Some(Kind::QuickScan.as_str().into()),
        ..ListFilter::default()
    };
    assert_eq!(
        store.latest::<ScanRecord>(&asked).unwrap().unwrap().0,
        quick
    );
    // Runs listed that are not the record asked for are passed over.
    assert!(store.latest::<BenchRecord>(&asked).unwrap().is_none());
    assert_eq!(
        store
            .latest::<BenchRecord>(&ListFilter::default())
            .unwrap()
            .unwrap()
            .0,
        bench
    );
    assert!(store
        .latest::<DiagnoseRecord>(&ListFilter::default())
        .unwrap()
        .is_none());
    // Every run, as documents, oldest first when asked; the filter's limit holds.
    let oldest_first = ListFilter {
        oldest_first: true,
        ..ListFilter::default()
    };
    let all: Vec<RunId> = store
        .runs_of::<Document>(&oldest_first)
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(all, vec![first, bench, second, quick]);
    let two = ListFilter {
        limit: Some(2),
        ..ListFilter::default()
    };
    assert_eq!(store.runs_of::<Document>(&two).unwrap().count(), 2);
}

fn save_or_replace_updates_the_checkpoint_run_or_saves_a_new_one(place: Place) {
    let mut store = Store::open(&place.location).unwrap();
    let mut snap = scan(1);
    snap.interrupted = true;
    snap.checkpoint = Some(Checkpoint::this_process(1_000_000_000));
    let id = store.save_or_replace(&snap.into(), None).unwrap();
    // The run's own document replaces its last checkpoint, under the same number.
    let done: Document = scan(1).into();
    assert_eq!(store.save_or_replace(&done, Some(id)).unwrap(), id);
    assert_eq!(store.count(&ListFilter::default()).unwrap(), 1);
    assert!(store.get_json(id).unwrap() == done.to_value());
    // A checkpoint run that is gone: the document is saved as a new run.
    let again = store
        .save_or_replace(&done, Some(RunId(id.0 + 100)))
        .unwrap();
    assert_ne!(again, id);
    assert_eq!(store.count(&ListFilter::default()).unwrap(), 2);
    assert!(store.get_json(again).unwrap() == done.to_value());
}

/// A checkpoint named for a process that has ended (a child that ran and was reaped).
fn ended_writer() -> Checkpoint {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    child.wait().unwrap();
    Checkpoint {
        pid: child.id(),
        ..Checkpoint::this_process(1_000_000_000)
    }
}

fn a_checkpoint_is_running_while_its_writer_runs_and_interrupted_after(place: Place) {
    let mut store = Store::open(&place.location).unwrap();
    let mut running = scan(1);
    running.interrupted = true;
    running.checkpoint = Some(Checkpoint::this_process(1_000_000_000));
    let mut killed = running.clone();
    killed.checkpoint = Some(ended_writer());
    let mut lost = scan(2);
    lost.device_lost = Some("the device went away".into());
    let docs: Vec<Document> = vec![running.into(), killed.into(), scan(3).into(), lost.into()];
    for d in &docs {
        store.save(d).unwrap();
    }
    let listed = store
        .list(&ListFilter {
            oldest_first: true,
            ..ListFilter::default()
        })
        .unwrap();
    let shown: Vec<Option<RunStatus>> = listed.iter().map(|r| store.status(r)).collect();
    // The listed runs sort by start: the two checkpoints (day 1), the finished scan (day 3) after
    // the lost one (day 2).
    assert_eq!(
        shown,
        vec![
            Some(RunStatus::Running),
            Some(RunStatus::Interrupted),
            Some(RunStatus::DeviceLost),
            Some(RunStatus::Finished),
        ]
    );
    // The store's answer is the documents' own.
    for (info, want) in listed.iter().zip(&shown) {
        assert_eq!(RunStatus::of(&store.get(info.id).unwrap()), *want);
    }
}

#[test]
fn a_damaged_run_is_passed_over_by_a_walk() {
    let place = Place::sqlite("typed_damaged");
    let mut store = Store::open(&place.location).unwrap();
    let older = store.save(&scan(1).into()).unwrap();
    let newer = store.save(&scan(2).into()).unwrap();
    let path = place.location.path().unwrap().to_path_buf();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE run_documents SET body = x'00ff' WHERE run_id = ?1",
        [newer.0],
    )
    .unwrap();
    assert!(matches!(store.get(newer), Err(Error::Corrupt(..))));
    let (id, _) = store
        .latest::<ScanRecord>(&ListFilter::default())
        .unwrap()
        .unwrap();
    assert_eq!(id, older);
}
