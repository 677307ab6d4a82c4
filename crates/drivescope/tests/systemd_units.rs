//! The systemd units in contrib/systemd: `systemd-analyze verify` passes them (against a root
//! that holds the system's own units and this binary as /usr/bin/drivescope), the man pages
//! they name exist, the weekly screen only reads, and its command line, with the example
//! settings and null targets for drives, runs and saves into the store. Fails loudly without
//! systemd-analyze (Debian: systemd; .ci/run installs it).

use common::serve::ds;
use drivescope_testkit as common;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const UNITS: &[&str] = &[
    "drivescope-screen.service",
    "drivescope-screen.timer",
    "drivescope-serve.service",
];

fn contrib() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contrib/systemd")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(contrib().join(name)).unwrap()
}

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = e.file_type().unwrap();
        let dest = to.join(e.file_name());
        if t.is_dir() {
            copy_dir(&e.path(), &dest);
        } else if t.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), dest).unwrap();
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// `Key=value` lines of a unit (the last of each key).
fn keys(unit: &str) -> BTreeMap<String, String> {
    unit.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

#[test]
fn systemd_analyze_verifies_the_units() {
    let analyze = Command::new("systemd-analyze").arg("--version").output();
    assert!(
        analyze.is_ok_and(|o| o.status.success()),
        "systemd-analyze is not installed (Debian: apt-get install systemd); .ci/run installs it"
    );
    let system = ["/usr/lib/systemd/system", "/lib/systemd/system"]
        .into_iter()
        .map(Path::new)
        .find(|p| p.join("sysinit.target").exists())
        .expect("the system's units (sysinit.target) to verify against");
    let root =
        Dir(Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("systemd-root-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&root.0);
    copy_dir(system, &root.0.join("usr/lib/systemd/system"));
    let bin = root.0.join("usr/bin");
    std::fs::create_dir_all(&bin).unwrap();
    // Same file system as the binary (the target directory): a hard link, not a copy.
    std::fs::hard_link(env!("CARGO_BIN_EXE_drivescope"), bin.join("drivescope"))
        .or_else(|_| {
            std::fs::copy(env!("CARGO_BIN_EXE_drivescope"), bin.join("drivescope")).map(|_| ())
        })
        .unwrap();
    let etc = root.0.join("etc/systemd/system");
    std::fs::create_dir_all(&etc).unwrap();
    for u in UNITS {
        std::fs::copy(contrib().join(u), etc.join(u)).unwrap();
    }
    let out = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(format!("--root={}", root.0.display()))
        .args(UNITS.iter().map(|u| etc.join(u)))
        .current_dir(&root.0)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // A unit with a key systemd ignores still exits 0: every warning counts.
    assert!(out.status.success() && err.trim().is_empty(), "{err}");

    // The man pages the units name (checked here, as --man=no leaves them out).
    let man = root.0.join("man");
    ds(&["manpage", "--dir", man.to_str().unwrap()]);
    for u in UNITS {
        let doc = keys(&read(u))["Documentation"].clone();
        let page = doc
            .strip_prefix("man:")
            .and_then(|p| p.strip_suffix("(1)"))
            .unwrap_or_else(|| panic!("{u}: {doc}"));
        assert!(man.join(format!("{page}.1")).is_file(), "{u}: no {page}.1");
    }
}

#[test]
fn the_weekly_screen_reads_only_and_its_command_runs() {
    let service = keys(&read("drivescope-screen.service"));
    let timer = keys(&read("drivescope-screen.timer"));
    assert_eq!(timer["OnCalendar"], "weekly");
    assert_eq!(timer["WantedBy"], "timers.target");
    let exec = &service["ExecStart"];
    let defaults = keys(&read("drivescope-screen.default"));
    let args = &defaults["SCREEN_ARGS"];
    for word in ["--write", "--destructive", "--verify", "--force"] {
        assert!(
            !exec.contains(word) && !args.contains(word),
            "{exec} {args}"
        );
    }
    // The example's range is what keeps the screen to minutes.
    assert!(args.contains("--length"), "{args}");

    // The command line as systemd builds it (unquoted $VAR split at spaces), with null targets
    // for the drives and a store of its own.
    let dir = Dir(PathBuf::from(format!(
        "/dev/shm/ds-systemd-{}",
        std::process::id()
    )));
    let _ = std::fs::remove_dir_all(&dir.0);
    std::fs::create_dir_all(&dir.0).unwrap();
    let store = dir.0.join("runs.sqlite");
    let mut argv: Vec<String> = Vec::new();
    for w in exec.split_whitespace().skip(1) {
        match w {
            "$DRIVES" => argv.extend(["null:20G".to_string(), "null:24G".to_string()]),
            "$SCREEN_ARGS" => {
                argv.extend(args.trim_matches('"').split_whitespace().map(String::from))
            }
            "/var/lib/drivescope/runs.sqlite" => argv.push(store.to_str().unwrap().to_string()),
            w => argv.push(w.to_string()),
        }
    }
    assert_eq!(argv[0], "screen", "{exec}");
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    ds(&argv);
    let st =
        drivescope_store::Store::open_read_only(drivescope_store::Location::Sqlite(store.clone()))
            .unwrap();
    let all = drivescope_store::ListFilter::default();
    let screens = st.runs_of::<drivescope_record::ScreenRecord>(&all).unwrap();
    assert_eq!(screens.count(), 1);
    // Each drive's scan covered the range, not the whole drive.
    let scans: Vec<u64> = st
        .runs_of::<drivescope_record::ScanRecord>(&all)
        .unwrap()
        .map(|r| r.unwrap().1.length)
        .collect();
    assert_eq!(scans, [16 << 30, 16 << 30]);
}
