//! Property run over the rules on stored records: real records (`sample`) with up to three
//! numbers or lists changed to what no run writes (zero, negative, huge, a list cut short) give
//! findings or none, never a panic, and every finding has a claim to read. Small budget.

use drivescope_analysis::findings;
use drivescope_record::{Direction, Document};
use drivescope_report::sample;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;

fn originals() -> Vec<Value> {
    let docs: Vec<Document> = vec![
        sample::scan(1, 1 << 30, 40, 4, 2, Direction::Read).into(),
        sample::bench(2).into(),
        sample::sweep(3).into(),
        sample::soak(4, 30).into(),
    ];
    docs.iter().map(Document::to_value).collect()
}

/// Paths to every number and list in `v`.
fn leaves(v: &Value, at: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => m.iter().for_each(|(k, c)| {
            at.push(k.as_str().into());
            leaves(c, at, out);
            at.pop();
        }),
        Value::Array(a) => {
            out.push(at.clone());
            a.iter().enumerate().for_each(|(i, c)| {
                at.push(i.into());
                leaves(c, at, out);
                at.pop();
            })
        }
        Value::Number(_) => out.push(at.clone()),
        _ => {}
    }
}

fn at_mut<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(v, |v, k| match k {
        Value::String(k) => &mut v[k.as_str()],
        k => &mut v[k.as_u64().unwrap() as usize],
    })
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::from(0)),
        Just(Value::from(-1)),
        Just(Value::from(u64::MAX)),
        Just(Value::from(i64::MIN)),
        Just(Value::from(1e300)),
        Just(Value::from(-1e300)),
        Just(Value::from(f64::MIN_POSITIVE)),
        any::<u32>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
    ]
}

/// A write burst whose stored byte counts add up past u64: found, its size saturated.
#[test]
fn a_burst_of_more_bytes_than_u64_holds() {
    let mut soak = sample::soak(4, 30);
    for p in &mut soak.series {
        p.bytes = u64::MAX / 2;
    }
    let found = findings(&soak.into());
    assert!(
        found.iter().any(|f| f.claim.contains("16384.0 PiB")),
        "{found:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(128), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn rules_never_panic(i in 0usize..4, changes in prop::collection::vec((any::<Index>(), number(), any::<Index>()), 1..4)) {
        let mut doc = originals().swap_remove(i);
        for (place, n, cut) in changes {
            let mut all = Vec::new();
            leaves(&doc, &mut Vec::new(), &mut all);
            match at_mut(&mut doc, &all[place.index(all.len())]) {
                Value::Array(a) => a.truncate(cut.index(a.len() + 1)),
                v => *v = n,
            }
        }
        if let Ok(doc) = Document::from_value(doc) {
            for f in findings(&doc) {
                prop_assert!(!f.claim.trim().is_empty());
            }
        }
    }
}
