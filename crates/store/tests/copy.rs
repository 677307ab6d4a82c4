//! Copying runs between stores: SQLite -> PostgreSQL -> a new SQLite store gives back the same documents in
//! the same order, and copying again adds nothing.

mod pg;

use drivescope_record::{Direction, Document};
use drivescope_report::sample;
use drivescope_store::{copy, Copied, ListFilter, Store};
use pg::Place;
use serde_json::Value;

/// Every document of a store, in the store's list order.
fn documents(store: &Store) -> Vec<Value> {
    let runs = store.list(&ListFilter::default()).unwrap();
    runs.iter().map(|r| store.get_json(r.id).unwrap()).collect()
}

fn copied(copied: usize, skipped: usize) -> Copied {
    Copied {
        copied,
        skipped,
        unreadable: vec![],
    }
}

#[test]
fn sqlite_to_postgres_and_back_keeps_every_document_and_copies_once() {
    let first = Place::sqlite("copy-from");
    let on_pg = Place::postgres("copy-pg");
    let back = Place::sqlite("copy-back");
    let future = serde_json::json!({"schema": "drivescope/1", "kind": "future", "device": null, "x": [1.5, 2]});
    let docs: Vec<Document> = vec![
        sample::scan(1, 1 << 36, 1000, 50, 2, Direction::Read).into(),
        sample::quick_scan(2, 1 << 36, 256).into(),
        sample::bench(3).into(),
        sample::sweep(4).into(),
        sample::soak(5, 600).into(),
        Document::from_value(future).unwrap(),
        // the same run saved twice is two runs, and stays two
        sample::bench(3).into(),
    ];
    let mut a = Store::open(&first.location).unwrap();
    for d in &docs {
        a.save(d).unwrap();
    }
    let mut b = Store::open(&on_pg.location).unwrap();
    assert_eq!(copy(&a, &mut b).unwrap(), copied(docs.len(), 0));
    assert_eq!(copy(&a, &mut b).unwrap(), copied(0, docs.len()));
    let mut c = Store::open(&back.location).unwrap();
    assert_eq!(copy(&b, &mut c).unwrap(), copied(docs.len(), 0));
    assert_eq!(copy(&b, &mut c).unwrap(), copied(0, docs.len()));
    // and into the first store again: everything is there already
    assert_eq!(copy(&c, &mut a).unwrap(), copied(0, docs.len()));

    let want = documents(&a);
    let sorted = |mut v: Vec<Value>| {
        v.sort_by_key(|d| d.to_string());
        v
    };
    assert!(
        sorted(want.clone()) == sorted(docs.iter().map(Document::to_value).collect()),
        "the first store holds what was saved"
    );
    for (place, store) in [(&on_pg, &b), (&back, &c)] {
        assert!(
            documents(store) == want,
            "{} holds other documents",
            place.backend
        );
    }
    // The identity columns are the same on every store.
    let infos = |s: &Store| {
        let mut l = s.list(&ListFilter::default()).unwrap();
        for r in &mut l {
            r.id = drivescope_store::RunId(0);
            r.saved_at.clear();
        }
        l
    };
    assert_eq!(infos(&a), infos(&b));
    assert_eq!(infos(&a), infos(&c));

    // A run added on one side is the only one a copy brings over.
    b.save(&sample::bench(9).into()).unwrap();
    assert_eq!(copy(&b, &mut c).unwrap(), copied(1, docs.len()));
}
