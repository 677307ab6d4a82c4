//! A soak or a diagnosis of a directory is stored as one of that directory, like a bench: its test
//! file is gone when the run ends, so the target is the directory (runs on it group), and the test
//! file is named beside it.

use common::drivescope_cmd;
use common::scratch::TestDir;
use drivescope_testkit as common;

fn stored_as_the_directory(kind: &str, args: &[&str]) {
    let d = TestDir::new("dr", kind);
    let dir = d.file("data");
    std::fs::create_dir(&dir).unwrap();
    let store = d.file("runs.sqlite");
    let out = drivescope_cmd()
        .args([kind, dir.as_str()])
        .args(args)
        .args(["--quiet", "--store", &store])
        .output()
        .expect("run drivescope");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{kind}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = drivescope_cmd()
        .args(["export", "last", "--format", "json", "--store", &store])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kind"], kind);
    assert_eq!(doc["target"]["path"], dir.as_str(), "{kind}");
    let tf = doc["test_file"]
        .as_str()
        .unwrap_or_else(|| panic!("{kind}: no test_file"));
    assert!(tf.starts_with(&format!("{dir}/")), "{kind}: {tf}");
    assert!(
        !std::path::Path::new(tf).exists(),
        "{kind}: the test file is removed"
    );
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{kind}: {left:?}");
}

#[test]
fn a_soak_of_a_directory_is_stored_as_the_directory() {
    stored_as_the_directory(
        "soak",
        &["--size", "8M", "--duration", "1s", "--interval", "0.25s"],
    );
}

#[test]
fn a_diagnosis_of_a_directory_is_stored_as_the_directory() {
    stored_as_the_directory("diagnose", &["--size", "16M", "--budget", "6s"]);
}
