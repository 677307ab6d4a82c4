//! `diagnose` on targets other than a lab disk: a directory (its test file takes the write experiments) and an
//! existing file (read only). Needs root for the loop-mounted file system.

use common::typed::record_in;
use common::*;
use drivescope_record::{DiagnoseRecord, Document, Experiment, Kind, Verdict};
use drivescope_testkit as common;

fn diagnose(args: &[&str]) -> (DiagnoseRecord, std::process::Output) {
    let out = drivescope_cmd()
        .arg("diagnose")
        .args(args)
        .args(["--json", "--quiet", "--no-store"])
        .output()
        .expect("run drivescope");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    let d: Document = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one document ({e}); stderr: {err}"));
    assert_eq!(d.kind(), Kind::Diagnose);
    (record_in(d), out)
}

fn verdict(d: &DiagnoseRecord, experiment: Experiment) -> Verdict {
    d.outcomes
        .iter()
        .find(|o| o.experiment == experiment)
        .map(|o| o.verdict)
        .unwrap_or_else(|| panic!("no outcome for {experiment:?}: {:?}", d.outcomes))
}

#[test]
fn a_directory_gets_a_test_file_with_write_experiments_and_no_zones() {
    if skip_without_root("mounts ext4 on a loop device") {
        return;
    }
    let fs = Ext4Mount::new(256 << 20);
    let (d, out) = diagnose(&[fs.path(), "--size", "64M", "--budget", "12s"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(d.header.kind, Kind::Diagnose);
    assert!(d.writes);
    assert_eq!(d.workload.size, 64 << 20);
    let write = d.write_cache.as_ref().expect("the write experiment's data");
    assert!(write.written > 0, "{write:?}");
    assert_eq!(
        verdict(&d, Experiment::Zones),
        Verdict::Skipped,
        "a file's positions are not the device's"
    );
    assert!(d.warm_up.as_ref().expect("the warm-up's data").points.len() > 10);
    // The test file is gone afterwards.
    let left: Vec<_> = std::fs::read_dir(fs.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("drivescope"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn an_existing_file_is_only_read() {
    if skip_without_root("mounts ext4 on a loop device") {
        return;
    }
    let fs = Ext4Mount::new(128 << 20);
    let file = format!("{}/data.bin", fs.path());
    std::fs::write(&file, vec![7u8; 32 << 20]).unwrap();
    let before = checksum(std::path::Path::new(&file));
    let (d, out) = diagnose(&[&file, "--budget", "6s"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!d.writes);
    assert_eq!(verdict(&d, Experiment::WriteCache), Verdict::Skipped);
    assert!(d.write_cache.is_none());
    assert_eq!(checksum(std::path::Path::new(&file)), before);
}

/// A null target has no behaviour to explain: refused in one line (exit 1) before anything runs,
/// instead of a diagnosis of absurd rates.
#[test]
fn a_null_target_is_refused_in_one_line() {
    let out = drivescope_cmd()
        .args(["diagnose", "null:1G", "--budget", "5s", "--no-store"])
        .output()
        .expect("run drivescope");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].starts_with("drivescope: null:1G: a null target completes every command at once"),
        "{err}"
    );
}

/// `--members` names an array's members where the system cannot: each is read alone and together before the
/// array, and the record says which were read. One member is no array: refused in one line.
#[test]
fn named_members_are_read_before_the_array_and_one_is_refused() {
    let dir = common::scratch::TestDir::new("diagnose-members", "files");
    let (target, a, b) = (dir.file("array.bin"), dir.file("a.bin"), dir.file("b.bin"));
    for f in [&target, &a, &b] {
        std::fs::write(f, vec![3u8; 16 << 20]).unwrap();
    }
    let members = format!("{a},{b}");
    let (d, out) = diagnose(&[&target, "--members", &members, "--budget", "6s"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = d.array.as_ref().expect("the array's reads");
    assert_eq!(r.array.kind, drivescope_record::ArrayKind::Named);
    let paths: Vec<String> = r
        .array
        .members
        .iter()
        .map(|m| m.dev_path.display().to_string())
        .collect();
    assert_eq!(paths, [a.clone(), b.clone()]);
    assert_eq!((r.alone_mb_per_s.len(), r.together_mb_per_s.len()), (2, 2));
    assert_eq!(r.readers, 2);
    assert_eq!(d.outcomes[0].experiment, Experiment::Array);
    // One member is refused before anything runs.
    let (code, stdout, err) = common::scratch::run(&[
        "diagnose",
        &target,
        "--members",
        &a,
        "--budget",
        "6s",
        "--no-store",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(err.contains("an array needs two or more"), "{err}");
}
