//! A results store as a user meets it: the reading commands open it read-only and create nothing
//! (not even in a directory they could write), read a store in a directory nobody may write, and
//! refuse a store that is not there instead of making an empty one; a measuring command creates the
//! default store's directory only, and says what it created.

use drivescope_testkit as common;

use common::{drivescope_cmd, skip_without_root, unmount};
use std::path::{Path, PathBuf};
use std::process::Output;

/// A directory of the test's own, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "drivescope-store-access-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(args: &[&str]) -> Output {
    drivescope_cmd()
        .args(args)
        .output()
        .expect("run drivescope")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

/// Two scans saved in `store`.
fn two_scans(store: &str) {
    for target in ["null:64M", "null:32M"] {
        let out = run(&[
            "scan", target, "--quiet", "--points", "64", "--store", store,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
}

/// Every reading command, on `store`: each exits 0 and prints something.
fn read_everything(store: &str, html: &Path) {
    let html = html.to_str().unwrap();
    let commands: [&[&str]; 7] = [
        &["runs"],
        &["runs", "--json"],
        &["show", "last"],
        &["export", "1", "--format", "csv"],
        &["compare", "1", "2"],
        &["report", "1", "2", "--output", html],
        &["runs", "--kind", "scan"],
    ];
    for c in commands {
        let mut args = c.to_vec();
        args.extend(["--store", store]);
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}:\n{}",
            text(&out.stderr)
        );
        assert!(
            !out.stdout.is_empty() || args[0] == "report",
            "{args:?} printed nothing"
        );
    }
}

#[test]
fn reading_commands_leave_no_file_beside_the_store() {
    let d = Scratch::new("nofiles");
    let store = d.0.join("runs.sqlite");
    let s = store.to_str().unwrap();
    two_scans(s);
    assert_eq!(
        names(&d.0),
        ["runs.sqlite"],
        "a finished writer leaves one file"
    );
    let out = Scratch::new("nofiles-out");
    read_everything(s, &out.0.join("report.html"));
    assert_eq!(
        names(&d.0),
        ["runs.sqlite"],
        "the reading commands created files beside the store"
    );
}

#[test]
fn a_store_in_a_directory_no_one_may_write_reads_as_well() {
    if skip_without_root("mounts a tmpfs and remounts it read-only") {
        return;
    }
    let d = Scratch::new("readonly");
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16m", "tmpfs"])
        .arg(&d.0)
        .status()
        .unwrap();
    assert!(mounted.success(), "mount a tmpfs");
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            unmount(self.0);
        }
    }
    let _unmount = Unmount(&d.0);
    let store = d.0.join("runs.sqlite");
    let s = store.to_str().unwrap();
    two_scans(s);
    let ro = std::process::Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(&d.0)
        .status()
        .unwrap();
    assert!(ro.success(), "remount read-only");
    // Even root cannot write there now: every reading command must still read the store.
    let out = Scratch::new("readonly-out");
    read_everything(s, &out.0.join("report.html"));
    assert_eq!(names(&d.0), ["runs.sqlite"]);
}

#[test]
fn a_mistyped_store_is_refused_and_nothing_is_created() {
    let d = Scratch::new("typo");
    let store = d.0.join("runs.sqlite");
    two_scans(store.to_str().unwrap());
    let typo = d.0.join("no-such-dir").join("runs.sqlite");
    let t = typo.to_str().unwrap();
    for c in [
        vec!["runs"],
        vec!["show", "last"],
        vec!["export", "1", "--format", "json"],
        vec!["compare", "1", "2"],
    ] {
        let mut args = c.clone();
        args.extend(["--store", t]);
        let out = run(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(
            err.starts_with(&format!(
                "drivescope: no results store at {t}; runs are saved to "
            )),
            "{args:?}: {err}"
        );
    }
    // A measuring command measures, and says why the run was not saved: no directory is made for a named store.
    let out = run(&["scan", "null:16M", "--quiet", "--store", t]);
    assert_eq!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "the run was not saved: there is no directory {} for the store",
            typo.parent().unwrap().display()
        )),
        "{err}"
    );
    assert_eq!(names(&d.0), ["runs.sqlite"], "nothing was created");
}

#[test]
fn the_default_store_is_created_with_its_directory_and_named() {
    let d = Scratch::new("default");
    let xdg = d.0.join("data");
    let out = drivescope_cmd()
        .env("XDG_DATA_HOME", &xdg)
        .args(["runs"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no results store at"), "{err}");
    assert!(!xdg.exists(), "runs created the default store's directory");

    let out = drivescope_cmd()
        .env("XDG_DATA_HOME", &xdg)
        .args(["scan", "null:16M", "--no-live"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    let store = xdg.join("drivescope").join("runs.sqlite");
    assert!(
        err.contains(&format!(
            "drivescope: created the results store {}",
            store.display()
        )),
        "{err}"
    );
    assert!(err.contains("saved as run 1"), "{err}");
    // The second run only says where it was saved.
    let out = drivescope_cmd()
        .env("XDG_DATA_HOME", &xdg)
        .args(["scan", "null:16M", "--no-live"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert!(!err.contains("created"), "{err}");
    assert!(err.contains("saved as run 2"), "{err}");
}
