//! Property runs over the option parsers: whatever the text, they return Ok or Err, never
//! panic, and what they accept is consistent. A small budget (a few hundred cases each) so
//! this stays part of every test run.

use drivescope_core::bench::TestSpec;
use drivescope_core::units::{parse_duration, parse_size, parse_size_or_percent, SizeOrPercent};
use proptest::prelude::*;

/// Text that looks like an option value often enough to reach the deep paths.
fn value_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ 0-9.,+-]{0,12}[a-zA-Z%µ]{0,4}",
        "(SEQ|RND|seq|rnd)[0-9]{0,12}[KMGkmg]?( ?Q[0-9]{0,12}T[0-9]{0,12})?",
        "[0-9]{1,30}(K|KiB|M|MiB|G|GiB|T|TiB|P|E|%|ns|us|µs|ms|s|m|h|d)?",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn size_parsers_never_panic(s in value_text()) {
        if let Ok(v) = parse_size(&s) {
            // a value accepted is accepted again in plain bytes
            prop_assert_eq!(parse_size(&v.to_string()).ok(), Some(v));
        }
        if let Ok(SizeOrPercent::Percent(p)) = parse_size_or_percent(&s) {
            prop_assert!((0.0..=100.0).contains(&p), "percent {} out of range", p);
        }
    }

    #[test]
    fn duration_parser_never_panics(s in value_text()) {
        let _ = parse_duration(&s);
    }

    #[test]
    fn test_spec_parser_never_panics(s in value_text()) {
        if let Ok(spec) = TestSpec::parse(&s) {
            // what it accepts, it accepts again by its own name
            let again = TestSpec::parse(&spec.name());
            prop_assert!(again.is_ok(), "{} -> {} not accepted", s, spec.name());
        }
    }
}
