//! Property run over the model-file parser: arbitrary and near-valid TOML never panics the
//! parser or the validator, what it refuses it says in one line, and a model it accepts can
//! compute its truth for any size, block size and number of points. Small budget.

use drivescope_core::scan::MAX_POINTS;
use drivescope_lab::{presets, Model};
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
        if let Err(e) = Model::from_toml_str(&s, "fuzz") {
            prop_assert!(!e.to_string().contains('\n'), "more than one line: {}", e);
        }
    }

    /// Near-valid model files: parsed and checked, or refused with one line.
    #[test]
    fn near_valid_models_never_panic(s in model_text()) {
        match Model::from_toml_str(&s, "fuzz") {
            Ok(m) => {
                if m.validate().is_ok() {
                    let _ = m.truth();
                }
            }
            Err(e) => prop_assert!(!e.to_string().contains('\n'), "more than one line: {}", e),
        }
    }
}

proptest! {
    // each case computes a truth of up to MAX_POINTS positions: fewer cases
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]

    /// `lab truth MODEL --size S --block-size B --points N`: any numbers give a truth or one
    /// line saying why not.
    #[test]
    fn any_size_block_and_points_give_a_truth(
        preset in prop::sample::select(presets::names().collect::<Vec<_>>()),
        size in prop_oneof![Just(None), (0u64..(1 << 36)).prop_map(Some), any::<u64>().prop_map(Some)],
        block in prop_oneof![Just(512u64), 0u64..(1 << 22), any::<u64>()],
        points in prop_oneof![0usize..3000, MAX_POINTS..4 * MAX_POINTS, any::<usize>()],
    ) {
        let m = presets::preset(preset).unwrap();
        let m = match size {
            Some(s) => m.with_size(s),
            None => Ok(m),
        };
        match m {
            Ok(m) => {
                let t = m.truth_with(block, points);
                prop_assert!((1..=MAX_POINTS).contains(&t.positions.len()), "{} positions", t.positions.len());
            }
            Err(e) => prop_assert!(!e.to_string().contains('\n'), "{}", e),
        }
    }
}
