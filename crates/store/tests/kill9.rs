//! `kill -9` during saves leaves a store that opens and holds every earlier run, and no half run.
//!
//! The test runs itself as the child: with `DRIVESCOPE_KILL9_STORE` set, `child_saves_forever` saves runs in a
//! loop and prints `saved ID SEQ` after each commit; the parent kills it with SIGKILL at varying moments.
//! The child begins each save only when the parent says so (a line on its stdin), so however late a busy
//! host runs the parent, the save it kills is the one it let begin, and no other.
//! Likewise `child_replaces_forever` (with `DRIVESCOPE_KILL9_REPLACE`) replaces one run's document again and
//! again, as a scan's checkpoints do: killed at any moment, the run holds one of the documents, whole.
//! On SQLite and on a real PostgreSQL server (where the kill drops the connection inside its transaction).

mod pg;

use drivescope_record::{Direction, Document};
use drivescope_report::sample;
use drivescope_store::{ListFilter, Location, RunId, Store};
use pg::Place;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

const ENV: &str = "DRIVESCOPE_KILL9_STORE";
const ENV_REPLACE: &str = "DRIVESCOPE_KILL9_REPLACE";

on_both!(
    kill_9_during_save_keeps_every_earlier_run,
    kill_9_during_replace_keeps_one_whole_document
);

/// How the child is told where the store is: the path, or the connection string.
fn env_value(l: &Location) -> std::ffi::OsString {
    match l {
        Location::Sqlite(p) => p.clone().into_os_string(),
        Location::Postgres(conn) => conn.into(),
    }
}

/// Run `seq` of the child: a scan record whose host names its sequence number.
fn doc(seq: u64) -> Document {
    // Large enough that a save takes milliseconds, so kills land inside saves.
    let mut d = sample::scan(seq, 1 << 36, 1000, 3000, 100, Direction::Read);
    d.header.host = format!("seq-{seq}");
    d.into()
}

fn seq_of(d: &Document) -> u64 {
    let host = &d.header().expect("a run").host;
    host.strip_prefix("seq-").unwrap().parse().unwrap()
}

fn curve_len(d: &Document) -> usize {
    match d {
        Document::Scan(s) => s.curve.len(),
        _ => 0,
    }
}

#[test]
fn child_saves_forever() {
    let Some(path) = std::env::var_os(ENV) else {
        return;
    };
    let mut store = Store::open(path).unwrap();
    let start = store.list(&ListFilter::default()).unwrap().len() as u64;
    let mut go = std::io::stdin().lock().lines();
    for seq in start.. {
        let d = doc(seq);
        if go.next().is_none() {
            return;
        }
        println!("begin {seq}");
        let id = store.save(&d).unwrap();
        println!("saved {} {seq}", id.0);
    }
}

fn kill_9_during_save_keeps_every_earlier_run(place: Place) {
    let path = &place.location;
    let mut confirmed: Vec<(i64, u64)> = Vec::new();
    let mut expected = HashMap::new();
    let mut whole = HashSet::new();
    for round in 0..8u64 {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_saves_forever",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ENV, env_value(path))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut go = child.stdin.take().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut this_round = 0;
        writeln!(go, "go").unwrap();
        while this_round < 3 {
            let line = lines.next().expect("child alive").unwrap();
            if let Some(rest) = line.strip_prefix("saved ") {
                let (id, seq) = rest.split_once(' ').unwrap();
                confirmed.push((id.parse().unwrap(), seq.parse().unwrap()));
                this_round += 1;
                writeln!(go, "go").unwrap();
            }
        }
        // Kill inside the next save: right after it begins, later in each round.
        while !lines
            .next()
            .expect("child alive")
            .unwrap()
            .starts_with("begin ")
        {}
        std::thread::sleep(Duration::from_micros(400 * round));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();

        let store = Store::open(path).expect("store opens after kill -9");
        let listed = store.list(&ListFilter::default()).unwrap();
        let stored: HashMap<i64, u64> = listed.iter().map(|i| (i.id.0, seq_listed(i))).collect();
        for (id, seq) in &confirmed {
            assert_eq!(stored.get(id), Some(seq), "every confirmed run is kept");
        }
        // Runs listed for the first time (this round's, and one committed but not yet reported when
        // it was killed) are read back whole; every run is read back again after the last round.
        for info in &listed {
            if !whole.contains(&info.id.0) {
                check_whole(&store, info.id, &mut expected);
                whole.insert(info.id.0);
            }
        }
        assert!(listed.len() >= confirmed.len() && listed.len() <= confirmed.len() + 1);
        // Continue numbering from what is stored, as the child does.
        confirmed = stored.into_iter().collect();
    }
    // Later kills left the earlier runs as they were.
    let store = Store::open(path).unwrap();
    for info in store.list(&ListFilter::default()).unwrap() {
        check_whole(&store, info.id, &mut expected);
    }
}

/// The run's number, as its host names it in the list.
fn seq_listed(info: &drivescope_store::RunInfo) -> u64 {
    let host = info.host.as_deref().expect("a host");
    host.strip_prefix("seq-").unwrap().parse().unwrap()
}

/// The run `id` reads back as the document of its number, whole.
fn check_whole(store: &Store, id: RunId, expected: &mut HashMap<u64, serde_json::Value>) {
    let d = store.get(id).expect("no half run is listed");
    assert_eq!(curve_len(&d), 1000);
    let seq = seq_of(&d);
    let want = expected.entry(seq).or_insert_with(|| doc(seq).to_value());
    assert!(
        d.to_value() == *want,
        "run {} differs from what was saved",
        id.0
    );
}

#[test]
fn child_replaces_forever() {
    let Some(path) = std::env::var_os(ENV_REPLACE) else {
        return;
    };
    let mut store = Store::open(path).unwrap();
    let run = match store.list(&ListFilter::default()).unwrap().first() {
        Some(r) => r.id,
        None => store.save(&doc(0)).unwrap(),
    };
    let start = seq_of(&store.get(run).unwrap()) + 1;
    let mut go = std::io::stdin().lock().lines();
    for seq in start.. {
        if go.next().is_none() {
            return;
        }
        println!("begin {seq}");
        store.replace(run, &doc(seq)).unwrap();
        println!("replaced {seq}");
    }
}

fn kill_9_during_replace_keeps_one_whole_document(place: Place) {
    let path = &place.location;
    for round in 0..8u64 {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_replaces_forever",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ENV_REPLACE, env_value(path))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut go = child.stdin.take().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        // Let it replace twice, then kill it inside the next replace: right after it begins, later in
        // each round. `confirmed` is the last replace it reported done.
        // The kill lands at a point spread over the length of the quickest replace timed here.
        let (mut done, mut confirmed) = (0, 0);
        let mut began = std::time::Instant::now();
        let mut took = Duration::MAX;
        writeln!(go, "go").unwrap();
        loop {
            let line = lines.next().expect("child alive").unwrap();
            if let Some(seq) = line.strip_prefix("replaced ") {
                confirmed = seq.parse().unwrap();
                took = took.min(began.elapsed());
                done += 1;
                writeln!(go, "go").unwrap();
            } else if line.starts_with("begin ") {
                if done >= 3 {
                    break;
                }
                began = std::time::Instant::now();
            }
        }
        std::thread::sleep(took * round as u32 / 8);
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();

        let store = Store::open(path).expect("store opens after kill -9");
        let listed = store.list(&ListFilter::default()).unwrap();
        assert_eq!(listed.len(), 1, "replacing adds no run");
        let d = store.get(listed[0].id).expect("the run is kept");
        let seq = seq_of(&d);
        assert!(
            seq == confirmed || seq == confirmed + 1,
            "run holds document {seq}, the last confirmed was {confirmed}"
        );
        assert!(
            d.to_value() == doc(seq).to_value(),
            "document {seq} is whole"
        );
        assert_eq!(
            listed[0].host.as_deref(),
            Some(format!("seq-{seq}").as_str())
        );
    }
}
