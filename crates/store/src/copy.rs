//! Copying every run from one store to another (SQLite to PostgreSQL and back), idempotently.
//!
//! A run is identified by its document: a run of the source is already in the destination when the
//! destination holds a run whose document is the same record (the same JSON values; numbers compared by
//! value, so jsonb's spelling of a float does not count as a difference). Runs with identical documents count
//! one for one: a source holding a document twice makes the destination hold it twice. Copying again therefore
//! adds nothing. Run numbers are the destination's own.

use crate::error::Result;
use crate::{ListFilter, RunId, Store};
use drivescope_record::Document;
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// What a copy did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Copied {
    /// Runs saved in the destination.
    pub copied: usize,
    /// Runs the destination already held.
    pub skipped: usize,
    /// Runs of the source that could not be read, with why (the copy goes on without them).
    pub unreadable: Vec<(RunId, String)>,
}

/// Copies every run of `from` that `to` does not hold yet, oldest first, each in its own transaction.
pub fn copy(from: &Store, to: &mut Store) -> Result<Copied> {
    // What the destination holds: content hash -> runs not yet matched to a source run.
    let mut held: HashMap<u64, Vec<(RunId, Value)>> = HashMap::new();
    for run in to.list(&ListFilter::default())? {
        let Ok(doc) = to.get(run.id) else { continue };
        let value = doc.to_value();
        held.entry(hash(&value)).or_default().push((run.id, value));
    }
    let mut out = Copied::default();
    let mut runs = from.list(&ListFilter::default())?;
    runs.reverse(); // oldest first: the destination numbers them in the same order
    for run in runs {
        // Through the record, as a save writes it: an older document gains its defaults once, on both sides.
        let doc = match from.get(run.id) {
            Ok(d) => d,
            Err(e) => {
                out.unreadable.push((run.id, e.to_string()));
                continue;
            }
        };
        let value = doc.to_value();
        let same = held.get_mut(&hash(&value)).and_then(|runs| {
            let at = runs.iter().position(|(_, v)| same_values(v, &value))?;
            Some(runs.swap_remove(at))
        });
        if same.is_some() {
            out.skipped += 1;
        } else {
            to.save(&Document::from_value(value).expect("a record reads back as itself"))?;
            out.copied += 1;
        }
    }
    Ok(out)
}

/// JSON values equal, numbers by value: integers exactly, anything else as f64.
fn same_values(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i128(), y.as_i128()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_values(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_values(v, w)))
        }
        _ => a == b,
    }
}

/// A hash that agrees with [`same_values`]: numbers hash as their f64 value.
fn hash(v: &Value) -> u64 {
    fn feed(v: &Value, h: &mut std::collections::hash_map::DefaultHasher) {
        match v {
            Value::Null => 0u8.hash(h),
            Value::Bool(b) => (1u8, b).hash(h),
            Value::Number(n) => {
                // -0.0 is 0.0 (as `same_values` says, and as PostgreSQL's numeric keeps it)
                let f = n.as_f64().unwrap_or(f64::NAN) + 0.0;
                (2u8, f.to_bits()).hash(h)
            }
            Value::String(s) => (3u8, s).hash(h),
            Value::Array(a) => {
                (4u8, a.len()).hash(h);
                a.iter().for_each(|v| feed(v, h));
            }
            Value::Object(o) => {
                // key order is not part of a document
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort();
                (5u8, keys.len()).hash(h);
                for k in keys {
                    k.hash(h);
                    feed(&o[k], h);
                }
            }
        }
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    feed(v, &mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_value_and_keys_in_any_order() {
        let a = json!({"a": 1e16, "b": [1, 2.5, "x"], "c": {"d": null}});
        let b: Value = serde_json::from_str(
            r#"{"c": {"d": null}, "b": [1, 2.5, "x"], "a": 10000000000000000}"#,
        )
        .unwrap();
        assert!(same_values(&a, &b));
        assert_eq!(hash(&a), hash(&b));
        for other in [
            json!({"a": 1e16, "b": [1, 2.5, "x"], "c": {"d": 0}}),
            json!({"a": 1e16, "b": [1, 2.5], "c": {"d": null}}),
            json!({"a": 1e16, "b": [1, 2.5, "y"], "c": {"d": null}}),
            json!({"a": 1e16, "b": [1, 2.5, "x"], "c": {"d": null}, "e": 1}),
        ] {
            assert!(!same_values(&a, &other), "{other}");
        }
        assert!(!same_values(&json!(u64::MAX), &json!(u64::MAX - 1)));
    }
}
