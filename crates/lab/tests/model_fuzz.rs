//! Property run over the model-file parser: arbitrary and near-valid TOML never panics the
//! parser or the validator, and a model it accepts can compute its truth. Small budget.

use drivescope_lab::Model;
use proptest::prelude::*;

fn size() -> impl Strategy<Value = String> {
    prop_oneof![
        "\"[0-9]{0,6}[KMGT]?\"",
        "[0-9]{1,20}",
        "-?[0-9]{1,4}\\.[0-9]",
        "\"[a-z%]{0,3}\"",
    ]
}

fn duration() -> impl Strategy<Value = String> {
    prop_oneof![
        "\"[0-9]{0,5}(ns|us|ms|s|h)?\"",
        "[0-9]{1,12}",
        "-?[0-9]\\.[0-9]{1,3}"
    ]
}

/// Model files built from the real keys with arbitrary values.
fn model_text() -> impl Strategy<Value = String> {
    (
        size(),
        prop::collection::vec(0u32..5000, 0..4),
        duration(),
        size(),
        size(),
        duration(),
        size(),
        0u8..4,
    )
        .prop_map(|(sz, rates, oh, boff, blen, blat, loff, extra)| {
            let rates: Vec<String> = rates.iter().map(|r| r.to_string()).collect();
            let mut t = format!(
                "name = \"f\"\nsize = {sz}\nzones = {{ rates_mb_s = [{}] }}\noverhead = {oh}\n\
                 bad = [{{ offset = {boff}, length = {blen}, latency = {blat} }}]\n\
                 lost_writes = [{{ offset = {loff} }}]\n",
                rates.join(", ")
            );
            match extra {
                0 => t.push_str("queue = { mode = \"parallel\", depth = 0 }\n"),
                1 => t.push_str("read_cache = { size = \"0\", rate_mb_s = 0 }\n"),
                2 => t.push_str("zones = { count = 0, outer_mb_s = 1, inner_mb_s = 2 }\n"),
                _ => t.push_str("seek = { min = \"9ms\", max = \"1ms\" }\n"),
            }
            t
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(s in any::<String>()) {
        let _ = Model::from_toml_str(&s, "fuzz");
    }

    #[test]
    fn near_valid_models_never_panic(s in model_text()) {
        if let Ok(m) = Model::from_toml_str(&s, "fuzz") {
            if m.validate().is_ok() {
                let _ = m.truth();
            }
        }
    }
}
