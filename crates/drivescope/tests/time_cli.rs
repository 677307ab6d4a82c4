//! `drivescope time` without devices of its own: a failing command, `-i`, the instrument's own overhead on
//! `true`, cold runs refused to a user who is not root, and a stored run read back by show, compare, export
//! and report.

use common::typed::record;
use common::{drivescope_cmd, skip_without_root};
use drivescope_record::{ModeResult, TimeMode, TimeRecord};
use drivescope_testkit as common;
use std::path::PathBuf;
use std::process::Output;

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn time(args: &[&str]) -> Output {
    drivescope_cmd()
        .arg("time")
        .args(args)
        .output()
        .expect("run drivescope time")
}

fn json(args: &[&str]) -> TimeRecord {
    let mut all = vec!["--json", "--quiet", "--no-store"];
    all.extend_from_slice(args);
    let out = time(&all);
    let (o, e) = text(&out);
    assert!(out.status.success(), "{args:?}: {e}");
    record(o.as_bytes())
}

fn mode(d: &TimeRecord, mode: TimeMode) -> &ModeResult {
    d.mode(mode)
        .unwrap_or_else(|| panic!("no {mode} mode in {d:?}"))
}

#[test]
fn a_failing_command_fails_the_measurement_with_its_exit_code_unless_ignored() {
    let cmd = "echo broken-input >&2; exit 7";
    let out = time(&["--warm", "--no-store", "--runs", "3", "--shell", cmd]);
    let (o, e) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{o}{e}");
    assert!(e.contains("failed with exit code 7"), "{e}");
    assert!(e.contains("-i to ignore"), "{e}");
    // Its output was hidden, but a failure shows its stderr.
    assert!(e.contains("  | broken-input"), "{e}");
    assert!(o.is_empty(), "no result for a failed measurement: {o}");
    // One that fails only from its second run on: the untimed run passes, the first timed run fails.
    let dir = std::env::temp_dir().join(format!("drivescope-time-fail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let second = "test -e marker && exit 9; touch marker";
    let cwd = dir.to_str().unwrap();
    let out = time(&["--warm", "--no-store", "--cwd", cwd, "--shell", second]);
    let _ = std::fs::remove_dir_all(&dir);
    let e = text(&out).1;
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains("failed with exit code 9 in warm run 1 "), "{e}");

    let d = json(&["--warm", "-i", "--runs", "3", "--shell", cmd]);
    let warm = mode(&d, TimeMode::Warm);
    let runs = &warm.runs;
    assert_eq!(runs.len(), 3);
    assert!(runs.iter().all(|r| r.exit_code == Some(7)), "{warm:?}");
    assert_eq!(warm.summary.failed, 3);
    assert_eq!(warm.summary.count, 3, "-i counts the failed runs");
    // Output is hidden unless asked for.
    // (printf joins the line, so the command line printed in the summary does not hold it.)
    let says = "printf 'visible-%s\\n' line";
    let shown = time(&[
        "--warm",
        "--no-store",
        "--runs",
        "1",
        "--show-output",
        "--shell",
        says,
    ]);
    assert!(
        text(&shown).0.contains("visible-line"),
        "{:?}",
        text(&shown)
    );
    let hidden = time(&["--warm", "--no-store", "--runs", "1", "--shell", says]);
    assert!(
        !text(&hidden).0.contains("visible-line"),
        "{:?}",
        text(&hidden)
    );
}

#[test]
fn the_instruments_own_overhead_on_true_is_small() {
    // `true` does nothing: its wall time is fork, exec, exit and wait, plus what drivescope adds around
    // them. The bench script measures the overhead against hyperfine; this bound catches a regression
    // (a snapshot or a thread join inside the timed window) even on a loaded machine.
    let d = json(&["--warm", "--runs", "30", "--", "true"]);
    let s = &mode(&d, TimeMode::Warm).summary.wall_ns;
    let median = s.median;
    assert!(median < 20e6, "median {median} ns per run of true");
    assert!(s.min > 0.0);
}

#[test]
fn cold_is_refused_in_one_line_to_a_user_who_is_not_root_and_warm_still_works() {
    if skip_without_root("runs drivescope as another user with setpriv") {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_drivescope");
    let as_nobody = |args: &[&str]| {
        std::process::Command::new("setpriv")
            .args([
                "--reuid=nobody",
                "--regid=nogroup",
                "--clear-groups",
                bin,
                "time",
            ])
            .args(args)
            .current_dir("/")
            .output()
            .expect("setpriv (util-linux)")
    };
    let out = as_nobody(&["--cold", "--no-store", "--cwd", "/", "--", "true"]);
    let (o, e) = text(&out);
    assert_eq!(out.status.code(), Some(3), "{o}{e}");
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    assert!(e.contains("--cold") && e.contains("needs root"), "{e}");
    // Without --cold or --warm a user who is not root gets warm runs, and is told so.
    let out = as_nobody(&[
        "--no-store",
        "--runs",
        "2",
        "--cwd",
        "/",
        "--json",
        "--",
        "true",
    ]);
    let (o, e) = text(&out);
    assert!(out.status.success(), "{e}");
    let d: TimeRecord = record(o.as_bytes());
    let modes: Vec<TimeMode> = d.modes.iter().map(|m| m.mode).collect();
    assert_eq!(modes, [TimeMode::Warm]);
    assert!(e.contains("warm runs only"), "{e}");
    let out = as_nobody(&[
        "--warm",
        "--no-store",
        "--runs",
        "2",
        "--cwd",
        "/",
        "--",
        "true",
    ]);
    assert!(out.status.success(), "{}", text(&out).1);
}

#[test]
fn a_stored_time_run_is_shown_compared_exported_and_charted() {
    let dir = std::env::temp_dir().join(format!("drivescope-time-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = dir.join("runs.sqlite");
    let s = store.to_str().unwrap();
    for cmd in ["true", "sleep 0.05"] {
        let out = time(&[
            "--warm", "--runs", "3", "--quiet", "--store", s, "--shell", cmd,
        ]);
        let (o, e) = text(&out);
        assert!(out.status.success(), "{e}");
        assert!(o.contains("warm: ") && o.contains("findings:"), "{o}");
    }
    let read = |args: &[&str]| {
        let out = drivescope_cmd()
            .args(args)
            .args(["--store", s])
            .output()
            .unwrap();
        let (o, e) = text(&out);
        assert!(out.status.success(), "{args:?}: {e}");
        o
    };
    let runs = read(&["runs"]);
    assert_eq!(
        runs.lines().filter(|l| l.contains("time")).count(),
        2,
        "{runs}"
    );
    let show = read(&["show", "2"]);
    assert!(
        show.starts_with("drivescope time: sleep 0.05 (in "),
        "{show}"
    );
    assert!(show.contains("(run 2 · time · "), "{show}");
    let cmp = read(&["compare", "1", "2"]);
    let row = cmp
        .lines()
        .find(|l| l.contains("Warm time mean"))
        .unwrap_or_else(|| panic!("{cmp}"));
    assert!(row.contains("ms"), "{row}");
    assert!(cmp.contains("Warm disk busy"), "{cmp}");
    let csv = read(&["export", "2", "--format", "csv"]);
    let head = csv.lines().next().unwrap();
    assert!(head.contains("wall_ns") && head.contains("mode"), "{head}");
    assert_eq!(csv.lines().count(), 1 + 3, "{csv}");
    let html = dir.join("r.html");
    read(&["report", "1", "2", "-o", html.to_str().unwrap()]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Run times, cold and warm"), "no time chart");
    let _ = std::fs::remove_dir_all(PathBuf::from(&dir));
}
