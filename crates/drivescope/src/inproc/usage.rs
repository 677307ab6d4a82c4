//! Command lines that are wrong end 2 with clap's line; help ends 0. In-process.

use super::drive;

#[test]
fn an_unknown_option_is_a_usage_error() {
    let ran = drive(&["scan", "null:1M", "--no-such-option"]);
    assert!(ran.ends(2).error().contains("--no-such-option"), "{ran:?}");
}

#[test]
fn an_unknown_command_is_a_usage_error() {
    drive(&["scrub", "null:1M"]).ends(2);
}

#[test]
fn a_bad_size_is_a_usage_error() {
    drive(&["scan", "null:1M", "--block-size", "12parsecs"]).ends(2);
}

#[test]
fn a_bad_test_name_is_a_usage_error() {
    drive(&["bench", "null:1M", "--test", "RND4K Q0T1"]).ends(2);
}

#[test]
fn store_and_no_store_conflict() {
    drive(&[
        "scan",
        "null:1M",
        "--store",
        "/nonexistent/x.db",
        "--no-store",
    ])
    .ends(2);
}

#[test]
fn verify_needs_write() {
    drive(&["scan", "null:1M", "--verify"]).ends(2);
}

#[test]
fn help_ends_0_with_the_exit_codes() {
    let ran = drive(&["scan", "--help"]);
    assert!(ran.ends(0).stdout.contains("Exit codes:"), "{ran:?}");
}

#[test]
fn a_scan_without_target_or_resume_is_a_usage_error() {
    drive(&["scan"]).ends(2);
}

#[test]
fn a_null_target_of_size_0_fails() {
    drive(&["scan", "null:0", "--no-store"]).ends(1);
}
