//! What `bench` prints and stores, as a user meets it: the headline names what it ran on (an
//! existing file, read only; a test file made in a directory), says `1 run`, gives no spread for
//! a single run and no polling jargon; a bench on a directory is stored with the directory as its
//! target, so runs on it group.

use common::scratch::run;
use common::scratch::TestDir;
use drivescope_testkit as common;

const SHORT: [&str; 6] = [
    "--runs",
    "1",
    "--duration",
    "200ms",
    "--test",
    "RND4K Q32T1",
];

#[test]
fn an_existing_file_is_named_as_such_with_one_run_and_no_jargon() {
    let d = TestDir::new("bt", "file");
    let f = d.file("scratch.img");
    std::fs::write(&f, vec![7u8; 8 << 20]).unwrap();
    // RND4K Q32T1 polls its completions under --reap auto: the note must be in words.
    let (code, out, err) = run(&[&["bench", &f, "--no-store"][..], &SHORT].concat());
    assert_eq!(code, 0, "{err}");
    let head = out.lines().next().unwrap();
    assert_eq!(
        head,
        format!("drivescope bench {f} (the existing file, 8.0 MiB, read only, 1 run × 200ms)")
    );
    assert!(!out.contains("test file of"), "{out}");
    assert!(!out.contains("1 runs"), "{out}");
    assert!(!out.contains("± 0.0") && !out.contains(" ± "), "{out}");
    assert!(
        !out.contains("fio sleeps") && !out.contains("completions polled"),
        "{out}"
    );
    assert!(!head.contains("--reap"), "{head}");
    if let Some(note) = out.lines().find(|l| l.contains("--reap")) {
        assert!(
            note.starts_with("  note: a CPU watched for the completions of RND4K Q32T1 read"),
            "{note}"
        );
    }
}

#[test]
fn several_runs_show_their_spread() {
    let (code, out, err) = run(&[
        "bench",
        "null:64M",
        "--runs",
        "2",
        "--duration",
        "100ms",
        "--test",
        "SEQ1M Q1T1",
        "--rw",
        "read",
        "--no-store",
    ]);
    assert_eq!(code, 0, "{err}");
    let head = out.lines().next().unwrap();
    assert_eq!(
        head,
        "drivescope bench null:64M (the null target, 64.0 MiB, 2 runs × 100ms, best run shown)"
    );
    let row = out
        .lines()
        .filter(|l| l.starts_with("  SEQ1M Q1T1"))
        .nth(1)
        .unwrap();
    assert!(row.contains(" ± "), "{row}");
}

#[test]
fn a_directory_bench_is_stored_as_the_directory() {
    let d = TestDir::new("bt", "dir");
    let dir = d.file("data");
    std::fs::create_dir(&dir).unwrap();
    let store = d.file("runs.sqlite");
    for _ in 0..2 {
        let (code, out, err) = run(&[
            &["bench", &dir, "--size", "8M", "--store", &store][..],
            &SHORT,
        ]
        .concat());
        assert_eq!(code, 0, "{err}");
        let head = out.lines().next().unwrap();
        assert!(
            head.starts_with(&format!(
                "drivescope bench {dir} (a test file of 8.0 MiB made there, random data, 1 run × 200ms"
            )),
            "{head}"
        );
    }
    // Both runs carry the directory, so they group; the test file is named beside it.
    let (code, json, err) = run(&["runs", "--json", "--store", &store]);
    assert_eq!(code, 0, "{err}");
    let list: serde_json::Value = serde_json::from_str(&json).unwrap();
    let targets: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["target"].as_str().unwrap())
        .collect();
    assert_eq!(targets, [dir.as_str(), dir.as_str()]);
    let (code, doc, err) = run(&["export", "last", "--format", "json", "--store", &store]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(doc["target"]["path"], dir.as_str());
    let tf = doc["test_file"].as_str().unwrap();
    assert!(
        tf.starts_with(&format!("{dir}/drivescope-test-")) && tf.ends_with(".tmp"),
        "{tf}"
    );
    assert!(
        !std::path::Path::new(tf).exists(),
        "the test file is removed"
    );
    // The stored run prints as it did.
    let (code, shown, err) = run(&["show", "last", "--store", &store]);
    assert_eq!(code, 0, "{err}");
    assert!(
        shown.contains("(a test file of 8.0 MiB made there,"),
        "{shown}"
    );
}
