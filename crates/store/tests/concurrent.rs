//! Many hosts writing one store at once lose nothing: 8 writers, each with its own connection, save 50 runs
//! each at the same time; afterwards the store holds 400 runs with distinct numbers, each reading back as the
//! document its writer saved. On PostgreSQL (the store that hosts share) and on SQLite (processes of one host).

mod pg;

use drivescope_record::{Direction, Document};
use drivescope_report::sample;
use drivescope_store::{ListFilter, RunId, Store};
use pg::Place;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Barrier};

const WRITERS: u64 = 8;
const RUNS: u64 = 50;

on_both!(eight_writers_at_once_lose_nothing);

/// Run `i` of writer `w`: a real scan record whose host names both.
fn doc(w: u64, i: u64) -> Document {
    let mut d = sample::scan(w * RUNS + i + 1, 1 << 30, 20, 2, 1, Direction::Read);
    d.header.host = format!("writer-{w}-run-{i}");
    d.into()
}

fn eight_writers_at_once_lose_nothing(place: Place) {
    drop(Store::open(&place.location).unwrap()); // the schema, once
    let start = Arc::new(Barrier::new(WRITERS as usize));
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let location = place.location.clone();
            let start = start.clone();
            std::thread::spawn(move || {
                let mut store = Store::open(&location).unwrap();
                start.wait();
                (0..RUNS)
                    .map(|i| (store.save(&doc(w, i)).unwrap(), (w, i)))
                    .collect::<Vec<(RunId, (u64, u64))>>()
            })
        })
        .collect();
    let saved: HashMap<RunId, (u64, u64)> = writers
        .into_iter()
        .flat_map(|t| t.join().expect("a writer failed"))
        .collect();
    assert_eq!(
        saved.len() as u64,
        WRITERS * RUNS,
        "run numbers handed out twice"
    );
    let store = Store::open(&place.location).unwrap();
    let listed = store.list(&ListFilter::default()).unwrap();
    assert_eq!(listed.len() as u64, WRITERS * RUNS, "{}", place.backend);
    let ids: BTreeSet<RunId> = listed.iter().map(|r| r.id).collect();
    assert_eq!(ids.len() as u64, WRITERS * RUNS);
    for run in &listed {
        let (w, i) = saved[&run.id];
        assert_eq!(
            run.host.as_deref(),
            Some(format!("writer-{w}-run-{i}").as_str())
        );
        assert!(
            store.get_json(run.id).unwrap() == doc(w, i).to_value(),
            "run {} of writer {w} reads back changed",
            run.id
        );
    }
}

/// Processes opening a store that does not exist yet, all at once (a scan saving its first checkpoint while
/// `drivescope runs` looks): every one opens it, none is told the database is locked.
#[test]
fn many_opening_a_new_sqlite_store_at_once_all_open_it() {
    for round in 0..20 {
        let dir = std::env::temp_dir().join(format!(
            "drivescope-open-race-{}-{round}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("runs.sqlite");
        let start = Arc::new(Barrier::new(WRITERS as usize));
        let openers: Vec<_> = (0..WRITERS)
            .map(|_| {
                let (start, path) = (start.clone(), path.clone());
                std::thread::spawn(move || {
                    start.wait();
                    Store::open(&path).map(|_| ()).map_err(|e| e.to_string())
                })
            })
            .collect();
        for o in openers {
            o.join()
                .unwrap()
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
