//! Property runs over the option parsers (sizes, durations, test names, profiles, the
//! `--confirm` text that names a device): whatever the text, they return Ok or Err, never
//! panic, and what they accept is consistent. A small budget (a few hundred cases each) so
//! this stays part of every test run.

use drivescope_core::bench::{profile, TestSpec};
use drivescope_core::safety::DeviceName;
use drivescope_core::units::{
    format_size, parse_duration, parse_size, parse_size_or_percent, ShownSize, SizeOrPercent,
};
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

    #[test]
    fn profile_names_never_panic(s in value_text()) {
        let known = ["default", "nvme", "peak", "realworld"];
        match profile(&s) {
            Ok(tests) => prop_assert!(known.contains(&s.as_str()) && !tests.is_empty()),
            Err(e) => prop_assert!(!known.contains(&s.as_str()) && !e.to_string().contains('\n'), "{}", e),
        }
    }

    /// A size as a person types it back in a confirmation: parsed or refused, and what it names
    /// is decided for any device size.
    #[test]
    fn shown_sizes_never_panic(s in shown_text(), bytes in prop_oneof![any::<u64>(), (1u64 << 60)..]) {
        if let Ok(size) = ShownSize::parse(&s) {
            let _ = size.names(bytes);
        }
    }

    /// `--confirm TEXT`: any text is accepted or refused, and only text that starts with the
    /// device's serial, or with its model and a size, is accepted.
    #[test]
    fn confirmations_never_panic(
        model in "[A-Za-z][A-Za-z0-9 _.-]{0,16}",
        serial in proptest::option::of("[A-Z0-9][A-Z0-9-]{3,12}"),
        size in prop_oneof![1u64..(1 << 50), any::<u64>()],
        given in confirm_text(),
    ) {
        let d = DeviceName { serial, model: model.trim().to_string(), size };
        if d.accepts(&given) {
            let said = given.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
            let name = d.serial.as_deref().unwrap_or(&d.model).to_lowercase();
            prop_assert!(said.trim_matches(['"', '\'']).starts_with(&name), "{:?} accepted for {:?}", given, d);
        }
        // a changed confirmation is never accepted for a device of another shown size
        let other = DeviceName { size: size / 2 + 1, ..d.clone() };
        if d.serial.is_none() && format_size(other.size) != format_size(size) {
            prop_assert!(!other.accepts(&d.confirmation()));
        }
    }
}

/// Sizes as people write them, and text near them.
fn shown_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[0-9]{0,22}(\\.[0-9]{0,22})? ?(B|K|KiB|MiB|GiB|TiB|PiB|EiB|gb|x)?",
        // the finest steps a confirmation can be written in
        "0\\.0{15,19}[1-9] ?(B|K|PiB)?",
    ]
}

/// What a user types after `--confirm`.
fn confirm_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[\"']?[A-Za-z0-9 _.-]{0,16} [0-9.]{0,22} ?(B|KiB|MiB|GiB|TiB|PiB|G)?[\"']?",
        // quotes, spaces and characters of more than one byte, alone or nearly
        "[\"' µé\t]{0,3}[a-z0-9.]{0,2}[\"' µé]{0,2}",
        shown_text(),
    ]
}
