//! Property runs over the store's query filters (`runs --device/--kind/--since/--until/--limit`)
//! and run numbers: whatever the text or number, a query returns runs or an error, never panics,
//! and what it returns is what the filter asks for. One store of real records (`sample`) per
//! test, on SQLite and on a real PostgreSQL server; small budgets.

mod pg;

use drivescope_record::{Direction, Document};
use drivescope_report::sample;
use drivescope_store::{ListFilter, RunId, RunInfo, Store};
use pg::Place;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

on_both!(
    any_filter_lists_what_it_asks_for,
    any_run_number_reads_or_is_not_found
);

fn store(place: &Place) -> (Store, Vec<RunInfo>) {
    let mut store = Store::open(&place.location).unwrap();
    let future = serde_json::json!({"schema": "drivescope/1", "kind": "fleet", "started_at": "x"});
    let docs: Vec<Document> = vec![
        sample::scan(3, 1 << 30, 10, 2, 1, Direction::Read).into(),
        sample::scan(20, 1 << 30, 10, 0, 0, Direction::Write).into(),
        sample::quick_scan(9, 1 << 30, 4).into(),
        sample::bench(10).into(),
        sample::sweep(11).into(),
        sample::soak(12, 5).into(),
        Document::from_value(future).unwrap(),
    ];
    for d in &docs {
        store.save(d).unwrap();
    }
    let all = store.list(&ListFilter::default()).unwrap();
    assert_eq!(all.len(), docs.len());
    (store, all)
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(cases),
        failure_persistence: None,
        ..Config::default()
    })
}

/// Filter text: anything, SQL's own characters, and pieces of what the store holds.
fn text() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(prop_oneof![
        any::<String>(),
        "[%_'\";\\\\\\-*()\0 ]{0,6}",
        prop::sample::select(vec![
            "sample-0003",
            "SAMPLE",
            "acme hd",
            "/dev/sdx",
            "sdx",
            "scan",
            "quick_scan",
            "bench",
            "screen",
            "2026-11",
            "2026-11-11",
            "2026-11-11T10:00",
            "x",
            "%",
            "_",
            "' OR 1=1 --",
        ])
        .prop_map(String::from),
    ])
}

fn limit() -> impl Strategy<Value = Option<usize>> {
    proptest::option::of(prop_oneof![0usize..10, any::<usize>()])
}

fn fields(r: &RunInfo) -> [String; 4] {
    [
        &r.device_model,
        &r.device_serial,
        &r.device_name,
        &r.target_path,
    ]
    .map(|f| f.as_deref().unwrap_or("").to_ascii_lowercase())
}

fn any_filter_lists_what_it_asks_for(place: Place) {
    let (store, all) = store(&place);
    runner(256)
        .run(
            &(
                (text(), text(), text(), text()),
                limit(),
                limit(),
                any::<bool>(),
            ),
            |((device, kind, since, until), limit, offset, oldest_first)| {
                let filter = ListFilter {
                    device: device.clone(),
                    kind: kind.clone(),
                    since: since.clone(),
                    until: until.clone(),
                    limit,
                    offset,
                    oldest_first,
                };
                let got = store
                    .list(&filter)
                    .map_err(|e| TestCaseError::fail(format!("{filter:?}: {e}")))?;
                // The page is that stretch of the whole list in its order; count is the
                // whole list's length.
                let whole = store
                    .list(&ListFilter {
                        limit: None,
                        offset: None,
                        ..filter.clone()
                    })
                    .map_err(|e| TestCaseError::fail(format!("{filter:?}: {e}")))?;
                let from = offset.unwrap_or(0).min(whole.len());
                let to = from
                    .saturating_add(limit.unwrap_or(usize::MAX))
                    .min(whole.len());
                prop_assert_eq!(&got[..], &whole[from..to]);
                let count = store
                    .count(&filter)
                    .map_err(|e| TestCaseError::fail(format!("{filter:?}: {e}")))?;
                prop_assert_eq!(count, whole.len() as u64);
                let newest = store
                    .list(&ListFilter {
                        oldest_first: !oldest_first,
                        ..filter.clone()
                    })
                    .map_err(|e| TestCaseError::fail(format!("{filter:?}: {e}")))?;
                if offset.is_none() && limit.is_none() {
                    let reversed: Vec<&RunInfo> = newest.iter().rev().collect();
                    let got_refs: Vec<&RunInfo> = got.iter().collect();
                    prop_assert_eq!(got_refs, reversed);
                }
                prop_assert!(got.len() <= limit.unwrap_or(usize::MAX));
                prop_assert!(got.iter().all(|r| all.contains(r)));
                let set = |s: &Option<String>| s.clone().filter(|s| !s.is_empty());
                if let Some(k) = set(&kind) {
                    prop_assert!(got.iter().all(|r| r.kind == k));
                }
                if let Some(d) = set(&device) {
                    let d = d.to_lowercase();
                    prop_assert!(
                        got.iter().all(|r| fields(r).iter().any(|f| f.contains(&d))),
                        "{:?} lists a run that does not hold it",
                        d
                    );
                }
                if let Some(s) = set(&since) {
                    prop_assert!(got
                        .iter()
                        .all(|r| r.started_at.as_deref().is_some_and(|t| t >= s.as_str())));
                }
                // with no limit, every run the filter names is listed
                if limit.is_none()
                    && offset.is_none()
                    && set(&since).is_none()
                    && set(&until).is_none()
                {
                    let want = all.iter().filter(|r| {
                        set(&kind).is_none_or(|k| r.kind == k)
                            && set(&device).is_none_or(|d| {
                                let d = d.to_ascii_lowercase();
                                d.is_ascii() && fields(r).iter().any(|f| f.contains(&d))
                            })
                    });
                    for r in want {
                        prop_assert!(got.contains(r), "{:?} leaves out run {}", filter, r.id);
                    }
                }
                Ok(())
            },
        )
        .unwrap();
}

fn any_run_number_reads_or_is_not_found(place: Place) {
    let (store, all) = store(&place);
    runner(256)
        .run(&prop_oneof![any::<i64>(), -2i64..12], |n| {
            let known = all.iter().any(|r| r.id == RunId(n));
            match (store.get(RunId(n)), store.info(RunId(n))) {
                (Ok(doc), Ok(info)) => {
                    prop_assert!(known);
                    prop_assert_eq!(doc.kind().as_str().to_string(), info.kind);
                }
                (Err(a), Err(b)) => {
                    prop_assert!(!known);
                    prop_assert!(a.to_string().contains("not found"), "{}", a);
                    prop_assert!(b.to_string().contains("not found"), "{}", b);
                }
                _ => prop_assert!(false, "get and info disagree on run {}", n),
            }
            Ok(())
        })
        .unwrap();
}
