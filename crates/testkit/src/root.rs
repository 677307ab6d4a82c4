//! The one rule for tests that need root (loop and zram devices, FUSE lab disks, tracefs,
//! cgroups, dropping the page cache), shared by the test helpers of every crate:
//! - as root the test runs, and a missing capability fails it loudly;
//! - not root and `CI` unset, the test returns early after one line on the terminal that says
//!   what it skipped and why (written to stderr directly, which the harness does not capture);
//! - not root with `CI` set, the test fails: CI runs as root, and a skip there would hide a gap.
//!
//! Use at the top of a test: `if skip_without_root("creates loop devices") { return; }`.

use std::io::Write;

/// True when this test should return now (not root, outside CI), after saying so on stderr.
/// Panics when not root in CI. `why` says what the test does that needs root.
pub fn skip_without_root(why: &str) -> bool {
    if effective_uid() == 0 {
        return false;
    }
    let test = test_name();
    if std::env::var_os("CI").is_some() {
        panic!("{test}: needs root ({why}); CI is set, so this fails rather than skips");
    }
    let _ = writeln!(std::io::stderr(), "skipped {test}: needs root ({why})");
    true
}

/// The effective user id, from /proc (no libc, so that every crate's tests can share this file).
fn effective_uid() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|uid| uid.parse().ok())
        .expect("the Uid line of /proc/self/status")
}

/// The running test's name: the harness names each test's thread after it.
fn test_name() -> String {
    std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .unwrap_or("a test")
        .to_string()
}
