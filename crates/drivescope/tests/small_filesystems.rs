//! Directories on small file systems: the test file fits the free space. The default size
//! shrinks to what fits (said on stderr); a size the user gave that does not fit is refused in
//! one line naming the free space and `--size`. On a 48 MiB tmpfs the default 1 GiB used to
//! die with ENOSPC from the I/O engine.

use drivescope_testkit as common;

use common::scratch::run;
use common::{skip_without_root, unmount};
use std::path::PathBuf;

/// A tmpfs of `size` mounted on a fresh directory; unmounted and removed when dropped.
struct SmallFs(PathBuf);

impl SmallFs {
    fn mount(tag: &str, size: &str) -> SmallFs {
        let dir = std::env::temp_dir().join(format!("ds-small-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let st = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .status()
            .unwrap();
        assert!(st.success(), "mount -t tmpfs -o size={size}");
        SmallFs(dir)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }

    /// Files left in the file system (a test file must be removed).
    fn left(&self) -> Vec<String> {
        std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        unmount(&self.0);
        let _ = std::fs::remove_dir(&self.0);
    }
}

const QUICK: [&str; 8] = [
    "--test",
    "RND4K Q1T1",
    "--runs",
    "1",
    "--duration",
    "100ms",
    "--json",
    "--no-store",
];

#[test]
fn a_bench_of_a_48_mib_tmpfs_shrinks_the_default_test_file_and_says_so() {
    if skip_without_root("mounts tmpfs file systems") {
        return;
    }
    let fs = SmallFs::mount("bench", "48M");
    let mut args = vec!["bench", fs.path()];
    args.extend(QUICK);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "stderr: {err}");
    // 48 MiB free: a tenth (4.8 MiB) is left to the file system, 43 whole MiB are used.
    assert!(
        err.contains("has 48.0 MiB free: the test file is 43.0 MiB instead of 1.0 GiB"),
        "stderr: {err}"
    );
    assert_eq!(err.lines().count(), 1, "one warning line: {err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(doc["size"].as_u64(), Some(43 << 20), "{doc}");
    assert!(fs.left().is_empty(), "test file left: {:?}", fs.left());
}

#[test]
fn a_size_that_does_not_fit_is_refused_in_one_line() {
    if skip_without_root("mounts tmpfs file systems") {
        return;
    }
    let fs = SmallFs::mount("given", "48M");
    let mut args = vec!["bench", fs.path(), "--size", "1G"];
    args.extend(QUICK);
    let (code, out, err) = run(&args);
    assert_eq!(code, 3, "refused (exit 3); stderr: {err}");
    assert!(out.is_empty(), "nothing on stdout: {out}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(
        err.contains(
            "has 48.0 MiB free: a 1.0 GiB test file does not fit; give --size 43M or less"
        ),
        "stderr: {err}"
    );
    assert!(fs.left().is_empty(), "test file left: {:?}", fs.left());
    // The size it names fits.
    let mut args = vec!["bench", fs.path(), "--size", "43M"];
    args.extend(QUICK);
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "stderr: {err}");
    assert!(err.is_empty(), "no warning for a size that fits: {err}");
}

#[test]
fn a_file_system_too_small_for_any_test_file_is_refused() {
    if skip_without_root("mounts tmpfs file systems") {
        return;
    }
    let fs = SmallFs::mount("tiny", "8M");
    let mut args = vec!["bench", fs.path()];
    args.extend(QUICK);
    let (code, _, err) = run(&args);
    assert_eq!(code, 3, "refused (exit 3); stderr: {err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(err.contains("has 8.0 MiB free"), "stderr: {err}");
}

#[test]
fn a_diagnosis_of_a_small_tmpfs_runs_on_what_fits() {
    if skip_without_root("mounts tmpfs file systems") {
        return;
    }
    let fs = SmallFs::mount("diagnose", "64M");
    let (code, out, err) = run(&[
        "diagnose",
        fs.path(),
        "--budget",
        "5s",
        "--json",
        "--no-store",
    ]);
    assert_eq!(code, 0, "stderr: {err}");
    assert!(
        err.contains("the test file is 57.0 MiB instead of 1.0 GiB"),
        "stderr: {err}"
    );
    let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(doc["size"].as_u64(), Some(57 << 20), "{doc}");
    assert!(fs.left().is_empty(), "test file left: {:?}", fs.left());
}
