//! The `runs` table as a user reads it: columns as wide as their values (a long target shifts
//! nothing it does not have to), each run's headline result and how long it took, a device named
//! by more than a bare serial, and rows that fit the terminal's width.

use common::drivescope_cmd;
use common::scratch::TestDir;
use drivescope_testkit as common;

fn run(args: &[&str], columns: Option<usize>) -> (i32, String, String) {
    let mut c = drivescope_cmd();
    c.args(args);
    match columns {
        Some(n) => c.env("COLUMNS", n.to_string()),
        None => c.env_remove("COLUMNS"),
    };
    let out = c.output().expect("run drivescope");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The cells of a row, split on the two spaces between columns.
fn cells(row: &str) -> Vec<String> {
    row.split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(String::from)
        .collect()
}

#[test]
fn every_run_shows_its_result_and_duration_and_the_rows_fit_the_terminal() {
    let d = TestDir::new("rt", "table");
    let store = d.file("runs.sqlite");
    let deep = d.file(&format!(
        "{}scratch.img",
        "a-long-directory-name/".repeat(4)
    ));
    std::fs::create_dir_all(std::path::Path::new(&deep).parent().unwrap()).unwrap();
    std::fs::write(&deep, vec![1u8; 4 << 20]).unwrap();
    for args in [
        vec!["scan", "null:64M"],
        vec!["scan", &deep],
        vec![
            "bench",
            "null:64M",
            "--test",
            "SEQ1M Q1T1",
            "--rw",
            "read",
            "--runs",
            "1",
            "--duration",
            "100ms",
        ],
        vec!["screen", "null:32M", "null:16M", "--shared-path", "0"],
    ] {
        let (code, _, err) = run(&[&args[..], &["--store", &store, "--quiet"]].concat(), None);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    // A pipe: every column whole.
    let (code, wide, err) = run(&["runs", "--store", &store], None);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = wide.lines().collect();
    assert_eq!(
        cells(lines[0]),
        ["run", "kind", "state", "started", "took", "result", "device", "target", "host"]
    );
    // Newest first: the screen (and its drives' scans), the bench, the file scan, the null scan.
    let row = |kind: &str, target: &str| -> Vec<String> {
        lines
            .iter()
            .map(|l| cells(l))
            .find(|c| c[1] == kind && c.iter().any(|x| x == target))
            .unwrap_or_else(|| panic!("no {kind} of {target} in\n{wide}"))
    };
    let null_scan = row("scan", "null:64M");
    // The unit follows the rate (GB/s from 100 000 MB/s up), and a null scan's rate is the host's.
    assert!(
        null_scan[5].ends_with(" GB/s") || null_scan[5].ends_with(" MB/s"),
        "{null_scan:?}"
    );
    assert!(
        ["ns", "µs", "ms", "s"]
            .iter()
            .any(|u| null_scan[4].ends_with(&format!(" {u}"))),
        "{null_scan:?}"
    );
    assert_eq!(null_scan[6], "-", "{null_scan:?}");
    let bench = row("bench", "null:64M");
    assert!(
        bench[5].ends_with(" SEQ1M Q1T1 read") && bench[5].contains("B/s "),
        "{bench:?}"
    );
    let screen = row("screen", "null:32M, null:16M");
    assert_eq!(screen[5], "2 pass", "{screen:?}");
    let file = row("scan", &deep);
    assert!(file[5].ends_with("B/s"), "{file:?}");
    // Columns line up: every row's result starts where the heading's does.
    let at = lines[0].find("result").unwrap();
    for l in &lines[1..] {
        assert_eq!(l.chars().nth(at - 1), Some(' '), "{wide}");
        assert_ne!(l.chars().nth(at), Some(' '), "{wide}");
    }
    assert!(
        lines.iter().all(|l| l.len() > 100),
        "the target is long: {wide}"
    );

    // The device under a file: never a serial standing alone as if it were a name.
    let (_, json, _) = run(&["runs", "--json", "--store", &store], None);
    let list: serde_json::Value = serde_json::from_str(&json).unwrap();
    let dev = &list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["target"] == deep.as_str())
        .unwrap()["device"];
    let (model, name, serial) = (
        dev["model"].as_str(),
        dev["name"].as_str(),
        dev["serial"].as_str(),
    );
    let want = match (model, name, serial) {
        (Some(m), _, Some(s)) => format!("{m} ({s})"),
        (Some(m), _, None) => m.to_string(),
        (None, Some(n), Some(s)) => format!("{n} ({s})"),
        (None, Some(n), None) => n.to_string(),
        (None, None, Some(s)) => format!("serial {s}"),
        (None, None, None) => "-".into(),
    };
    assert_eq!(file[6], want, "{file:?}");

    // A terminal of 100 columns: every row fits, the long target cut in its middle.
    let (code, narrow, err) = run(&["runs", "--store", &store], Some(100));
    assert_eq!(code, 0, "{err}");
    for l in narrow.lines() {
        assert!(l.chars().count() <= 100, "{} > 100: {l}", l.chars().count());
    }
    let cut = narrow
        .lines()
        .find(|l| l.contains("…") && l.contains("img"))
        .unwrap_or_else(|| panic!("{narrow}"));
    let target = cells(cut)[7].clone();
    let (head, tail) = target.split_once('…').unwrap();
    assert!(deep.starts_with(head) && deep.ends_with(tail), "{target}");
}
