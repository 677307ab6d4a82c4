//! `drivescope screen` reads SMART before and after each drive's scan through smartctl. On loop devices the
//! test creates, smartctl cannot reach a drive: each loop's column says `not read` once, the reason is said
//! once, and the verdict is what the scan alone gives. Needs root and smartctl (smartmontools); fails loudly
//! without them.

use common::typed::record_of;
use common::*;
use drivescope_probe::smart::{smartctl_path, NOT_INSTALLED};
use drivescope_record::{Grade, ScreenRecord};
use drivescope_testkit as common;
use std::process::Output;

const MIB: u64 = 1 << 20;

fn screen(paths: &[&str], path_env: Option<&str>) -> (ScreenRecord, String) {
    let mut c = drivescope_cmd();
    c.arg("screen")
        .args(paths)
        .args(["--shared-path", "0", "--json", "--quiet", "--no-store"]);
    if let Some(p) = path_env {
        c.env("PATH", p);
    }
    let out: Output = c.output().expect("run drivescope");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    // The summary as screen prints it without --json.
    let rec: ScreenRecord = record_of(&out);
    let mut text = Vec::new();
    drivescope_report::text::print_screen(&rec, &mut text).unwrap();
    (rec, String::from_utf8_lossy(&text).into_owned())
}

/// How many times the summary says `what`, a sentence that may be wrapped over lines.
fn said_in(text: &str, what: &str) -> usize {
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    words(text).matches(&words(what)).count()
}

/// The cells of the table row `label` in the human summary.
fn row(text: &str, label: &str) -> Vec<String> {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{label:<14}")))
        .unwrap_or_else(|| panic!("no row {label:?} in:\n{text}"));
    line[14..]
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn smart_that_cannot_reach_a_loop_device_is_said_once_and_changes_no_verdict() {
    if skip_without_root("creates loop devices") {
        return;
    }
    assert!(
        smartctl_path().is_some(),
        "smartctl is needed (apt-get install -y smartmontools)"
    );
    let loops = [TmpfsLoop::new(16 * MIB), TmpfsLoop::new(16 * MIB)];
    let paths: Vec<&str> = loops.iter().map(|l| l.path().to_str().unwrap()).collect();
    let mut targets = paths.clone();
    targets.push("null:16M");
    let pressure = common::busy::Pressure::start();
    let (g, text) = screen(&targets, None);
    assert_eq!(g.members.len(), 3);
    for (m, p) in g.members.iter().zip(&paths) {
        let expected = format!("smartctl {p}: Unable to detect device type");
        for (when, s) in [("before", &m.smart_before), ("after", &m.smart_after)] {
            let s = s
                .as_ref()
                .unwrap_or_else(|| panic!("{p}: SMART {when}: {m:?}"));
            assert!(!s.read, "{p}: a loop device has no SMART");
            assert_eq!(s.note.as_deref(), Some(expected.as_str()), "{p} {when}");
        }
        let v = m.verdict.as_ref().expect("a verdict");
        common::verdicts::assert_pass(v, &pressure, p);
        assert!(v.grade != Grade::Pass || v.reasons.is_empty(), "{p}: {v:?}");
        let said = format!("{p}: SMART not read: {expected}");
        assert_eq!(said_in(&text, &said), 1, "{said:?} once in:\n{text}");
    }
    // The null target is no drive: no readings, nothing said.
    let null = &g.members[2];
    assert_eq!((&null.smart_before, &null.smart_after), (&None, &None));
    assert_eq!(text.matches("SMART not read").count(), 2, "{text}");
    assert_eq!(row(&text, "SMART"), ["not read", "not read", "—"], "{text}");
    assert!(!text.contains("reallocated"), "no counts to show:\n{text}");
}

#[test]
fn without_smartctl_each_drive_says_so_once() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let lo = TmpfsLoop::new(16 * MIB);
    let p = lo.path().to_str().unwrap();
    let empty = std::env::temp_dir().join(format!("drivescope-no-tools-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let pressure = common::busy::Pressure::start();
    let (g, text) = screen(&[p], Some(empty.to_str().unwrap()));
    let _ = std::fs::remove_dir(&empty);
    let m = &g.members[0];
    let note = |s: &Option<drivescope_probe::Smart>| s.as_ref().and_then(|s| s.note.clone());
    assert_eq!(note(&m.smart_before).as_deref(), Some(NOT_INSTALLED));
    assert_eq!(note(&m.smart_after).as_deref(), Some(NOT_INSTALLED));
    common::verdicts::assert_pass(m.verdict.as_ref().expect("a verdict"), &pressure, p);
    assert_eq!(
        said_in(&text, &format!("{p}: {NOT_INSTALLED}")),
        1,
        "{text}"
    );
    assert_eq!(said_in(&text, "not installed"), 1, "{text}");
}
