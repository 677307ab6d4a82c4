//! Property runs over stored documents: whatever JSON a store or a file hands back (any value, a
//! real record cut short or changed in one place, an older version's document without a field, a
//! newer version's with fields or kinds this one does not know), reading it never panics, and every
//! exporter that `show`, `export`, `compare` and `report` use either renders it or returns an error.
//!
//! The documents mutated are the real record types (`sample`), written as JSON. Small budgets, so
//! this stays part of every test run; `PROPTEST_CASES=5000` runs longer by hand.

use drivescope_record::Direction;
use drivescope_record::{Document, InfoRecord};
use drivescope_report::csv::Csv;
use drivescope_report::curve_csv::CurveCsv;
use drivescope_report::fio_json::FioJson;
use drivescope_report::html::Html;
use drivescope_report::json::Json;
use drivescope_report::markdown::Markdown;
use drivescope_report::text::Text;
use drivescope_report::{sample, Exporter, Run};
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Map, Number, Value};
use std::sync::OnceLock;

/// One small record of every kind, as the commands write them.
fn originals() -> &'static [Value] {
    static DOCS: OnceLock<Vec<Value>> = OnceLock::new();
    DOCS.get_or_init(|| {
        let docs: Vec<Document> = vec![
            sample::scan(1, 1 << 30, 24, 6, 3, Direction::Read).into(),
            sample::scan(2, 1 << 30, 24, 2, 0, Direction::Write).into(),
            sample::quick_scan(3, 1 << 30, 8).into(),
            sample::bench(4).into(),
            sample::sweep(5).into(),
            sample::soak(6, 12).into(),
            sample::steady(8, &[5000.0, 2700.0, 2800.0, 2750.0, 2820.0, 2790.0]).into(),
            InfoRecord::of_target(sample::device(7, 1 << 30)).into(),
        ];
        docs.iter().map(Document::to_value).collect()
    })
}

/// Numbers at the edges of what fields hold: zero, negative, the largest integers, huge floats.
fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(vec![
            Value::from(0),
            Value::from(-1),
            Value::from(1),
            Value::from(u64::MAX),
            Value::from(i64::MIN),
            Value::from(i64::MAX),
            Value::from(u32::MAX as u64 + 1),
            Value::from(1e300),
            Value::from(-1e300),
            Value::from(0.5),
            Value::from(f64::MIN_POSITIVE),
        ]),
    ]
}

/// Any JSON value, a few levels deep, with names of real fields among the keys.
fn json() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        prop::sample::select(vec![
            "schema",
            "kind",
            "curve",
            "tests",
            "cells",
            "series",
            "histogram",
            "buckets",
            "bands",
            "latency",
            "device",
            "target",
            "size",
            "offset",
            "length",
            "failed",
            "regions",
        ])
        .prop_map(String::from),
        "[a-z_]{0,8}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        number(),
        prop_oneof![
            Just("drivescope/1".to_string()),
            Just("scan".to_string()),
            ".{0,12}"
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Every value in `v`, depth first, as a path of keys and indices from the root.
fn paths(v: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                at.push(Step::Key(k.clone()));
                paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                at.push(Step::Item(i));
                paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Item(usize),
}

fn at_mut<'a>(v: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(v, |v, s| match s {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Item(i) => &mut v[*i],
    })
}

/// One change to a real document, at a place picked among all its values.
#[derive(Debug, Clone)]
enum Change {
    /// Another value in its place.
    Replace(Value),
    /// Gone: a field an older version did not write, or an item cut from a list.
    Remove,
    /// A field a newer version writes.
    AddField(String, Value),
    /// A value of the same type, so the document still reads: another number (zero, negative,
    /// the largest), another text, a list cut short, `true` for `false`.
    Like(Value, String, Index),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        1 => json().prop_map(Change::Replace),
        1 => Just(Change::Remove),
        1 => ("[a-z_]{1,10}", json()).prop_map(|(k, v)| Change::AddField(k, v)),
        3 => (number(), ".{0,12}", any::<Index>()).prop_map(|(n, t, i)| Change::Like(n, t, i)),
    ]
}

fn mutate(doc: &Value, place: Index, change: &Change) -> Value {
    let mut doc = doc.clone();
    let mut all = Vec::new();
    paths(&doc, &mut Vec::new(), &mut all);
    let path = &all[place.index(all.len())];
    match change {
        Change::Replace(v) => *at_mut(&mut doc, path) = v.clone(),
        Change::Remove => match path.split_last() {
            Some((Step::Key(k), parent)) => {
                at_mut(&mut doc, parent)
                    .as_object_mut()
                    .map(|m| m.remove(k));
            }
            Some((Step::Item(i), parent)) => {
                at_mut(&mut doc, parent)
                    .as_array_mut()
                    .map(|a| a.remove(*i));
            }
            None => doc = Value::Null,
        },
        Change::Like(number, text, cut) => {
            let v = at_mut(&mut doc, path);
            match v {
                Value::Number(_) | Value::Null => *v = number.clone(),
                Value::String(s) => *s = text.clone(),
                Value::Bool(b) => *b = !*b,
                Value::Array(a) => a.truncate(cut.index(a.len() + 1)),
                Value::Object(m) => m.clear(),
            }
        }
        Change::AddField(k, v) => {
            if let Some(m) = at_mut(&mut doc, path).as_object_mut() {
                m.insert(format!("x_{k}"), v.clone());
            }
        }
    }
    doc
}

/// Reads `v` as the store reads a document and puts it through every exporter, alone and beside a
/// real run. Returns what was read.
fn read_and_render(v: &Value) -> Option<Document> {
    let doc = Document::from_value(v.clone()).ok()?;
    let _ = (doc.kind(), doc.header(), doc.device());
    let written = doc.to_value();
    if let Document::Unknown { .. } = doc {
        // a document this version cannot type is kept exactly as it came
        assert_eq!(&written, v);
    }
    let one = [Run::new(Some(1), doc.clone())];
    let real = Document::from_value(originals()[0].clone()).unwrap();
    let two = [one[0].clone(), Run::new(Some(2), real)];
    let single: [&dyn Exporter; 8] = [
        &Text::Summary,
        &Json,
        &Csv { table: None },
        &Csv {
            table: Some("histogram.buckets".into()),
        },
        &Markdown::Summary,
        &CurveCsv,
        &FioJson,
        &Html::Compare,
    ];
    for e in single {
        let _ = e.to_bytes(&one);
    }
    let many: [&dyn Exporter; 4] = [
        &Text::Compare { color: true },
        &Markdown::Compare,
        &Html::Compare,
        &Html::Page {
            title: "fuzz".into(),
        },
    ];
    for e in many {
        let _ = e.to_bytes(&one);
        let _ = e.to_bytes(&two);
    }
    Some(doc)
}

/// Which original a case starts from (its number, so a failing case prints short).
fn original() -> impl Strategy<Value = usize> {
    0..originals().len()
}

/// `cases` per property, or `PROPTEST_CASES` when set (for a longer run by hand).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(cases),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

#[test]
fn the_originals_read_as_their_kinds_and_render() {
    for v in originals() {
        let doc = read_and_render(v).expect("a real record reads");
        assert!(!matches!(doc, Document::Unknown { .. }), "{:?}", doc.kind());
        assert_eq!(&doc.to_value(), v);
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// Any JSON value at all, and any value that names the schema and a kind.
    #[test]
    fn any_json_never_panics(v in json(), kind in prop_oneof![
        prop::sample::select(vec!["scan", "quick_scan", "bench", "sweep", "soak", "info", "lab_truth", ""]),
        Just("fleet"),
    ].prop_map(String::from)) {
        read_and_render(&v);
        if let Value::Object(mut m) = v {
            m.insert("schema".into(), "drivescope/1".into());
            m.insert("kind".into(), kind.into());
            read_and_render(&Value::Object(m));
        }
    }

    /// A real document changed in a few places: a value replaced by any other or by one of its
    /// type, a field or item removed (an older version's document), a field added (a newer
    /// version's).
    #[test]
    fn changed_documents_never_panic(i in original(), changes in prop::collection::vec((any::<Index>(), change()), 1..4)) {
        let changed = changes.iter().fold(originals()[i].clone(), |doc, (place, change)| mutate(&doc, *place, change));
        read_and_render(&changed);
    }

    /// A newer version's document: a field this version does not know is no reason to stop
    /// reading it as its kind.
    #[test]
    fn newer_fields_keep_the_kind(i in original(), name in "[a-z_]{1,10}", value in json()) {
        let mut newer = originals()[i].clone();
        newer[format!("x_{name}")] = value;
        match read_and_render(&newer) {
            Some(Document::Unknown { why, .. }) => prop_assert!(false, "not typed: {}", why),
            Some(_) => {}
            None => prop_assert!(false, "not read"),
        }
    }

    /// A real document under another kind's name, a newer schema, or a kind not known yet.
    #[test]
    fn renamed_documents_never_panic(i in original(), kind in prop_oneof![
        prop::sample::select(vec!["scan", "quick_scan", "bench", "sweep", "soak", "info", "diagnose"])
            .prop_map(String::from),
        ".{0,10}",
    ], schema in prop::sample::select(vec!["drivescope/1", "drivescope/2", "drivescope/"])) {
        let mut changed = originals()[i].clone();
        changed["kind"] = kind.into();
        changed["schema"] = schema.into();
        read_and_render(&changed);
    }

    /// A stored body cut short or with one byte changed, as a damaged file would hand it back.
    #[test]
    fn damaged_text_never_panics(i in original(), cut in any::<Index>(), byte in any::<u8>(), flip in any::<bool>()) {
        let mut text = serde_json::to_vec(&originals()[i]).unwrap();
        let at = cut.index(text.len());
        if flip {
            text[at] = byte;
        } else {
            text.truncate(at);
        }
        if let Ok(v) = serde_json::from_slice::<Value>(&text) {
            read_and_render(&v);
        }
    }
}
